//! The peers on the same workload: `addr2line` (DWARF frames, symbol table), `blazesym`
//! (ELF symbols, DWARF, Gsym; name lookups through its inspector) and
//! `symbolic-symcache` (a SymCache built from the same ELF).
//!
//! Each is used the way its documentation recommends for throughput: addr2line's loader
//! after a warm-up pass has parsed the units it needs, blazesym with one batched
//! `symbolize` call per pass (its fastest mode), no demangling anywhere. SymCache's file
//! paths are not assembled (`File::full_path` allocates); its frames are counted with
//! their function names and lines, which favours it slightly over the others.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use blazesym::symbolize::source::{Elf, GsymFile, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use object::{Object, ObjectSegment};

use crate::measure::{throughput, Measurement};
use crate::ours::map;

/// addr2line: every frame (function, file, line) from DWARF.
pub fn addr2line_frames(elf: &Path, addrs: &[u64], secs: f64) -> Result<Measurement, String> {
    let t = Instant::now();
    let loader = addr2line::Loader::new(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut frames, mut acc) = (0u64, 0u64, 0u64);
        for &a in addrs {
            let Ok(mut iter) = loader.find_frames(a) else {
                continue;
            };
            let mut any = false;
            while let Ok(Some(frame)) = iter.next() {
                any = true;
                frames += 1;
                if let Some(name) = frame.function.as_ref().and_then(|f| f.raw_name().ok()) {
                    acc = acc.wrapping_add(name.len() as u64);
                }
                if let Some(loc) = frame.location {
                    acc = acc.wrapping_add(u64::from(loc.line.unwrap_or(0)));
                    acc = acc.wrapping_add(loc.file.map_or(0, |f| f.len() as u64));
                }
            }
            found += u64::from(any);
        }
        black_box(acc);
        (found, frames)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// addr2line: the symbol table only.
pub fn addr2line_symbols(elf: &Path, addrs: &[u64], secs: f64) -> Result<Measurement, String> {
    let t = Instant::now();
    let loader = addr2line::Loader::new(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut acc) = (0u64, 0u64);
        for &a in addrs {
            if let Some(name) = loader.find_symbol(a) {
                found += 1;
                acc = acc.wrapping_add(name.len() as u64);
            }
        }
        black_box(acc);
        (found, found)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// Which blazesym source to symbolize from.
#[derive(Clone, Copy, Debug)]
pub enum BlazeSource {
    /// The ELF symbol table only.
    ElfSymbols,
    /// The ELF's DWARF (code info and inlined functions on).
    Dwarf,
    /// A Gsym file made by `llvm-gsymutil --convert`.
    Gsym,
}

/// blazesym: one batched `symbolize` call per pass.
pub fn blazesym(
    source: BlazeSource,
    elf: &Path,
    gsym: Option<&Path>,
    addrs: &[u64],
    secs: f64,
) -> Result<Measurement, String> {
    let src = match source {
        BlazeSource::ElfSymbols => {
            let mut e = Elf::new(elf);
            e.debug_syms = false;
            Source::Elf(e)
        }
        BlazeSource::Dwarf => Source::Elf(Elf::new(elf)),
        BlazeSource::Gsym => {
            let path = gsym.ok_or("blazesym-gsym needs --gsym")?;
            Source::Gsym(blazesym::symbolize::source::Gsym::File(GsymFile::new(path)))
        }
    };
    let symbolizer = Symbolizer::builder()
        .enable_demangling(false)
        .enable_code_info(!matches!(source, BlazeSource::ElfSymbols))
        .enable_inlined_fns(!matches!(source, BlazeSource::ElfSymbols))
        .build();
    let t = Instant::now();
    // The first call opens and parses the source; blazesym caches it afterwards.
    symbolizer
        .symbolize(&src, Input::VirtOffset(&addrs[..1]))
        .map_err(|e| format!("blazesym {source:?}: {e}"))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut frames, mut acc) = (0u64, 0u64, 0u64);
        let Ok(results) = symbolizer.symbolize(&src, Input::VirtOffset(addrs)) else {
            return (0, 0);
        };
        for r in &results {
            if let Symbolized::Sym(sym) = r {
                found += 1;
                frames += 1 + sym.inlined.len() as u64;
                acc = acc.wrapping_add(sym.name.len() as u64);
                if let Some(info) = &sym.code_info {
                    acc = acc.wrapping_add(u64::from(info.line.unwrap_or(0)));
                    acc = acc.wrapping_add(info.file.len() as u64);
                }
            }
        }
        black_box(acc);
        (found, frames)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// blazesym's inspector: name → symbol information, from the ELF symbol table, one
/// batched call per pass.
pub fn blazesym_names(elf: &Path, names: &[String], secs: f64) -> Result<Measurement, String> {
    use blazesym::inspect::source::{Elf as InspectElf, Source as InspectSource};
    let mut e = InspectElf::new(elf);
    e.debug_syms = false;
    let src = InspectSource::Elf(e);
    let inspector = blazesym::inspect::Inspector::new();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let t = Instant::now();
    inspector
        .lookup(&src, &refs[..1])
        .map_err(|e| format!("blazesym inspector: {e}"))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(names.len(), secs, || {
        let Ok(results) = inspector.lookup(&src, &refs) else {
            return (0, 0);
        };
        let found = results.iter().filter(|r| !r.is_empty()).count() as u64;
        let matches = results.iter().map(|r| r.len() as u64).sum();
        black_box(&results);
        (found, matches)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// The address SymCache offsets are relative to: the first `PT_LOAD` segment's address.
pub fn load_address(elf: &Path) -> Result<u64, String> {
    let bytes = map(elf)?;
    let file = object::File::parse(&*bytes).map_err(|e| format!("{}: {e}", elf.display()))?;
    Ok(file.segments().next().map_or(0, |s| s.address()))
}

/// symbolic-symcache: every frame (function name, line; see the module docs on files).
pub fn symcache_frames(
    symcache: &Path,
    elf: &Path,
    addrs: &[u64],
    secs: f64,
) -> Result<Measurement, String> {
    let base = load_address(elf)?;
    let bytes = map(symcache)?;
    let t = Instant::now();
    let cache = symbolic_symcache::SymCache::parse(&bytes)
        .map_err(|e| format!("{}: {e}", symcache.display()))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut frames, mut acc) = (0u64, 0u64, 0u64);
        for &a in addrs {
            let mut any = false;
            for loc in cache.lookup(a.wrapping_sub(base)) {
                any = true;
                frames += 1;
                acc = acc.wrapping_add(u64::from(loc.line()) + loc.function().name().len() as u64);
                acc = acc.wrapping_add(u64::from(loc.file().is_some()));
            }
            found += u64::from(any);
        }
        black_box(acc);
        (found, frames)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// Builds a SymCache from the ELF's DWARF and symbols, as Sentry's tools do, and writes it.
pub fn symcache_build(elf: &Path, out: &Path) -> Result<(), String> {
    let bytes = map(elf)?;
    let object =
        symbolic_debuginfo::Object::parse(&bytes).map_err(|e| format!("{}: {e}", elf.display()))?;
    let mut converter = symbolic_symcache::SymCacheConverter::new();
    converter
        .process_object(&object)
        .map_err(|e| format!("{}: {e}", elf.display()))?;
    let mut buffer = Vec::new();
    converter
        .serialize(&mut std::io::Cursor::new(&mut buffer))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    std::fs::write(out, buffer).map_err(|e| format!("{}: {e}", out.display()))
}
