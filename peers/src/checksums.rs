//! Checksum throughput: the reader's portable, table-driven CRC-32C (what
//! `LidiaFile::verify_checksums` runs, with no hardware instructions so it works in any
//! `no_std` target) against the `crc32c` crate the builder uses (SSE 4.2 / ARMv8 CRC
//! instructions where present), on the same 64 MiB buffer.

use std::hint::black_box;

use crate::lookups::human_duration;
use crate::measure::throughput;

/// A CRC-32C implementation.
type Checksum = fn(&[u8]) -> u32;

/// Prints one table row per implementation, in GB/s (10^9 bytes per second).
pub fn run() -> Result<(), String> {
    let buffer: Vec<u8> = (0..64u32 << 20)
        .map(|x| (x.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let expected = crc32c::crc32c(&buffer);
    if symblob::lidia::crc32c(&buffer) != expected {
        return Err("the reader's CRC-32C disagrees with the crc32c crate".into());
    }
    println!("### checksums (64 MiB buffer, median pass)\n");
    println!("| implementation | GB/s | one pass |");
    println!("|---|---:|---:|");
    let rows: [(&str, Checksum); 2] = [
        (
            "reader: symblob::lidia::crc32c (portable tables)",
            symblob::lidia::crc32c,
        ),
        ("builder: crc32c crate (hardware CRC32)", crc32c::crc32c),
    ];
    for (name, f) in rows {
        let (passes_per_second, _) = throughput(1, 1.0, || {
            black_box(f(black_box(&buffer)));
            (1, 1)
        });
        let seconds = 1.0 / passes_per_second;
        println!(
            "| {name} | {:.2} | {} |",
            buffer.len() as f64 / seconds / 1e9,
            human_duration(std::time::Duration::from_secs_f64(seconds))
        );
    }
    println!();
    Ok(())
}
