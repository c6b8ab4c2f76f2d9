//! `symblob cif` command-line tests.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{run, shared_model};

/// The realistic Linux map of the specification, in Swift's text form.
const LINUX_BASE64: &str = "AiZMaW51eCAoRGViaWFuIEdOVS9MaW51eCAxMiAoYm9va3dvcm0pKQQpVdDHoAAAUAAUERERERERERERERERERERERERERERL2hvbWUvdS9hcHAvbXlhcHAAKn86HAAAAAfwABQiIiIiIiIiIiIiIiIiIiIiIiIiIoEbL3g4Nl82NC1saW51eC1nbnUvbGlibS5zby42AJIgAAAZUAAAgaOABmMuc28uNgCSPAAAAmAABKq7zN2BoxUvbGQtbGludXgteDg2LTY0LnNvLjIA";

fn stdout_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An address as `decode --json` prints it: a `"0x…"` string.
fn hex(value: u64) -> Value {
    json!(format!("{value:#x}"))
}

/// The value of a `"0x…"` address string.
fn address(v: &Value) -> u64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("address {v} is not a string"));
    u64::from_str_radix(s.strip_prefix("0x").unwrap(), 16).unwrap()
}

fn decode_base64(text: &str) -> Vec<u8> {
    let mut buf = vec![0u8; symblob::cif::base64_decoded_len_max(text.len())];
    let n = symblob::cif::base64_decode(text.as_bytes(), &mut buf).unwrap();
    buf.truncate(n);
    buf
}

#[test]
fn decode_reads_base64_and_raw_input_alike() {
    let expected = json!({
        "version": 0,
        "word_size": 64,
        "platform": "Linux (Debian GNU/Linux 12 (bookworm))",
        "images": [
            {"base": hex(0x55d0_c7a0_0000u64), "end_of_text": hex(0x55d0_c7a0_5000u64), "build_id": "11".repeat(20),
             "path": "/home/u/app/myapp", "name": "myapp"},
            {"base": hex(0x7f3a_1c00_0000u64), "end_of_text": hex(0x7f3a_1c07_f000u64), "build_id": "22".repeat(20),
             "path": "/usr/lib/x86_64-linux-gnu/libm.so.6", "name": "libm.so.6"},
            {"base": hex(0x7f3a_1c20_0000u64), "end_of_text": hex(0x7f3a_1c39_5000u64), "build_id": null,
             "path": "/usr/lib/x86_64-linux-gnu/libc.so.6", "name": "libc.so.6"},
            {"base": hex(0x7f3a_1c5c_0000u64), "end_of_text": hex(0x7f3a_1c5e_6000u64), "build_id": "aabbccdd",
             "path": "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "name": "ld-linux-x86-64.so.2"},
        ],
        "trailing_bytes": 0,
    });
    let raw = decode_base64(LINUX_BASE64);
    assert_eq!(raw.len(), 207);
    let padded = format!("{LINUX_BASE64}==\n");
    let url_safe = LINUX_BASE64.replace('+', "-").replace('/', "_");
    for input in [
        LINUX_BASE64.as_bytes(),
        padded.as_bytes(),
        url_safe.as_bytes(),
        &raw,
    ] {
        let out = run(&["cif", "decode", "-", "--json"], input);
        assert_eq!(stdout_json(&out), expected);
    }
    let table = run(&["cif", "decode", "-"], LINUX_BASE64.as_bytes());
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("platform: Linux (Debian GNU/Linux 12 (bookworm))"),
        "{text}"
    );
    assert!(
        text.lines().any(
            |l| l.starts_with("0x00007f3a1c200000  0x00007f3a1c395000  -")
                && l.ends_with("/usr/lib/x86_64-linux-gnu/libc.so.6")
        ),
        "{text}"
    );
}

fn sample_map() -> Value {
    json!({
        "platform": "Windows 11 (test)",
        "word_size": 32,
        "images": [
            {"base": "0x00400000", "end_of_text": "0x00410000", "build_id": "0102030405060708",
             "path": "C:\\Program Files\\App\\app.exe", "name": "app.exe"},
            {"base": 0x7ff0_0000u64, "end_of_text": 0x8010_0000u64, "build_id": null,
             "path": "C:\\Windows\\System32\\kernel32.dll", "name": "kernel32.dll"},
            {"base": 0xf700_0000u64, "end_of_text": 0xf700_1000u64, "build_id": "ff".repeat(64),
             "path": "/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit", "name": "AppKit"},
            {"base": 0xf800_0000u64, "end_of_text": 0xf800_0100u64, "build_id": null, "path": null, "name": null},
        ]
    })
}

/// The decode JSON of `map` as the encoder's input describes it.
fn expected_decode(map: &Value) -> Value {
    let images: Vec<Value> = map["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let addr = |v: &Value| match v {
                Value::String(s) => {
                    hex(u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap())
                }
                other => hex(other.as_u64().unwrap()),
            };
            json!({"base": addr(&i["base"]), "end_of_text": addr(&i["end_of_text"]),
                   "build_id": i["build_id"], "path": i["path"], "name": i["name"]})
        })
        .collect();
    json!({"version": 0, "word_size": map["word_size"], "platform": map["platform"],
           "images": images, "trailing_bytes": 0})
}

