//! Builds from an input file: each reads the file through the sources, fills the model
//! and hands it to one writer, with the output rules of [`crate::output`].
//!
//! This is the one layer that knows both sides. Sources (`elf`, `dwarf`, `gopclntab`,
//! `text`, `cfi`, `extract`, `retpads`, `capture`, `readback`) read inputs and know no
//! format; writers (`ksym`, `lidia`, `gsym`, `breakpad`, `symbfile`, `size`, `cif`) read
//! only the model and know no input. A test (`layers` in the builder's tests) keeps it so.

#[cfg(feature = "ksym")]
pub mod ksym;

#[cfg(feature = "breakpad")]
pub mod breakpad;
#[cfg(feature = "lidia")]
pub mod lidia;
#[cfg(feature = "size")]
pub mod size;
#[cfg(feature = "symbfile")]
pub mod symbfile;

#[cfg(test)]
mod layers;
