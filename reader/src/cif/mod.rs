//! Compact ImageMap Format: the Swift runtime's list of loaded images.
