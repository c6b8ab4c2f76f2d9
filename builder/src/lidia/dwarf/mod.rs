//! Lidia ranges from DWARF: inline frames, source files and line tables.
