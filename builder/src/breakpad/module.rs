//! The identity of a module in a Breakpad symbol file: its `MODULE` line and `INFO
//! CODE_ID`.

/// What the `MODULE` and `INFO CODE_ID` records say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// Operating system (`Linux`, `mac`, `windows`, …).
    pub os: String,
    /// Architecture as Breakpad names it (`x86_64`, `arm64`, `x86`, `arm`, …).
    pub arch: String,
    /// The module (debug) identifier: 33 upper-case hexadecimal digits for an ELF file
    /// (a GUID made from the build ID, and an age of 0).
    pub id: String,
    /// The module's name (the file name, or the `DT_SONAME` of a shared library).
    pub name: String,
    /// The code identifier (`INFO CODE_ID`): the full build ID in upper-case hexadecimal.
    pub code_id: Option<String>,
    /// The address the record addresses are relative to: the first loadable segment's
    /// address for an ELF file, 0 for a model read from a `.sym` file.
    pub base: u64,
}

impl Module {
    /// The identity of the ELF file `bytes`, read from `path` (whose file name names the
    /// module when it has no `DT_SONAME`), as dump_syms states it:
    ///
    /// * `os` is `Linux`; `arch` Breakpad's name of the machine (`x86_64`, `arm64`, `x86`,
    ///   `arm`, `mips`, `mips64`, `ppc`, `ppc64`, `riscv64`, else `unknown`);
    /// * `id`: the first 16 bytes of the build ID (zero-padded) as a GUID whose first three
    ///   fields are byte-swapped on a little-endian machine, in upper-case hexadecimal,
    ///   then the age `0`; without a build ID, the first 4096 bytes of `.text` folded by
    ///   XOR into 16 bytes take its place;
    /// * `code_id`: the whole build ID in upper-case hexadecimal, when there is one;
    /// * `base`: the first `PT_LOAD` segment's address (record addresses are relative to
    ///   it).
    pub fn of_elf(bytes: &[u8], path: &std::path::Path) -> crate::Result<Module> {
        let obj = object::File::parse(bytes).map_err(|e| {
            crate::Error::new(
                crate::ErrorKind::Malformed,
                path.display().to_string(),
                crate::Location::Whole,
                format!("not a readable ELF file: {e}"),
            )
        })?;
        Ok(Module::of_object(&obj, path))
    }

