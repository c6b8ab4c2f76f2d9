//! `symblob ksym` command-line tests.
