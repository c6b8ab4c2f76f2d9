//! A unit's DIEs in order, each parsed only when its walk asks. The walks need every
//! DIE's depth and tag but the attributes of few (the unit, subprograms, inlined calls);
//! skipping a DIE's attributes by their forms costs a fraction of parsing them, and
//! three quarters of a Rust program's DIEs are never read.

use super::Slice;

/// The DIEs of one unit, in DIE order.
pub(crate) struct Dies<'u, 'a> {
    unit: &'u gimli::Unit<Slice<'a>>,
    raw: gimli::EntriesRaw<'u, Slice<'a>>,
    /// The depth of the cursor's first DIE: 0, or that of a DIE whose children the
    /// cursor jumped over.
    base: isize,
    /// The DIE last read, its attribute list reused.
    entry: gimli::DebuggingInformationEntry<Slice<'a>>,
}

/// A DIE whose abbreviation is read and whose attributes are not: the caller reads them
/// ([`Dies::read`]) or skips them ([`Dies::skip`]) before asking for the next DIE.
#[derive(Clone, Copy)]
pub(crate) struct Head<'u> {
    /// Depth in the unit's tree (the unit DIE is at 0).
    pub depth: isize,
    /// Offset in the unit.
    pub offset: gimli::UnitOffset,
    abbrev: &'u gimli::Abbreviation,
}

impl Head<'_> {
    /// The DIE's tag.
    pub fn tag(&self) -> gimli::DwTag {
        self.abbrev.tag()
    }

    /// Whether a list of children follows the DIE.
    pub fn has_children(&self) -> bool {
        self.abbrev.has_children()
    }
}

impl<'u, 'a> Dies<'u, 'a> {
    /// The DIEs of `unit` from its first.
    pub fn new(unit: &'u gimli::Unit<Slice<'a>>) -> gimli::Result<Self> {
        Ok(Dies {
            unit,
            raw: unit.entries_raw(None)?,
            base: 0,
            entry: gimli::DebuggingInformationEntry::null(),
        })
    }

    /// The next DIE, the null entries that end lists of children passed over; `None` at
    /// the end of the unit.
    pub fn next(&mut self) -> gimli::Result<Option<Head<'u>>> {
        while !self.raw.is_empty() {
            let depth = self.base + self.raw.next_depth();
            let offset = self.raw.next_offset();
            if let Some(abbrev) = self.raw.read_abbreviation()? {
                return Ok(Some(Head {
                    depth,
                    offset,
                    abbrev,
                }));
            }
        }
        Ok(None)
    }

    /// Steps over the attributes of `head`, the DIE [`Self::next`] gave last.
    pub fn skip(&mut self, head: Head<'u>) -> gimli::Result<()> {
        self.raw.skip_attributes(head.abbrev.attributes())
    }

    /// Parses the attributes of `head`, the DIE [`Self::next`] gave last.
    pub fn read(
        &mut self,
        head: Head<'u>,
    ) -> gimli::Result<&gimli::DebuggingInformationEntry<Slice<'a>>> {
        let entry = &mut self.entry;
        entry.tag = head.tag();
        entry.has_children = head.has_children();
        entry.offset = head.offset;
        entry.depth = head.depth;
        self.raw
            .read_attributes(head.abbrev.attributes(), &mut entry.attrs)?;
        Ok(&self.entry)
    }

    /// After [`Self::read`] of `head`: jumps over its children where its `DW_AT_sibling`
    /// points past its attributes (as gimli's `next_sibling` follows it; GCC writes
    /// one), without reading them. `false` when it does not: the children come next.
    pub fn jump_over_children(&mut self, head: Head<'u>) -> bool {
        let after = self.raw.next_offset();
        let sibling = match self.entry.attr_value(gimli::DW_AT_sibling) {
            Some(gimli::AttributeValue::UnitRef(to)) if to > head.offset && to >= after => to,
            _ => return false,
        };
        match self.unit.entries_raw(Some(sibling)) {
            Ok(raw) => {
                self.raw = raw;
                self.base = head.depth;
                true
            }
            Err(_) => false,
        }
    }
}
