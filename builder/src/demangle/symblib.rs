//! symblib's demangling rules (spec §5.5): clone suffixes stripped (only where they end
//! the name, unlike symblib), Rust without the hash, Itanium C++ with every template
//! argument (and its angle brackets) removed.

/// Demangles `name` the way symblib names its records.
pub fn demangle(name: &str) -> String {
    let name = strip_clone_suffixes(name);
    if could_be_rust(name) {
        if let Ok(d) = rustc_demangle::try_demangle(name) {
            // `{:#}` leaves out the hash.
            return format!("{d:#}");
        }
    }
    if name.starts_with("_Z") || name.starts_with("___Z") {
        if let Some(s) = demangle_cxx_without_templates(name) {
            return s;
        }
    }
    name.to_string()
}

/// The suffixes `<kind><digits>` that GCC (`.clone.0`, `.constprop.0`, `.isra.0`,
/// `.part.0`) and LLVM (`.llvm.<digits>`, ThinLTO's promoted locals) append to a clone.
const CLONE_SUFFIXES: [&str; 5] = [".clone.", ".constprop.", ".llvm.", ".isra.", ".part."];

/// Cuts the run of clone suffixes that ends `name` (spec §5.5, with one correction): any
/// number of `.cold` and `<kind><digits>` suffixes of [`CLONE_SUFFIXES`], at least one
/// digit each (`.constprop.0.isra.0.cold`, `.part.0`, `.llvm.123`). A suffix is only cut
/// where such a run reaches the end of the name: legacy Rust names hold `..clone..`
/// (`core..clone..Clone` is `core::clone::Clone`), which symblib cuts because it takes an
/// empty run of digits for "all digits". Go names keep their dots because only these
/// suffixes count.
fn strip_clone_suffixes(mut name: &str) -> &str {
    while let Some(shorter) = strip_one_clone_suffix(name) {
        name = shorter;
    }
    name
}

/// `name` without its last suffix, if it ends with `.cold` or a `<kind><digits>` suffix
/// and something is left before it.
fn strip_one_clone_suffix(name: &str) -> Option<&str> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let head = &name[..name.len() - digits];
    let base = if digits == 0 {
        head.strip_suffix(".cold")
    } else {
        CLONE_SUFFIXES
            .iter()
            .find_map(|suffix| head.strip_suffix(suffix))
    };
    base.filter(|base| !base.is_empty())
}

/// `_R…` (v0) or legacy `_ZN…17h<16 hex digits>E`.
fn could_be_rust(name: &str) -> bool {
    if name.starts_with("_R") {
        return true;
    }
    let b = name.as_bytes();
    let n = b.len();
    name.starts_with("_ZN")
        && name.ends_with('E')
        && n > 3 + 3 + 16 + 1
        && &b[n - 20..n - 17] == b"17h"
        && b[n - 17..n - 1].iter().all(u8::is_ascii_hexdigit)
}

/// Writes the demangled text, dropping `<`, `>` and everything inside template arguments.
#[derive(Default)]
struct NoTemplates {
    out: String,
    stack: Vec<cpp_demangle::DemangleNodeType>,
}

impl cpp_demangle::DemangleWrite for NoTemplates {
    fn push_demangle_node(&mut self, ty: cpp_demangle::DemangleNodeType) {
        self.stack.push(ty);
    }

    fn write_string(&mut self, s: &str) -> std::fmt::Result {
        if s == "<" || s == ">" {
            return Ok(());
        }
        if self
            .stack
            .contains(&cpp_demangle::DemangleNodeType::TemplateArgs)
        {
            return Ok(());
        }
        self.out.push_str(s);
        Ok(())
    }

    fn pop_demangle_node(&mut self) {
        self.stack.pop();
    }
}

fn demangle_cxx_without_templates(name: &str) -> Option<String> {
    let sym = cpp_demangle::BorrowedSymbol::new(name.as_bytes()).ok()?;
    let mut w = NoTemplates::default();
    sym.structured_demangle(&mut w, &cpp_demangle::DemangleOptions::default())
        .ok()?;
    Some(w.out)
}

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn clone_suffixes_and_plain_names() {
        assert_eq!(demangle("blah.constprop.0.cold"), "blah");
        assert_eq!(demangle("blah.cold"), "blah");
        assert_eq!(demangle("blah.constprop.0.isra.0.cold"), "blah");
        assert_eq!(demangle("blah.part.12"), "blah");
        assert_eq!(demangle("blah.llvm.9876543210"), "blah");
        assert_eq!(demangle("runtime.(*mheap).grow"), "runtime.(*mheap).grow");
        assert_eq!(demangle("_RustIsNotMangled_R"), "_RustIsNotMangled_R");
    }

    #[test]
    fn only_a_suffix_with_digits_that_ends_the_name_is_cut() {
        // No digits: not a clone suffix (symblib cuts these, taking "" for all digits).
        assert_eq!(demangle("blah.clone."), "blah.clone.");
        assert_eq!(demangle("blah.part.x"), "blah.part.x");
        // A clone suffix in the middle, followed by something that is not one, stays.
        assert_eq!(demangle("blah.part.0.foo"), "blah.part.0.foo");
        assert_eq!(demangle("blah.cold.part.0"), "blah");
        // Every kind may repeat (symblib cuts each kind once: `blah.isra.0`).
        assert_eq!(demangle("blah.isra.0.isra.1"), "blah");
        // A name that is nothing but a suffix keeps it.
        assert_eq!(demangle(".part.0"), ".part.0");
    }

    #[test]
    fn legacy_rust_clone_impls_are_not_cut() {
        // c++filt of the symbol (rustc 1.95, `impl<T: Clone> Clone for Tagged<T>`), hash dropped.
        assert_eq!(
            demangle("_ZN62_$LT$clones..Tagged$LT$T$GT$$u20$as$u20$core..clone..Clone$GT$5clone17h589ae86f8df6574aE"),
            "<clones::Tagged<T> as core::clone::Clone>::clone"
        );
        // ThinLTO's promoted local: the hash and the `.llvm.` suffix go.
        assert_eq!(
            demangle("_ZN68_$LT$cpp_demangle..ast..TypeHandle$u20$as$u20$core..clone..Clone$GT$5clone17h0123456789abcdefE.llvm.42"),
            "<cpp_demangle::ast::TypeHandle as core::clone::Clone>::clone"
        );
    }

    #[test]
    fn rust_without_hash() {
        // `c++filt`/`rustfilt` of the mangled name, hash dropped.
        assert_eq!(
            demangle("_ZN71_$LT$rustc_demangle..legacy..Demangle$u20$as$u20$core..fmt..Display$GT$3fmt17h48ee277748f854a8E"),
            "<rustc_demangle::legacy::Demangle as core::fmt::Display>::fmt"
        );
    }

    #[test]
    fn cxx_without_template_arguments() {
        // c++filt: js::HeapSlot::post(js::NativeObject*, js::HeapSlot::Kind, unsigned int,
        // JS::Value const&) [clone .isra.0] [clone .cold]
        assert_eq!(
            demangle("_ZN2js8HeapSlot4postEPNS_12NativeObjectENS0_4KindEjRKN2JS5ValueE.isra.0.cold"),
            "js::HeapSlot::post(js::NativeObject*, js::HeapSlot::Kind, unsigned int, JS::Value const&)"
        );
        // c++filt: std::vector<int, std::allocator<int> >::push_back(int const&)
        assert_eq!(
            demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"),
            "std::vector::push_back(int const&)"
        );
    }
}
