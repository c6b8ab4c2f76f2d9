//! Split DWARF: skeleton units whose DIEs live in a `.dwo` file or a `.dwp` package.
//!
//! A skeleton unit (DWARF 5 `DW_UT_skeleton`, or a DWARF 4 unit with the GNU
//! `DW_AT_GNU_dwo_id`) keeps the addresses and the line program in the binary; its
//! subprograms and inlined calls are in the split unit with the same DWO ID. The split
//! unit is looked up in a package (`--dwp`, else `<binary>.dwp` when it exists), else in
//! its `.dwo` file: `DW_AT_dwo_name` (`DW_AT_GNU_dwo_name`) as an absolute path, relative
//! to `DW_AT_comp_dir`, or next to the binary. A split unit found nowhere (nor in the
//! package) is a [`WarningKind::SplitUnitMissing`]; its code then falls back to the symbol
//! table. A package without a unit index is an error.
//!
//! Three steps, so that every borrowed section outlives the groups: [`find`] maps the
//! files, [`SplitFiles::sections`] reads their sections, [`SplitSections::units`] gives
//! each skeleton its split unit's sections.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::input::Mapping;

use super::load::{Naming, SectionStore};
use super::Slice;
use crate::input::{map_file, FileRole, FilesRead};
use crate::{Error, ErrorKind, Location, Result, WarningKind};

/// A skeleton unit of the binary.
struct Skeleton {
    /// Its offset in `.debug_info`.
    offset: usize,
    /// The ID its split unit carries.
    dwo_id: gimli::DwoId,
    /// `DW_AT_dwo_name` as written.
    dwo_name: PathBuf,
    /// The mapped `.dwo` file that holds it (index into [`SplitFiles::files`]), when not
    /// read from a package.
    file: Option<usize>,
}

/// The split DWARF files a binary's skeleton units need, mapped.
#[derive(Default)]
pub(crate) struct SplitFiles {
    skeletons: Vec<Skeleton>,
    files: Vec<(PathBuf, Mapping)>,
    package: Option<(PathBuf, Mapping)>,
}

/// The skeleton units among `headers` and the files holding their split units. `binary`
/// is the program's path (a package and `.dwo` files are looked for next to it), `dwp`
/// a package named by the caller. Missing `.dwo` files are returned as warnings:
/// (skeleton offset, warning).
pub(crate) fn find<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    headers: &[gimli::UnitHeader<Slice<'a>>],
    binary: &Path,
    dwp: Option<&Path>,
    warnings: &mut Vec<WarningKind>,
) -> Result<SplitFiles> {
    let mut out = SplitFiles::default();
    let mut comp_dirs = Vec::new();
    for &header in headers {
        if let Some((skeleton, comp_dir)) = skeleton(dwarf, header) {
            out.skeletons.push(skeleton);
            comp_dirs.push(comp_dir);
        }
    }
    if out.skeletons.is_empty() {
        return Ok(out);
    }
    let package = match dwp {
        Some(p) => Some(p.to_path_buf()),
        None => {
            let mut p = binary.as_os_str().to_owned();
            p.push(".dwp");
            Some(PathBuf::from(p)).filter(|p| p.is_file())
        }
    };
    if let Some(p) = package {
        let map = map_file(&p)?;
        out.package = Some((p, map));
        return Ok(out);
    }
    let dir = binary.parent().unwrap_or(Path::new(""));
    let mut opened: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for (skeleton, comp_dir) in out.skeletons.iter_mut().zip(comp_dirs) {
        let candidates = dwo_candidates(&skeleton.dwo_name, comp_dir.as_deref(), dir);
        let Some(found) = candidates.iter().find(|c| c.is_file()) else {
            warnings.push(WarningKind::SplitUnitMissing {
                offset: skeleton.offset as u64,
                dwo_name: skeleton.dwo_name.clone(),
                looked_for: candidates,
            });
            continue;
        };
        let index = match opened.get(found) {
            Some(&i) => i,
            None => {
                out.files.push((found.clone(), map_file(found)?));
                let i = out.files.len() - 1;
                opened.insert(found.clone(), i);
                i
            }
        };
        skeleton.file = Some(index);
    }
    Ok(out)
}

/// The skeleton `header` describes, with its `DW_AT_comp_dir`; `None` for an ordinary
/// unit (or one whose root DIE does not parse: it fails later, with its error).
fn skeleton<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    header: gimli::UnitHeader<Slice<'a>>,
) -> Option<(Skeleton, Option<PathBuf>)> {
    let split = match header.type_() {
        gimli::UnitType::Skeleton(_) => true,
        // The GNU extension marks a DWARF 4 skeleton by attributes of its root DIE only:
        // read that one DIE (cheap) before parsing the unit.
        gimli::UnitType::Compilation if header.version() < 5 => {
            let abbrevs = dwarf.abbreviations(&header).ok()?;
            let mut entries = header.entries(&abbrevs);
            let root = entries.next_dfs().ok()??;
            root.attr(gimli::DW_AT_GNU_dwo_id).is_some()
        }
        _ => false,
    };
    if !split {
        return None;
    }
    let unit = dwarf.unit(header).ok()?;
    let dwo_id = unit.dwo_id?;
    let name = unit.dwo_name().ok()??;
    let name = dwarf.attr_string(&unit, name).ok()?;
    let comp_dir = unit.comp_dir.map(|d| path_of(d.slice()));
    Some((
        Skeleton {
            offset: header.offset().to_debug_info_offset(&header)?.0,
            dwo_id,
            dwo_name: path_of(name.slice()),
            file: None,
        },
        comp_dir,
    ))
}

