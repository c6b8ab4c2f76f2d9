//! Names as SuperSize writes them: demangled as its `demangle.py` does with
//! `llvm-cxxfilt` (C++ `_Z…` names in LLVM's spelling, Rust v0 `_R…` names). The
//! archive-time name clean-up is in `size::signature`.

/// Demangles `name` as SuperSize does with `llvm-cxxfilt`: `_Z…` (and
/// `.Lswitch.table._Z…`) C++ names and `_R…` Rust v0 names; a trailing `.cfi` or
/// `$<32 hex>` is dropped first; LLVM's promoted-global suffix (`.llvm.123`) is removed.
/// Names that fail stay as they are. With `llvm_spelling` C++ names are written as
/// `llvm-cxxfilt-14` writes them (lambdas as `'lambda'(int)`, literals as `8u`, …, see
/// `llvm_spelling_of`), else as `cpp_demangle` does (binutils' `{lambda(int)#1}`).
pub fn demangle(name: &str, llvm_spelling: bool) -> String {
    if !is_mangled(name) {
        return name.to_string();
    }
    if name.starts_with("_R") {
        return strip_llvm_promoted_suffix(&demangle_rust_v0(name).unwrap_or_else(|| name.into()));
    }
    let mut part = &name[name.find("_Z").unwrap_or(0)..];
    if let Some(p) = part.strip_suffix(".cfi") {
        part = p;
    }
    if part.len() > 33 {
        let (head, tail) = part.split_at(part.len() - 33);
        if tail.starts_with('$')
            && tail[1..]
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            part = head;
        }
    }
    let mut demangled = demangle_cpp(part).unwrap_or_else(|| part.to_string());
    if llvm_spelling {
        demangled = llvm_spelling_of(&demangled);
    }
    let demangled = strip_llvm_promoted_suffix(&demangled);
    if name.starts_with(".Lswitch.table.") {
        format!("Switch table for {demangled}")
    } else {
        demangled
    }
}

/// Whether [`demangle`] may change `name`.
pub fn is_mangled(name: &str) -> bool {
    name.starts_with("_Z") || name.starts_with("_R") || name.starts_with(".Lswitch.table._Z")
}

/// The one place the C++ demangler is called. A suffix after the encoding (`.cold`,
/// `.constprop.0`, `.llvm.123`) is written as `llvm-cxxfilt` writes it, ` (.cold)`,
/// not as GNU's ` [clone .cold]`.
fn demangle_cpp(mangled: &str) -> Option<String> {
    if let Some(plain) = demangle_plain_nested(mangled) {
        return Some(plain);
    }
    let sym = cpp_demangle::Symbol::new(mangled.as_bytes()).ok()?;
    let text = sym.demangle().ok()?;
    match text.find(" [clone ") {
        Some(i) => {
            let suffix: String = text[i..]
                .split(" [clone ")
                .map(|piece| piece.trim_end_matches(']'))
                .collect();
            Some(format!("{} ({suffix})", &text[..i]))
        }
        None => Some(text),
    }
}

/// The C++ demangling of a plain nested name, `_ZN` followed by two or more
/// `<length><identifier>` source names and a final `E`: the identifiers joined by `::`.
/// Rust's legacy mangling gives nearly every symbol of a Rust binary this shape; reading
/// it here skips the demangler's syntax tree and its allocations. Anything else
/// (templates, substitutions, qualifiers, `_GLOBAL__N` namespaces, a suffix) is `None`
/// and goes to the full demangler.
fn demangle_plain_nested(mangled: &str) -> Option<String> {
    let mut rest = mangled.strip_prefix("_ZN")?.as_bytes();
    let mut out = String::with_capacity(mangled.len());
    let mut count = 0;
    loop {
        match rest {
            [b'E'] if count >= 2 => return Some(out),
            [b'1'..=b'9', ..] => {}
            _ => return None,
        }
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let len: usize = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        let end = digits.checked_add(len)?;
        let identifier = std::str::from_utf8(rest.get(digits..end)?).ok()?;
        if identifier.starts_with("_GLOBAL_") {
            return None;
        }
        if count > 0 {
            out.push_str("::");
        }
        out.push_str(identifier);
        rest = &rest[end..];
        count += 1;
    }
}

