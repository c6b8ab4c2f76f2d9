//! `symblob serve`, started by the tests on 127.0.0.1 as a real process, with real clients
//! (`symblob symbfile push`, HTTP requests).

mod debuginfod;
mod harness;
