//! Archiving an ELF file the way SuperSize's ELF-only ("dwarf") mode does (spec §6):
//! symbols from the symbol table, one per address with sizes clipped to the next symbol,
//! identical-code-folding aliases, unattributed section tails, `** ELF Section: …`
//! symbols, `Overhead: ELF file`, source paths from DWARF compile units.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use rayon::prelude::*;

use super::json::Json;
use super::model::{
    self, is_bss, is_native, Container, SizeInfo, Symbol, FLAG_GENERATED_SOURCE, KNOWN_SECTIONS,
    SECTION_OTHER,
};
use super::paths;
use super::signature::normalize_native_name;
use super::strip::{removed_by_strip, stripped_layout};
use crate::demangle::supersize;
use crate::model::{DeclPaths, ImageListing, SectionHeader, SourceMapper};
use crate::{Error, ErrorKind, Location, Result};

/// An ELF file as the archive is made from it: its listing, and the shipped copy's.
pub(crate) struct ListedElf<'a> {
    /// The unstripped ELF's listing (symbols, sections, build ID).
    pub listing: ImageListing<'a>,
    /// Its file name as recorded in `elf_file_name` and `metrics_by_file`; errors name it.
    pub file_name: String,
    /// Its modification time in UTC seconds (`elf_mtime`), if known.
    pub mtime: Option<i64>,
    /// Its size in bytes.
    pub file_size: u64,
    /// The shipped (stripped) copy's listing and size, whose section sizes and file size
    /// are recorded; without it, those of the file `strip` would write (see
    /// [`super::strip`]).
    pub stripped: Option<(ImageListing<'a>, u64)>,
}

/// Options of an archive ([`crate::pipeline::size::archive_elf`]). The default gives what
/// SuperSize writes.
#[derive(Clone, Debug, Default)]
pub struct ArchiveOptions {
    /// Make source paths relative to this directory (instead of SuperSize's Chromium
    /// layout rules); paths outside it become `$SYSTEM/<basename>`.
    pub source_root: Option<String>,
    /// Flag source paths under this directory as generated (implies rooted paths).
    pub generated_dir: Option<String>,
    /// Build config merged into the metadata (`git_revision`, `gn_args`, `title`, …).
    pub build_config: BTreeMap<String, Json>,
    /// Keep symblob's richer names instead of SuperSize's: return types, anonymous
    /// namespaces and clone suffixes kept, no clone or anonymous-namespace flags,
    /// lambdas spelled as binutils does (`{lambda(int)#1}`).
    pub rich_names: bool,
    /// Attribute functions to the file of their own DWARF declaration (headers for
    /// template and inline functions) instead of their compile unit.
    pub decl_paths: bool,
    /// Attribute data symbols through DWARF variables with a fixed address.
    pub data_paths: bool,
}

/// A section range as SuperSize's `readelf.SectionInfoFromElf` records it.
#[derive(Clone, Debug)]
struct Range {
    name: String,
    address: u64,
    size: u64,
}

