//! ksym-bin v1: a compressed, kallsyms-style table of text symbols.
pub mod raw;
