//! The help texts and the synopsis of `docs/cli.md` against what the commands do: each
//! `--json` line says what that command prints, the top-level description names the
//! format of every command and of every file `symblob lookup` answers from, the synopsis
//! lists every subcommand with every option, and a hint proposes only commands that work.

use std::fs;
use std::path::Path;

use crate::common::{missing_oracle, ok, root, run, s, testdata};

/// The short help of `symblob ARGS` (`-h`: one line per option).
fn help(args: &[&str]) -> String {
    ok(&run(&[args, &["-h"]].concat(), b""))
}

/// The names under `Commands:` in a help text, `help` left out.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The description of `name` under `Commands:`.
fn described(help: &str, name: &str) -> String {
    help.lines()
        .find_map(|l| l.trim_start().strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no command {name} in {help}"))
        .trim()
        .to_string()
}

/// The options of a command's help, each as its spellings (`["-o", "--output"]`,
/// `["--json"]`), `--help` and `--version` left out.
fn options(help: &str) -> Vec<Vec<String>> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            // `-o, --output <OUTPUT>  …` or `--json  …`.
            let (short, l) = match l.strip_prefix('-') {
                Some(r) if r.get(1..3) == Some(", ") => (Some(&l[..2]), &r[3..]),
                _ => (None, l),
            };
            let name = l.strip_prefix("--")?;
            let end = name.find([' ', '=', '<']).unwrap_or(name.len());
            let long = format!("--{}", &name[..end]);
            Some(
                short
                    .map(str::to_string)
                    .into_iter()
                    .chain([long])
                    .collect(),
            )
        })
        .filter(|o: &Vec<String>| !o.iter().any(|w| w == "--help" || w == "--version"))
        .collect()
}

/// A ksym blob built from test data, in `dir`.
fn ksym_blob(dir: &Path) -> std::path::PathBuf {
    let blob = dir.join("seed.ksym");
    let nm = testdata("ksym/input/seed-3.nm");
    ok(&run(
        &["ksym", "build", s(&nm), "-o", s(&blob), "--quiet"],
        b"",
    ));
    blob
}

/// The `--json` line of a help text.
fn json_line(help: &str) -> String {
    let line = help.lines().find(|l| l.trim_start().starts_with("--json"));
    line.expect("a --json option").trim().to_string()
}

#[test]
fn ksym_dump_and_info_json_help_says_what_each_prints() {
    let dir = tempfile::tempdir().unwrap();
    let blob = ksym_blob(dir.path());
    let b = s(&blob);

    // `info --json` prints one object.
    let info: serde_json::Value =
        serde_json::from_str(&ok(&run(&["ksym", "info", "--json", b], b""))).unwrap();
    let symbols = info["symbols"].as_u64().unwrap();
    let info_help = json_line(&help(&["ksym", "info"]));
    assert!(info_help.contains("one JSON object"), "{info_help}");
    for word in ["dump", "per symbol", "JSON Lines"] {
        assert!(!info_help.contains(word), "{info_help}");
    }
    for key in ["layout", "segments"] {
        assert!(info.get(key).is_some() && info_help.contains(key), "{key}");
    }

    // `dump --json` prints one object per symbol, one a line.
    let dump = ok(&run(&["ksym", "dump", "--json", b], b""));
    let rows: Vec<serde_json::Value> = dump
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len() as u64, symbols);
    let dump_help = json_line(&help(&["ksym", "dump"]));
    assert!(dump_help.contains("per symbol") && dump_help.contains("JSON Lines"));
    for key in rows[0].as_object().unwrap().keys() {
        assert!(dump_help.contains(key.as_str()), "{key}: {dump_help}");
    }
}

/// The format a command's description starts with: `ksym-bin v1: …` → `ksym-bin`,
/// `CIF (Compact ImageMap Format): …` → `CIF`.
fn format_of(description: &str) -> &str {
    let head = description.split(':').next().unwrap();
    head.split([' ', '(']).next().unwrap()
}

