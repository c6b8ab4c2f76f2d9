use super::*;

#[test]
fn legacy_rust_is_recognised_past_dotted_escapes() {
    let dotted = "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h3343f8ad1b2c60f3E";
    assert!(is_legacy_rust(dotted));
    assert!(is_legacy_rust(&format!("{dotted}.llvm.4077")));
    assert!(is_legacy_rust("_ZN4core3fmt5write17h0123456789abcdefE"));
    assert!(!is_legacy_rust("_ZN4core3fmt5write17h0123456789abcdefEv"));
    assert!(!is_legacy_rust("_ZNSt6vectorIiSaIiEE9push_backEOi"));
    assert!(!is_legacy_rust("_ZN3foo17h0123456789abcdeE"));
}

#[test]
fn dotted_legacy_rust_name_is_rust() {
    // rustc-demangle's documented alternate form: no hash, `.llvm.` suffix dropped.
    let raw = "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h3343f8ad1b2c60f3E.llvm.4077";
    assert_eq!(
        demangle(raw, None).as_deref(),
        Some("<&T as core::fmt::Debug>::fmt")
    );
}

#[test]
fn language_hint_decides_before_the_prefix() {
    // A C++ name shaped like a legacy Rust one: the unit's language settles it.
    let raw = "_ZN3foo17h0123456789abcdefE";
    assert_eq!(
        demangle(raw, Some(Language::Cpp)).as_deref(),
        Some("foo::h0123456789abcdef")
    );
    assert_eq!(demangle(raw, Some(Language::Rust)).as_deref(), Some("foo"));
    assert_eq!(
        demangle("_RNvCs1234_7mycrate3foo", Some(Language::Cpp)).as_deref(),
        Some("mycrate::foo")
    );
}

#[test]
fn plain_and_invalid_names_stay() {
    assert_eq!(demangle("main", None), None);
    assert_eq!(demangle("_Z", None), None);
    assert_eq!(demangle("_R", None), None);
    assert_eq!(demangle_bytes(b"\xff_Z3fooi", None), None);
}

#[test]
fn cpp_names() {
    assert_eq!(demangle("_Z3addii", None).as_deref(), Some("add(int, int)"));
    if GNU_COMPATIBLE {
        // c++filt's output for this name (binutils 2.40).
        assert_eq!(
            demangle("_ZNSt10unique_ptrIN2ns5ShapeESt14default_deleteIS1_EEC4IS3_vEEPS1_", None)
                .as_deref(),
            Some("std::unique_ptr<ns::Shape, std::default_delete<ns::Shape> >::unique_ptr<std::default_delete<ns::Shape>, void>(ns::Shape*)")
        );
        assert_eq!(
            demangle("_Z3foov.cold", None).as_deref(),
            Some("foo() [clone .cold]")
        );
    }
}