/// A Rust v0 name as `llvm-cxxfilt-14` writes it: `rustc-demangle`'s alternate form (no
/// crate disambiguators), which is LLVM's, except that a suffix after the encoding
/// (`.0`, as rustc gives a function's statics) is written ` (.0)`.
fn demangle_rust_v0(name: &str) -> Option<String> {
    // A v0 encoding holds no `.`: whatever follows the first one is a suffix.
    let (head, suffix) = match name.find('.') {
        Some(dot) => name.split_at(dot),
        None => (name, ""),
    };
    let demangled = rustc_demangle::try_demangle(head).ok()?;
    if suffix.is_empty() {
        Some(format!("{demangled:#}"))
    } else {
        Some(format!("{demangled:#} ({suffix})"))
    }
}

/// `cpp_demangle`'s output in `llvm-cxxfilt-14`'s spelling, where the two differ on
/// common names: lambdas, integer template arguments (`(unsigned int)8` → `8u`), empty
/// parameter packs (`Foo<int, >` → `Foo<int>`), vtables (`{vtable(X)}` → `vtable for X`)
/// and non-virtual and virtual thunks.
fn llvm_spelling_of(name: &str) -> String {
    let name = special_names(name);
    let name = integer_literals(&name);
    llvm_lambdas(&empty_packs(&name))
}

/// `{vtable(X)}` → `vtable for X`; `{virtual override thunk({offset(N)}, X)}` →
/// `non-virtual thunk to X`, with `{virtual offset(A, B)}` → `virtual thunk to X`.
fn special_names(name: &str) -> String {
    if let Some(inner) = name
        .strip_prefix("{vtable(")
        .and_then(|n| n.strip_suffix(")}"))
    {
        return format!("vtable for {inner}");
    }
    let Some(rest) = name
        .strip_prefix("{virtual override thunk(")
        .and_then(|n| n.strip_suffix(")}"))
    else {
        return name.to_string();
    };
    for (offset, kind) in [("{offset(", "non-virtual"), ("{virtual offset(", "virtual")] {
        if let Some(after) = rest.strip_prefix(offset) {
            if let Some(end) = after.find(")}, ") {
                return format!("{kind} thunk to {}", &after[end + 4..]);
            }
        }
    }
    name.to_string()
}

/// `(unsigned int)8` → `8u`, as LLVM writes literals of the integer types that have a
/// suffix (`int` none, `u`, `l`, `ul`, `ll`, `ull`); other types keep their cast.
fn integer_literals(name: &str) -> String {
    const TYPES: [(&str, &str); 6] = [
        ("(int)", ""),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
        ("(unsigned long)", "ul"),
        ("(long long)", "ll"),
        ("(unsigned long long)", "ull"),
    ];
    if !name.contains("int)") && !name.contains("long)") {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    'scan: while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let here = &rest[open..];
        for (cast, suffix) in TYPES {
            let Some(value) = here.strip_prefix(cast) else {
                continue;
            };
            let sign = usize::from(value.starts_with('-'));
            let digits = value[sign..].bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                out.push_str(&value[..sign + digits]);
                out.push_str(suffix);
                rest = &value[sign + digits..];
                continue 'scan;
            }
        }
        out.push('(');
        rest = &here[1..];
    }
    out.push_str(rest);
    out
}

/// An empty parameter pack leaves `, >` in `cpp_demangle`'s output; LLVM writes nothing
/// (keeping its space between two closing brackets: `A<B<C> >`).
fn empty_packs(name: &str) -> String {
    let mut out = name.to_string();
    while let Some(at) = out.find(", >") {
        let after_bracket = out[..at].ends_with('>');
        out.replace_range(at..at + 3, if after_bracket { " >" } else { ">" });
    }
    out
}

/// GNU's `{lambda(int, int)#1}` in LLVM's spelling: `'lambda'(int, int)`, where the
/// `#N` (1-based) becomes LLVM's raw discriminator (nothing for the first, then 0, 1, …).
fn llvm_lambdas(name: &str) -> String {
    const OPEN: &str = "{lambda(";
    if !name.contains(OPEN) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let body = &rest[at + OPEN.len() - 1..];
        // The parameter list, balanced (parameters may be lambdas themselves).
        let mut depth = 0usize;
        let mut close = None;
        for (i, b) in body.bytes().enumerate() {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let tail = close.map(|c| &body[c + 1..]);
        let number = tail.and_then(|t| {
            let t = t.strip_prefix('#')?;
            let end = t.find('}')?;
            t[..end].parse::<u64>().ok().map(|n| (n, end + 2))
        });
        let (Some(close), Some((n, consumed))) = (close, number) else {
            out.push_str(OPEN);
            rest = &rest[at + OPEN.len()..];
            continue;
        };
        let discriminator = if n <= 1 {
            String::new()
        } else {
            (n - 2).to_string()
        };
        let params = llvm_lambdas(&body[..=close]);
        out.push_str(&format!("'lambda{discriminator}'{params}"));
        rest = &body[close + 1 + consumed..];
    }
    out.push_str(rest);
    out
}

