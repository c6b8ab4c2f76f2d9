//! Side-by-side benchmarks of symblob against the symbolizers users would otherwise pick:
//! `addr2line`, `blazesym`, `symbolic-symcache` and `llvm-gsymutil`.
//!
//! ```text
//! symblob-peers builds  --elf BIN --symblob CLI --out-dir DIR [--label L] [--repeat N] [--tsv F]
//!                       [--gsymutil PATH] [--dump-syms PATH]
//! symblob-peers lookups --elf BIN [--lidia F] [--ksym F] [--gsym F] [--symcache F]
//!                       [--label L] [--count N] [--seconds S] [--tools a,b] [--work DIR] [--tsv F]
//! symblob-peers symcache-build BIN OUT
//! symblob-peers functions BIN
//! symblob-peers sym-reads --sym FILE.sym --symblob CLI --out-dir DIR [--label L] [--repeat N]
//! symblob-peers checksums
//! symblob-peers lidia-walk LIDIA ADDRS     (ranges a lookup examines)
//! symblob-peers gen-c FUNCTIONS DIR
//! symblob-peers chart TSV OUT.png
//! ```
//!
//! `peers/run.sh` runs all of it and regenerates every table of BENCHMARKS.md and the chart.

mod builds;
mod chart;
mod checksums;
mod gen_c;
mod lookups;
mod measure;
mod others;
mod ours;
mod sample;
mod sym_reads;

use std::collections::HashMap;
use std::path::PathBuf;

/// `--key value` options and positional arguments.
pub struct Args {
    options: HashMap<String, String>,
    positional: Vec<String>,
}

impl Args {
    fn parse(raw: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = HashMap::new();
        let mut positional = Vec::new();
        let mut raw = raw.peekable();
        while let Some(a) = raw.next() {
            if let Some(key) = a.strip_prefix("--") {
                let value = raw.next().ok_or(format!("--{key} needs a value"))?;
                options.insert(key.to_owned(), value);
            } else {
                positional.push(a);
            }
        }
        Ok(Args {
            options,
            positional,
        })
    }

    /// The value of `--key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    /// The value of `--key` as a path.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.get(key).map(PathBuf::from)
    }

    /// The value of `--key` as a number (`_` separators allowed).
    pub fn number<T: std::str::FromStr>(&self, key: &str) -> Option<T> {
        self.get(key).and_then(|v| v.replace('_', "").parse().ok())
    }

    fn positional(&self, i: usize, what: &str) -> Result<&str, String> {
        self.positional
            .get(i)
            .map(String::as_str)
            .ok_or(format!("missing {what}"))
    }
}

fn main() {
    let mut raw = std::env::args().skip(1);
    let command = raw.next().unwrap_or_default();
    let result = Args::parse(raw).and_then(|args| match command.as_str() {
        "builds" => builds::run(&args),
        "lookups" => lookups::run(&args),
        "child" => lookups::run_child(args.positional(0, "TOOL")?, &args),
        "checksums" => checksums::run(),
        "sym-reads" => sym_reads::run(&args),
        "sym-parse" => {
            let last = args.positional(2, "LAST")?;
            let last = u64::from_str_radix(last, 16).map_err(|e| format!("LAST: {e}"))?;
            sym_reads::parse(
                args.positional(0, "PARSER")?,
                args.positional(1, "FILE")?.as_ref(),
                last,
            )
        }
        "functions" => sample::functions(args.positional(0, "BIN")?.as_ref()).map(|f| {
            println!("{}", f.len());
        }),
        "lidia-walk" => {
            let addrs = sample::read_addresses(args.positional(1, "ADDRS")?.as_ref())
                .map_err(|e| e.to_string())?;
            ours::lidia_walk(args.positional(0, "LIDIA")?.as_ref(), &addrs)
        }
        "symcache-build" => others::symcache_build(
            args.positional(0, "BIN")?.as_ref(),
            args.positional(1, "OUT")?.as_ref(),
        ),
        "gen-c" => {
            let n: usize = args
                .positional(0, "FUNCTIONS")?
                .parse()
                .map_err(|e| format!("FUNCTIONS: {e}"))?;
            gen_c::generate(n, args.positional(1, "DIR")?.as_ref())
        }
        "chart" => chart::draw(
            args.positional(0, "TSV")?.as_ref(),
            args.positional(1, "OUT.png")?.as_ref(),
        ),
        _ => Err(
            "usage: symblob-peers builds|lookups|sym-reads|checksums|symcache-build|functions|gen-c|chart … \
                  (see the crate docs)"
                .to_owned(),
        ),
    });
    if let Err(e) = result {
        eprintln!("symblob-peers {command}: {e}");
        std::process::exit(1);
    }
}
