//! Breakpad `.sym` files as a source.
