//! SuperSize's archive-time name clean-up (`archive._NormalizeNames` with
//! `function_signature.Parse`), which its `archive` applies to every native symbol before
//! sorting: clone suffixes removed (flag 64), `vtable for X` → `X [vtable]`, return types
//! stripped, `(anonymous namespace)::` removed (flag 1 when the name outside template
//! arguments had one).
//!
//! The scans below keep SuperSize's own bracket counting, quirks included (a `>` in `->`
//! counts as a closing bracket), because the goal is the same names, not better ones.
//! Names are ASCII here (they are cleaned first), so byte and character indices agree.

use super::model::{FLAG_ANONYMOUS, FLAG_CLONE};

/// `(new full name, flags to add)` for a symbol of a native section; `is_text` for `.text`.
pub fn normalize_native_name(full_name: &str, is_text: bool) -> (String, u32) {
    let mut flags = 0;
    let mut name = full_name.to_string();
    // GCC's `[clone .part.0]` (libiberty's spelling), searched from the left.
    if let Some(idx) = name.find(" [clone ") {
        name.truncate(idx);
        flags |= FLAG_CLONE;
    }
    // C clones: `work.part.0` → `work`; `foo.123` → `foo`.
    if is_text {
        if let Some(idx) = name.rfind('.') {
            let digits = &name[idx + 1..];
            let head = &name[..idx];
            if !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !matches!(head, "__tcf_0" | "startup")
            {
                flags |= FLAG_CLONE;
                name = match head.rfind('.') {
                    Some(dot) => head[..dot].to_string(),
                    None => head.to_string(),
                };
            }
        }
    }
    // `vtable for X` → `X [vtable]`; `non-virtual thunk to X` → `X [non-virtual thunk]`.
    if let Some(idx) = find_in(&name, " for ", 0, 30) {
        name = format!("{} [{}]", &name[idx + 5..], &name[..idx]);
    }
    if let Some(idx) = find_in(&name, " to ", 0, 30) {
        name = format!("{} [{}]", &name[idx + 4..], &name[..idx]);
    }
    let (full, short) = parse(&name);
    const ANON: &str = "(anonymous namespace)::";
    if short.contains(ANON) {
        flags |= FLAG_ANONYMOUS;
    }
    (full.replace(ANON, ""), flags)
}

/// `function_signature.Parse`: `(name without return type, name without parameters and
/// template arguments)`.
fn parse(name: &str) -> (String, String) {
    let mut full_name = name.to_string();
    let mut short = name.to_string();
    let paren = find_parameter_list_paren(name);
    if let Some(left) = paren.filter(|&p| p > 0) {
        let Some(right) = name.rfind(')').filter(|&r| r > left) else {
            // SuperSize asserts here; such a name is kept as it is.
            return (full_name, strip_template_args(&strip_abi_tag(&short)));
        };
        let space = find_return_value_space(name, left);
        let start = space.map_or(0, |s| s + 1);
        let no_params = &name[start..left];
        if no_params.ends_with("}::_FUN") {
            if let Some(n) = top_level_gcc_lambda(name, left) {
                return parse(&n);
            }
        }
        if no_params.ends_with("::__invoke") && no_params.contains("$_") {
            if let Some(n) = top_level_clang_lambda(name, left) {
                return parse(&n);
            }
        }
        full_name = name[start..].to_string();
        short = format!("{no_params}{}", &name[right + 1..]);
    }
    (full_name, strip_template_args(&strip_abi_tag(&short)))
}

/// Python's `str.find(sub, start, end)`: the whole of `sub` inside `[start, end)`, with
/// negative bounds counted from the end.
fn find_in(s: &str, sub: &str, start: isize, end: isize) -> Option<usize> {
    let (start, end) = (py_index(start, s.len()), py_index(end, s.len()));
    if start > end {
        return None;
    }
    s[start..end].find(sub).map(|i| i + start)
}

/// Python's `str.rfind(sub, 0, end)`.
fn rfind_before(s: &str, c: char, end: usize) -> Option<usize> {
    s[..end.min(s.len())].rfind(c)
}

fn py_index(i: isize, len: usize) -> usize {
    if i < 0 {
        len.saturating_sub(i.unsigned_abs())
    } else {
        (i as usize).min(len)
    }
}

fn count(s: &str, c: u8, start: usize, end: usize) -> isize {
    s.as_bytes()[start..end].iter().filter(|&&b| b == c).count() as isize
}

