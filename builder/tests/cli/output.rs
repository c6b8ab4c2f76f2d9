//! How every builder writes its output: regular files atomically with the usual modes,
//! symbolic links written through, FIFOs streamed and left FIFOs, `-o -` on standard
//! output, an input never overwritten. The expected bytes are those of a build to a plain
//! new file, which the golden tests of each format check against the reference writers.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;

use crate::common::{run, run_with_umask, s, stderr_text, success, symblob, testdata};

/// The build commands that take `-o`, each as arguments with `OUT` standing for the output.
fn builders() -> Vec<(Vec<String>, Vec<u8>)> {
    let elf = testdata("lidia/elf/simple");
    let nm = testdata("ksym/input/seed-3.nm");
    let json = br#"{"platform": "Linux (test)", "word_size": 64, "images": [{"base": "0x400000", "end_of_text": "0x410000", "build_id": "0102", "path": "/bin/app"}]}"#;
    let own = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        (
            own(&["ksym", "build", s(&nm), "-o", "OUT", "--quiet"]),
            vec![],
        ),
        (
            own(&["ksym", "build", s(&elf), "-o", "OUT", "--quiet"]),
            vec![],
        ),
        (
            own(&["lidia", "build", s(&elf), "-o", "OUT", "--quiet"]),
            vec![],
        ),
        (own(&["cif", "encode", "-", "-o", "OUT"]), json.to_vec()),
        (
            own(&["cif", "encode", "-", "--base64", "-o", "OUT"]),
            json.to_vec(),
        ),
    ]
}

/// `args` with `OUT` replaced by `out`.
fn with_out<'a>(args: &'a [String], out: &'a str) -> Vec<&'a str> {
    args.iter()
        .map(|a| if a == "OUT" { out } else { a.as_str() })
        .collect()
}

/// Runs `args` with `OUT` replaced by `out`.
fn build_to(args: &[String], stdin: &[u8], out: &str) -> std::process::Output {
    run(&with_out(args, out), stdin)
}

/// What `args` writes to a new regular file.
fn file_build(dir: &Path, args: &[String], stdin: &[u8]) -> Vec<u8> {
    let path = dir.join("reference.out");
    success(build_to(args, stdin, s(&path)));
    let bytes = fs::read(&path).unwrap();
    fs::remove_file(&path).unwrap();
    assert!(!bytes.is_empty());
    bytes
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

/// Every builder writes to the special file `open` makes at `dir/name`: the bytes that
/// `open`'s reader thread reads are those of a build to a regular file, and the special
/// file is still one (`is_kind`) afterwards.
fn special_file_receives_the_bytes(
    name: &str,
    open: impl Fn(&Path) -> JoinHandle<Vec<u8>>,
    is_kind: impl Fn(&fs::FileType) -> bool,
) {
    let dir = tempfile::tempdir().unwrap();
    for (args, stdin) in builders() {
        let want = file_build(dir.path(), &args, &stdin);
        let path = dir.path().join(name);
        let reader = open(&path);
        let o = build_to(&args, &stdin, s(&path));
        assert!(o.status.success(), "{args:?}: {}", stderr_text(&o));
        assert_eq!(reader.join().unwrap(), want, "{args:?}");
        assert!(is_kind(&fs::symlink_metadata(&path).unwrap().file_type()));
        fs::remove_file(&path).unwrap();
    }
}

#[test]
fn a_fifo_receives_the_bytes_and_stays_a_fifo() {
    let open = |fifo: &Path| {
        mkfifo(fifo);
        let fifo = fifo.to_path_buf();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    special_file_receives_the_bytes("pipe", open, FileTypeExt::is_fifo);
}

#[test]
fn a_unix_socket_receives_the_bytes() {
    let open = |path: &Path| {
        let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut got = Vec::new();
            std::io::Read::read_to_end(&mut stream, &mut got).unwrap();
            got
        })
    };
    special_file_receives_the_bytes("socket", open, FileTypeExt::is_socket);
}

