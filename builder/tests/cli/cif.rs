//! `symblob cif` command-line tests.
