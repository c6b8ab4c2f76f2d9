//! ksym builder on arbitrary text: the nm / System.map and /proc/kallsyms parsers, with
//! and without demangling. An error is fine; when a parser accepts the text, the built
//! blob must parse, validate and find every symbol by name.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::ksym::KsymBlob;
use symblob_build::ksym::{build, BuildOptions, Demangle, InputOptions, SymbolList, TypeFilter};
use symblob_build::text::{detect_format, parse_input, parse_kallsyms, parse_nm};

fn check(list: symblob_build::Result<SymbolList>) {
    let Ok(list) = list else {
        return;
    };
    let Ok(built) = build(&list.symbols, &BuildOptions::default()) else {
        return;
    };
    let blob = KsymBlob::parse(&built.bytes).expect("a built blob parses");
    blob.validate().expect("a built blob validates");
    for sym in list.symbols.iter().take(64) {
        let lowest = blob
            .lookup_name(&sym.name)
            .expect("every symbol is found by name");
        assert!(lowest <= sym.address);
    }
}

fuzz_target!(|data: &[u8]| {
    let plain = InputOptions::default();
    let all_types = InputOptions {
        types: TypeFilter::new("TtWwDdBbRrAaUuVvNn"),
        demangle: Demangle::Rust,
    };
    for options in [&plain, &all_types] {
        check(parse_nm(data, "input.map", options));
        check(parse_kallsyms(data, "kallsyms", options));
    }
    // Format detection routes ELF-looking input to the ELF reader.
    let _ = parse_input(data, detect_format(data), "input", &plain);
});