/// Where a `.dwo` named `name` may be, in order: the name itself when absolute, else
/// relative to the unit's compilation directory, then next to the binary (with its
/// directories, then the file name alone).
fn dwo_candidates(name: &Path, comp_dir: Option<&Path>, binary_dir: &Path) -> Vec<PathBuf> {
    if name.is_absolute() {
        return vec![name.to_path_buf()];
    }
    let mut out = Vec::new();
    if let Some(d) = comp_dir {
        out.push(d.join(name));
    }
    out.push(binary_dir.join(name));
    if let Some(file) = name.file_name() {
        out.push(binary_dir.join(file));
    }
    out.dedup();
    out
}

/// Bytes of a DWARF string as a path (Unix paths are bytes).
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// The sections of the mapped split files.
pub(crate) struct SplitSections<'m> {
    files: &'m SplitFiles,
    stores: Vec<SectionStore<'m>>,
    package: Option<SectionStore<'m>>,
}

impl SplitFiles {
    /// Adds the files mapped to `read`: the package, or the `.dwo` files (each once).
    pub(crate) fn record(&self, read: &mut FilesRead) {
        if let Some((path, _)) = &self.package {
            read.push(path, FileRole::DwarfPackage);
        }
        let objects = self.files.iter().map(|(path, _)| path.as_path());
        read.extend_distinct(objects, FileRole::SplitObject);
    }

    /// Reads (and decompresses) the sections of every mapped file.
    pub(crate) fn sections(&self) -> Result<SplitSections<'_>> {
        Ok(SplitSections {
            files: self,
            stores: self.files.iter().map(load).collect::<Result<_>>()?,
            package: self.package.as_ref().map(load).transpose()?,
        })
    }
}

/// The split DWARF sections of one mapped file.
fn load((path, map): &(PathBuf, Mapping)) -> Result<SectionStore<'_>> {
    let obj = object::File::parse(&**map).map_err(|e| {
        Error::malformed(
            path.display().to_string(),
            Location::Whole,
            "not an ELF file",
        )
        .with_source(e)
    })?;
    SectionStore::load_named(&obj, path, Naming::Split)
}

/// The sections of each skeleton's split unit, by skeleton offset in `.debug_info`.
pub(crate) type SplitUnits<'a> = BTreeMap<usize, gimli::Dwarf<Slice<'a>>>;

impl<'m> SplitSections<'m> {
    /// Each skeleton's split sections, completed from `parent` (the binary's DWARF) as
    /// split units require (`.debug_addr`, DWARF 4 `.debug_ranges`). Skeletons whose split
    /// unit is not in the package are returned as warnings.
    pub(crate) fn units<'s>(
        &'s self,
        parent: &gimli::Dwarf<Slice<'s>>,
        warnings: &mut Vec<WarningKind>,
    ) -> Result<SplitUnits<'s>> {
        let mut out = BTreeMap::new();
        if let (Some(store), Some((path, _))) = (&self.package, &self.files.package) {
            if store.get(gimli::SectionId::DebugCuIndex).is_empty() {
                return Err(Error::new(
                    ErrorKind::Missing,
                    path,
                    Location::Whole,
                    "not a DWARF package: no .debug_cu_index section",
                )
                .with_section(".debug_cu_index"));
            }
            let endian = store.endian;
            let package = gimli::DwarfPackage::load(
                |id| -> gimli::Result<_> { Ok(gimli::EndianSlice::new(store.get(id), endian)) },
                gimli::EndianSlice::new(&[], endian),
            )
            .map_err(|e| {
                Error::malformed(path, Location::Whole, "cannot read the DWARF package index")
                    .with_section(".debug_cu_index")
                    .with_source(e)
            })?;
            for s in &self.files.skeletons {
                match package.find_cu(s.dwo_id, parent) {
                    Ok(Some(dwarf)) => {
                        out.insert(s.offset, dwarf);
                    }
                    _ => warnings.push(WarningKind::SplitUnitMissing {
                        offset: s.offset as u64,
                        dwo_name: s.dwo_name.clone(),
                        looked_for: vec![path.clone()],
                    }),
                }
            }
            return Ok(out);
        }
        for s in &self.files.skeletons {
            let Some(store) = s.file.and_then(|i| self.stores.get(i)) else {
                continue;
            };
            let mut dwarf = store.dwarf();
            dwarf.make_dwo(parent);
            out.insert(s.offset, dwarf);
        }
        Ok(out)
    }
}

/// The split unit of `skeleton` in `dwarf` (the sections of its `.dwo` or its package
/// contribution), with the attributes split units take from their skeleton; `None` when
/// no unit there carries the skeleton's DWO ID.
pub(crate) fn split_unit<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    skeleton: &gimli::Unit<Slice<'a>>,
) -> gimli::Result<Option<gimli::Unit<Slice<'a>>>> {
    let mut headers = dwarf.units();
    while let Some(header) = headers.next()? {
        let is_compilation = matches!(
            header.type_(),
            gimli::UnitType::SplitCompilation(_) | gimli::UnitType::Compilation
        );
        if !is_compilation {
            continue;
        }
        let mut unit = dwarf.unit(header)?;
        if unit.dwo_id != skeleton.dwo_id {
            continue;
        }
        unit.copy_relocated_attributes(skeleton);
        if unit.comp_dir.is_none() {
            unit.comp_dir = skeleton.comp_dir;
        }
        return Ok(Some(unit));
    }
    Ok(None)
}
