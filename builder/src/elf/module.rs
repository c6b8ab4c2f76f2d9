//! The identity of an ELF file as dump_syms states it ([`Module`]).

use object::{Object, ObjectSection, ObjectSegment};

use crate::model::{debug_id, upper_hex, Module};

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

/// The `DT_SONAME` of a shared library, from `.dynamic` and its string table.
fn soname(obj: &object::File<'_>) -> Option<String> {
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
