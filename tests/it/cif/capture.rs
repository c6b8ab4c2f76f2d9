//! Capture of this test process: round trip through CIF, and agreement with `readelf`.

use std::process::Command;

use symblob_build::capture::capture;
use symblob_build::cif::{EncodeMode, ImageMap};

/// `readelf` output for `args`, or `None` when binutils is not installed.
fn readelf(args: &[&str], path: &str) -> Option<String> {
    let out = Command::new("readelf").args(args).arg(path).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The GNU build ID as `readelf -n` prints it.
fn readelf_build_id(path: &str) -> Option<Option<String>> {
    let text = readelf(&["-n", "-W"], path)?;
    Some(
        text.lines()
            .find_map(|l| l.split_once("Build ID: "))
            .map(|(_, id)| id.trim().to_owned()),
    )
}

/// (lowest PT_LOAD vaddr, highest executable PT_LOAD end) from `readelf -lW`.
fn readelf_loads(path: &str) -> Option<(u64, Option<u64>)> {
    let text = readelf(&["-l", "-W"], path)?;
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    let mut lowest = u64::MAX;
    let mut text_end = None;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        // LOAD offset vaddr paddr filesz memsz flags... align
        if f.first() != Some(&"LOAD") {
            continue;
        }
        let vaddr = hex(f[2]);
        let memsz = hex(f[5]);
        lowest = lowest.min(vaddr);
        if f[6..f.len() - 1].concat().contains('E') {
            text_end = Some(text_end.unwrap_or(0).max(vaddr + memsz));
        }
    }
    Some((lowest, text_end))
}

#[test]
fn capture_of_this_process_round_trips_in_both_modes() {
    let map = capture(None).unwrap();
    assert_eq!(map.word_size, usize::BITS);
    assert!(map.platform.starts_with("Linux ("));
    let exe = std::env::current_exe().unwrap();
    assert!(
        map.images.iter().any(|i| i.path.as_deref() == exe.to_str()),
        "the test binary is listed"
    );
    assert!(
        map.images.windows(2).all(|w| w[0].base <= w[1].base),
        "sorted by base"
    );
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        let bytes = map.encode(mode).unwrap();
        let back = ImageMap::decode(&bytes, false).unwrap();
        assert_eq!(back.trailing_bytes, 0);
        assert_eq!(back.into_image_map(), map, "{mode:?}");
    }
}

#[test]
fn captured_build_ids_and_text_ends_agree_with_readelf() {
    if crate::common::tool("readelf").is_none() {
        return;
    }
    let map = capture(None).unwrap();
    let mut checked = 0;
    for image in &map.images {
        let path = image.path.as_deref().unwrap();
        let Some(expected_id) = readelf_build_id(path) else {
            continue;
        };
        let ours = image
            .build_id
            .as_deref()
            .map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>());
        assert_eq!(ours, expected_id, "{path}");
        let (lowest, text_end) = readelf_loads(path).unwrap();
        let bias = image.base - (lowest & !0xfff);
        if let Some(end) = text_end {
            assert_eq!(image.end_of_text, bias + end, "{path}");
        }
        assert!(image.end_of_text > image.base);
        checked += 1;
    }
    // The test binary, libc and the dynamic loader at least.
    assert!(checked >= 3, "{checked} images checked");
    assert!(map.images.iter().filter(|i| i.build_id.is_some()).count() >= 2);
}
