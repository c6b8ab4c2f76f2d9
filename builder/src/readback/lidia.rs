//! Lidia files as a source: every range in table order (by address, then depth) becomes a
//! span, each depth-0 range starting a function, names borrowed from the file.

use std::collections::HashMap;

use symblob::lidia::LidiaFile;

use super::reader_error;
use crate::model::{sort_spans, Bytes, Group, Model, Row, SharedBytes, Span, ThinVec};
use crate::{Error, ErrorKind, Location, Result};

/// Reads the Lidia file `bytes` (named `input` in errors) into the model.
///
/// The ranges of one function follow its depth-0 range in the file (the writer sorts by
/// address, then depth, which is the order of a laminar family's pre-order walk); a deeper
/// range before any depth-0 one is refused. Empty files and call files are absent; line
/// numbers beyond `u32` (which no compiler writes) are refused with the range's index.
pub fn read<'a>(bytes: &'a [u8], input: &str) -> Result<Model<'a>> {
    let file = LidiaFile::parse(bytes).map_err(|e| reader_error(input, e))?;
    let mut files: HashMap<&'a [u8], SharedBytes> = HashMap::new();
    let mut shared = |s: &'a [u8]| -> Option<SharedBytes> {
        (!s.is_empty()).then(|| files.entry(s).or_insert_with(|| s.into()).clone())
    };
    let mut functions: Vec<Group<'a>> = Vec::new();
    for range in file.ranges() {
        let at = Location::Index(range.index as u64);
        let too_large = |what: &str| {
            Error::new(
                ErrorKind::Limit,
                input,
                at,
                format!("{what} beyond 32 bits"),
            )
        };
        let depth = u32::try_from(range.depth).map_err(|_| too_large("inline depth"))?;
        let call_line = u32::try_from(range.call_line).map_err(|_| too_large("call line"))?;
        let mut rows = ThinVec::new();
        for entry in range.lines.iter() {
            rows.push(Row {
                addr: range.va.wrapping_add(entry.offset),
                line: u32::try_from(entry.line).map_err(|_| too_large("line number"))?,
            });
        }
        let span = Span {
            start: range.va,
            end: range.va.wrapping_add(range.length),
            depth,
            name: Bytes::Borrowed(range.function.as_bytes()),
            file: shared(range.file.as_bytes()),
            call_file: shared(range.call_file.as_bytes()),
            call_line,
            instance: 0,
            rows,
        };
        if depth == 0 {
            functions.push(Group { spans: vec![span] });
        } else if let Some(group) = functions.last_mut() {
            group.spans.push(span);
        } else {
            return Err(Error::malformed(
                input,
                at,
                "an inlined range comes before any function",
            ));
        }
    }
    for group in &mut functions {
        sort_spans(&mut group.spans);
    }
    Ok(Model {
        functions,
        ..Model::default()
    })
}
