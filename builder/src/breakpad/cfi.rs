//! Unwind rules from `.eh_frame` and `.debug_frame` as Breakpad `STACK CFI` records.
