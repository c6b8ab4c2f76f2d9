//! `symblob symbfile …`: dump, lookup, fileid, write, push and publish; `symblob convert`
//! between symbfile and Lidia.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use symblob_build::symbfile::{decode, FileId, Record};

use crate::common::{failed, ok, run, s, symblob, testdata};
use crate::symbfile_server::Service;

/// The Lidia test ELFs symblib wrote symbfiles for (gohello's Go functions are compared
/// by the integration tests, which name its known difference).
pub(crate) const ELFS: [&str; 3] = ["inl", "simple", "libdemo.so"];
const KEY: &str = "k3y-Secret-7d1f";

/// A file symblib wrote, under `testdata/symbfile/symblib/`.
pub(crate) fn symblib(name: &str) -> PathBuf {
    testdata(&format!("symbfile/symblib/{name}"))
}

/// `symblob convert FROM -o TO --to FORMAT`, which must succeed.
fn convert(from: &Path, to: &Path, format: &str) {
    ok(&run(
        &["convert", s(from), "-o", s(to), "--to", format],
        b"",
    ));
}

fn sorted_lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.lines().map(str::to_owned).collect();
    v.sort();
    v
}

#[test]
fn symbfile_dump_lists_the_records_symblib_decoded() {
    for elf in ELFS {
        for kind in ["ranges", "retpads"] {
            let file = symblib(&format!("{elf}.{kind}.symbfile"));
            let out = ok(&run(&["symbfile", "dump", s(&file)], b""));
            let expected = std::fs::read_to_string(symblib(&format!("{elf}.{kind}.txt"))).unwrap();
            assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{elf}.{kind}");
        }
    }
}

#[test]
fn symbfile_dump_json_is_the_models_shape() {
    let Some(script) = crate::common::shared_model("symbfile_ref.py") else {
        return;
    };
    for elf in ELFS {
        let file = symblib(&format!("{elf}.retpads.symbfile"));
        let ours: serde_json::Value =
            serde_json::from_str(&ok(&run(&["symbfile", "dump", "--json", s(&file)], b"")))
                .unwrap();
        let model = std::process::Command::new("python3")
            .args([s(&script), "dump", "--json", s(&file)])
            .output()
            .unwrap();
        let theirs: serde_json::Value = serde_json::from_slice(&ok(&model).into_bytes()).unwrap();
        // Ours writes addresses as "0x…" strings; the model as numbers.
        let mut ours = ours;
        for r in ours["records"].as_array_mut().unwrap() {
            let va = r["elf_va"].as_str().expect("elf_va is a \"0x…\" string");
            r["elf_va"] = u64::from_str_radix(&va[2..], 16).unwrap().into();
        }
        assert_eq!(ours, theirs, "{elf}");

        // And back: `write` of that JSON is what the model writes from it.
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        std::fs::write(&json, serde_json::to_vec(&theirs).unwrap()).unwrap();
        let ours_bin = dir.path().join("ours");
        ok(&run(
            &["symbfile", "write", s(&json), "-o", s(&ours_bin)],
            b"",
        ));
        let model_bin = std::process::Command::new("python3")
            .args([s(&script), "write", s(&json)])
            .output()
            .unwrap();
        assert!(model_bin.status.success());
        assert_eq!(std::fs::read(&ours_bin).unwrap(), model_bin.stdout, "{elf}");
    }
}

