//! Tests: ksym builder.
