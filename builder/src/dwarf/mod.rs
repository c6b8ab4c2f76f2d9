//! DWARF as format-neutral function groups: inline frames, source files and line tables.
//!
//! The session reads the DWARF of an ELF (or of its separate debug file) and yields, in
//! address order, one `model::Group` per piece of every function with
//! code: its depth-0 span and one span per inlined call at its inline depth, with call
//! file and call line, each with the line rows it owns; then depth-0 groups from the
//! symbol table for code DWARF does not describe. Writers turn the groups into their
//! format (Lidia: [`crate::pipeline::lidia::collect_dwarf`]); nothing here knows any output format.
//!
//! Pipeline (each step documents its exact rules):
//! 1. find the DWARF (`elf::find_debug_file`: the ELF, `--debug-file`, build ID,
//!    `.gnu_debuglink`), check that a separate one belongs to the ELF
//!    (`elf::check_debug_file`: build ID, else the `.gnu_debuglink` CRC), then `load`
//!    decompresses its sections, `sup` adds the supplementary file dwz shares between
//!    debug files, and `split` finds the split unit of every skeleton unit (a `.dwo`
//!    file or a `.dwp` package): its DIEs are walked instead of the skeleton's, its line
//!    program stays the skeleton's;
//! 2. per unit, in parallel: `units` walks the DIEs (`names` resolves names),
//!    `lines` reads the line program, `inlines` nests the inline ranges, `attach`
//!    gives each range its rows and file. A unit whose DWARF is corrupt is reported as a
//!    warning in [`DwarfStats::warnings`] and contributes nothing (its code falls back to
//!    the symbol table);
//! 3. `shadowing`: depth-0 pieces of all units are made disjoint (the clip to executable
//!    sections and the overlaps inside one unit, resolved as LLVM's address map does,
//!    already run per unit in step 2);
//! 4. `symtab_fill`: depth-0 names from the symbol table, fallback ranges, which get
//!    the line rows no unit's function covers (`orphans`), and nameless ranges for rows
//!    that no symbol covers either;
//! 5. the groups go to the caller (the writer) in address order, spans in (start, depth)
//!    order.

mod attach;
mod debug_files;
#[cfg(feature = "size")]
mod decl_paths;
pub(crate) mod dies;
mod inlines;
mod lines;
pub(crate) mod load;
mod names;
mod orphans;
mod schedule;
pub(crate) mod session;
mod shadowing;
mod split;
mod sup;
mod symtab_fill;
mod symtab_gsym;
#[cfg(feature = "size")]
mod unit_paths;
mod units;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub use self::debug_files::DebugFiles;
use crate::elf::section_ranges;
use crate::elf::symbols_llvm::SymbolMap;
use crate::input::FilesRead;
use crate::model::Group;
use crate::{Progress, Result, Warning, WarningKind};

/// gimli's view of one section.
pub(crate) type Slice<'a> = gimli::EndianSlice<'a, gimli::RunTimeEndian>;

/// A unit together with the DWARF sections it belongs to.
pub(crate) struct UnitRef<'u, 'a> {
    /// All sections.
    pub dwarf: &'u gimli::Dwarf<Slice<'a>>,
    /// The unit.
    pub unit: &'u gimli::Unit<Slice<'a>>,
}

/// What a DWARF session reads and how.
#[derive(Clone, Debug, Default)]
pub struct DwarfOptions {
    /// Demangle function names (Rust and C++).
    pub demangle: bool,
    /// The files beside the ELF to read the DWARF from, when named.
    pub debug_files: DebugFiles,
}

/// What the writer needs in the groups, beyond how the DWARF is read.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GroupContents {
    /// Name depth-0 spans from the symbol table and add symbol-table groups for code DWARF
    /// does not describe (LLVM's symbol rules).
    pub symtab: bool,
    /// With `symtab`, `llvm-gsymutil --convert`'s symbol rules instead of
    /// `llvm-symbolizer`'s: DWARF's names stay on the functions it describes (rather than
    /// the symbol table's), PLT entries get no `name@plt` functions, and symbol-table
    /// functions get no line rows (from units without functions).
    pub gsym_rules: bool,
    /// Attach line rows to the spans.
    pub lines: bool,
    /// Give every span the source file of its rows (needs the rows as well).
    pub files: bool,
    /// Keep an inlined call's touching ranges apart (one span each), as symbolic (and so
    /// dump_syms) reads them: its line records restart at each range.
    pub touching_apart: bool,
}