    /// [`Module::of_elf`] of a parsed ELF file.
    pub fn of_object(obj: &object::File<'_>, path: &std::path::Path) -> Module {
        use object::{Object, ObjectSection, ObjectSegment};
        let build_id = obj.build_id().ok().flatten();
        let identifier: Vec<u8> = match build_id {
            Some(id) => id.to_vec(),
            None => {
                let text = obj
                    .section_by_name(".text")
                    .and_then(|s| s.data().ok())
                    .unwrap_or(&[]);
                let mut folded = [0u8; 16];
                for (i, b) in text.iter().take(4096).enumerate() {
                    folded[i % 16] ^= b;
                }
                folded.to_vec()
            }
        };
        let name = soname(obj).unwrap_or_else(|| {
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        Module {
            os: "Linux".into(),
            arch: arch_name(obj.architecture()).into(),
            id: debug_id(&identifier, obj.is_little_endian()),
            name,
            code_id: build_id.map(upper_hex),
            base: obj.segments().next().map_or(0, |s| s.address()),
        }
    }

    /// The identity of a module known only by its file's name and build ID (the GSYM UUID
    /// of a converted file, say): `Linux`, architecture `unknown`, the ID and code ID an
    /// ELF file with that build ID has (zeros without one), base 0.
    pub fn of_build_id(name: &str, build_id: &[u8]) -> Module {
        Module {
            os: "Linux".into(),
            arch: "unknown".into(),
            id: debug_id(build_id, true),
            name: name.into(),
            code_id: (!build_id.is_empty()).then(|| upper_hex(build_id)),
            base: 0,
        }
    }

    /// The symbol-store path of this module's file: `<name>/<id>/<name>.sym`, where
    /// minidump-stackwalk and the crash servers look for it.
    pub fn store_path(&self) -> std::path::PathBuf {
        let sym = match self.name.rsplit_once('.') {
            // Breakpad drops a Windows `.pdb` extension; ELF names keep theirs.
            Some((stem, ext)) if ext.eq_ignore_ascii_case("pdb") => format!("{stem}.sym"),
            _ => format!("{}.sym", self.name),
        };
        [self.name.as_str(), self.id.as_str(), sym.as_str()]
            .iter()
            .collect()
    }
}

/// Breakpad's (and symbolic's) name of an architecture.
fn arch_name(arch: object::Architecture) -> &'static str {
    use object::Architecture as A;
    match arch {
        A::X86_64 => "x86_64",
        A::Aarch64 => "arm64",
        A::I386 => "x86",
        A::Arm => "arm",
        A::Mips => "mips",
        A::Mips64 => "mips64",
        A::PowerPc => "ppc",
        A::PowerPc64 => "ppc64",
        A::Riscv64 => "riscv64",
        _ => "unknown",
    }
}

/// The module ID of an ELF file from its identifier (see [`Module::of_elf`]).
fn debug_id(identifier: &[u8], little_endian: bool) -> String {
    let mut guid = [0u8; 16];
    let n = identifier.len().min(16);
    guid[..n].copy_from_slice(&identifier[..n]);
    if little_endian {
        guid[0..4].reverse();
        guid[4..6].reverse();
        guid[6..8].reverse();
    }
    format!("{}0", upper_hex(&guid))
}

fn upper_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// The `DT_SONAME` of a shared library, from `.dynamic` and its string table.
fn soname(obj: &object::File<'_>) -> Option<String> {
    use object::{Object, ObjectSection};
    let dynamic = obj.section_by_name(".dynamic")?.data().ok()?;
    let strings = obj.section_by_name(".dynstr")?.data().ok()?;
    let word = if obj.is_64() { 8 } else { 4 };
    let read = |at: usize| -> Option<u64> {
        let b = dynamic.get(at..at + word)?;
        let mut v = [0u8; 8];
        if obj.is_little_endian() {
            v[..word].copy_from_slice(b);
            Some(u64::from_le_bytes(v))
        } else {
            v[8 - word..].copy_from_slice(b);
            Some(u64::from_be_bytes(v))
        }
    };
    const DT_NULL: u64 = 0;
    const DT_SONAME: u64 = 14;
    let mut at = 0;
    while let (Some(tag), Some(value)) = (read(at), read(at + word)) {
        match tag {
            DT_NULL => break,
            DT_SONAME => {
                let start = usize::try_from(value).ok()?;
                let tail = strings.get(start..)?;
                let end = tail.iter().position(|&b| b == 0)?;
                return Some(String::from_utf8_lossy(&tail[..end]).into_owned());
            }
            _ => at += 2 * word,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build ID as `readelf -n` prints it and the module ID `dump_syms` wrote for that
    /// program (its `MODULE` line).
    #[test]
    fn module_id_swaps_the_guid_fields() {
        let build_id = "6b9d53d0ef7cf1bb9624a00910380ac2ffb19442";
        let bytes: Vec<u8> = (0..build_id.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&build_id[i..i + 2], 16).unwrap())
            .collect();
        assert_eq!(debug_id(&bytes, true), "D0539D6B7CEFBBF19624A00910380AC20");
        assert_eq!(upper_hex(&bytes), build_id.to_uppercase());
    }

    #[test]
    fn store_path_is_name_id_name() {
        let m = Module {
            name: "libfoo.so".into(),
            id: "ABC0".into(),
            ..Module::default()
        };
        assert_eq!(
            m.store_path(),
            std::path::Path::new("libfoo.so/ABC0/libfoo.so.sym")
        );
    }
}
