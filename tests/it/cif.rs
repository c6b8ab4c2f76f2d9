//! Tests: CIF (Compact ImageMap Format) encoder, decoder, text form and capture.

mod random_maps;
mod support;

mod capture;
mod differential;
mod robustness;
mod vectors;
