//! The lookup comparison: the parent samples the workload, runs each tool in a child
//! process of this same binary (so every tool's peak memory is its own), and prints one
//! table per kind of lookup with each tool's ratio to the best peer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::measure::{peak_rss_kib, Measurement};
use crate::others::{self, BlazeSource};
use crate::ours::Workload;
use crate::{ours, sample, Args};

/// The kinds of lookup compared, each with its tools (ours first).
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "frames",
        &[
            "symblob-lidia",
            "symblob-lidia-batch",
            "symblob-gsym",
            "symblob-gsym-indexed",
            "symblob-gsym-indexed-batch",
            "addr2line",
            "blazesym-dwarf",
            "blazesym-gsym",
            "symcache",
        ],
    ),
    (
        "names",
        &[
            "symblob-lidia-names",
            "symblob-lidia-names-batch",
            "symblob-ksym",
            "symblob-ksym-batch",
            "symblob-ksym-formatted",
            "symblob-ksym2",
            "symblob-ksym2-batch",
            "symblob-ksym2-formatted",
            "addr2line-symtab",
            "blazesym-elf",
        ],
    ),
    (
        "name-to-address",
        &[
            "symblob-ksym-name",
            "symblob-ksym-name-plain",
            "symblob-ksym2-name",
            "blazesym-name",
        ],
    ),
];

/// Whether a tool is one of ours.
pub fn is_ours(tool: &str) -> bool {
    tool.starts_with("symblob")
}

/// The input files of one binary.
struct Inputs {
    elf: PathBuf,
    lidia: Option<PathBuf>,
    ksym: Option<PathBuf>,
    /// A ksym-bin v2 blob of the same binary (`--ksym2`), for the `symblob-ksym2*` tools.
    ksym2: Option<PathBuf>,
    gsym: Option<PathBuf>,
    symcache: Option<PathBuf>,
}

impl Inputs {
    fn from_args(args: &Args) -> Result<Self, String> {
        Ok(Inputs {
            elf: args.path("elf").ok_or("--elf is required")?,
            lidia: args.path("lidia"),
            ksym: args.path("ksym"),
            ksym2: args.path("ksym2"),
            gsym: args.path("gsym"),
            symcache: args.path("symcache"),
        })
    }

    /// Whether the tool's input exists.
    fn has(&self, tool: &str) -> bool {
        match tool {
            "symblob-lidia"
            | "symblob-lidia-batch"
            | "symblob-lidia-names"
            | "symblob-lidia-names-batch" => self.lidia.is_some(),
            "symblob-ksym"
            | "symblob-ksym-batch"
            | "symblob-ksym-formatted"
            | "symblob-ksym-name"
            | "symblob-ksym-name-plain" => self.ksym.is_some(),
            "symblob-ksym2"
            | "symblob-ksym2-batch"
            | "symblob-ksym2-formatted"
            | "symblob-ksym2-name" => self.ksym2.is_some(),
            "symblob-gsym"
            | "symblob-gsym-indexed"
            | "symblob-gsym-indexed-batch"
            | "blazesym-gsym" => self.gsym.is_some(),
            "symcache" => self.symcache.is_some(),
            _ => true,
        }
    }
}

