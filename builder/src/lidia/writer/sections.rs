//! The four sections of a Lidia file encoded in pieces on the rayon pool: a first pass
//! computes each piece's CRC32C (combined in order into the section CRCs the header
//! needs), a second encodes a window of pieces at a time and writes them in order. Only
//! a window of encoded pieces is ever in memory, never the whole file.

use std::borrow::Cow;
use std::io::{self, Write};
use std::ops::Range;

use rayon::prelude::*;

use symblob::lidia::raw::RANGE_FIELDS;

use super::{Layout, LineEntry, Record};

/// Ranges per piece of the VA and range tables (up to 1 MiB of range table).
const RECORDS_PER_PIECE: usize = 16 * 1024;
/// Line entries per piece (up to 512 KiB).
const LINES_PER_PIECE: usize = 64 * 1024;
/// Bytes of the strings table per piece.
const STRING_BYTES_PER_PIECE: usize = 1024 * 1024;
/// Pieces encoded at once while writing: enough to keep every core busy.
const WINDOW: usize = 16;

/// A part of one section.
#[derive(Clone, Debug)]
enum Piece {
    /// VA entries of these ranges.
    Va(Range<usize>),
    /// Range-table entries of these ranges.
    Ranges(Range<usize>),
    /// These bytes of the strings table.
    Strings(Range<usize>),
    /// These line-table entries.
    Lines(Range<usize>),
}

impl Piece {
    /// Index of the piece's section in file (and header CRC) order.
    fn section(&self) -> usize {
        match self {
            Piece::Va(_) => 0,
            Piece::Ranges(_) => 1,
            Piece::Strings(_) => 2,
            Piece::Lines(_) => 3,
        }
    }
}

/// The contents of the four sections, with the field sizes of `layout`.
pub(super) struct Sections<'w> {
    pub layout: &'w Layout,
    /// Sorted ranges.
    pub records: &'w [Record],
    pub strings: &'w [u8],
    pub lines: &'w [LineEntry],
}

