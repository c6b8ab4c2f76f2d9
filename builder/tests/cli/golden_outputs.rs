//! Every file the builder writes, byte for byte: each case of `testdata/golden/cases.txt`
//! runs `symblob` on a committed input into an empty directory of its own, and what it
//! leaves there (and its standard output) must equal the files `testdata/golden/make.sh`
//! committed under `testdata/golden/outputs/NAME/`. Every case is checked before the test
//! fails, and each difference is named with its case, its file and the first differing
//! offset. The inputs are committed ELF files and texts, so the test needs no compiler
//! and no oracle.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{root, stderr_text, symblob, testdata};

/// One line of `cases.txt`: a name and the arguments, with `$T/` and `$O/` unexpanded.
struct Case {
    name: String,
    args: Vec<String>,
}

/// The cases of `cases.txt`, in order (comments and blank lines skipped).
fn cases() -> Vec<Case> {
    let table = fs::read_to_string(testdata("golden/cases.txt")).expect("read cases.txt");
    table
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace().map(str::to_owned);
            let name = words.next().expect("a case name");
            Case {
                name,
                args: words.collect(),
            }
        })
        .collect()
}

/// Every regular file under `dir`, as paths relative to it, sorted.
fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                out.insert(path.strip_prefix(base).expect("under base").to_path_buf());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// Where two byte strings first differ, with both lengths, or `None` when equal.
fn first_difference(want: &[u8], got: &[u8]) -> Option<String> {
    if want == got {
        return None;
    }
    let offset = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    Some(format!(
        "differs first at offset {offset} (0x{offset:x}): golden has {} bytes, this build wrote {}",
        want.len(),
        got.len()
    ))
}

/// The modification time every input of a case is given before it runs (2026-01-01
/// 00:00:00 UTC, as `make.sh` sets it): SuperSize archives record the ELF file's mtime,
/// which a checkout sets to the time of the checkout.
const INPUT_MTIME: u64 = 1_767_225_600;

/// Gives every `$T/` argument of `case` the modification time [`INPUT_MTIME`].
fn pin_input_mtimes(case: &Case) {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(INPUT_MTIME);
    for arg in case.args.iter().filter_map(|a| a.strip_prefix("$T/")) {
        let path = root().join("testdata").join(arg);
        if path.is_file() {
            let file = fs::File::options()
                .write(true)
                .open(&path)
                .expect("open input");
            file.set_modified(time).expect("set the input's mtime");
        }
    }
}

/// Runs `case` into `out` (an empty directory); the problems found, one line each.
fn check(case: &Case, out: &Path) -> Vec<String> {
    pin_input_mtimes(case);
    let out_prefix = format!("{}/", out.to_str().expect("UTF-8 temporary path"));
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("$T/", "testdata/").replace("$O/", &out_prefix))
        .collect();
    let run = symblob()
        .args(&args)
        .current_dir(root())
        .output()
        .expect("run symblob");
    if !run.status.success() {
        return vec![format!(
            "`symblob {}` failed ({}): {}",
            case.args.join(" "),
            run.status,
            stderr_text(&run).trim_end()
        )];
    }
    if !run.stdout.is_empty() {
        // As make.sh writes it: the output directory named `$O/`.
        let stdout = String::from_utf8_lossy(&run.stdout).replace(&out_prefix, "$O/");
        fs::write(out.join("stdout"), stdout).expect("write stdout");
    }
    let golden = testdata(&format!("golden/outputs/{}", case.name));
    let want = files_under(&golden);
    let got = files_under(out);
    let mut problems = Vec::new();
    for missing in want.difference(&got) {
        problems.push(format!("{}: not written", missing.display()));
    }
    for extra in got.difference(&want) {
        problems.push(format!("{}: written, but no golden file", extra.display()));
    }
    for file in want.intersection(&got) {
        let want_bytes = fs::read(golden.join(file)).expect("read golden file");
        let got_bytes = fs::read(out.join(file)).expect("read written file");
        if let Some(difference) = first_difference(&want_bytes, &got_bytes) {
            problems.push(format!("{}: {difference}", file.display()));
        }
    }
    problems
}

/// Every case writes exactly its golden files.
#[test]
fn every_case_writes_its_golden_bytes() {
    let cases = cases();
    assert!(cases.len() > 100, "cases.txt lists {} cases", cases.len());
    let scratch = tempfile::tempdir().expect("temporary directory");
    let mut failures = Vec::new();
    for case in &cases {
        let out = scratch.path().join(&case.name);
        fs::create_dir(&out).expect("case directory");
        for problem in check(case, &out) {
            failures.push(format!("case {}: {problem}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) in {} cases (regenerate with testdata/golden/make.sh only when an issue \
         changes an output on purpose):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The table and the committed outputs match one to one: no duplicate name, no case
/// without a golden directory, no golden directory left from a removed case.
#[test]
fn every_golden_directory_belongs_to_one_case() {
    let mut names = BTreeSet::new();
    for case in cases() {
        assert!(
            names.insert(case.name.clone()),
            "case {} listed twice",
            case.name
        );
    }
    let dirs: BTreeSet<String> = fs::read_dir(testdata("golden/outputs"))
        .expect("read outputs")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let without_golden: Vec<_> = names.difference(&dirs).collect();
    let without_case: Vec<_> = dirs.difference(&names).collect();
    assert!(
        without_golden.is_empty() && without_case.is_empty(),
        "cases without outputs: {without_golden:?}; outputs without a case: {without_case:?}"
    );
}

/// The comparison names the first differing offset, also when one file is a prefix of
/// the other.
#[test]
fn first_difference_names_the_offset() {
    assert_eq!(first_difference(b"abc", b"abc"), None);
    let changed = first_difference(b"abcd", b"abXd").expect("differs");
    assert!(
        changed.starts_with("differs first at offset 2 (0x2)"),
        "{changed}"
    );
    let shorter = first_difference(b"abcd", b"ab").expect("differs");
    assert!(
        shorter.contains("offset 2") && shorter.contains("4 bytes, this build wrote 2"),
        "{shorter}"
    );
}
