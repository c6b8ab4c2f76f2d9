//! Links the program without libc and without the C start files: `_start` is ours.

fn main() {
    for arg in ["-nostartfiles", "-nostdlib", "-static"] {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