/// Removes ` (.1.llvm.123)` (demangled) or `.1.llvm.123` (raw) at the end of a name.
fn strip_llvm_promoted_suffix(name: &str) -> String {
    if !name.contains(".llvm.") {
        return name.to_string();
    }
    let (body, closing) = match name.strip_suffix(')') {
        Some(b) => (b, true),
        None => (name, false),
    };
    let Some(pos) = body.rfind(".llvm.") else {
        return name.to_string();
    };
    let digits = &body[pos + 6..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return name.to_string();
    }
    let mut start = pos;
    // An optional `.<digits>` before `.llvm.`.
    let before = &body[..pos];
    if let Some(dot) = before.rfind('.') {
        let num = &before[dot + 1..];
        if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
            start = dot;
        }
    }
    if closing {
        match body[..start].strip_suffix(" (") {
            Some(head) => head.to_string(),
            None => name.to_string(),
        }
    } else {
        body[..start].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_as_llvm_writes_them() {
        // llvm-cxxfilt-14 output for these names.
        assert_eq!(demangle("_Z3fooi.cold", true), "foo(int) (.cold)");
        assert_eq!(
            demangle("_Z3fooi.constprop.0.isra.0", true),
            "foo(int) (.constprop.0.isra.0)"
        );
        assert_eq!(demangle("_Z3fooi.llvm.123", true), "foo(int)");
        assert_eq!(
            demangle("_ZZ4mainENKUlvE0_clEv", true),
            "main::'lambda0'()::operator()() const"
        );
        assert_eq!(
            demangle("_ZZ4mainENKUliE_clEi", true),
            "main::'lambda'(int)::operator()(int) const"
        );
        assert_eq!(
            demangle("_ZZ4mainENKUliE_clEi", false),
            "main::{lambda(int)#1}::operator()(int) const"
        );
        assert_eq!(
            demangle(
                "_RNvNtNtCsjrHSEGnQ3l9_3std2io5stdio19OUTPUT_CAPTURE_USED.0",
                true
            ),
            "std::io::stdio::OUTPUT_CAPTURE_USED (.0)"
        );
    }

    /// The plain-name shortcut agrees with `cpp_demangle` on every name it takes, checked
    /// on the symbols of this test binary (Rust's legacy mangling: thousands of them).
    #[test]
    fn plain_nested_names_as_cpp_demangle_writes_them() {
        use object::{Object, ObjectSymbol};
        let exe = std::fs::read(std::env::current_exe().expect("test binary")).expect("read");
        let file = object::File::parse(&*exe).expect("ELF");
        let mut taken = 0;
        for sym in file.symbols() {
            let Ok(name) = sym.name() else { continue };
            if let Some(fast) = demangle_plain_nested(name) {
                let full = cpp_demangle::Symbol::new(name.as_bytes())
                    .expect("cpp_demangle parses what the shortcut reads")
                    .demangle()
                    .expect("cpp_demangle writes what the shortcut reads");
                assert_eq!(fast, full, "{name}");
                taken += 1;
            }
        }
        assert!(taken > 1000, "only {taken} plain nested names");
        assert_eq!(demangle_plain_nested("_ZN3foo3barEv"), None);
        assert_eq!(demangle_plain_nested("_ZN3fooE"), None);
        assert_eq!(demangle_plain_nested("_ZN12_GLOBAL__N_13fooE"), None);
        assert_eq!(demangle_plain_nested("_ZN3foo9barE"), None);
    }

    #[test]
    fn promoted_suffix() {
        let cases = [
            ("foo.llvm.123", "foo"),
            ("foo.1.llvm.123", "foo"),
            ("f() (.1.llvm.123)", "f()"),
            ("foo.llvm.x", "foo.llvm.x"),
        ];
        for (name, stripped) in cases {
            assert_eq!(strip_llvm_promoted_suffix(name), stripped, "{name}");
        }
    }
}
