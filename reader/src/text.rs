//! Byte strings shown as text without allocating, for the formats whose names need not
//! be UTF-8 (ksym names, Lidia strings). A string may come in pieces (a ksym name is a
//! token and a raw rest); each piece is written on its own.

use core::fmt;

/// Writes `pieces` as UTF-8, each invalid run as U+FFFD (what `String::from_utf8_lossy`
/// gives for each piece).
pub(crate) fn write_lossy(f: &mut fmt::Formatter<'_>, pieces: &[&[u8]]) -> fmt::Result {
    pieces
        .iter()
        .try_for_each(|piece| write_lossy_piece(f, piece))
}

/// One piece of [`write_lossy`].
pub(crate) fn write_lossy_piece(f: &mut fmt::Formatter<'_>, piece: &[u8]) -> fmt::Result {
    for chunk in piece.utf8_chunks() {
        f.write_str(chunk.valid())?;
        if !chunk.invalid().is_empty() {
            f.write_str("\u{FFFD}")?;
        }
    }
    Ok(())
}

/// Writes `pieces` quoted and escaped as `str`'s `Debug` does, each invalid byte as
/// `\xNN`.
pub(crate) fn write_quoted(f: &mut fmt::Formatter<'_>, pieces: &[&[u8]]) -> fmt::Result {
    f.write_str("\"")?;
    pieces
        .iter()
        .try_for_each(|piece| write_escaped_piece(f, piece))?;
    f.write_str("\"")
}

/// One piece of [`write_quoted`], without the quotes.
pub(crate) fn write_escaped_piece(f: &mut fmt::Formatter<'_>, piece: &[u8]) -> fmt::Result {
    for chunk in piece.utf8_chunks() {
        for c in chunk.valid().chars() {
            fmt::Display::fmt(&c.escape_debug(), f)?;
        }
        for byte in chunk.invalid() {
            write!(f, "\\x{byte:02x}")?;
        }
    }
    Ok(())
}