#[test]
fn symbfile_lookup_gives_the_inline_chain_and_return_pads() {
    // symblib's inl.ranges: compute() at 0x1225 runs leaf inlined into middle into outer.
    let ranges = symblib("inl.ranges.symbfile");
    let out = ok(&run(
        &["symbfile", "lookup", s(&ranges), "0x1225", "1226", "0x5"],
        b"",
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "0x1225\t4\tleaf\t./inl.c\t6\tmiddle\t./inl.c\t7\touter\t./inl.c\t8\tcompute\t./inl.c\t12"
    );
    assert!(lines[1].starts_with("0x1226\t4\tleaf\t"));
    assert_eq!(lines[2], "0x5\t0");
    // A return pad, from symblib's inl.retpads.txt: main calls atoi at ./inl.c:32.
    let pads = symblib("inl.retpads.symbfile");
    let out = ok(&run(&["symbfile", "lookup", s(&pads)], b"0x10d4\n"));
    assert_eq!(
        out,
        "0x10d4\t2\tatoi\t/usr/include/stdlib.h\t364\tmain\t./inl.c\t32\n"
    );
}

#[test]
fn symbfile_converted_to_lidia_answers_like_the_symbfile() {
    let dir = tempfile::tempdir().unwrap();
    for elf in ELFS {
        let ranges = symblib(&format!("{elf}.ranges.symbfile"));
        let lidia = dir.path().join(format!("{elf}.lidia"));
        convert(&ranges, &lidia, "lidia");
        let mut addrs = String::new();
        for r in decode(&std::fs::read(&ranges).unwrap()).unwrap() {
            if let Record::Range(r) = r {
                for a in [
                    r.va,
                    r.va + r.length / 2,
                    r.va + r.length - 1,
                    r.va + r.length,
                ] {
                    addrs.push_str(&format!("{a:#x}\n"));
                }
            }
        }
        let from_symbfile = ok(&run(&["symbfile", "lookup", s(&ranges)], addrs.as_bytes()));
        let from_lidia = ok(&run(&["lidia", "lookup", s(&lidia)], addrs.as_bytes()));
        assert_eq!(from_symbfile, from_lidia, "{elf}");

        // And back to a symbfile with the same records (Lidia orders them by VA, depth).
        let back = dir.path().join(format!("{elf}.symbfile"));
        convert(&lidia, &back, "symbfile");
        let mut expected = decode(&std::fs::read(&ranges).unwrap()).unwrap();
        expected.sort_by_key(|r| match r {
            Record::Range(r) => (r.va, r.depth),
            Record::ReturnPad(_) => unreachable!(),
        });
        assert_eq!(
            decode(&std::fs::read(&back).unwrap()).unwrap(),
            expected,
            "{elf}"
        );
    }
}

#[test]
fn symbfile_fileid_prints_hex_and_es_forms() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    let zeros = dir.path().join("zeros");
    std::fs::write(&zeros, [0u8; 123]).unwrap();
    let out = ok(&run(&["symbfile", "fileid", s(&empty), s(&zeros)], b""));
    // Spec §7 known answers.
    assert_eq!(
        out,
        format!(
            "af5570f5a1810b7af78caf4bc70a660f  r1Vw9aGBC3r3jK9LxwpmDw  {}\n\
             f4c1e5fe2f28034fcceb0776ec00b125  9MHl_i8oA0_M6wd27ACxJQ  {}\n",
            empty.display(),
            zeros.display()
        )
    );
    let missing = run(&["symbfile", "fileid", "/nonexistent/x"], b"");
    assert!(!missing.status.success());
}

#[test]
fn symbfile_bad_input_names_the_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.symbfile");
    let mut bytes = std::fs::read(symblib("inl.ranges.symbfile")).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&bad, &bytes).unwrap();
    let out = run(&["symbfile", "dump", s(&bad)], b"");
    let err = failed(&out);
    assert!(
        err.contains("bad.symbfile at offset 0x") && err.contains("truncated"),
        "{err}"
    );
}

/// `symblob symbfile push ELF --endpoint ENDPOINT`, with `SYMBLOB_API_KEY` set to
/// `key_env` or unset.
fn push_command(elf: &Path, endpoint: &str, key_env: Option<&str>) -> Command {
    let mut cmd = symblob();
    cmd.args(["symbfile", "push", s(elf), "--endpoint", endpoint]);
    cmd.env_remove("SYMBLOB_API_KEY");
    if let Some(k) = key_env {
        cmd.env("SYMBLOB_API_KEY", k);
    }
    cmd
}

/// Pushes symblib's range file of `inl` to `service`.
fn push(service: &Service, extra: &[&str], key_env: Option<&str>) -> Output {
    push_command(&testdata("lidia/elf/inl"), &service.url, key_env)
        .args(["--ranges", symblib("inl.ranges.symbfile").to_str().unwrap()])
        .args(["--retry-delay", "10"])
        .args(extra)
        .output()
        .unwrap()
}

fn assert_key_hidden(out: &Output) {
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !String::from_utf8_lossy(stream).contains(KEY),
            "the key was printed"
        );
    }
}

