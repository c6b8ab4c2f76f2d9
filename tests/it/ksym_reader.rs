//! Tests: ksym reader.