impl GroupContents {
    /// Whether spans need line rows (for their lines or their files).
    fn need_rows(&self) -> bool {
        self.lines || self.files
    }
}

/// Everything one session is asked: how to read, what to produce, whom to tell.
#[derive(Clone, Copy)]
struct Request<'o> {
    options: &'o DwarfOptions,
    contents: GroupContents,
    progress: &'o Progress,
}

/// What a DWARF build found, for reports and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DwarfStats {
    /// Compilation units read.
    pub units: usize,
    /// Units skipped because their DWARF is corrupt (each has a warning).
    pub failed_units: usize,
    /// Ranges from DWARF (all depths).
    pub dwarf_ranges: usize,
    /// Depth-0 ranges added from the symbol table, and nameless ones for line rows that
    /// no function and no symbol covers.
    pub fallback_ranges: usize,
    /// Non-fatal problems, in input order: the build went on with less information (a
    /// corrupt unit's code is described by the symbol table only). The library prints
    /// nothing; the `symblob` CLI prints each as `warning: <warning>` on stderr.
    pub warnings: Vec<Warning>,
    /// Every file the build read: the ELF, then the files it found by itself or was
    /// given (debug file, supplementary file, split DWARF package or `.dwo` files), each
    /// once. A caller writing a file checks it against them
    /// ([`crate::output::refuse_files_read`]) before committing it.
    pub files_read: FilesRead,
}

/// Steps 1–4 of the pipeline, then `finish` with the final groups in address order
/// (they borrow from the DWARF sections, which live only as long as this call) and
/// what else the walk leaves ([`Walked`]: every file the build read, so that a caller
/// streaming its output can refuse to write over one of them before its first byte).
pub(crate) fn build_groups(
    path: &Path,
    data: &[u8],
    options: &DwarfOptions,
    contents: GroupContents,
    progress: &Progress,
    finish: impl for<'g> FnOnce(Vec<Group<'g>>, &Walked<'g>),
) -> Result<DwarfStats> {
    let request = Request {
        options,
        contents,
        progress,
    };
    session::open(path, data, &options.debug_files, |mut s| {
        let mut stats = DwarfStats {
            warnings: s.warnings,
            files_read: s.files_read,
            ..DwarfStats::default()
        };
        let mut orphan_rows = Vec::new();
        let mut exec = section_ranges(s.obj);
        if exec.is_empty() {
            exec = section_ranges(s.dwarf_obj);
        }
        let mut walked = session::walked_sections(s.dwarf_obj);
        if s.separate {
            walked.extend(session::walked_sections(s.obj));
        }
        let groups = read_units(
            &s.dwarf,
            &s.headers,
            &s.sup_headers,
            &s.split_units,
            request,
            &exec,
            s.dwarf_path,
            &walked,
            &mut stats,
            &mut orphan_rows,
        );
        // No DIE is read after the walk: the abbreviation tables parsed for it (4 MB
        // for ripgrep) are freed before the writer runs.
        s.dwarf.abbreviations_cache = gimli::AbbreviationsCache::new();
        let mut groups = shadowing::remove_overlaps(groups);
        if contents.symtab {
            let fallback = if contents.gsym_rules {
                // LLVM reads the symbol table of the file it was given; a stripped ELF's
                // is in its debug file.
                let table = if object::Object::symbols(s.obj).next().is_none() && s.separate {
                    s.dwarf_obj
                } else {
                    s.obj
                };
                symtab_gsym::symbol_groups(table, &exec, &groups)
            } else {
                let mut map = SymbolMap::from_elf(s.obj);
                if map.is_empty() && s.separate {
                    map = SymbolMap::from_elf(s.dwarf_obj);
                }
                groups = symtab_fill::apply_symbol_names(groups, &map, options.demangle);
                let fallback = symtab_fill::fallback_groups(&map, &exec, &groups, options.demangle);
                if contents.need_rows() {
                    with_orphan_rows(fallback, &groups, orphan_rows, &exec, contents.files)
                } else {
                    fallback
                }
            };
            stats.fallback_ranges = fallback.len();
            groups.extend(fallback);
            groups.sort_by_key(Group::start);
        }
        stats.dwarf_ranges = groups
            .iter()
            .map(|g| g.spans.len())
            .sum::<usize>()
            .saturating_sub(stats.fallback_ranges);
        // The walk is done: what the groups still borrow is names, which a writer
        // faults back in as it reads them.
        session::release(&walked);
        finish(
            groups,
            &Walked {
                files_read: &stats.files_read,
                sections: &walked,
            },
        );
        Ok(stats)
    })
}

