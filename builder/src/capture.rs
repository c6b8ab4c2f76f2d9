//! Capture of a live Linux process's image map from `/proc` (a source: `/proc/<pid>/maps`
//! and the mapped ELF files fill the model's [`ImageMap`], which the CIF writer encodes).

use std::collections::BTreeMap;
use std::path::Path;

use crate::elf::inspect_elf;
use crate::model::{ImageMap, MapImage};
use crate::{Error, Location, Result};

/// One line of `/proc/<pid>/maps` that names a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First address of the mapping.
    pub start: u64,
    /// One past its last address.
    pub end: u64,
    /// Inode of the mapped file (0 for anonymous and special mappings).
    pub inode: u64,
    /// The mapped path, as the kernel prints it.
    pub path: String,
}

/// Parses the text of a `maps` file, keeping lines with a path; `input` names the file
/// in errors.
pub fn parse_maps(text: &str, input: &str) -> Result<Vec<Mapping>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let bad = |what: &str| {
            Error::malformed(
                input,
                Location::Line(n as u64 + 1),
                format!("{what}: {line:?}"),
            )
        };
        if line.trim().is_empty() {
            continue;
        }
        // start-end perms offset dev inode [path]; the path may contain spaces.
        let mut rest = line;
        let mut fields = [""; 5];
        for field in &mut fields {
            rest = rest.trim_start();
            let cut = rest.find(' ').unwrap_or(rest.len());
            *field = &rest[..cut];
            rest = &rest[cut..];
        }
        let path = rest.trim_start();
        let (start, end) = fields[0]
            .split_once('-')
            .ok_or_else(|| bad("no address range"))?;
        let start = u64::from_str_radix(start, 16).map_err(|_| bad("bad start address"))?;
        let end = u64::from_str_radix(end, 16).map_err(|_| bad("bad end address"))?;
        let inode = fields[4].parse().map_err(|_| bad("bad inode"))?;
        if path.is_empty() {
            continue;
        }
        out.push(Mapping {
            start,
            end,
            inode,
            path: path.to_owned(),
        });
    }
    Ok(out)
}

/// `Linux (<PRETTY_NAME>)` from `/etc/os-release` (or `/usr/lib/os-release`), else
/// `Linux (unknown)`; cut at a character boundary to CIF's 255-byte limit.
pub fn platform_string() -> String {
    let pretty = ["/etc/os-release", "/usr/lib/os-release"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .find_map(|text| {
            text.lines().find_map(|l| {
                let v = l.strip_prefix("PRETTY_NAME=")?.trim();
                let v = v
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                    .unwrap_or(v);
                Some(v.to_owned())
            })
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let mut s = format!("Linux ({pretty})");
    while s.len() > symblob::cif::MAX_PLATFORM_LEN {
        s.pop();
    }
    s
}

/// The system page size, from the auxiliary vector (4096 if it cannot be read).
fn page_size() -> u64 {
    const AT_PAGESZ: u64 = 6;
    let Ok(auxv) = std::fs::read("/proc/self/auxv") else {
        return 4096;
    };
    let word = std::mem::size_of::<usize>();
    let read = |b: &[u8]| -> u64 {
        let mut v = [0u8; 8];
        v[..word].copy_from_slice(b);
        u64::from_ne_bytes(v)
    };
    auxv.chunks_exact(2 * word)
        .find(|pair| read(&pair[..word]) == AT_PAGESZ)
        .map(|pair| read(&pair[word..]))
        .filter(|&p| p.is_power_of_two())
        .unwrap_or(4096)
}

/// Captures the image map of process `pid` (the calling process for `None`).
///
/// For every file mapped (inode ≠ 0) that is an ELF file: base = its lowest mapping,
/// build ID from its `NT_GNU_BUILD_ID` note, end of text = the end of its highest
/// executable `PT_LOAD` plus the load bias (base minus the lowest `PT_LOAD` address,
/// page-aligned), so non-PIE executables come out right; without an executable segment,
/// the end of its highest mapping. Images are sorted by base. Word size comes from the
/// process's executable.
pub fn capture(pid: Option<u32>) -> Result<ImageMap> {
    let proc_dir = match pid {
        Some(p) => format!("/proc/{p}"),
        None => "/proc/self".to_owned(),
    };
    let maps_path = format!("{proc_dir}/maps");
    let text = std::fs::read_to_string(&maps_path).map_err(|e| Error::io(&maps_path, e))?;
    let mappings = parse_maps(&text, &maps_path)?;
    // Per path: lowest start, highest end.
    let mut ranges: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for m in mappings.iter().filter(|m| m.inode != 0) {
        let r = ranges.entry(&m.path).or_insert((m.start, m.end));
        r.0 = r.0.min(m.start);
        r.1 = r.1.max(m.end);
    }
    let page_mask = !(page_size() - 1);
    let mut images = Vec::new();
    for (path, (base, high)) in ranges {
        let Some(elf) = inspect_elf(Path::new(path)) else {
            continue;
        };
        let bias = base.wrapping_sub(elf.lowest_load.unwrap_or(0) & page_mask);
        let end_of_text = elf
            .text_end
            .map(|end| bias.wrapping_add(end))
            .filter(|&end| end > base)
            .unwrap_or(high);
        let name = path.rsplit(['/', '\\']).next().map(str::to_owned);
        images.push(MapImage {
            base,
            end_of_text,
            build_id: elf.build_id.filter(|id| !id.is_empty()),
            path: Some(path.to_owned()),
            name,
            path_error: None,
        });
    }
    images.sort_by(|a, b| (a.base, &a.path).cmp(&(b.base, &b.path)));
    let word_size = inspect_elf(Path::new(&format!("{proc_dir}/exe"))).map_or(usize::BITS, |e| {
        if e.is_64 {
            64
        } else {
            32
        }
    });
    Ok(ImageMap {
        platform: platform_string(),
        word_size,
        images,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_lines_with_spaces_and_without_paths() {
        let text = "\
55d0c7a00000-55d0c7a05000 r-xp 00000000 08:01 1234    /home/u/my app/bin
7ffd1000-7ffd2000 rw-p 00000000 00:00 0 \n\
7ffd3000-7ffd4000 r-xp 00000000 00:00 0                  [vdso]
";
        let maps = parse_maps(text, "maps").unwrap();
        assert_eq!(maps.len(), 2);
        assert_eq!(maps[0].path, "/home/u/my app/bin");
        assert_eq!(
            (maps[0].start, maps[0].end, maps[0].inode),
            (0x55d0c7a00000, 0x55d0c7a05000, 1234)
        );
        assert_eq!((maps[1].path.as_str(), maps[1].inode), ("[vdso]", 0));
        let e = parse_maps("zz-10 r-xp 0 0:0 1 /x\n", "m")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m:1:"), "{e}");
    }
}
