//! Linux's own kallsyms tables as an oracle of size: how many bytes the kernel's
//! `scripts/kallsyms.c` (Linux 6.1, from Debian's `linux-source-6.1`) needs for a symbol
//! list.
//!
//! [`kallsyms_size`] writes the `nm -n` lines it is given to a map file, runs the kernel's
//! generator on it with the options `scripts/link-vmlinux.sh` passes for Debian's amd64
//! configurations (`--all-symbols --absolute-percpu --base-relative`), assembles the
//! assembler source it writes (`.rodata` with the tables, each label 8-byte aligned as in
//! the kernel) and reads each table's bytes back from the object file.
//!
//! `kallsyms.c` is taken from the source tarball once per test run (the extracted file is
//! cached in the test build's scratch space) and compiled with `gcc -O2`. It is used
//! unchanged whenever it can read the input, which is the case for every kernel symbol
//! list. Names as `nm -C` prints them for C++ and Rust need the adaptations below, each
//! named in [`KallsymsSize::adaptations`]:
//!
//! * the generator reads a name with `fscanf("%s")`, which stops at the first blank
//!   (`<T as Trait>::f`, `f(int, char)`), and the rest of the line is then read as the next
//!   symbol: the tool is built with the name read up to the end of the line instead;
//! * a name of `KSYM_NAME_LEN` bytes or more (512 in 6.1) is skipped by the generator with a
//!   message, but one longer than its read buffer (4 × `KSYM_NAME_LEN`) is cut there and its
//!   rest read as the next line: such names are dropped before the generator sees them,
//!   with the same outcome, and counted in [`KallsymsSize::too_long`];
//!   [`KallsymsOptions::ksym_name_len`] builds the tool with a larger limit instead;
//! * the name sort behind `kallsyms_seqs_of_names` (`compare_names`) expands each name
//!   with its type and a NUL into a buffer of `KSYM_NAME_LEN` bytes, which a name of
//!   `KSYM_NAME_LEN - 1` bytes (the longest the tool accepts) overflows by one byte
//!   (AddressSanitizer: stack-buffer-overflow in `expand_symbol`); built with `-O2`, the
//!   table came out wrong on rustc's names, one entry twice. When such a name is in the
//!   input, the tool is built with those two buffers one byte larger;
//! * the token table is written as `.asciz "…"` without escaping, so a token holding `"` or
//!   `\` does not assemble: those two characters are escaped in that table's lines (the
//!   bytes stay the same).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use object::{Object, ObjectSection, ObjectSymbol, RelocationTarget};

use crate::common::{missing_oracle, run_scratch_dir, tool};

/// Debian's package of the kernel source, as it installs it (`SYMBLOB_LINUX_SOURCE`
/// names another copy of that tarball).
const TARBALL: &str = "/usr/src/linux-source-6.1.tar.xz";
/// The generator inside the tarball.
const MEMBER: &str = "linux-source-6.1/scripts/kallsyms.c";

/// The tables in the order the generator writes them (`kallsyms_offsets` under
/// `--base-relative`, `kallsyms_addresses` without it).
pub const TABLES: [&str; 8] = [
    "kallsyms_offsets",
    "kallsyms_relative_base",
    "kallsyms_num_syms",
    "kallsyms_names",
    "kallsyms_markers",
    "kallsyms_seqs_of_names",
    "kallsyms_token_table",
    "kallsyms_token_index",
];

/// A missing oracle, already reported through
/// [`missing_oracle`](crate::common::missing_oracle) (so a failure under
/// `SYMBLOB_REQUIRE_ORACLES=1`) with what is missing: the caller skips its check.
#[derive(Debug, Clone, Copy)]
pub struct Skip;

/// The generator's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KallsymsOptions {
    /// `--all-symbols` (`CONFIG_KALLSYMS_ALL`): keep symbols outside `[_stext, _etext]` and
    /// `[_sinittext, _einittext]` too. Without it the input must carry those markers.
    pub all_symbols: bool,
    /// `--absolute-percpu` (`CONFIG_KALLSYMS_ABSOLUTE_PERCPU`).
    pub absolute_percpu: bool,
    /// `--base-relative` (`CONFIG_KALLSYMS_BASE_RELATIVE`): 4-byte offsets from
    /// `kallsyms_relative_base` instead of 8-byte addresses.
    pub base_relative: bool,
    /// `KSYM_NAME_LEN` for a tool built with a larger limit than the kernel's; `None` keeps
    /// the kernel's.
    pub ksym_name_len: Option<usize>,
}

