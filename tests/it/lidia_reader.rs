//! Tests: lidia reader.