/// Sections by name in header order, without those `strip` removes; names without a
/// leading `.` are merged into the section before them. `shstrtab_size` replaces the size
/// of `.shstrtab` (the one `strip` would write).
fn section_ranges(sections: &[SectionHeader<'_>], shstrtab_size: Option<u64>) -> Vec<Range> {
    let mut out: Vec<Range> = Vec::new();
    // Index 0 is the null section.
    for (i, s) in sections.iter().enumerate().skip(1) {
        let name = String::from_utf8_lossy(s.name);
        if name.ends_with("_partition") {
            break;
        }
        if removed_by_strip(sections, i) {
            continue;
        }
        let size = match shstrtab_size {
            Some(size) if name == ".shstrtab" => size,
            _ => s.size,
        };
        if !name.starts_with('.') {
            if let Some(prev) = out.last_mut() {
                if prev.address != 0 && s.addr != 0 {
                    let end = (prev.address + prev.size).max(s.addr + size);
                    prev.size = end - prev.address;
                } else {
                    prev.size += size;
                }
            }
            continue;
        }
        match out.iter_mut().find(|r| r.name == name) {
            Some(r) => {
                r.address = s.addr;
                r.size = size;
            }
            None => out.push(Range {
                name: name.into_owned(),
                address: s.addr,
                size,
            }),
        }
    }
    out
}

/// `readelf -h`'s machine in SuperSize's spelling.
fn arch_name(machine: object::elf::Machine) -> String {
    use object::elf;
    match machine {
        elf::EM_386 => "x86".into(),
        elf::EM_X86_64 => "x64".into(),
        elf::EM_ARM => "arm".into(),
        elf::EM_AARCH64 => "arm64".into(),
        elf::EM_RISCV => "RISC-V".into(),
        elf::EM_PPC64 => "PowerPC64".into(),
        elf::EM_PPC => "PowerPC".into(),
        elf::EM_S390 => "IBM S/390".into(),
        elf::EM_MIPS => "MIPS R3000".into(),
        elf::EM_LOONGARCH => "LoongArch".into(),
        other => format!("{:#x}", other.0),
    }
}

/// Archives one ELF file from its listing. `source_paths` gives the source paths of its
/// addresses (the compile units, and the declarations when `decls` is true); it runs on
/// its own thread while the symbol table is processed.
pub(crate) fn archive(
    input: &ListedElf<'_>,
    options: &ArchiveOptions,
    source_paths: impl FnOnce(bool) -> (SourceMapper, Option<DeclPaths>) + Send,
) -> Result<SizeInfo> {
    let elf = &input.listing;
    // SuperSize measures the stripped file: the one given, else the one `strip` would
    // write, computed.
    let (shipped_ranges, shipped_file_size) = match &input.stripped {
        Some((stripped, size)) => (section_ranges(&stripped.sections, None), *size),
        None => {
            let shstrtab = elf.sections.iter().position(|s| s.name == b".shstrtab");
            let layout = stripped_layout(
                &elf.sections,
                shstrtab.unwrap_or(0),
                elf.is_64,
                input.file_size,
            );
            (
                section_ranges(&elf.sections, Some(layout.shstrtab_size)),
                layout.file_size,
            )
        }
    };

    // The paths are read while the symbol table is processed.
    let want_decls = options.decl_paths || options.data_paths;
    let (raw, (mapper, decls)) = std::thread::scope(|scope| {
        let paths = scope.spawn(move || source_paths(want_decls));
        let mut raw = unique_symbols(elf, &section_ranges(&elf.sections, None));
        raw.par_iter_mut()
            .filter(|s| supersize::is_mangled(&s.full_name))
            .for_each(|s| s.full_name = supersize::demangle(&s.full_name, !options.rich_names));
        let raw = add_nm_aliases(raw, &aliases_by_address(elf, !options.rich_names));
        (raw, paths.join().unwrap_or_default())
    });
    let (mut raw, mut other, other_size) = add_section_symbols(raw, &shipped_ranges)?;

    let section_total: u64 = shipped_ranges
        .iter()
        .filter(|r| !is_bss(&r.name))
        .map(|r| r.size)
        .sum();
    let overhead = shipped_file_size.saturating_sub(section_total);
    other.push(Symbol::new(
        SECTION_OTHER,
        0,
        overhead as i64,
        "Overhead: ELF file".to_string(),
    ));
    other.sort_by(|a, b| {
        (
            a.is_overhead(),
            a.full_name.starts_with("**"),
            a.address,
            &a.full_name,
        )
            .cmp(&(
                b.is_overhead(),
                b.full_name.starts_with("**"),
                b.address,
                &b.full_name,
            ))
    });

    assign_source_paths(&mut raw, &mapper, decls.as_ref(), options);
    raw.append(&mut other);
    connect_aliases(&mut raw);
    for s in &mut raw {
        if let Cow::Owned(clean) = paths::ascii_clean(&s.full_name) {
            s.full_name = clean;
        }
    }

    let container = container(input, &shipped_ranges, other_size + overhead);
    // SuperSize normalises names before it sorts: the order follows the new names.
    if !options.rich_names {
        for s in raw.iter_mut().filter(|s| is_native(&s.section)) {
            if s.full_name.starts_with("**") || s.full_name == "string literal" {
                continue;
            }
            let (name, flags) = normalize_native_name(&s.full_name, s.section == ".text");
            s.full_name = name;
            s.flags |= flags;
        }
    }
    model::sort_symbols(&mut raw);
    model::calculate_padding(&mut raw).map_err(|e| {
        Error::malformed(
            &input.file_name,
            Location::Whole,
            format!("symbols do not satisfy SuperSize's padding rule: {e:?}"),
        )
    })?;
    let build_config = options.build_config.clone();
    for key in build_config.keys() {
        if container.metadata.contains_key(key) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "--build-config",
                Location::Whole,
                format!("key {key:?} collides with the ELF metadata"),
            ));
        }
    }
    Ok(SizeInfo {
        build_config,
        containers: vec![container],
        symbols: raw,
    })
}