impl Default for KallsymsOptions {
    /// What `scripts/link-vmlinux.sh` passes for Debian's 6.1 amd64 kernels
    /// (`CONFIG_KALLSYMS_ALL`, `_ABSOLUTE_PERCPU` and `_BASE_RELATIVE` set, no
    /// `CONFIG_LTO_CLANG`), with the kernel's `KSYM_NAME_LEN`.
    fn default() -> Self {
        KallsymsOptions {
            all_symbols: true,
            absolute_percpu: true,
            base_relative: true,
            ksym_name_len: None,
        }
    }
}

impl KallsymsOptions {
    fn flags(&self) -> Vec<&'static str> {
        let mut flags = Vec::new();
        if self.all_symbols {
            flags.push("--all-symbols");
        }
        if self.absolute_percpu {
            flags.push("--absolute-percpu");
        }
        if self.base_relative {
            flags.push("--base-relative");
        }
        flags
    }
}

/// One table: its label and its bytes, without the alignment padding after it.
#[derive(Debug, Clone)]
pub struct Table {
    /// The label, e.g. `kallsyms_names`.
    pub name: String,
    /// The bytes from the label to the end of the table.
    pub bytes: Vec<u8>,
}

/// What the kernel's tables need for one symbol list.
#[derive(Debug, Clone)]
pub struct KallsymsSize {
    /// The generator's command line (the map file is `in.map`).
    pub command: String,
    /// `KSYM_NAME_LEN` of the tool that ran.
    pub ksym_name_len: usize,
    /// What was changed from the kernel's tool and its output to measure this input
    /// (empty: the unchanged tool, its output as it wrote it).
    pub adaptations: Vec<String>,
    /// Non-empty input lines.
    pub input_symbols: usize,
    /// Input lines whose name has `ksym_name_len` bytes or more, which the generator skips.
    pub too_long: usize,
    /// `kallsyms_num_syms`: the symbols the tables hold.
    pub num_syms: usize,
    /// `kallsyms_relative_base` as the link resolves it (`_text` is the input's `_text`,
    /// or 0 without one); 0 without `--base-relative`.
    pub relative_base: u64,
    /// Every table, in [`TABLES`] order (`kallsyms_addresses` first without
    /// `--base-relative`, and no `kallsyms_relative_base`).
    pub tables: Vec<Table>,
    /// The size of the assembled `.rodata`, with each table 8-byte aligned as the kernel's
    /// `ALGN` does on 64-bit targets.
    pub rodata: usize,
}

impl KallsymsSize {
    /// The bytes of table `name`; panics when there is no such table.
    pub fn data(&self, name: &str) -> &[u8] {
        &self
            .tables
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no table {name}"))
            .bytes
    }

    /// The size of table `name` in bytes.
    pub fn bytes(&self, name: &str) -> usize {
        self.data(name).len()
    }

    /// Every table's bytes, padding excluded.
    pub fn total(&self) -> usize {
        self.tables.iter().map(|t| t.bytes.len()).sum()
    }

    /// [`total`](Self::total) per symbol kept.
    pub fn per_symbol(&self) -> f64 {
        self.total() as f64 / self.num_syms as f64
    }

    /// One line per table and the totals, for a test's output.
    pub fn report(&self, what: &str) -> String {
        use std::fmt::Write;
        let mut s = format!(
            "{what}: {} input symbols, {} too long (>= {}), kallsyms_num_syms {}\n  {}\n",
            self.input_symbols, self.too_long, self.ksym_name_len, self.num_syms, self.command
        );
        for a in &self.adaptations {
            let _ = writeln!(s, "  adaptation: {a}");
        }
        for t in &self.tables {
            let _ = writeln!(
                s,
                "  {:<24} {:>10} B {:>7.2} B/symbol",
                t.name,
                t.bytes.len(),
                t.bytes.len() as f64 / self.num_syms as f64
            );
        }
        let _ = writeln!(
            s,
            "  {:<24} {:>10} B {:>7.2} B/symbol (.rodata with alignment: {} B)",
            "total",
            self.total(),
            self.per_symbol(),
            self.rodata
        );
        s
    }
}