#[test]
fn a_symlink_stays_a_link_and_its_target_gets_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    for (args, stdin) in builders() {
        let want = file_build(dir.path(), &args, &stdin);
        // An existing target through a relative link in another directory, and a link
        // whose target does not exist yet.
        let target = sub.join("target.out");
        fs::write(&target, b"old contents").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("sub/target.out", &link).unwrap();
        let dangling = dir.path().join("dangling");
        let new_target = sub.join("new.out");
        std::os::unix::fs::symlink(&new_target, &dangling).unwrap();
        for (link, target) in [(&link, &target), (&dangling, &new_target)] {
            success(build_to(&args, &stdin, s(link)));
            assert!(fs::symlink_metadata(link).unwrap().file_type().is_symlink());
            assert_eq!(fs::read(target).unwrap(), want, "{args:?}");
        }
        for p in [&link, &dangling, &target, &new_target] {
            fs::remove_file(p).unwrap();
        }
    }
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    fs::copy(testdata("lidia/elf/simple"), d("x")).unwrap();
    fs::copy(testdata("ksym/input/seed-3.nm"), d("n")).unwrap();
    fs::write(d("j"), br#"{"images": []}"#).unwrap();
    std::os::unix::fs::symlink("x", d("link-to-x")).unwrap();
    // The first part file `--max-part-size` would write for `-o p`.
    std::os::unix::fs::symlink("x", d("p.0")).unwrap();
    fs::hard_link(d("n"), d("hard-n")).unwrap();
    let original: Vec<(PathBuf, Vec<u8>)> = ["x", "n", "j"]
        .iter()
        .map(|f| (d(f), fs::read(d(f)).unwrap()))
        .collect();
    let cases: [(&[&str], &str, &str); 8] = [
        (&["lidia", "build", "x", "-o", "x"], "x", "x"),
        (
            &["lidia", "build", "x", "-o", "link-to-x"],
            "link-to-x",
            "x",
        ),
        (&["ksym", "build", "x", "-o", "x"], "x", "x"),
        (&["ksym", "build", "n", "-o", "hard-n"], "hard-n", "n"),
        (
            &["ksym", "build", "link-to-x", "-o", "./x"],
            "./x",
            "link-to-x",
        ),
        (
            &[
                "lidia",
                "build",
                "x",
                "--dwarf",
                "--debug-file",
                "x",
                "-o",
                "x",
            ],
            "x",
            "x",
        ),
        (&["cif", "encode", "j", "-o", "j"], "j", "j"),
        (
            &[
                "symbfile",
                "build",
                "x",
                "-o",
                "p",
                "--max-part-size",
                "300",
            ],
            "p.0",
            "x",
        ),
    ];
    for (args, output, input) in cases {
        let o = symblob()
            .current_dir(dir.path())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty());
        assert_eq!(
            stderr_text(&o),
            format!(
                "symblob: output `{output}` is the same file as input `{input}`: \
                 refusing to overwrite an input\n"
            ),
            "{args:?}"
        );
        for (path, bytes) in &original {
            assert_eq!(&fs::read(path).unwrap(), bytes, "{args:?} changed {path:?}");
        }
    }
    // Standard input that is the output file.
    let o = symblob()
        .current_dir(dir.path())
        .args(["ksym", "build", "-", "-o", "n"])
        .stdin(fs::File::open(d("n")).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr_text(&o),
        "symblob: output `n` is the same file as input `-`: refusing to overwrite an input\n"
    );
    for (path, bytes) in &original {
        assert_eq!(&fs::read(path).unwrap(), bytes);
    }
    assert!(fs::symlink_metadata(d("link-to-x"))
        .unwrap()
        .file_type()
        .is_symlink());
    // Only the files made here are left: no temporary file behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 6);
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().mode() & 0o7777
}

#[test]
fn new_files_get_0666_under_the_umask_and_existing_files_keep_their_mode() {
    let dir = tempfile::tempdir().unwrap();
    for (args, _) in builders().into_iter().filter(|(_, stdin)| stdin.is_empty()) {
        for (mask, want) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
            let out = dir.path().join(format!("new-{mask}"));
            let args = with_out(&args, s(&out));
            success(run_with_umask(mask, &args));
            assert_eq!(mode(&out), want, "umask {mask}: {args:?}");
            // Rebuilding over a file keeps the file's own mode, whatever the umask.
            for kept in [0o640, 0o755] {
                fs::set_permissions(&out, fs::Permissions::from_mode(kept)).unwrap();
                success(run_with_umask(mask, &args));
                assert_eq!(mode(&out), kept, "umask {mask}: {args:?}");
            }
            fs::remove_file(&out).unwrap();
        }
    }
}

