//! The layer rule, checked on the source tree: writers import no source, no pipeline and
//! no other writer; sources and the model import no writer and no pipeline. Test code is
//! exempt (a writer's tests may make their input with a source).

use std::path::{Path, PathBuf};

/// Modules that read inputs.
const SOURCES: &[&str] = &[
    "elf",
    "dwarf",
    "gopclntab",
    "text",
    "readback",
    "cfi",
    "extract",
    "retpads",
    "capture",
];
/// Modules that write a format from the model.
const WRITERS: &[&str] = &[
    "ksym", "lidia", "gsym", "breakpad", "symbfile", "size", "cif",
];

/// The `crate::…` modules that code of module `layer` may not name.
fn forbidden(layer: &str) -> Vec<&'static str> {
    if WRITERS.contains(&layer) {
        SOURCES
            .iter()
            .chain(WRITERS)
            .chain(&["pipeline"])
            .copied()
            .filter(|&m| m != layer)
            .collect()
    } else if SOURCES.contains(&layer) || layer == "model" {
        WRITERS.iter().chain(&["pipeline"]).copied().collect()
    } else {
        Vec::new()
    }
}

/// The code of a file without its comments and without its test module: a `mod … {`
/// under a `#[cfg(…test…)]` attribute runs, by convention, to the end of the file (a
/// `mod tests;` declaration is a file of its own, skipped by [`files`]).
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let test_attribute = |l: &str| l.trim_start().starts_with("#[cfg(") && l.contains("test");
    let end = lines
        .windows(2)
        .position(|w| {
            let module = w[1].trim_start();
            test_attribute(w[0]) && module.starts_with("mod ") && module.ends_with('{')
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `(line, module)` of every forbidden `crate::module` in `text`, a file of `layer`.
fn violations(layer: &str, text: &str) -> Vec<(usize, String)> {
    let forbidden = forbidden(layer);
    let mut out = Vec::new();
    for (n, line) in code(text).lines().enumerate() {
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let module: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let preceded = line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            if !preceded && forbidden.contains(&module.as_str()) {
                out.push((n + 1, module));
            }
        }
    }
    out
}

/// Every `.rs` file under `dir` that is not test code (`tests.rs`, or under `tests/`).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "tests" {
                files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

#[test]
fn writers_read_only_the_model_and_sources_know_no_writer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut checked = 0;
    for layer in SOURCES.iter().chain(WRITERS).chain(&["model"]) {
        let mut paths = Vec::new();
        files(&src.join(layer), &mut paths);
        paths.push(src.join(format!("{layer}.rs")));
        for path in paths.iter().filter(|p| p.is_file()) {
            let text = std::fs::read_to_string(path).expect("read a source file");
            checked += 1;
            for (line, module) in violations(layer, &text) {
                found.push(format!("{}:{line}: crate::{module}", path.display()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} files found under {}",
        src.display()
    );
    assert!(found.is_empty(), "layer rule broken:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_an_import_across_layers() {
    let writer =
        "use crate::model::Group;\nuse crate::elf::read_elf;\nfn f() { crate::lidia::x(); }\n";
    assert_eq!(
        violations("ksym", writer),
        [(2, "elf".to_owned()), (3, "lidia".to_owned())]
    );
    let source =
        "//! See [`crate::ksym`].\nuse crate::model::Symbol;\nfn g() -> crate::pipeline::X {}\n";
    assert_eq!(violations("text", source), [(3, "pipeline".to_owned())]);
    let tests = "use crate::model::Span;\n#[cfg(all(test, feature = \"x\"))]\nmod tests {\n    use crate::elf::x;\n}\n";
    assert!(violations("lidia", tests).is_empty());
    let declared = "#[cfg(test)]\nmod tests;\nuse crate::breakpad::Module;\n";
    assert_eq!(
        violations("readback", declared),
        [(3, "breakpad".to_owned())]
    );
    assert!(violations("pipeline", writer).is_empty());
}