/// [`kallsyms_size_with`] with the options of Debian's 6.1 amd64 kernels.
pub fn kallsyms_size(nm_lines: &str) -> Result<KallsymsSize, Skip> {
    kallsyms_size_with(nm_lines, &KallsymsOptions::default())
}

/// Runs the kernel's generator on `nm_lines` (`nm -n` lines: address, type, name) and
/// measures its tables. Skips when the source package or a tool is missing; panics when
/// the generator or the assembler fails.
pub fn kallsyms_size_with(nm_lines: &str, options: &KallsymsOptions) -> Result<KallsymsSize, Skip> {
    let source = source()?;
    let kernel_len = define(&source.text, "KSYM_NAME_LEN");
    let name_len = options.ksym_name_len.unwrap_or(kernel_len);

    let lines: Vec<&str> = nm_lines.lines().filter(|l| !l.trim().is_empty()).collect();
    let blank_in_name = lines.iter().any(|l| name_of(l, true).contains([' ', '\t']));
    let mut adaptations = Vec::new();
    if blank_in_name {
        adaptations.push("names read up to the end of the line (some hold blanks)".to_owned());
    }
    if name_len != kernel_len {
        adaptations.push(format!(
            "KSYM_NAME_LEN {name_len} instead of the kernel's {kernel_len}"
        ));
    }
    let longest = lines
        .iter()
        .filter(|l| name_of(l, blank_in_name).len() == name_len - 1)
        .count();
    if longest > 0 {
        adaptations.push(format!(
            "compare_names' buffers one byte larger ({longest} names of {} bytes overflow them)",
            name_len - 1
        ));
    }
    let variant = Variant {
        whole_line: blank_in_name,
        name_len: options.ksym_name_len,
        larger_sort_buffers: longest > 0,
    };

    // What the generator would skip as too long, dropped here so that a name longer than
    // its read buffer cannot spill into the next line.
    let mut map = String::with_capacity(nm_lines.len());
    let mut too_long = 0;
    for line in &lines {
        if name_of(line, variant.whole_line).len() >= name_len {
            too_long += 1;
        } else {
            map.push_str(line);
            map.push('\n');
        }
    }
    if too_long > 0 {
        adaptations.push(format!(
            "{too_long} names of {name_len} bytes or more dropped before the run (the tool skips them)"
        ));
    }

    let gcc = tool("gcc").ok_or(Skip)?;
    let exe = compiled(source, &variant, &gcc)?;
    let dir = run_dir();
    let map_path = dir.join("in.map");
    std::fs::write(&map_path, &map).unwrap();
    let flags = options.flags();
    let out = Command::new(&exe)
        .args(&flags)
        .arg(&map_path)
        .output()
        .expect("run kallsyms");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "kallsyms {flags:?} failed ({}): {stderr}",
        out.status
    );
    let asm = String::from_utf8(out.stdout).expect("kallsyms writes ASCII");
    let (asm, escaped) = with_end_labels(&asm);
    if escaped > 0 {
        adaptations.push(format!(
            "{escaped} token strings with `\"` or `\\` escaped for the assembler"
        ));
    }

    // `#include <asm/bitsperlong.h>`: the kernel's header for x86-64.
    let include = dir.join("include/asm");
    std::fs::create_dir_all(&include).unwrap();
    std::fs::write(include.join("bitsperlong.h"), "#define BITS_PER_LONG 64\n").unwrap();
    let s_path = dir.join("out.S");
    let o_path = dir.join("out.o");
    std::fs::write(&s_path, asm).unwrap();
    let out = Command::new(&gcc)
        .args(["-nostdinc", "-I"])
        .arg(dir.join("include"))
        .arg("-c")
        .arg(&s_path)
        .arg("-o")
        .arg(&o_path)
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "assembling kallsyms' output failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let object = std::fs::read(&o_path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    let text_base = lines
        .iter()
        .find(|l| name_of(l, variant.whole_line) == "_text")
        .and_then(|l| u64::from_str_radix(l.split_whitespace().next()?, 16).ok())
        .unwrap_or(0);
    let (tables, rodata, relative_base) = measure(&object, text_base);
    let num_syms = tables
        .iter()
        .find(|t| t.name == "kallsyms_num_syms")
        .map(|t| u32::from_le_bytes(t.bytes[..4].try_into().unwrap()) as usize)
        .expect("kallsyms_num_syms");

    let mut command = vec!["kallsyms"];
    command.extend(&flags);
    command.extend(["in.map", ">", "out.S"]);
    Ok(KallsymsSize {
        command: command.join(" "),
        ksym_name_len: name_len,
        adaptations,
        input_symbols: lines.len(),
        too_long,
        num_syms,
        relative_base,
        tables,
        rodata,
    })
}

