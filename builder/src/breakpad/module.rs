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