#[test]
fn dash_is_standard_output_for_every_builder() {
    let dir = tempfile::tempdir().unwrap();
    for (args, stdin) in builders() {
        let want = file_build(dir.path(), &args, &stdin);
        let got = success(build_to(&args, &stdin, "-"));
        assert_eq!(got, want, "{args:?}");
        // No file named `-` appears.
        assert!(!dir.path().join("-").exists());
        // A path that is standard output (a link to the process's fd 1, as /dev/stdout
        // is) is written through, and the link stays.
        let link = dir.path().join("fd1");
        std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
        let got = success(build_to(&args, &stdin, s(&link)));
        assert_eq!(got, want, "{args:?}");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        // Also when the shell made standard output a file opened for appending (`>>`):
        // the bytes go where the shell said, after what was there.
        let log = dir.path().join("log");
        fs::write(&log, b"before\n").unwrap();
        let appending = fs::OpenOptions::new().append(true).open(&log).unwrap();
        let mut child = symblob()
            .args(with_out(&args, s(&link)))
            .stdin(Stdio::piped())
            .stdout(appending)
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &stdin).unwrap();
        assert!(child.wait().unwrap().success());
        assert_eq!(fs::read(&log).unwrap(), [&b"before\n"[..], &want].concat());
        fs::remove_file(&link).unwrap();
        fs::remove_file(&log).unwrap();
    }
}

/// Waits (at most 10 s) until `/proc/PID/maps` reads the same twice, 100 ms apart.
fn wait_for_settled_maps(pid: u32) {
    let maps = format!("/proc/{pid}/maps");
    let mut last = fs::read(&maps).unwrap_or_default();
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let now = fs::read(&maps).unwrap_or_default();
        if now == last && !now.is_empty() {
            return;
        }
        last = now;
    }
    panic!("the mappings of process {pid} did not settle");
}

#[test]
fn cif_capture_writes_the_same_bytes_to_a_file_and_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    // A process whose mappings do not change while it is captured twice.
    let mut sleeper = Command::new("sleep").arg("60").spawn().expect("sleep");
    let pid = sleeper.id().to_string();
    // `spawn` returns once the program is exec'd, while its loader may still be mapping
    // shared libraries: wait until the mappings hold still.
    wait_for_settled_maps(sleeper.id());
    let file = dir.path().join("capture.cif");
    success(run(&["cif", "capture", &pid, "-o", s(&file)], b""));
    let got = success(run(&["cif", "capture", &pid, "-o", "-"], b""));
    sleeper.kill().unwrap();
    let _ = sleeper.wait();
    assert_eq!(got, fs::read(&file).unwrap());
}

#[test]
fn write_errors_name_the_path_given_and_keep_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let elf = testdata("lidia/elf/simple");
    let o = symblob()
        .current_dir(dir.path())
        .args(["lidia", "build", s(&elf), "-o", "missing/x.lidia"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr_text(&o),
        "symblob: missing/x.lidia: No such file or directory (os error 2)\n"
    );
    let o = run(&["lidia", "build", s(&elf), "-o", s(dir.path())], b"");
    assert_eq!(
        stderr_text(&o),
        format!("symblob: {}: is a directory\n", dir.path().display())
    );
    // A failed build leaves an existing output as it was, and no temporary file.
    let out = dir.path().join("kept.lidia");
    fs::write(&out, b"previous").unwrap();
    let not_elf = testdata("ksym/input/seed-3.nm");
    let o = run(&["lidia", "build", s(&not_elf), "-o", s(&out)], b"");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(fs::read(&out).unwrap(), b"previous");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// `--max-part-size` parts are put in place together, once the whole build succeeded: a
/// build refused at its second part (the input itself) leaves the earlier `p.0` as it was,
/// and no temporary file. A build that succeeds writes every part.
#[test]
fn part_files_are_replaced_only_when_every_part_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    fs::copy(testdata("lidia/elf/simple"), d("p.1")).unwrap();
    fs::write(d("p.0"), b"an earlier part\n").unwrap();
    let build = |output: &str, more: &[&str]| {
        symblob()
            .current_dir(dir.path())
            .args(["symbfile", "build", "p.1", "-o", output])
            .args(["--max-part-size", "300"])
            .args(more)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let o = build("p", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr_text(&o),
        "symblob: output `p.1` is the same file as input `p.1`: refusing to overwrite an input\n"
    );
    assert_eq!(fs::read(d("p.0")).unwrap(), b"an earlier part\n");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);

    let o = build("q", &["--return-pads", "r", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_text(&o));
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(
        names.contains(&"q.1".to_string()) && names.contains(&"r.0".to_string()),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("p.") || n.starts_with("q.") || n.starts_with("r.")),
        "{names:?}"
    );
}