/// The name of an `nm -n` line as the generator reads it: the third blank-separated word
/// (the unchanged tool), or the rest of the line after the type (`whole_line`).
fn name_of(line: &str, whole_line: bool) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..2 {
        let end = rest.find([' ', '\t']).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    if whole_line {
        rest.trim_end_matches(['\r', '\n'])
    } else {
        rest.split([' ', '\t']).next().unwrap_or("")
    }
}

/// The generator's source, once per run.
struct Source {
    text: String,
}

fn source() -> Result<&'static Source, Skip> {
    static CELL: OnceLock<Result<Source, String>> = OnceLock::new();
    match CELL.get_or_init(extract) {
        Ok(s) => Ok(s),
        Err(what) => {
            // Every caller reports the skip, not only the first.
            missing_oracle(what);
            Err(Skip)
        }
    }
}

/// `kallsyms.c` from the tarball, cached in the test build's scratch space under the
/// tarball's size and modification time (decompressing the tarball takes a while).
fn extract() -> Result<Source, String> {
    let tarball = std::env::var_os("SYMBLOB_LINUX_SOURCE")
        .map_or_else(|| PathBuf::from(TARBALL), PathBuf::from);
    let meta = std::fs::metadata(&tarball).map_err(|_| {
        format!(
            "Debian package linux-source-6.1 (the kernel's scripts/kallsyms.c in {})",
            tarball.display()
        )
    })?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("kallsyms-oracle")
        .join(format!("linux-source-6.1-{}-{mtime}", meta.len()));
    let cached = cache.join("kallsyms.c");
    if let Ok(text) = std::fs::read_to_string(&cached) {
        return Ok(Source { text });
    }
    for t in ["tar", "xz"] {
        if crate::common::on_path(t).is_none() {
            return Err(format!(
                "tool `{t}` not on PATH (to unpack the kernel source)"
            ));
        }
    }
    let out = Command::new("tar")
        .arg("-xJOf")
        .arg(&tarball)
        .arg(MEMBER)
        .output()
        .map_err(|e| format!("tar: {e}"))?;
    assert!(
        out.status.success() && !out.stdout.is_empty(),
        "{MEMBER} not in {}: {}",
        tarball.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("kallsyms.c is UTF-8");
    std::fs::create_dir_all(&cache).unwrap();
    // Written aside and renamed, so that a run at the same time never reads half a file.
    let part = cache.join(format!("kallsyms.c.{}", std::process::id()));
    std::fs::write(&part, &text).unwrap();
    std::fs::rename(&part, &cached).unwrap();
    Ok(Source { text })
}

/// The value of `#define <name> <number>` in the source.
fn define(source: &str, name: &str) -> usize {
    source
        .lines()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("#define") && words.next() == Some(name))
                .then(|| words.next()?.parse().ok())
                .flatten()
        })
        .unwrap_or_else(|| panic!("no #define {name} in kallsyms.c"))
}

/// Which build of the generator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Variant {
    /// Names read up to the end of the line instead of up to the first blank.
    whole_line: bool,
    /// `KSYM_NAME_LEN` if not the kernel's.
    name_len: Option<usize>,
    /// `compare_names`' two buffers one byte larger, to hold a name of
    /// `KSYM_NAME_LEN - 1` bytes with its type and NUL.
    larger_sort_buffers: bool,
}

/// `from`, which must occur exactly once in `text`, replaced by `to`.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "kallsyms.c changed: expected `{from}` once"
    );
    text.replacen(from, to, 1)
}

