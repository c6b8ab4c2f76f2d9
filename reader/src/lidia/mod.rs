//! Lidia v1: Grafana Pyroscope's address-to-symbol archive.

pub mod raw;
