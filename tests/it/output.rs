//! The sequence every build's outputs go through (`output::build_outputs`), seen from the
//! file system: what is in place, and when.

use std::fs;
use std::path::Path;

use symblob_build::output::build_outputs;
use symblob_build::{Error, ErrorKind};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn nothing_is_in_place_until_every_output_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, b"old a").unwrap();
    let result: Result<(), Error> = build_outputs(&[], &[&a, &b], |outputs| {
        outputs.write(0, |w| w.write_all(b"new a"))?;
        // Written, not yet in place: `a` is the old file and `b` does not exist.
        assert_eq!(fs::read(&a).unwrap(), b"old a");
        assert!(!b.exists());
        let part = dir.path().join("b.0");
        let index = outputs.add(&part)?;
        outputs.write(index, |w| w.write_all(b"part"))?;
        outputs.close(index)?;
        assert!(!part.exists(), "a closed part waits for the others");
        Err(Error::io(&b, std::io::Error::other("the build failed")))
    });
    assert!(result.is_err());
    assert_eq!(
        fs::read(&a).unwrap(),
        b"old a",
        "a failed build replaces nothing"
    );
    assert_eq!(names(dir.path()), ["a"], "and leaves no temporary file");

    let value = build_outputs::<_, Error>(&[], &[&a, &b], |outputs| {
        outputs.write(0, |w| w.write_all(b"new a"))?;
        outputs.write(1, |w| w.write_all(b"new b"))?;
        let index = outputs.add(&dir.path().join("b.0"))?;
        outputs.write(index, |w| w.write_all(b"part"))?;
        outputs.close(index)?;
        Ok(7)
    })
    .unwrap();
    assert_eq!(value, 7);
    assert_eq!(fs::read(&a).unwrap(), b"new a");
    assert_eq!(fs::read(&b).unwrap(), b"new b");
    assert_eq!(fs::read(dir.path().join("b.0")).unwrap(), b"part");
    assert_eq!(names(dir.path()), ["a", "b", "b.0"]);
}

#[test]
fn an_output_that_is_an_input_is_refused_before_the_build_runs() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::write(&input, b"input").unwrap();
    // A link to the input is the input.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let mut ran = false;
    let result = build_outputs::<(), Error>(&[&input], &[&link], |_| {
        ran = true;
        Ok(())
    });
    assert!(
        matches!(&result, Err(e) if e.kind() == ErrorKind::OutputIsInput),
        "{result:?}"
    );
    assert!(!ran, "refused before the build ran");
    assert_eq!(fs::read(&input).unwrap(), b"input");

    // An output the build adds as it goes is checked the same way.
    let out = dir.path().join("out");
    let result = build_outputs::<(), Error>(&[&input], &[&out], |outputs| {
        outputs.write(0, |w| w.write_all(b"out"))?;
        outputs.add(&link).map(drop)
    });
    assert!(
        matches!(&result, Err(e) if e.kind() == ErrorKind::OutputIsInput),
        "{result:?}"
    );
    assert_eq!(fs::read(&input).unwrap(), b"input");
    assert_eq!(
        names(dir.path()),
        ["in", "link"],
        "no output, no temporary file"
    );
}
