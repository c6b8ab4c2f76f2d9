//! Tests: lidia builder.
