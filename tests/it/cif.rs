//! Tests: cif.