/// What a DWARF walk leaves to its writer beside the groups.
pub(crate) struct Walked<'w> {
    /// Every file the walk read, the ELF first.
    pub files_read: &'w FilesRead,
    /// The mapped sections it read ([`session::walked_sections`]).
    sections: &'w [&'w [u8]],
}

impl Walked<'_> {
    /// Gives back the pages of the sections the walk read, the string sections
    /// included: for a writer that no longer reads names from them (the Breakpad
    /// build, once every function and inlined call has its name in dump_syms's form).
    pub(crate) fn release_sections(&self) {
        session::release(self.sections);
    }
}

/// The symbol-table groups `fallback` with the line rows no DWARF function covers, and a
/// nameless range for rows no function and no symbol covers.
fn with_orphan_rows<'a>(
    fallback: Vec<Group<'a>>,
    groups: &[Group<'a>],
    orphan_rows: Vec<orphans::OrphanRow>,
    exec: &[(u64, u64)],
    files: bool,
) -> Vec<Group<'a>> {
    let rows = orphans::as_unit_lines(orphan_rows);
    let mut attached = Vec::with_capacity(fallback.len());
    let mut attacher = attach::Attacher::default();
    for g in fallback {
        attacher.attach(g, &rows, files, &mut attached);
    }
    let covered = groups.iter().chain(&attached).map(|g| (g.start(), g.end()));
    let nameless = orphans::nameless_groups(&rows, covered.collect(), exec, files);
    attached.extend(nameless);
    attached
}

/// How many times the walk gives back the pages of the sections it read, once per share
/// of the bytes and once per share of the units ([`read_units`]): each costs the faults
/// of reading the shared sections again.
const RELEASES_PER_WALK: u64 = 32;

