//! symblib's demangling rules (spec §5.5): clone suffixes stripped, Rust without the hash,
//! Itanium C++ with every template argument (and its angle brackets) removed.

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

/// Cuts the last `.clone.N`, `.constprop.N`, `.llvm.N`, `.isra.N`, `.part.N` (checked in
/// that order, each at most once), then a trailing `.cold`. Go names keep their dots
/// because only these suffixes count.
fn strip_clone_suffixes(mut name: &str) -> &str {
    if !name.contains('.') {
        return name;
    }
    for suffix in [".clone.", ".constprop.", ".llvm.", ".isra.", ".part."] {
        if let Some(pos) = name.rfind(suffix) {
            let rest = &name[pos + suffix.len()..];
            if rest
                .chars()
                .take_while(|&c| c != '.')
                .all(|c| c.is_ascii_digit())
            {
                name = &name[..pos];
            }
        }
    }
    name.strip_suffix(".cold").unwrap_or(name)
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
        assert_eq!(demangle("runtime.(*mheap).grow"), "runtime.(*mheap).grow");
        assert_eq!(demangle("_RustIsNotMangled_R"), "_RustIsNotMangled_R");
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