/// `_FindParameterListParen`: the `(` that opens the outermost parameter list.
fn find_parameter_list_paren(name: &str) -> Option<usize> {
    let bytes = name.as_bytes();
    let (mut start, mut templates, mut parens) = (0usize, 0isize, 0isize);
    loop {
        let idx = name[start..].find('(')? + start;
        templates += count(name, b'<', start, idx) - count(name, b'>', start, idx);
        // Operators with angle brackets do not open or close templates.
        if let Some(op) = find_in(name, "operator<", start as isize, idx as isize) {
            templates -= if bytes[op + 9] == b'<' { 2 } else { 1 };
        } else if let Some(op) = find_in(name, "operator>", start as isize, idx as isize) {
            templates += if bytes[op + 9] == b'>' { 2 } else { 1 };
        }
        parens += count(name, b'(', start, idx) - count(name, b')', start, idx);
        if templates == 0 && parens == 0 {
            if find_in(
                name,
                "(anonymous namespace)",
                idx as isize,
                idx as isize + 21,
            )
            .is_some()
            {
                start = idx + 21;
                continue;
            }
            // `decltype (…)` and `{lambda(…)#1}` are not parameter lists.
            let before = if idx == 0 {
                bytes[bytes.len() - 1]
            } else {
                bytes[idx - 1]
            };
            if before != b' ' && !name[..idx].ends_with("{lambda") {
                return Some(idx);
            }
        }
        start = idx + 1;
        parens += 1;
    }
}

/// `_FindLastCharOutsideOfBrackets`: the last `c` before `end` outside `()` and `<>`.
fn find_last_outside_brackets(name: &str, c: char, end: Option<usize>) -> Option<usize> {
    let mut end = end.unwrap_or(name.len());
    let (mut templates, mut parens) = (0isize, 0isize);
    loop {
        let idx = rfind_before(name, c, end)?;
        templates += count(name, b'<', idx, end) - count(name, b'>', idx, end);
        parens += count(name, b'(', idx, end) - count(name, b')', idx, end);
        if templates == 0 && parens == 0 {
            return Some(idx);
        }
        end = idx;
    }
}

/// `_FindReturnValueSpace`: the space after the return type, if any.
fn find_return_value_space(name: &str, paren: usize) -> Option<usize> {
    let mut space = paren;
    if find_in(name, " const", paren as isize - 6, paren as isize).is_some() {
        space = paren - 6;
    }
    loop {
        space = find_last_outside_brackets(name, ' ', Some(space))?;
        let s = space as isize;
        // `operator new`, `operator< <T>`, `operator<< <T>` hold a space of their own.
        if find_in(name, "operator", s - 8, s).is_some() {
            space -= 8;
        } else if find_in(name, "operator<", s - 9, s).is_some() {
            space -= 9;
        } else if find_in(name, "operator<<", s - 10, s).is_some() {
            space -= 10;
        } else {
            return Some(space);
        }
    }
}

/// `_StripAbiTag`: removes every `[abi:…]`.
fn strip_abi_tag(name: &str) -> String {
    let mut name = name.to_string();
    let mut start = 0;
    while let Some(s) = find_in(&name, "[abi:", start as isize, name.len() as isize - 1) {
        let Some(e) = name[s + 5..].find(']').map(|e| e + s + 5) else {
            break;
        };
        name.replace_range(s..=e, "");
        start = s;
    }
    name
}

/// `_StripTemplateArgs`: `a<b<c>>::f` → `a<>::f`.
fn strip_template_args(name: &str) -> String {
    let mut name = name.to_string();
    let mut last_right = name.len();
    loop {
        let Some(right) = rfind_before(&name, '>', last_right) else {
            return name;
        };
        last_right = right;
        if let Some(left) = find_last_outside_brackets(&name, '<', Some(right + 1)) {
            name.replace_range(left + 1..right, "");
            last_right = left;
        }
    }
}

/// `cc::{lambda(PaintOp*)#63}::_FUN()` → `cc::$lambda#63()`.
fn top_level_gcc_lambda(name: &str, left_paren: usize) -> Option<String> {
    let brace = name.find('{')?;
    let hash = name[brace + 1..].find('#')? + brace + 1;
    let right = name[hash + 1..].find('}')? + hash + 1;
    let number = &name[hash + 1..right];
    Some(format!(
        "{}$lambda#{number}{}",
        &name[..brace],
        &name[left_paren..]
    ))
}