#[test]
fn symbfile_push_sends_self_contained_parts_with_the_headers() {
    let service = Service::start(KEY, vec![]);
    let pads = symblib("inl.retpads.symbfile");
    let out = push(
        &service,
        &["--return-pads", s(&pads), "--max-part-size", "200"],
        Some(KEY),
    );
    ok(&out);
    assert_key_hidden(&out);
    let requests = service.requests();
    let es = FileId::of_path(&testdata("lidia/elf/inl")).unwrap().es();
    for (path, file) in [
        ("/api/symbols-ranges", "inl.ranges.symbfile"),
        ("/api/symbols-returnpads", "inl.retpads.symbfile"),
    ] {
        let sent: Vec<_> = requests.iter().filter(|r| r.path == path).collect();
        assert!(sent.len() > 1, "{path}: {} parts", sent.len());
        let mut records = Vec::new();
        for (i, r) in sent.iter().enumerate() {
            assert_eq!(r.header("FileID"), Some(es.as_str()));
            assert_eq!(r.header("FilePart"), Some(i.to_string().as_str()));
            assert_eq!(r.header("FileParts"), Some(sent.len().to_string().as_str()));
            assert_eq!(
                r.header("Content-Length"),
                Some(r.body.len().to_string().as_str())
            );
            assert_eq!(
                r.header("Authorization"),
                Some(format!("APIKey {KEY}").as_str())
            );
            // Each part is a complete file; a range part starts with a top-level function.
            let part = decode(&r.body).unwrap();
            if let Some(Record::Range(first)) = part.first() {
                assert_eq!(first.depth, 0);
            }
            records.extend(part);
        }
        assert_eq!(
            records,
            decode(&std::fs::read(symblib(file)).unwrap()).unwrap(),
            "{path}"
        );
    }
}

#[test]
fn symbfile_push_retries_5xx_and_never_4xx() {
    let service = Service::start(KEY, vec![503, 500]);
    let out = push(&service, &[], Some(KEY));
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("HTTP 503") && stderr.contains("retrying"),
        "{stderr}"
    );
    assert_eq!(service.requests().len(), 3);
    let whole = std::fs::read(symblib("inl.ranges.symbfile")).unwrap();
    assert!(service.requests().iter().all(|r| r.body == whole));

    let service = Service::start(KEY, vec![]);
    let wrong = "not-the-key";
    let out = push(&service, &[], Some(wrong));
    let stderr = failed(&out);
    assert!(
        stderr.contains("HTTP 401")
            && stderr.contains("1001")
            && stderr.contains("invalid API key")
            && stderr.contains("uuid-401"),
        "{stderr}"
    );
    assert!(!stderr.contains(wrong));
    assert_eq!(service.requests().len(), 1, "4xx must not be retried");

    let service = Service::start(KEY, vec![503; 10]);
    let out = push(&service, &["--attempts", "3"], Some(KEY));
    assert!(!out.status.success());
    assert_eq!(service.requests().len(), 3);
    assert_key_hidden(&out);
}

#[test]
fn symbfile_push_needs_a_key_from_the_environment_or_a_file() {
    let service = Service::start(KEY, vec![]);
    let out = push(&service, &[], None);
    assert!(failed(&out).contains("SYMBLOB_API_KEY"));
    assert!(service.requests().is_empty());

    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let out = push(&service, &["--api-key-file", s(&key_file)], None);
    ok(&out);
    assert_key_hidden(&out);
    assert_eq!(service.requests().len(), 1);
}

#[test]
fn symbfile_push_retries_connection_errors() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let elf = testdata("lidia/elf/inl");
    let out = push_command(&elf, &format!("http://127.0.0.1:{port}"), Some(KEY))
        .args(["--ranges", symblib("inl.ranges.symbfile").to_str().unwrap()])
        .args(["--attempts", "2", "--retry-delay", "10"])
        .output()
        .unwrap();
    let stderr = failed(&out);
    assert!(
        stderr.contains("connection error") && stderr.contains("gave up after 2 attempts"),
        "{stderr}"
    );
    assert_key_hidden(&out);
}

/// `symblob symbfile publish ELF DIR EXTRA…`, which must succeed: its standard output.
fn publish(elf: &Path, dir: &Path, extra: &[&str]) -> String {
    ok(&run(
        &[&["symbfile", "publish", s(elf), s(dir)], extra].concat(),
        b"",
    ))
}