#[test]
fn encode_then_decode_gives_the_input_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = serde_json::to_vec(&sample_map()).unwrap();
    for swift in [false, true] {
        let file = dir.path().join(format!("map-{swift}.cif"));
        let file_s = file.to_str().unwrap();
        let mut args = vec!["cif", "encode", "-", "-o", file_s];
        if swift {
            args.push("--swift");
        }
        let out = run(&args, &input);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
        let decoded = run(&["cif", "decode", file_s, "--json"], b"");
        assert_eq!(stdout_json(&decoded), expected_decode(&sample_map()));
        // --base64 to standard output: the same bytes as text.
        let mut b64_args = vec!["cif", "encode", "--base64"];
        if swift {
            b64_args.push("--swift");
        }
        let text = run(&b64_args, &input);
        assert!(text.status.success());
        let text = String::from_utf8(text.stdout).unwrap();
        assert_eq!(decode_base64(text.trim()), std::fs::read(&file).unwrap());
    }
    // The two modes differ for this 32-bit map (an offset crosses 0x80000000).
    let canonical = std::fs::read(dir.path().join("map-false.cif")).unwrap();
    let swift = std::fs::read(dir.path().join("map-true.cif")).unwrap();
    assert!(canonical.len() < swift.len());
}

#[test]
fn encode_matches_the_reference_model_when_present() {
    let Some(model) = shared_model("cif_ref.py") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("map.json");
    std::fs::write(&json_path, serde_json::to_vec(&sample_map()).unwrap()).unwrap();
    for flag in [None, Some("--swift")] {
        let mut args = vec!["cif", "encode", json_path.to_str().unwrap()];
        args.extend(flag);
        let ours = run(&args, b"");
        assert!(ours.status.success());
        let mut reference = std::process::Command::new("python3");
        reference.arg(&model).arg("encode").arg(&json_path);
        reference.args(flag);
        let theirs = reference.output().expect("run the reference model");
        assert!(theirs.status.success(), "{}", stderr(&theirs));
        assert_eq!(ours.stdout, theirs.stdout, "{flag:?}");
    }
}

#[test]
fn capture_then_decode_lists_this_process_images() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("self.cif");
    let pid = std::process::id().to_string();
    let out = run(&["cif", "capture", &pid, "-o", file.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let map = stdout_json(&run(
        &["cif", "decode", file.to_str().unwrap(), "--json"],
        b"",
    ));
    let images = map["images"].as_array().unwrap();
    let exe = std::env::current_exe().unwrap();
    let exe = exe.to_str().unwrap();
    let me = images
        .iter()
        .find(|i| i["path"] == exe)
        .expect("the test binary is listed");
    assert!(me["build_id"].is_string(), "{me}");
    let mut prev = 0;
    for img in images {
        let (base, eot) = (address(&img["base"]), address(&img["end_of_text"]));
        assert!(base < eot && base >= prev, "{img}");
        prev = base;
        assert!(Path::new(img["path"].as_str().unwrap()).is_absolute());
    }
    // Without -o: base64 text on standard output, of the `symblob` process itself.
    let text = run(&["cif", "capture"], b"");
    assert!(text.status.success());
    let decoded = stdout_json(&run(&["cif", "decode", "-", "--json"], &text.stdout));
    let paths: Vec<&str> = decoded["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["path"].as_str())
        .collect();
    assert!(paths.iter().any(|p| p.ends_with("/symblob")), "{paths:?}");
    assert!(decoded["platform"].as_str().unwrap().starts_with("Linux ("));
}

#[test]
fn errors_exit_non_zero_with_a_located_message_and_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.cif");
    let target_s = target.to_str().unwrap();
    let cases: [(&[&str], &[u8], &str); 6] = [
        (
            &["cif", "decode", "/nonexistent/x.cif"],
            b"",
            "/nonexistent/x.cif",
        ),
        (
            &["cif", "decode", "-"],
            b"\x02\x05AB",
            "<stdin> at offset 0x2: platform: truncated",
        ),
        (
            &["cif", "decode", "-"],
            b"AiZM*aW51",
            "<stdin> at offset 0x4: base64 text",
        ),
        (
            &["cif", "encode", "-", "-o", target_s],
            b"{\n\"images\": [\n}",
            "<stdin>:3:",
        ),
        (
            &["cif", "encode", "-", "-o", target_s],
            br#"[{"base": 16, "end_of_text": 32}, {"base": 64, "end_of_text": 64}]"#,
            "<stdin> at entry 1: end of text is not above base",
        ),
        (
            &["cif", "capture", "4294967295", "-o", target_s],
            b"",
            "/proc/4294967295/maps",
        ),
    ];
    for (args, stdin, message) in cases {
        let out = run(args, stdin);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(!target.exists(), "{args:?} left an output file");
    }
    // The older layout decodes only when asked for.
    let legacy = b"\x02\x01\x09\x10\x00\x01\x00\x00\x00";
    assert!(!run(&["cif", "decode", "-"], legacy).status.success());
    let map = stdout_json(&run(
        &["cif", "decode", "-", "--json", "--legacy-no-platform"],
        legacy,
    ));
    assert_eq!(map["platform"], Value::Null);
    assert_eq!(map["images"][0]["end_of_text"], json!("0x1100"));
}
