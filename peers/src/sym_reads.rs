//! Reading a Breakpad `.sym` file, side by side: `symblob convert FILE --to lidia` (read,
//! parse into the model, write a Lidia file) against the two Rust parsers users would
//! otherwise load a `.sym` file with, rust-minidump's `breakpad-symbols` (what
//! `minidump-stackwalk` uses) and blazesym's Breakpad source. Each runs as its own process
//! (wall time, CPU time and peak resident set from `wait4`), the three in turn in every
//! round so that a change of the machine's load hits them alike.

use std::path::Path;
use std::process::Command;

use blazesym::symbolize::source::{Breakpad, Source};
use blazesym::symbolize::{Input, Symbolizer};

use crate::lookups::human_duration;
use crate::measure::{run_measured, ProcessCost};
use crate::Args;

/// `sym-reads --sym FILE --symblob CLI --out-dir DIR [--label L] [--repeat N]`: the table
/// of the three readers (median of `--repeat` rounds, default 5), with each one's ratio to
/// the faster of the two peers.
pub fn run(args: &Args) -> Result<(), String> {
    let sym = args.path("sym").ok_or("--sym is required")?;
    let symblob = args.path("symblob").ok_or("--symblob is required")?;
    let out_dir = args.path("out-dir").ok_or("--out-dir is required")?;
    let label = args.get("label").unwrap_or("file");
    let repeat: usize = args.number("repeat").unwrap_or(5).max(1);
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let lidia = out_dir.join(format!("{label}.sym.lidia"));
    let this = std::env::current_exe().map_err(|e| e.to_string())?;

    let mut convert = Command::new(&symblob);
    convert
        .args(["convert", "--quiet", "--to", "lidia", "-o"])
        .arg(&lidia)
        .arg(&sym);
    let last = last_func_address(&sym).map_err(|e| format!("{}: {e}", sym.display()))?;
    let parse = |parser: &str| {
        let mut c = Command::new(&this);
        c.args(["sym-parse", parser])
            .arg(&sym)
            .arg(format!("{last:x}"));
        c
    };
    // A command runs again each time it is spawned.
    let mut readers = [
        ("symblob convert --to lidia (read, parse, write)", convert),
        (
            "breakpad-symbols 0.27 (read, parse)",
            parse("breakpad-symbols"),
        ),
        ("blazesym 0.2 (read, parse, one lookup)", parse("blazesym")),
    ];
    let mut runs: Vec<Vec<ProcessCost>> = vec![Vec::new(); readers.len()];
    for _ in 0..repeat {
        for ((name, command), runs) in readers.iter_mut().zip(&mut runs) {
            // `convert` never overwrites a file: each round writes it anew.
            let _ = std::fs::remove_file(&lidia);
            runs.push(run_measured(command).map_err(|e| format!("{name}: {e}"))?);
        }
    }
    let medians: Vec<ProcessCost> = runs
        .iter_mut()
        .map(|r| {
            r.sort_by_key(|c| c.wall);
            r[r.len() / 2]
        })
        .collect();
    let best_peer = medians[1].wall.min(medians[2].wall);
    let size = std::fs::metadata(&sym).map_or(0, |m| m.len());
    println!(
        "### reading a .sym file: {label} ({:.1} MB, median of {repeat})\n",
        size as f64 / 1e6
    );
    println!("| reader | wall | CPU | peak RSS MiB | wall ÷ faster peer |");
    println!("|---|---:|---:|---:|---:|");
    for ((name, _), cost) in readers.iter().zip(&medians) {
        println!(
            "| {name} | {} | {} | {:.0} | {:.2} |",
            human_duration(cost.wall),
            human_duration(cost.cpu),
            cost.peak_kib as f64 / 1024.0,
            cost.wall.as_secs_f64() / best_peer.as_secs_f64(),
        );
    }
    println!();
    Ok(())
}

/// `sym-parse PARSER FILE LAST`, the child of [`run`]: reads and parses `FILE` with
/// `PARSER` (`breakpad-symbols` or `blazesym`) and prints what shows the whole file was
/// parsed: the number of functions, or the name blazesym finds at `LAST`, the last `FUNC`
/// record's address (hexadecimal; blazesym parses the whole file when first asked).
pub fn parse(parser: &str, path: &Path, last: u64) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    match parser {
        "breakpad-symbols" => {
            let bytes = std::fs::read(path).map_err(|e| err(&e))?;
            let file = breakpad_symbols::SymbolFile::from_bytes(&bytes).map_err(|e| err(&e))?;
            println!("{} functions", file.functions.ranges_values().count());
        }
        "blazesym" => {
            let symbolizer = Symbolizer::new();
            let source = Source::from(Breakpad::new(path));
            let found = symbolizer
                .symbolize_single(&source, Input::FileOffset(last))
                .map_err(|e| err(&e))?;
            let name = found.as_sym().map(|s| s.name.to_string());
            println!("{last:#x}: {}", name.ok_or_else(|| err(&"not found"))?);
        }
        other => return Err(format!("unknown parser {other}")),
    }
    Ok(())
}

/// The address of the last `FUNC` record of a `.sym` file.
fn last_func_address(path: &Path) -> std::io::Result<u64> {
    let bytes = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let line = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("FUNC "))
        .ok_or_else(|| std::io::Error::other("no FUNC record"))?;
    let address = line
        .trim_start_matches("m ")
        .split(' ')
        .next()
        .unwrap_or("");
    u64::from_str_radix(address, 16).map_err(std::io::Error::other)
}
