//! Cross-checks on programs built here.
