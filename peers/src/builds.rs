//! The build comparison: each builder runs as its own process on the same ELF file; wall
//! time, CPU time and peak resident set come from `wait4`. The outputs are the inputs of
//! the lookup comparison.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::lookups::human_duration;
use crate::measure::{run_measured, ProcessCost};
use crate::Args;

/// One builder: a name, the output's extension, the command that writes it and the
/// extension of the peer its ratios are taken to.
struct Builder {
    name: &'static str,
    extension: &'static str,
    command: Command,
    peer: &'static str,
}

/// The extension of `llvm-gsymutil`'s output: the peer of most rows.
const GSYMUTIL: &str = "gsym";
/// The extension of `dump_syms`'s output: the Breakpad build's peer.
const DUMP_SYMS: &str = "dump_syms.sym";

/// `builds`: runs every builder `--repeat` times (default 3), prints the table with each
/// one's ratios to its peer (`llvm-gsymutil`, or `dump_syms` for the Breakpad build),
/// appends rows to `--tsv`.
pub fn run(args: &Args) -> Result<(), String> {
    let elf = args.path("elf").ok_or("--elf is required")?;
    let symblob = args
        .path("symblob")
        .ok_or("--symblob (the CLI binary) is required")?;
    let out_dir = args.path("out-dir").ok_or("--out-dir is required")?;
    let label = args.get("label").unwrap_or("binary").to_owned();
    let gsymutil = args
        .get("gsymutil")
        .unwrap_or("llvm-gsymutil-14")
        .to_owned();
    let dump_syms = args.get("dump-syms").unwrap_or("dump_syms").to_owned();
    let repeat: usize = args.number("repeat").unwrap_or(3).max(1);
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let out = |ext: &str| out_dir.join(format!("{label}.{ext}"));

    let mut builders = vec![
        Builder {
            name: "symblob lidia build --dwarf --files --lines",
            extension: "lidia",
            command: cmd(
                &symblob,
                &["lidia", "build", "--dwarf", "--files", "--lines"],
                &elf,
            )
            .arg("-o")
            .arg(out("lidia"))
            .to_owned_command(),
            peer: GSYMUTIL,
        },
        Builder {
            name: "symblob gsym build",
            extension: "symblob.gsym",
            command: cmd(&symblob, &["gsym", "build", "--quiet"], &elf)
                .arg("-o")
                .arg(out("symblob.gsym"))
                .to_owned_command(),
            peer: GSYMUTIL,
        },
        Builder {
            name: "llvm-gsymutil --convert",
            extension: "gsym",
            command: cmd(Path::new(&gsymutil), &["--convert"], &elf)
                .arg("--out-file")
                .arg(out("gsym"))
                .to_owned_command(),
            peer: GSYMUTIL,
        },
        Builder {
            name: "symbolic-symcache SymCacheConverter",
            extension: "symcache",
            command: cmd(
                &std::env::current_exe().map_err(|e| e.to_string())?,
                &["symcache-build"],
                &elf,
            )
            .arg(out("symcache"))
            .to_owned_command(),
            peer: GSYMUTIL,
        },
        Builder {
            name: "symblob ksym build (symbols only)",
            extension: "ksym",
            command: cmd(&symblob, &["ksym", "build", "-q"], &elf)
                .arg("-o")
                .arg(out("ksym"))
                .to_owned_command(),
            peer: GSYMUTIL,
        },
        Builder {
            name: "symblob breakpad build",
            extension: "symblob.sym",
            command: cmd(&symblob, &["breakpad", "build", "--quiet"], &elf)
                .arg("-o")
                .arg(out("symblob.sym"))
                .to_owned_command(),
            peer: DUMP_SYMS,
        },
        Builder {
            name: "dump_syms --inlines",
            extension: DUMP_SYMS,
            command: cmd(
                Path::new(&dump_syms),
                &["--inlines", "--no-generator"],
                &elf,
            )
            .arg("-o")
            .arg(out(DUMP_SYMS))
            .to_owned_command(),
            peer: DUMP_SYMS,
        },
    ];

    let mut results: Vec<(&str, &str, &str, ProcessCost, u64)> = Vec::new();
    for b in &mut builders {
        let mut runs = Vec::new();
        for _ in 0..repeat {
            match run_measured(&mut b.command) {
                Ok(cost) => runs.push(cost),
                Err(e) => {
                    eprintln!("{label}: {}: {e}", b.name);
                    break;
                }
            }
        }
        if runs.is_empty() {
            continue;
        }
        runs.sort_by_key(|c| c.wall);
        let median = runs[runs.len() / 2];
        let size = std::fs::metadata(out(b.extension)).map_or(0, |m| m.len());
        results.push((b.name, b.extension, b.peer, median, size));
    }

    // The peer's row, by its output's extension: its name and its cost.
    let peer_of = |extension: &str| results.iter().find(|r| r.1 == extension);
    println!("### builds: {label} (median of {repeat})\n");
    println!("| builder | wall | CPU | peak RSS MiB | output MB | peer | wall ÷ peer | peak RSS ÷ peer |");
    println!("|---|---:|---:|---:|---:|---|---:|---:|");
    for (name, _, peer, cost, size) in &results {
        let (peer_name, wall_ratio, mem_ratio) = match peer_of(peer) {
            Some((peer_name, _, _, p, _)) => (
                *peer_name,
                format!("{:.2}", cost.wall.as_secs_f64() / p.wall.as_secs_f64()),
                format!("{:.2}", cost.peak_kib as f64 / p.peak_kib.max(1) as f64),
            ),
            None => ("–", "–".into(), "–".into()),
        };
        println!(
            "| {name} | {} | {} | {:.0} | {:.2} | {peer_name} | {wall_ratio} | {mem_ratio} |",
            human_duration(cost.wall),
            human_duration(cost.cpu),
            cost.peak_kib as f64 / 1024.0,
            *size as f64 / 1e6,
        );
    }
    println!();
    if let Some(tsv) = args.path("tsv") {
        use std::io::Write;
        let functions = args.number::<usize>("functions").unwrap_or(0);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&tsv)
            .map_err(|e| format!("{}: {e}", tsv.display()))?;
        for (_, ext, _, cost, size) in &results {
            writeln!(
                f,
                "build\t{label}\t{functions}\t{ext}\t{}\t{}\t{}\t{size}",
                cost.wall.as_secs_f64(),
                cost.cpu.as_secs_f64(),
                cost.peak_kib
            )
            .map_err(|e| format!("{}: {e}", tsv.display()))?;
        }
    }
    Ok(())
}

/// `program fixed… elf`.
fn cmd(program: &Path, fixed: &[&str], elf: &PathBuf) -> Command {
    let mut c = Command::new(program);
    c.args(fixed).arg(elf);
    c
}

/// Turns the `&mut Command` the builder methods return back into an owned one.
trait ToOwnedCommand {
    fn to_owned_command(&mut self) -> Command;
}

impl ToOwnedCommand for Command {
    fn to_owned_command(&mut self) -> Command {
        let mut c = Command::new(self.get_program());
        c.args(self.get_args());
        c
    }
}
