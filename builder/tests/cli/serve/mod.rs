//! `symblob serve`, started by the tests on 127.0.0.1 as a real process, with real clients
//! (`symblob symbfile push`, HTTP requests).

mod expect;
mod garage;
mod harness;
mod parts;
mod s3;
