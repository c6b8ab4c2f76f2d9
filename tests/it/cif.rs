//! Tests: CIF (Compact ImageMap Format) encoder, decoder, text form and capture.

mod support;

mod differential;
mod robustness;
mod vectors;
