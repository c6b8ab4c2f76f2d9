//! `symblob lidia` command-line tests.
