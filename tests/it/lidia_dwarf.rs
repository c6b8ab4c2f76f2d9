//! Tests: lidia dwarf.
