//! Benchmarks: lidia (filled in with the code it measures).
fn main() {}
