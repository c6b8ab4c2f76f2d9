//! `symblob size archive` against the archives Chromium's own SuperSize wrote (ELF-only
//! mode) for unstripped programs built for the classes where an exporter most easily
//! differs from it: C++ names (return types, anonymous namespaces, LLVM's lambdas), GCC
//! clones (`.part.0`, `.isra.0`, `.constprop.0`) and Rust v0 names of code and data.
//! symblob gets only the unstripped ELF, as Chromium did, and must measure the file
//! `strip` would write. The expectation is Chromium's: its `.size` file and its loader's
//! reading of it (`*.size.dump.tsv`, format in the README beside them).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use symblob_build::size::{loader, Loaded, SizeInfo};

use crate::common::{ok, run, s, shared_testdata};

/// One symbol row: section, address, size, padding, full name, alias count, flags, source
/// path, object path, component.
type Row = Vec<String>;

/// A golden's files: the ELF, Chromium's `.size` and its loader's dump.
struct Golden {
    elf: PathBuf,
    size: PathBuf,
    dump: PathBuf,
}

fn golden(name: &str) -> Option<Golden> {
    let dir = shared_testdata("supersize/chromium-archive")?;
    Some(Golden {
        elf: dir.join(name),
        size: dir.join(format!("{name}.size")),
        dump: dir.join(format!("{name}.size.dump.tsv")),
    })
}

/// Archives a copy of `elf` with the mtime Chromium's input had; returns the `.size` bytes.
fn archive(elf: &Path, dir: &Path, extra: &[&str]) -> Vec<u8> {
    let copy = dir.join(elf.file_name().unwrap());
    std::fs::copy(elf, &copy).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000))
        .unwrap();
    let out = dir.join("out.size");
    let mut args = vec!["size", "archive", s(&copy), "-o", s(&out)];
    args.extend_from_slice(extra);
    ok(&run(&args, b""));
    std::fs::read(out).unwrap()
}

fn gunzip(data: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(data)
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// `(section sizes, symbol rows)` as Chromium's loader read its file.
fn chromium_rows(dump: &Path) -> (BTreeMap<String, i64>, Vec<Row>) {
    let text = std::fs::read_to_string(dump).unwrap();
    let mut sections = BTreeMap::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        let fields: Row = line.split('\t').map(str::to_string).collect();
        if fields[0] == "container_section_sizes" {
            sections = serde_json::from_str(&fields[2]).unwrap();
        } else if fields.len() == 10 && fields[0].starts_with('.') {
            rows.push(fields);
        }
    }
    (sections, rows)
}

/// `(section sizes, symbol rows)` of our file as our loader (which reads Chromium's files
/// as Chromium's loader does, see `size.rs`) reads it.
fn our_rows(bytes: &[u8]) -> (BTreeMap<String, i64>, Vec<Row>) {
    let Loaded::Size { info, .. } = loader::load(bytes, "out.size").unwrap() else {
        panic!("not a .size file");
    };
    let SizeInfo {
        containers,
        symbols,
        ..
    } = info;
    let rows = symbols
        .iter()
        .map(|s| {
            vec![
                s.section.clone(),
                s.address.to_string(),
                s.size.to_string(),
                s.padding.to_string(),
                s.full_name.clone(),
                s.num_aliases.to_string(),
                s.flags.to_string(),
                s.source_path.clone(),
                s.object_path.clone(),
                s.component.clone(),
            ]
        })
        .collect();
    (containers[0].section_sizes.clone(), rows)
}

/// How many of `theirs` rows `ours` has (as multisets).
fn matching(ours: &[Row], theirs: &[Row]) -> usize {
    let mut left: BTreeMap<&Row, usize> = BTreeMap::new();
    for r in ours {
        *left.entry(r).or_default() += 1;
    }
    theirs
        .iter()
        .filter(|r| match left.get_mut(r) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count()
}

/// The same section rows, every symbol row, and the same archive text.
fn check(name: &str) {
    let Some(g) = golden(name) else { return };
    let dir = tempfile::tempdir().unwrap();
    let ours = archive(&g.elf, dir.path(), &[]);
    let (our_sections, rows) = our_rows(&ours);
    let (sections, expected) = chromium_rows(&g.dump);
    assert_eq!(our_sections, sections, "{name}: section sizes");
    let same = matching(&rows, &expected);
    eprintln!(
        "{name}: {same} of {} Chromium rows equal ({:.1} %)",
        expected.len(),
        100.0 * same as f64 / expected.len() as f64
    );
    // No class of difference is left: every row is Chromium's.
    assert_eq!(rows, expected, "{name}: symbol rows");
    let golden_text = gunzip(&std::fs::read(&g.size).unwrap());
    assert_eq!(gunzip(&ours), golden_text, "{name}: archive text");
}

#[test]
fn size_chromium_archive_cxxnames() {
    check("cxxnames");
}

#[test]
fn size_chromium_archive_clones() {
    check("clones");
}

#[test]
fn size_chromium_archive_rsdemo() {
    check("rsdemo.bin");
}

/// `--rich-names` keeps what SuperSize's clean-up drops, and nothing else changes: the
/// rows are Chromium's but for names and the clone and anonymous-namespace flags.
#[test]
fn size_rich_names_keep_what_chromium_drops() {
    const CLONE_AND_ANONYMOUS: u32 = 64 | 1;
    let dir = tempfile::tempdir().unwrap();
    for (name, rich) in [
        (
            "clones",
            &["work_part.part.0", "mix.constprop.0", "use_tag.isra.0"][..],
        ),
        (
            "cxxnames",
            &["(anonymous namespace)::score(std::vector<int, std::allocator<int> > const&)"][..],
        ),
    ] {
        let Some(g) = golden(name) else { return };
        let (_, rows) = our_rows(&archive(&g.elf, dir.path(), &["--rich-names"]));
        let (_, expected) = chromium_rows(&g.dump);
        let without_names = |rows: &[Row]| -> Vec<Row> {
            let mut out: Vec<Row> = rows
                .iter()
                .map(|r| {
                    let flags: u32 = r[6].parse().unwrap();
                    let mut r = r.clone();
                    r[4].clear();
                    r[6] = (flags & !CLONE_AND_ANONYMOUS).to_string();
                    r
                })
                .collect();
            out.sort();
            out
        };
        assert_eq!(without_names(&rows), without_names(&expected), "{name}");
        for full_name in rich {
            assert!(
                rows.iter().any(|r| r[4] == *full_name),
                "{name}: {full_name}"
            );
        }
    }
    // GNU's spelling of lambdas, with a return type.
    let Some(g) = golden("cxxnames") else { return };
    let (_, rows) = our_rows(&archive(&g.elf, dir.path(), &["--rich-names"]));
    assert!(rows
        .iter()
        .any(|r| r[4].starts_with("void std::__insertion_sort<")
            && r[4].contains("{lambda(int, int)#1}")));
}
