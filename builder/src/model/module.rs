//! The identity of a module as crash reporting names it (a Breakpad symbol file's
//! `MODULE` line and `INFO CODE_ID`, and the symbol-store path). The ELF source fills it
//! from an ELF file (`Module::of_elf`), the `.sym` source from a `MODULE` line.

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

/// The module ID of an ELF file from its identifier (see [`Module::of_elf`]).
pub(crate) fn debug_id(identifier: &[u8], little_endian: bool) -> String {
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

pub(crate) fn upper_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
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