/// Reads every unit in parallel; the groups come back in unit order. `walked` are the
/// sections whose pages are given back as the walk goes.
#[allow(clippy::too_many_arguments)]
fn read_units<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    headers: &[gimli::UnitHeader<Slice<'a>>],
    sup_headers: &[gimli::UnitHeader<Slice<'a>>],
    split_units: &split::SplitUnits<'a>,
    request: Request<'_>,
    exec: &[(u64, u64)],
    path: &Path,
    walked: &[&[u8]],
    stats: &mut DwarfStats,
    orphan_rows: &mut Vec<orphans::OrphanRow>,
) -> Vec<Group<'a>> {
    stats.units = headers.len();
    let index = unit_index(headers);
    let sup_index = unit_index(sup_headers);
    let indexes = names::Indexes {
        main: &index,
        sup: &sup_index,
    };
    let total = headers.len() as u64;
    let done = AtomicU64::new(0);
    let debug_info = gimli::Section::reader(&dwarf.debug_info).slice();
    // Listing the units read every unit's first DIE (and, through the operating system's
    // fault-around, most of ripgrep's `.debug_info`): given back before the walk reads
    // them again.
    session::release(walked);
    let walked_bytes = AtomicU64::new(0);
    let release_bytes = (debug_info.len() as u64 / RELEASES_PER_WALK).max(1);
    let release_units = (total / RELEASES_PER_WALK).max(1);
    let results = schedule::map_largest_first(
        headers,
        |h| h.length_including_self() as u64,
        |&header| {
            let offset = header
                .offset()
                .to_debug_info_offset(&header)
                .map_or(0, |o| o.0);
            let split = split_units.get(&offset);
            let r = read_unit(dwarf, header, split, request, exec, indexes);
            // The unit's DIEs are read again only through a reference from another unit:
            // its mapped pages are given back (the kernel's `.debug_info` is 156 MB).
            let size = header.length_including_self();
            let end = offset.saturating_add(size);
            if let Some(part) = debug_info.get(offset..end) {
                crate::input::release_pages(part);
            }
            // Line programs, range lists, names and the DIEs other units referred to
            // stay mapped once read: all of them are given back each time another share
            // of `.debug_info`, or of the units, is walked, so what stays resident is
            // what the units since the last time read. (By bytes alone, the many small
            // units at the end of the walk, which refer across the whole section, would
            // map most of it again.)
            let before = walked_bytes.fetch_add(size as u64, Ordering::Relaxed);
            let finished = done.fetch_add(1, Ordering::Relaxed).saturating_add(1);
            if before / release_bytes != before.saturating_add(size as u64) / release_bytes
                || finished.is_multiple_of(release_units)
            {
                session::release(walked);
            }
            request.progress.report(finished, total);
            (offset, r)
        },
    );
    let mut groups = Vec::new();
    for (offset, r) in results {
        match r {
            Ok(r) => {
                groups.extend(r.groups);
                orphan_rows.extend(r.orphans);
            }
            Err(e) => {
                stats.failed_units += 1;
                warn(
                    stats,
                    path,
                    WarningKind::UnitSkipped {
                        offset: offset as u64,
                        reason: e.to_string(),
                    },
                );
            }
        }
    }
    groups
}

/// Where each unit of `headers` lies in `.debug_info` (those whose start cannot be known
/// are left out).
pub(crate) fn unit_index<'a>(
    headers: &[gimli::UnitHeader<Slice<'a>>],
) -> Vec<(usize, usize, gimli::UnitHeader<Slice<'a>>)> {
    headers
        .iter()
        .filter_map(|h| {
            let start = h.offset().to_debug_info_offset(h)?.0;
            Some((start, start.saturating_add(h.length_including_self()), *h))
        })
        .collect()
}

/// What one unit contributes: its groups, and its line rows that none of its functions
/// covers (assembly units have rows but no subprograms), for the fallback ranges.
struct UnitResult<'a> {
    groups: Vec<Group<'a>>,
    orphans: Vec<orphans::OrphanRow>,
}

/// One unit's groups.
fn read_unit<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    header: gimli::UnitHeader<Slice<'a>>,
    split: Option<&gimli::Dwarf<Slice<'a>>>,
    request: Request<'_>,
    exec: &[(u64, u64)],
    indexes: names::Indexes<'_, 'a>,
) -> gimli::Result<UnitResult<'a>> {
    let (options, contents) = (request.options, request.contents);
    let unit = dwarf.unit(header)?;
    let u = UnitRef { dwarf, unit: &unit };
    // A skeleton's DIEs are in its split unit; its line program stays in the binary.
    let split_unit = match split {
        Some(d) => split::split_unit(d, &unit)?.map(|s| (d, s)),
        None => None,
    };
    let trees = match &split_unit {
        Some((dwarf, unit)) => {
            // The index lists the binary's units: references out of a split unit lead
            // nowhere.
            let none = names::Indexes {
                main: &[],
                sup: indexes.sup,
            };
            let mut names = names::Names::new(options.demangle, none);
            units::walk_unit(&UnitRef { dwarf, unit }, &mut names)?
        }
        None => {
            let mut names = names::Names::new(options.demangle, indexes);
            units::walk_unit(&u, &mut names)?
        }
    };
    let need_rows = contents.need_rows();
    let lines = if need_rows {
        lines::read_lines(&u)?
    } else {
        lines::UnitLines::default()
    };
    // Every subprogram and inlined-call range in code, in (nearly) DIE order, for LLVM's
    // address map of the unit (rule 1b of the overlap pass); nested subprograms come after
    // all of their parent's inlined calls.
    let dies: Vec<(u64, u64, usize)> = trees
        .iter()
        .enumerate()
        .flat_map(|(t, tree)| {
            let ranges = tree.nodes.iter().flat_map(|n| n.ranges.iter());
            ranges.map(move |&(lo, hi)| (lo, hi, t))
        })
        .filter(|&(lo, _, _)| shadowing::in_code(lo, exec))
        .collect();
    let mut out = Vec::new();
    let mut owners = Vec::new();
    let mut pending = Vec::new();
    let mut attacher = attach::Attacher::default();
    for (t, tree) in trees.into_iter().enumerate() {
        if !need_rows {
            inlines::tree_to_groups(tree, &lines, contents.touching_apart, &mut out);
        } else {
            inlines::tree_to_groups(tree, &lines, contents.touching_apart, &mut pending);
            for g in pending.drain(..) {
                attacher.attach(g, &lines, contents.files, &mut out);
            }
        }
        owners.resize(out.len(), t);
    }
    let orphans = orphans::uncovered_rows(&lines, &out);
    // Rules 1 and 1b of the overlap pass (step 3) need no other unit: applied here, on the
    // worker.
    let (out, owners): (Vec<_>, Vec<_>) = out
        .into_iter()
        .zip(owners)
        .filter_map(|(g, t)| Some((shadowing::clip_group_to_code(g, exec)?, t)))
        .unzip();
    Ok(UnitResult {
        groups: shadowing::later_wins_in_unit(out, &owners, &dies),
        orphans,
    })
}