#[test]
fn top_level_help_names_every_format() {
    let top = help(&[]);
    // The first paragraph of the short help (`-h`) and of the long one (`--help`).
    let long = ok(&run(&["--help"], b""));
    let abouts = [&top, &long].map(|h| h.split("\n\n").next().unwrap().to_string());
    let about = abouts.join("\n");
    let listed = |format: &str| abouts.iter().all(|a| a.contains(format));
    let format_of_command = |c: &str| format_of(&described(&top, c)).to_string();
    // `lookup` and `convert` work on every format rather than one; `serve` is a service
    // (for symbfile uploads), not a format.
    for c in commands(&top)
        .iter()
        .filter(|c| !matches!(c.as_str(), "lookup" | "convert" | "serve"))
    {
        let format = format_of_command(c);
        assert!(listed(&format), "{c} ({format}) missing from: {about}");
    }

    // Every file `symblob lookup` answers from, through its own command's format.
    let dir = tempfile::tempdir().unwrap();
    let blob = ksym_blob(dir.path());
    let lidia = testdata("lidia/lidia/simple.none.lidia");
    let symbfile = testdata("symbfile/symblib/inl.ranges.symbfile");
    let lookup = described(&top, "lookup");
    for (command, file) in [("ksym", &blob), ("lidia", &lidia), ("symbfile", &symbfile)] {
        ok(&run(&["lookup", s(file), "0x1"], b""));
        let format = format_of_command(command);
        assert!(listed(&format), "{format} missing from: {about}");
        assert!(lookup.contains(&format), "{format} missing from: {lookup}");
    }
}

/// The synopsis at the top of `docs/cli.md`: its entries, each a `symblob …` line and
/// the lines indented under it, joined.
fn synopsis() -> Vec<String> {
    let doc = fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let block = doc.split("```text\n").nth(1).unwrap();
    let block = block.split("```").next().unwrap();
    let mut entries: Vec<String> = Vec::new();
    for line in block.lines() {
        match entries.last_mut() {
            Some(entry) if !line.starts_with("symblob ") => entry.push_str(line),
            _ => entries.push(line.to_string()),
        }
    }
    entries
}

#[test]
fn the_synopsis_lists_every_command_and_option() {
    let entries = synopsis();
    let top = help(&[]);
    for command in commands(&top) {
        let group = help(&[&command]);
        let subs = commands(&group);
        let paths: Vec<Vec<String>> = match subs.is_empty() {
            true => vec![vec![command.clone()]],
            false => subs
                .iter()
                .map(|s| vec![command.clone(), s.clone()])
                .collect(),
        };
        for path in paths {
            let args: Vec<&str> = path.iter().map(String::as_str).collect();
            // `symblob ksym dump|info …` lists two subcommands in one entry.
            let entry = entries.iter().find(|e| {
                let words: Vec<&str> = e.split_whitespace().collect();
                words.get(1) == Some(&args[0])
                    && args.get(1).is_none_or(|sub| {
                        words
                            .get(2)
                            .is_some_and(|w| w.split('|').any(|x| x == *sub))
                    })
            });
            let entry = entry.unwrap_or_else(|| panic!("no synopsis entry for {args:?}"));
            for spellings in options(&help(&args)) {
                let listed = entry
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .any(|w| spellings.iter().any(|s| s == w));
                assert!(listed, "{args:?}: {spellings:?} missing from {entry}");
            }
        }
    }
}

/// The backquoted `symblob … build IN -o OUT` commands of a message.
fn proposed(message: &str) -> Vec<Vec<String>> {
    message
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("symblob ") && c.contains(" build "))
        .map(|c| c.split_whitespace().skip(1).map(str::to_string).collect())
        .collect()
}

#[test]
fn a_hint_proposes_an_output_that_can_be_written() {
    let exe = Path::new("/proc/self/exe");
    if !exe.exists() {
        missing_oracle("/proc/self/exe");
        return;
    }
    let nm = fs::read(testdata("ksym/input/seed-3.nm")).unwrap();
    let cases: [(&[&str], &[u8]); 4] = [
        (&["ksym", "dump", "/proc/self/exe"], b""),
        (&["lidia", "dump", "/proc/self/exe"], b""),
        (&["lookup", "/proc/self/exe", "0x1"], b""),
        (&["ksym", "dump", "-"], &nm),
    ];
    for (args, stdin) in cases {
        let out = run(args, stdin);
        assert!(!out.status.success(), "{args:?}");
        let message = String::from_utf8_lossy(&out.stderr).into_owned();
        let commands = proposed(&message);
        assert!(!commands.is_empty(), "{args:?}: {message}");
        for command in commands {
            let output = &command[command.iter().position(|w| w == "-o").unwrap() + 1];
            for place in ["/proc", "/sys", "/dev", "<stdin>"] {
                assert!(!output.starts_with(place), "{args:?}: {message}");
            }
            // The command works as proposed, run where the user ran the first one.
            let cwd = tempfile::tempdir().unwrap();
            let done = std::process::Command::new(env!("CARGO_BIN_EXE_symblob"))
                .args(&command)
                .arg("--quiet")
                .current_dir(cwd.path())
                .stdin(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child.stdin.take().unwrap().write_all(stdin)?;
                    child.wait()
                })
                .unwrap();
            assert!(done.success(), "{command:?} failed");
            assert!(cwd.path().join(output).is_file(), "{command:?}");
        }
    }
}
