//! OpenTelemetry symbol files (symbfile): range and return-pad records extracted from an
//! executable.

pub mod extract;
pub mod retpads;