/// A non-fatal problem: the build goes on with less information.
fn warn(stats: &mut DwarfStats, path: &Path, kind: WarningKind) {
    stats.warnings.push(Warning {
        input: path.to_path_buf(),
        kind,
    });
}

// The groups are checked through the Lidia writer, their one public consumer.
#[cfg(all(test, feature = "lidia"))]
mod tests {
    use object::{Object, ObjectSection};

    use super::*;
    use crate::lidia::LidiaWriter;
    use crate::pipeline::lidia::collect_dwarf as collect;

    /// A test program with DWARF (built with `gcc -g`).
    fn program() -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/lidia/elf/inl");
        let data = std::fs::read(&path).expect("read test program");
        (path, data)
    }

    fn options() -> crate::pipeline::lidia::ElfOptions {
        crate::pipeline::lidia::ElfOptions {
            lidia: crate::lidia::Flags {
                files: true,
                lines: true,
            },
            ..crate::pipeline::lidia::ElfOptions::with_dwarf(DwarfOptions::default())
        }
    }

    #[test]
    fn corrupt_units_are_returned_as_warnings() {
        let (path, mut data) = program();
        let mut writer = LidiaWriter::new(options().lidia);
        let clean = collect(&path, &data, &options(), &mut writer).expect("clean build");
        assert!(clean.units > 0 && clean.dwarf_ranges > 0, "{clean:?}");
        assert!(clean.warnings.is_empty(), "{:?}", clean.warnings);

        // No abbreviation table can be read, so no unit can.
        let (start, size) = {
            let obj = object::File::parse(&*data).expect("ELF");
            let abbrev = obj.section_by_name(".debug_abbrev").expect(".debug_abbrev");
            abbrev.file_range().expect("in the file")
        };
        data[start as usize..(start + size) as usize].fill(0xff);
        let mut writer = LidiaWriter::new(options().lidia);
        let stats = collect(&path, &data, &options(), &mut writer).expect("build goes on");
        assert_eq!(stats.failed_units, clean.units, "{stats:?}");
        assert_eq!(stats.warnings.len(), stats.failed_units);
        let prefix = format!("{}: unit at .debug_info offset 0x", path.display());
        for w in stats.warnings.iter().map(ToString::to_string) {
            assert!(w.starts_with(&prefix), "{w}");
            assert!(
                w.ends_with("its code is described by the symbol table only"),
                "{w}"
            );
        }
        // The symbol table still describes the code.
        assert_eq!(stats.dwarf_ranges, 0);
        assert!(stats.fallback_ranges > 0, "{stats:?}");
    }
}
