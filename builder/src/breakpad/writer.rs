//! The Breakpad `.sym` writer.