/// Source paths: the compile unit of each `.text` symbol (SuperSize's rule), or with the
/// options a function's or variable's own declaration; normalised by SuperSize's
/// Chromium rules, or relative to a source root when one is given.
fn assign_source_paths(
    raw: &mut [Symbol],
    mapper: &SourceMapper,
    decls: Option<&DeclPaths>,
    options: &ArchiveOptions,
) {
    let rooted = options.source_root.is_some() || options.generated_dir.is_some();
    for s in raw.iter_mut() {
        let text = s.section == ".text";
        let decl = decls.and_then(|d| {
            if text && options.decl_paths {
                d.functions.get(&s.address)
            } else if !text && is_native(&s.section) && options.data_paths {
                d.variables.get(&s.address)
            } else {
                None
            }
        });
        let found = match decl {
            Some((path, dir)) => Some((path.as_str(), dir.as_str())),
            None if text => mapper.find(s.address),
            None => None,
        };
        let Some((path, comp_dir)) = found else {
            continue;
        };
        let (generated, path) = if rooted {
            paths::normalize_source_path_rooted(
                path,
                comp_dir,
                options.source_root.as_deref(),
                options.generated_dir.as_deref(),
            )
        } else {
            paths::normalize_source_path_chromium(path)
        };
        s.source_path = paths::ascii_clean(&path).into_owned();
        if generated && !s.source_path.is_empty() {
            s.flags |= FLAG_GENERATED_SOURCE;
        }
    }
}

fn container(input: &ListedElf<'_>, ranges: &[Range], other: u64) -> Container {
    let elf = &input.listing;
    let mut metadata = BTreeMap::new();
    metadata.insert("elf_algorithm".into(), Json::Str("dwarf".into()));
    metadata.insert("elf_arch".into(), Json::Str(arch_name(elf.machine)));
    if let Some(id) = elf.build_id {
        metadata.insert("elf_build_id".into(), Json::Str(crate::hex::hex(id)));
    }
    metadata.insert(
        "elf_file_name".into(),
        Json::Str(paths::ascii_clean(&input.file_name).into_owned()),
    );
    if let Some(mtime) = input.mtime {
        metadata.insert("elf_mtime".into(), Json::Int(mtime));
    }
    let mut section_sizes: BTreeMap<String, i64> = ranges
        .iter()
        .map(|r| (r.name.clone(), r.size as i64))
        .collect();
    let mut metrics: BTreeMap<String, Json> = section_sizes
        .iter()
        .map(|(k, v)| (format!("SIZE/{k}"), Json::Int(*v)))
        .collect();
    metrics.insert(
        "COUNT/Relocations".into(),
        Json::Int(elf.relocations as i64),
    );
    *section_sizes.entry(SECTION_OTHER.into()).or_insert(0) += other as i64;
    let mut metrics_by_file = BTreeMap::new();
    metrics_by_file.insert(
        paths::ascii_clean(&input.file_name).into_owned(),
        Json::Object(metrics),
    );
    Container {
        name: String::new(),
        metadata,
        section_sizes,
        metrics_by_file,
    }
}