/// The generator built as `variant`, once per run.
fn compiled(source: &Source, variant: &Variant, gcc: &Path) -> Result<PathBuf, Skip> {
    static BUILT: Mutex<Vec<(Variant, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, exe)) = built.iter().find(|(v, _)| v == variant) {
        return Ok(exe.clone());
    }
    let mut text = source.text.clone();
    if variant.whole_line {
        text = replace_once(
            &text,
            r#""%llx %c %" _stringify(KSYM_NAME_LEN_BUFFER) "s\n""#,
            r#""%llx %c %" _stringify(KSYM_NAME_LEN_BUFFER) "[^\n]\n""#,
        );
    }
    if variant.larger_sort_buffers {
        for buf in ["sa_namebuf", "sb_namebuf"] {
            text = replace_once(
                &text,
                &format!("char {buf}[KSYM_NAME_LEN];"),
                &format!("char {buf}[KSYM_NAME_LEN + 1];"),
            );
        }
    }
    if let Some(len) = variant.name_len {
        // The tool asserts that the read buffer is 4 × KSYM_NAME_LEN.
        let old_len = define(&text, "KSYM_NAME_LEN");
        let old_buffer = define(&text, "KSYM_NAME_LEN_BUFFER");
        text = replace_once(
            &text,
            &format!("#define KSYM_NAME_LEN\t\t{old_len}\n"),
            &format!("#define KSYM_NAME_LEN\t\t{len}\n"),
        );
        text = replace_once(
            &text,
            &format!("#define KSYM_NAME_LEN_BUFFER\t{old_buffer}\n"),
            &format!("#define KSYM_NAME_LEN_BUFFER\t{}\n", 4 * len),
        );
    }
    let dir = run_scratch_dir("kallsyms-oracle");
    let stem = format!("kallsyms-{}", built.len());
    let c = dir.join(format!("{stem}.c"));
    let exe = dir.join(stem);
    std::fs::write(&c, text).unwrap();
    let out = Command::new(gcc)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "compiling kallsyms.c ({variant:?}) failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    built.push((variant.clone(), exe.clone()));
    Ok(exe)
}

/// A fresh directory for one run of the generator.
fn run_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = run_scratch_dir("kallsyms-oracle")
        .join(format!("run-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The generator's output with a label `end_of_<table>` where each table ends (before
/// the next table's alignment), and the number of token strings whose `"` and `\` had
/// to be escaped. Neither changes a byte of the tables.
fn with_end_labels(asm: &str) -> (String, usize) {
    let mut out = String::with_capacity(asm.len() + 512);
    let mut current: Option<&str> = None;
    let mut escaped = 0;
    for line in asm.lines() {
        if let Some(label) = line.strip_prefix(".globl ") {
            if let Some(prev) = current {
                out.push_str(&format!("end_of_{prev}:\n"));
            }
            current = Some(label.trim());
        }
        let quoted = line
            .strip_prefix("\t.asciz\t\"")
            .and_then(|s| s.strip_suffix('"'));
        match quoted {
            Some(s) if s.contains(['"', '\\']) => {
                escaped += 1;
                let s = s.replace('\\', "\\\\").replace('"', "\\\"");
                out.push_str(&format!("\t.asciz\t\"{s}\"\n"));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if let Some(prev) = current {
        out.push_str(&format!("end_of_{prev}:\n"));
    }
    (out, escaped)
}

/// Each table's bytes, the size of `.rodata` and the relative base (`_text` at
/// `text_base`) from the assembled object.
fn measure(object: &[u8], text_base: u64) -> (Vec<Table>, usize, u64) {
    let file = object::File::parse(object).expect("assembled object");
    let rodata = file.section_by_name(".rodata").expect(".rodata");
    let data = rodata.data().unwrap();
    let at = |name: &str| {
        file.symbols()
            .find(|s| s.name() == Ok(name))
            .map(|s| s.address() as usize)
    };
    let mut tables = Vec::new();
    for name in std::iter::once("kallsyms_addresses").chain(TABLES) {
        let Some(start) = at(name) else { continue };
        let end = at(&format!("end_of_{name}")).expect("end label");
        tables.push(Table {
            name: name.to_owned(),
            bytes: data[start..end].to_vec(),
        });
    }
    let base_at = at("kallsyms_relative_base");
    let relative_base = rodata
        .relocations()
        .find(|(offset, _)| Some(*offset as usize) == base_at)
        .map_or(0, |(_, r)| {
            let to_text = match r.target() {
                RelocationTarget::Symbol(i) => {
                    file.symbol_by_index(i).unwrap().name() == Ok("_text")
                }
                _ => false,
            };
            assert!(to_text, "kallsyms_relative_base is _text + offset");
            text_base.wrapping_add(r.addend() as u64)
        });
    (tables, data.len(), relative_base)
}
