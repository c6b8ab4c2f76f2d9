//! Tests: ksym reader (`symblob::ksym`), against the origin-generated blobs of
//! `testdata/ksym/origin/` (expected dumps and lookups written by an independent decoder),
//! the corrupt blobs of `testdata/ksym/corrupt/` (expected outcomes from the test data
//! README), and the API's own contracts.

mod api;
mod corrupt;
mod golden;
mod mutation;
mod name_index;
mod support;
mod trusted;
