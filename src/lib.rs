//! End-to-end tests and benchmarks of symblob live in `tests/` and `benches/`.
