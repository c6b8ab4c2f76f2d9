//! Benchmarks: ksym_build (filled in with the code it measures).
fn main() {}