/// `cc::$_21::__invoke()` → `cc::$lambda#21()`.
fn top_level_clang_lambda(name: &str, left_paren: usize) -> Option<String> {
    let dollar = name.find('$')?;
    let colon = name[dollar + 1..].find(':')? + dollar + 1;
    let number = name.get(dollar + 2..colon)?;
    Some(format!(
        "{}$lambda#{number}{}",
        &name[..dollar],
        &name[left_paren..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases of SuperSize's `function_signature_test.py`: (return type, name, parameters,
    /// what follows, name without parameters and template arguments).
    #[test]
    fn as_supersize_parses() {
        let cases = [
            (
                "bool ",
                "foo::Bar<unsigned int, int>::Do<unsigned int>",
                "(unsigned int)",
                "",
                "foo::Bar<>::Do<>",
            ),
            (
                "",
                "(anonymous namespace)::GetBridge",
                "(long long)",
                "",
                "(anonymous namespace)::GetBridge",
            ),
            ("", "operator delete", "(void*)", "", "operator delete"),
            (
                "",
                "cc::LayerIterator::operator cc::LayerIteratorPosition const",
                "()",
                " const",
                "cc::LayerIterator::operator cc::LayerIteratorPosition const const",
            ),
            (
                "decltype ({parm#1}((SkRecords::NoOp)())) ",
                "SkRecord::Record::visit<SkRecords::Draw&>",
                "(SkRecords::Draw&)",
                " const",
                "SkRecord::Record::visit<> const",
            ),
            (
                "std::basic_ostream<char, std::char_traits<char> >& ",
                "std::operator<< <std::char_traits<char> >",
                "(std::basic_ostream<char, std::char_traits<char> >&, char)",
                "",
                "std::operator<< <>",
            ),
            (
                "",
                "std::operator>><std::allocator<char> >",
                "(int&)",
                "",
                "std::operator>><>",
            ),
            (
                "",
                "std::basic_istream<char>::operator>",
                "(unsigned int&)",
                "",
                "std::basic_istream<>::operator>",
            ),
            ("", "Foo", "()", " [virtual thunk]", "Foo [virtual thunk]"),
            ("int ", "Foo<int()>::bar<a<b> >", "()", "", "Foo<>::bar<>"),
            (
                "",
                "foo::Bar<Z<Y> >::foo<bar>",
                "(abc)",
                "::var<baz>",
                "foo::Bar<>::foo<>::var<>",
            ),
            ("", "foo::operator[]", "(abc)", "", "foo::operator[]"),
        ];
        for (ret, name, params, after, short) in cases {
            for signature in [
                format!("{name}{params}{after}"),
                format!("{ret}{name}{params}{after}"),
            ] {
                assert_eq!(
                    parse(&signature),
                    (format!("{name}{params}{after}"), short.to_string()),
                    "{signature}"
                );
            }
        }
        let lambda = "cc::{lambda(cc::PaintOp*)#63}::_FUN(cc::PaintOp*)";
        assert_eq!(
            parse(lambda),
            (
                "cc::$lambda#63(cc::PaintOp*)".into(),
                "cc::$lambda#63".into()
            )
        );
        let clang = "cc::$_63::__invoke(cc::PaintOp*)";
        assert_eq!(
            parse(clang),
            (
                "cc::$lambda#63(cc::PaintOp*)".into(),
                "cc::$lambda#63".into()
            )
        );
        let abi = "std::make_unique[abi:v15000]<Foo>(Bar const*&)";
        assert_eq!(parse(abi), (abi.into(), "std::make_unique<>".into()));
    }

    /// `_NormalizeNames` on the classes of the Chromium goldens.
    #[test]
    fn as_supersize_normalizes() {
        assert_eq!(
            normalize_native_name("work_part.part.0", true),
            ("work_part".into(), FLAG_CLONE)
        );
        assert_eq!(
            normalize_native_name("(anonymous namespace)::score(int)", true),
            ("score(int)".into(), FLAG_ANONYMOUS)
        );
        assert_eq!(
            normalize_native_name("vtable for Foo", false),
            ("Foo [vtable]".into(), 0)
        );
        assert_eq!(normalize_native_name("__tcf_0.3", true).1, 0);
        assert_eq!(normalize_native_name("counter.0", false).1, 0);
    }
}