/// nm's `CreateUniqueSymbols`: one symbol per address in the native sections, sizes
/// filled in and clipped to the next symbol or the section end.
fn unique_symbols(elf: &ImageListing<'_>, ranges: &[Range]) -> Vec<Symbol> {
    let mut native: Vec<&Range> = ranges.iter().filter(|r| is_native(&r.name)).collect();
    native.sort_by_key(|r| (r.address, r.size));
    let (Some(first), Some(last)) = (native.first(), native.last()) else {
        return Vec::new();
    };
    let (min_address, max_address) = (first.address, last.address + last.size);
    let mut by_address: HashMap<u64, (String, u64)> = HashMap::new();
    for sym in &elf.symbols {
        if !"BbDdTtRrWw".contains(sym.letter) || sym.name.is_empty() || sym.name.starts_with('$') {
            continue;
        }
        if !(min_address <= sym.address && sym.address < max_address) {
            continue;
        }
        if by_address.get(&sym.address).is_some_and(|e| e.1 > 0) {
            continue;
        }
        let name = if sym.name.starts_with(".str.") {
            "string literal".to_string()
        } else if let Some(rest) = sym.name.strip_prefix("__ARMV7PILongThunk_") {
            format!("{rest}.LongThunk")
        } else if let Some(rest) = sym.name.strip_prefix("__ThumbV7PILongThunk_") {
            format!("{rest}.LongThunk")
        } else {
            sym.name.to_string()
        };
        by_address.insert(sym.address, (name, sym.size));
    }
    let mut sorted: Vec<(u64, String, u64)> = by_address
        .into_iter()
        .map(|(a, (n, s))| (a, n, s))
        .collect();
    sorted.sort_unstable_by_key(|s| s.0);

    let mut out: Vec<Symbol> = Vec::with_capacity(sorted.len());
    let mut range_iter = native.iter();
    let (mut name, mut start, mut end) = ("", 0u64, 0u64);
    let mut have_range = false;
    let mut active_assembly: Option<usize> = None;
    for (i, (address, full_name, size)) in sorted.iter().enumerate() {
        while !have_range || *address >= end {
            let Some(r) = range_iter.next() else {
                return out;
            };
            (name, start, end) = (&r.name, r.address, r.address + r.size);
            have_range = true;
        }
        if *address < start {
            continue;
        }
        let next_addr = sorted.get(i + 1).map_or(end, |n| end.min(n.0));
        if let Some(active) = active_assembly {
            if *size == 0 && name == ".text" && (full_name.starts_with('.') || is_upper(full_name))
            {
                out[active].size += (next_addr - address) as i64;
                continue;
            }
        }
        let mut sym = Symbol::new(name, *address, *size as i64, full_name.clone());
        active_assembly = (*size == 0).then_some(out.len());
        if *size == 0 || address + size > next_addr {
            sym.size = (next_addr - address) as i64;
        }
        out.push(sym);
    }
    out
}

/// Python's `str.isupper()` for ASCII: at least one cased letter, none lower-case.
fn is_upper(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_uppercase()) && !s.bytes().any(|b| b.is_ascii_lowercase())
}

/// nm's `CollectAliasesByAddress`: demangled names of `t`/`T`/`W` symbols at addresses
/// holding more than one, sorted with `**` names last.
fn aliases_by_address(elf: &ImageListing<'_>, llvm_spelling: bool) -> HashMap<u64, Vec<String>> {
    // (address, name) of every candidate, sorted, so that each address's names are
    // contiguous and only addresses with several names allocate.
    let mut all: Vec<(u64, &str)> = elf
        .symbols
        .iter()
        .filter(|s| "tTW".contains(s.letter) && !s.name.is_empty() && !s.name.starts_with('$'))
        .filter(|s| s.address != 0)
        .map(|s| (s.address, &*s.name))
        .collect();
    all.sort_unstable();
    all.dedup();
    let mut out = HashMap::new();
    for group in all.chunk_by(|a, b| a.0 == b.0) {
        if group.len() < 2 {
            continue;
        }
        let address = group[0].0;
        let outlined = group
            .iter()
            .filter(|(_, n)| n.starts_with("OUTLINED_FUNCTION_"))
            .count();
        let mut names: BTreeSet<String> = group
            .iter()
            .filter(|(_, n)| !n.starts_with("OUTLINED_FUNCTION_"))
            .map(|(_, n)| supersize::demangle(n, llvm_spelling))
            .collect();
        match outlined {
            0 => {}
            1 => {
                names.insert("** outlined function".to_string());
            }
            n => {
                names.insert(format!("** outlined function * {n}"));
            }
        }
        if names.len() > 1 || outlined > 1 {
            let mut list: Vec<String> = names.into_iter().collect();
            list.sort_by(|x, y| (x.starts_with("**"), x).cmp(&(y.starts_with("**"), y)));
            out.insert(address, list);
        }
    }
    out
}