/// `lookups`: samples the workload, runs every tool in a child, prints the tables and
/// appends rows to `--tsv` if given.
pub fn run(args: &Args) -> Result<(), String> {
    let inputs = Inputs::from_args(args)?;
    let label = args.get("label").unwrap_or("binary").to_owned();
    let count: usize = args.number("count").unwrap_or(100_000);
    let seconds = args.get("seconds").unwrap_or("1.0").to_owned();
    let only: Option<Vec<&str>> = args.get("tools").map(|t| t.split(',').collect());
    let work = args.path("work").unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;

    let functions = sample::functions(&inputs.elf)?;
    if functions.is_empty() {
        return Err(format!("{}: no sized functions", inputs.elf.display()));
    }
    let addrs = sample::addresses(&functions, count);
    let names = sample::names(&functions, count / 10);
    let addrs_file = work.join(format!("{label}.addrs"));
    let names_file = work.join(format!("{label}.names"));
    sample::write_addresses(&addrs_file, &addrs).map_err(|e| e.to_string())?;
    sample::write_names(&names_file, &names).map_err(|e| e.to_string())?;
    println!(
        "## {label}: {} functions; {} addresses, {} names\n",
        functions.len(),
        addrs.len(),
        names.len()
    );

    let baseline = child(args, "baseline", &addrs_file, &names_file, &seconds)?;
    // Child processes of one tool differ by up to 1.5× on a shared machine (memory
    // placement, neighbours), so each tool can run in several children, interleaved with
    // the other tools of its table; the median child is reported.
    let children: usize = args.number("children").unwrap_or(1).max(1);
    let mut rows: Vec<(String, String, Measurement)> = Vec::new();
    for (group, tools) in GROUPS {
        let selected: Vec<&str> = tools
            .iter()
            .copied()
            .filter(|tool| inputs.has(tool) && only.as_ref().is_none_or(|o| o.contains(tool)))
            .collect();
        let mut runs: BTreeMap<&str, Vec<Measurement>> = BTreeMap::new();
        for _ in 0..children {
            for &tool in &selected {
                match child(args, tool, &addrs_file, &names_file, &seconds) {
                    Ok(m) => runs.entry(tool).or_default().push(m),
                    Err(e) => eprintln!("{label}/{tool}: {e}"),
                }
            }
        }
        let results: BTreeMap<&str, Measurement> = runs
            .into_iter()
            .map(|(tool, mut ms)| {
                ms.sort_by(|a, b| a.per_second.total_cmp(&b.per_second));
                let median = ms.swap_remove(ms.len() / 2);
                (tool, median)
            })
            .collect();
        print_table(group, tools, &results, &baseline);
        for (tool, m) in results {
            rows.push((group.to_string(), tool.to_string(), m));
        }
    }
    if let Some(tsv) = args.path("tsv") {
        append_tsv(&tsv, &label, functions.len(), &rows)?;
    }
    Ok(())
}

fn print_table(
    group: &str,
    tools: &[&str],
    results: &BTreeMap<&str, Measurement>,
    baseline: &Measurement,
) {
    // A group none of whose tools ran (`--tools` chose others) prints nothing.
    if results.is_empty() {
        return;
    }
    let best_peer = results
        .iter()
        .filter(|(t, _)| !is_ours(t))
        .map(|(_, m)| m.per_second)
        .fold(0.0f64, f64::max);
    println!("### {group}\n");
    println!(
        "| tool | lookups/s | × best peer | resolved | frames/lookup | open | peak RSS MiB (Δ over baseline) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for tool in tools {
        let Some(m) = results.get(tool) else { continue };
        let ratio = if best_peer > 0.0 {
            format!("{:.2}", m.per_second / best_peer)
        } else {
            "–".to_owned()
        };
        println!(
            "| {tool} | {} | {ratio} | {} | {:.2} | {} | {:.1} ({:+.1}) |",
            human_rate(m.per_second),
            m.resolved,
            m.frames as f64 / m.resolved.max(1) as f64,
            human_duration(m.open),
            m.peak_kib as f64 / 1024.0,
            (m.peak_kib as f64 - baseline.peak_kib as f64) / 1024.0,
        );
    }
    println!();
}

/// `1.23 M`, `456 k`.
pub fn human_rate(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else {
        format!("{:.0} k", v / 1e3)
    }
}

