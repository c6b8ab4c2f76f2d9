//! `symblob serve`, started by the tests on 127.0.0.1 as a real process, with real clients
//! (`symblob symbfile push`, HTTP requests), on a directory and on a real S3 server
//! (Garage), with debuginfod as the fallback by build ID.

mod crash;
mod debuginfod;
mod expect;
mod full_disk;
mod garage;
mod harness;
mod listing;
mod load;
mod memory;
mod parts;
mod refusals;
mod s3;
mod sweep;
pub mod symbolize;