#[test]
fn symbfile_publish_writes_the_download_layout() {
    let dir = tempfile::tempdir().unwrap();
    let elf = testdata("lidia/elf/inl");
    let ranges = symblib("inl.ranges.symbfile");
    let out = publish(&elf, dir.path(), &["--ranges", s(&ranges)]);
    let es = FileId::of_path(&elf).unwrap().es();
    let base = dir.path().join(&es[0..2]).join(&es[2..4]).join(&es);
    assert_eq!(
        out,
        format!(
            "{}\n{}\n",
            base.join("metadata.json").display(),
            base.join("ranges").display()
        )
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(
        meta,
        serde_json::json!({"version": 1, "symbolFileReferences": {"dwarfFileID": es}})
    );
    let compressed = std::fs::read(base.join("ranges")).unwrap();
    assert_eq!(
        zstd::decode_all(&compressed[..]).unwrap(),
        std::fs::read(&ranges).unwrap()
    );

    // A separate debug file: metadata under the executable, ranges under the debug file.
    let debug = testdata("lidia/elf/simple");
    publish(
        &elf,
        dir.path(),
        &["--ranges", s(&ranges), "--debug-file", s(&debug)],
    );
    let d = FileId::of_path(&debug).unwrap().es();
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["symbolFileReferences"]["dwarfFileID"], d.as_str());
    assert!(dir
        .path()
        .join(&d[0..2])
        .join(&d[2..4])
        .join(&d)
        .join("ranges")
        .is_file());
}

/// `symbfile build` of `elf` into `dir`: the range and return-pad files' bytes.
fn built(dir: &std::path::Path, elf: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    let (ranges, pads) = (dir.join("built.ranges"), dir.join("built.retpads"));
    ok(&run(
        &[
            "symbfile",
            "build",
            s(elf),
            "-o",
            s(&ranges),
            "--return-pads",
            s(&pads),
        ],
        b"",
    ));
    (std::fs::read(ranges).unwrap(), std::fs::read(pads).unwrap())
}

#[test]
fn symbfile_push_without_files_extracts_from_the_executable() {
    let dir = tempfile::tempdir().unwrap();
    let elf = testdata("lidia/elf/inl");
    let (ranges, pads) = built(dir.path(), &elf);
    let service = Service::start(KEY, vec![]);
    let out = push_command(&elf, &service.url, Some(KEY))
        .args(["--max-part-size", "200"])
        .output()
        .unwrap();
    ok(&out);
    assert_key_hidden(&out);
    let requests = service.requests();
    for (path, whole) in [
        ("/api/symbols-ranges", &ranges),
        ("/api/symbols-returnpads", &pads),
    ] {
        let sent: Vec<_> = requests.iter().filter(|r| r.path == path).collect();
        assert!(sent.len() > 1, "{path}: {} parts", sent.len());
        let mut records = Vec::new();
        for (i, r) in sent.iter().enumerate() {
            assert_eq!(r.header("FilePart"), Some(i.to_string().as_str()));
            records.extend(decode(&r.body).unwrap());
        }
        assert_eq!(records, decode(whole).unwrap(), "{path}");
    }
}

#[test]
fn symbfile_publish_without_ranges_extracts_from_the_executable() {
    let dir = tempfile::tempdir().unwrap();
    let elf = testdata("lidia/elf/simple");
    let (ranges, _) = built(dir.path(), &elf);
    let tree = dir.path().join("tree");
    let out = publish(&elf, &tree, &[]);
    let data = out.lines().nth(1).unwrap();
    let compressed = std::fs::read(data).unwrap();
    assert_eq!(zstd::decode_all(&compressed[..]).unwrap(), ranges);
}

/// A publish whose range file cannot be written fails, and leaves the executable's
/// `metadata.json` as it was: it never points at a range file that was not written.
#[test]
fn symbfile_publish_that_fails_leaves_the_metadata_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (elf, debug) = (testdata("lidia/elf/inl"), testdata("lidia/elf/simple"));
    let ranges = symblib("inl.ranges.symbfile");
    let layout = |id: &str| dir.path().join(&id[0..2]).join(&id[2..4]).join(id);
    let (exe_dir, debug_dir) = (
        layout(&FileId::of_path(&elf).unwrap().es()),
        layout(&FileId::of_path(&debug).unwrap().es()),
    );
    publish(&elf, dir.path(), &["--ranges", s(&ranges)]);
    let before = std::fs::read(exe_dir.join("metadata.json")).unwrap();
    // The debug file's `ranges` is a directory: it cannot be replaced.
    std::fs::create_dir_all(debug_dir.join("ranges")).unwrap();
    let out = run(
        &[
            "symbfile",
            "publish",
            s(&elf),
            s(dir.path()),
            "--ranges",
            s(&ranges),
            "--debug-file",
            s(&debug),
        ],
        b"",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ranges"), "{stderr}");
    assert_eq!(
        std::fs::read(exe_dir.join("metadata.json")).unwrap(),
        before
    );
    let leftovers: Vec<_> = [&exe_dir, &debug_dir]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "metadata.json" && n != "ranges")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