/// `850 ns`, `12.3 µs`, `4.5 ms`, `1.2 s`.
pub fn human_duration(d: std::time::Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.1} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn append_tsv(
    path: &Path,
    label: &str,
    functions: usize,
    rows: &[(String, String, Measurement)],
) -> Result<(), String> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for (group, tool, m) in rows {
        writeln!(
            f,
            "lookup\t{label}\t{functions}\t{group}\t{tool}\t{}\t{}\t{}\t{}\t{}",
            m.per_second,
            m.resolved,
            m.frames,
            m.peak_kib,
            m.open.as_nanos()
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Runs one tool in a child process of this binary and reads its measurement.
fn child(
    args: &Args,
    tool: &str,
    addrs: &Path,
    names: &Path,
    seconds: &str,
) -> Result<Measurement, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = Command::new(exe);
    command.arg("child").arg(tool);
    for key in ["elf", "lidia", "ksym", "ksym2", "gsym", "symcache"] {
        if let Some(v) = args.get(key) {
            command.arg(format!("--{key}")).arg(v);
        }
    }
    command
        .arg("--addrs")
        .arg(addrs)
        .arg("--names")
        .arg(names)
        .arg("--seconds")
        .arg(seconds);
    let output = command.output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Measurement::from_line(&text).ok_or_else(|| format!("unreadable child output {text:?}"))
}

/// `child TOOL …`: measures one tool and prints its measurement line.
pub fn run_child(tool: &str, args: &Args) -> Result<(), String> {
    let inputs = Inputs::from_args(args)?;
    let addrs =
        sample::read_addresses(&args.path("addrs").ok_or("--addrs")?).map_err(|e| e.to_string())?;
    let names =
        sample::read_names(&args.path("names").ok_or("--names")?).map_err(|e| e.to_string())?;
    let secs: f64 = args
        .get("seconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let need = |p: &Option<PathBuf>, what: &str| p.clone().ok_or(format!("{tool} needs --{what}"));
    let elf = inputs.elf.as_path();
    let work = |batched| Workload {
        addrs: &addrs,
        secs,
        batched,
    };
    let mut m = match tool {
        "baseline" => Measurement::default(),
        "symblob-lidia" | "symblob-lidia-batch" => {
            let batched = tool.ends_with("-batch");
            ours::lidia_frames(&need(&inputs.lidia, "lidia")?, work(batched))?
        }
        "symblob-gsym" | "symblob-gsym-indexed" | "symblob-gsym-indexed-batch" => {
            let indexed = tool.contains("-indexed");
            let batched = tool.ends_with("-batch");
            ours::gsym_frames(&need(&inputs.gsym, "gsym")?, work(batched), indexed)?
        }
        "symblob-lidia-names" | "symblob-lidia-names-batch" => {
            let batched = tool.ends_with("-batch");
            ours::lidia_names(&need(&inputs.lidia, "lidia")?, work(batched))?
        }
        "symblob-ksym" | "symblob-ksym-batch" => {
            let batched = tool == "symblob-ksym-batch";
            ours::ksym_addresses(&need(&inputs.ksym, "ksym")?, elf, work(batched))?
        }
        "symblob-ksym-formatted" => {
            ours::ksym_formatted(&need(&inputs.ksym, "ksym")?, elf, work(false))?
        }
        "symblob-ksym2" | "symblob-ksym2-batch" => {
            let batched = tool == "symblob-ksym2-batch";
            ours::ksym_addresses(&need(&inputs.ksym2, "ksym2")?, elf, work(batched))?
        }
        "symblob-ksym2-formatted" => {
            ours::ksym_formatted(&need(&inputs.ksym2, "ksym2")?, elf, work(false))?
        }
        "symblob-ksym2-name" => {
            ours::ksym_names(&need(&inputs.ksym2, "ksym2")?, &names, secs, false)?
        }
        "symblob-ksym-name" | "symblob-ksym-name-plain" => {
            let indexed = tool == "symblob-ksym-name";
            ours::ksym_names(&need(&inputs.ksym, "ksym")?, &names, secs, indexed)?
        }
        "addr2line" => others::addr2line_frames(elf, &addrs, secs)?,
        "addr2line-symtab" => others::addr2line_symbols(elf, &addrs, secs)?,
        "blazesym-elf" => others::blazesym(BlazeSource::ElfSymbols, elf, None, &addrs, secs)?,
        "blazesym-dwarf" => others::blazesym(BlazeSource::Dwarf, elf, None, &addrs, secs)?,
        "blazesym-gsym" => {
            let gsym = need(&inputs.gsym, "gsym")?;
            others::blazesym(BlazeSource::Gsym, elf, Some(&gsym), &addrs, secs)?
        }
        "blazesym-name" => others::blazesym_names(elf, &names, secs)?,
        "symcache" => {
            others::symcache_frames(&need(&inputs.symcache, "symcache")?, elf, &addrs, secs)?
        }
        other => return Err(format!("unknown tool {other}")),
    };
    m.peak_kib = peak_rss_kib();
    println!("{}", m.to_line());
    Ok(())
}
