//! `symblob serve`, started by the tests on 127.0.0.1 as a real process, with real clients
//! (`symblob symbfile push`, HTTP requests).

mod crash;
mod debuginfod;
mod full_disk;
mod harness;
mod load;
mod memory;
mod refusals;
pub mod symbolize;