impl Sections<'_> {
    /// The CRC32C of each section, in file order (VA, ranges, strings, lines).
    pub(super) fn crcs(&self) -> [u32; 4] {
        let pieces = self.pieces();
        let after = self.bytes_after(&pieces);
        let crcs: Vec<(usize, u32)> = pieces
            .par_iter()
            .zip(after)
            .map(|(p, after)| (p.section(), shifted(crc32c::crc32c(&self.encode(p)), after)))
            .collect();
        xor_by_section(crcs)
    }

    /// Writes the four sections to `w`, in file order.
    pub(super) fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        for window in self.pieces().chunks(WINDOW) {
            let encoded: Vec<Cow<'_, [u8]>> = window.par_iter().map(|p| self.encode(p)).collect();
            for bytes in encoded {
                w.write_all(&bytes)?;
            }
        }
        Ok(())
    }

    /// Encodes the four sections into `out`, which is exactly their size, on the rayon
    /// pool, and returns their CRC32Cs (as [`Self::crcs`]): for a file built in memory,
    /// where nothing is encoded twice. Each section's CRC is taken over the whole section
    /// once it is written: the CPU's CRC instruction reads it faster than combining the
    /// CRCs of its pieces would take.
    pub(super) fn encode_into(&self, out: &mut [u8]) -> [u32; 4] {
        let mut slots = Vec::new();
        let mut sizes = [0usize; 4];
        let mut rest = &mut *out;
        for piece in self.pieces() {
            let len = self.len(&piece);
            sizes[piece.section()] += len;
            let (slot, tail) = std::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            slots.push((piece, slot));
        }
        slots
            .into_par_iter()
            .for_each(|(piece, slot)| self.fill(&piece, slot));
        section_crcs(out, sizes)
    }

    /// For each of `pieces` (in file order), the bytes of its section after it.
    fn bytes_after(&self, pieces: &[Piece]) -> Vec<usize> {
        let mut total = [0usize; 4];
        let mut after: Vec<usize> = pieces
            .iter()
            .rev()
            .map(|p| {
                let n = total[p.section()];
                total[p.section()] += self.len(p);
                n
            })
            .collect();
        after.reverse();
        after
    }

    /// Every piece of the four sections, in file order.
    fn pieces(&self) -> Vec<Piece> {
        let split = |len: usize, step: usize| {
            (0..len)
                .step_by(step)
                .map(move |start| start..(start + step).min(len))
        };
        let n = self.records.len();
        split(n, RECORDS_PER_PIECE)
            .map(Piece::Va)
            .chain(split(n, RECORDS_PER_PIECE).map(Piece::Ranges))
            .chain(split(self.strings.len(), STRING_BYTES_PER_PIECE).map(Piece::Strings))
            .chain(split(self.lines.len(), LINES_PER_PIECE).map(Piece::Lines))
            .collect()
    }

    /// The byte length of one piece.
    fn len(&self, piece: &Piece) -> usize {
        let layout = self.layout;
        match piece {
            Piece::Va(r) => r.len() * layout.va_size as usize,
            Piece::Ranges(r) => r.len() * RANGE_FIELDS * layout.field_size as usize,
            Piece::Strings(r) => r.len(),
            Piece::Lines(r) => r.len() * 2 * layout.line_field_size as usize,
        }
    }

    /// The bytes of one piece.
    fn encode(&self, piece: &Piece) -> Cow<'_, [u8]> {
        if let Piece::Strings(r) = piece {
            return Cow::Borrowed(&self.strings[r.clone()]);
        }
        let mut out = vec![0; self.len(piece)];
        self.fill(piece, &mut out);
        Cow::Owned(out)
    }

    /// Encodes one piece into `out`, which is exactly its length.
    fn fill(&self, piece: &Piece, out: &mut [u8]) {
        let layout = self.layout;
        match piece {
            Piece::Va(r) => {
                let size = layout.va_size as usize;
                for (rec, out) in self.records[r.clone()]
                    .iter()
                    .zip(out.chunks_exact_mut(size))
                {
                    put_le(out, rec.va);
                }
            }
            Piece::Ranges(r) => {
                let size = layout.field_size as usize;
                let entries = out.chunks_exact_mut(RANGE_FIELDS * size);
                for (rec, out) in self.records[r.clone()].iter().zip(entries) {
                    for (v, out) in rec.fields().into_iter().zip(out.chunks_exact_mut(size)) {
                        put_le(out, v);
                    }
                }
            }
            Piece::Strings(r) => out.copy_from_slice(&self.strings[r.clone()]),
            Piece::Lines(r) => {
                let size = layout.line_field_size as usize;
                for (l, out) in self.lines[r.clone()]
                    .iter()
                    .zip(out.chunks_exact_mut(2 * size))
                {
                    let (offset, line) = out.split_at_mut(size);
                    put_le(offset, l.offset);
                    put_le(line, l.line);
                }
            }
        }
    }
}

/// The CRC32C of a piece, `crc`, as a term of its section's CRC: shifted past the
/// `after` bytes that follow it in the section. A section's CRC is the XOR of its
/// pieces' terms (what combining the pieces' CRCs in order gives, as zlib's
/// `crc32_combine(a, b, len(b))` is `a` shifted past `len(b)` bytes XOR `b`), so every
/// piece's term is computed on the pool, in any order.
fn shifted(crc: u32, after: usize) -> u32 {
    crc32c::crc32c_combine(crc, 0, after)
}

/// The section CRCs: the XOR of the `(section, term)` of every piece.
fn xor_by_section(terms: Vec<(usize, u32)>) -> [u32; 4] {
    let mut crcs = [0u32; 4];
    for (section, term) in terms {
        crcs[section] ^= term;
    }
    crcs
}

