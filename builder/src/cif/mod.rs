//! Captures process image maps and encodes them as CIF.