/// `_AddNmAliases`: every symbol whose address has several names becomes one symbol per
/// name (same section, address and size).
fn add_nm_aliases(raw: Vec<Symbol>, aliases: &HashMap<u64, Vec<String>>) -> Vec<Symbol> {
    let mut out = Vec::with_capacity(raw.len());
    for s in raw {
        let list = aliases.get(&s.address);
        match list {
            Some(list)
                if s.size != 0
                    && !s.full_name.starts_with("** CFI jump table")
                    && list.contains(&s.full_name) =>
            {
                for name in list {
                    out.push(Symbol::new(&s.section, s.address, s.size, name.clone()));
                }
            }
            _ => out.push(s),
        }
    }
    out
}

/// `_AddUnattributedSectionSymbols`: `** <section> (unattributed)` after the last symbol
/// of a section that ends early, and `** ELF Section: <name>` for sections without
/// symbols (in `.other` unless SuperSize knows the section). Returns the symbols, the
/// `.other` symbols and the bytes added to `.other`.
fn add_section_symbols(
    raw: Vec<Symbol>,
    ranges: &[Range],
) -> Result<(Vec<Symbol>, Vec<Symbol>, u64)> {
    let mut out = Vec::with_capacity(raw.len() + 8);
    let mut seen = BTreeSet::new();
    let mut i = 0;
    let mut section_symbols = Vec::new();
    while i < raw.len() {
        let section = raw[i].section.clone();
        let mut j = i;
        while j < raw.len() && raw[j].section == section {
            j += 1;
        }
        let last = &raw[j - 1];
        let end_address = last.address + last.size as u64;
        out.extend_from_slice(&raw[i..j]);
        seen.insert(section.clone());
        if let Some(r) = ranges.iter().find(|r| r.name == section) {
            let used = end_address.saturating_sub(r.address);
            if used > r.size {
                return Err(Error::malformed(
                    "ELF",
                    Location::Whole,
                    format!("last symbol of {section} ends after the section"),
                )
                .with_section(section));
            }
            if r.size > used && !is_bss(&section) {
                out.push(Symbol::new(
                    &section,
                    end_address,
                    (r.size - used) as i64,
                    format!("** {section} (unattributed)"),
                ));
            }
        }
        i = j;
    }
    let mut other = Vec::new();
    let mut other_size = 0u64;
    for r in ranges {
        if seen.contains(&r.name) {
            continue;
        }
        let name = format!("** ELF Section: {}", r.name);
        if KNOWN_SECTIONS.contains(&r.name.as_str()) || is_bss(&r.name) || r.name.contains('(') {
            section_symbols.push(Symbol::new(&r.name, 0, r.size as i64, name));
        } else {
            other.push(Symbol::new(SECTION_OTHER, 0, r.size as i64, name));
            other_size += r.size;
        }
    }
    section_symbols.append(&mut out);
    Ok((section_symbols, other, other_size))
}

/// `_ConnectNmAliases`: neighbours with the same non-zero address form an alias group
/// (unless the first is padding-only).
fn connect_aliases(symbols: &mut [Symbol]) {
    let mut i = 1;
    while i < symbols.len() {
        let start = i - 1;
        let mut end = i;
        while end < symbols.len()
            && symbols[end].address > 0
            && symbols[end].address == symbols[start].address
            && symbols[start].size > 0
        {
            end += 1;
        }
        if end > i {
            let count = (end - start) as u32;
            for s in &mut symbols[start..end] {
                s.alias_group = Some(start);
                s.num_aliases = count;
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
}