/// The CRC32C of each of the four sections that `body` holds, of `sizes` bytes in file
/// order, each on the pool.
pub(super) fn section_crcs(body: &[u8], sizes: [usize; 4]) -> [u32; 4] {
    let mut sections = Vec::with_capacity(4);
    let mut rest = body;
    for size in sizes {
        let (section, tail) = rest.split_at(size.min(rest.len()));
        sections.push(section);
        rest = tail;
    }
    let mut crcs = [0u32; 4];
    crcs.par_iter_mut()
        .zip(sections)
        .for_each(|(crc, section)| *crc = crc32c::crc32c(section));
    crcs
}

/// Stores the low `out.len()` bytes of `v`, little-endian. The field sizes the layout
/// picks (2, 4, 8) get a copy of a fixed length, which compiles to one store: a slice of
/// a length known only at run time is a `memmove` call per field, which cost more than
/// the rest of the encoding.
#[inline(always)]
pub(super) fn put_le(out: &mut [u8], v: u64) {
    match out.len() {
        2 => out.copy_from_slice(&(v as u16).to_le_bytes()),
        4 => out.copy_from_slice(&(v as u32).to_le_bytes()),
        8 => out.copy_from_slice(&v.to_le_bytes()),
        size => out.copy_from_slice(&v.to_le_bytes()[..size]),
    }
}

#[cfg(test)]
mod tests {
    use symblob::lidia::LidiaFile;

    use super::super::{Flags, LidiaWriter, RangeSpec};
    use super::*;

    /// A writer of `n` ranges that fill many pieces of every section.
    fn writer(names: &[String], lines: &[LineEntry]) -> LidiaWriter {
        let mut w = LidiaWriter::new(Flags {
            files: true,
            lines: true,
        });
        for (i, name) in names.iter().enumerate() {
            let i = i as u64;
            w.add(&RangeSpec {
                va: 0x1_0000_0000 + i * 0x40,
                length: 0x40,
                depth: i % 3,
                function: name.as_bytes(),
                file: b"file.rs",
                call_file: b"",
                call_line: i,
                lines: &lines[..(i % 8) as usize],
            });
        }
        w
    }

    /// A file of many pieces per section, read back by the reader: every CRC verifies
    /// (the reader computes them over whole sections) and every value is where it belongs.
    /// The file built in memory in one pass is the one streamed in two.
    #[test]
    fn many_pieces_read_back() {
        let n = 3 * RECORDS_PER_PIECE + 17;
        let names: Vec<String> = (0..n).map(|i| format!("function_{i:0>60}")).collect();
        let lines: Vec<LineEntry> = (0..7)
            .map(|k| LineEntry {
                offset: k * 3,
                line: 70_000 + k,
            })
            .collect();
        let w = writer(&names, &lines);
        let layout = w.layout();
        assert!(layout.strings_size as usize > 2 * STRING_BYTES_PER_PIECE);
        assert!(layout.line_entries as usize > 2 * LINES_PER_PIECE);
        let bytes = w.finish();
        let mut streamed = Vec::new();
        writer(&names, &lines)
            .write_to(&mut streamed)
            .expect("written");
        assert!(bytes == streamed, "finish and write_to differ");
        assert_eq!(bytes.len() as u64, layout.file_size);
        let file = LidiaFile::parse(&bytes).expect("parse");
        file.verify_checksums().expect("every section CRC verifies");
        assert_eq!(file.len(), n);
        let mut line_index = 0;
        for (i, name) in names.iter().enumerate() {
            let e = file.entry(i).expect("entry");
            let k = i as u64;
            assert_eq!(file.va(i), Some(0x1_0000_0000 + k * 0x40));
            assert_eq!((e.length, e.depth, e.call_line), (0x40, k % 3, k));
            assert_eq!(file.string(e.func).expect("name").0, name.as_bytes());
            assert_eq!((e.line_index, e.line_count), (line_index, k % 8));
            let table = file.lines();
            for (j, l) in lines[..(k % 8) as usize].iter().enumerate() {
                let got = table.get(line_index as usize + j).expect("line entry");
                assert_eq!((got.offset, got.line), (l.offset, l.line));
            }
            line_index += k % 8;
        }
    }
}
