//! Benchmarks: CIF encode and decode throughput (images per second) and compression on a
//! browser-sized image map: 600 libraries with realistic Linux paths (distribution
//! libraries, GTK and GIO modules, DRI drivers, Chrome's bundled libraries, snaps),
//! 20-byte build IDs, ascending bases, synthesised deterministically.
//!
//! The compression ratio (CIF bytes against the naive size: NUL-terminated paths, the
//! build IDs and two 8-byte addresses per image) is printed before the measurements.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use symblob::cif::{
    encode, encode_with_table, encoded_len, DecodeOptions, Decoder, EncodeMode, EncodeOptions,
    Encoder, Header, Image, PrefixEntry, PrefixRef, WordSize,
};

#[path = "../tests/support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

const LIBS: &[&str] = &[
    "glib-2.0",
    "gobject-2.0",
    "gio-2.0",
    "gmodule-2.0",
    "gtk-3",
    "gdk-3",
    "pango-1.0",
    "pangocairo-1.0",
    "cairo",
    "cairo-gobject",
    "harfbuzz",
    "freetype",
    "fontconfig",
    "X11",
    "X11-xcb",
    "xcb",
    "xcb-shm",
    "Xext",
    "Xrender",
    "Xrandr",
    "Xi",
    "Xfixes",
    "Xcomposite",
    "Xdamage",
    "Xau",
    "Xdmcp",
    "dbus-1",
    "nss3",
    "nssutil3",
    "smime3",
    "nspr4",
    "plc4",
    "plds4",
    "atk-1.0",
    "atk-bridge-2.0",
    "atspi",
    "cups",
    "gnutls",
    "drm",
    "gbm",
    "expat",
    "z",
    "png16",
    "jpeg",
    "webp",
    "ffi",
    "pcre2-8",
    "selinux",
    "mount",
    "blkid",
    "udev",
    "systemd",
    "asound",
    "pulse",
    "pulsecommon-16.1",
    "sndfile",
    "FLAC",
    "ogg",
    "vorbis",
    "opus",
    "GLX",
    "GLdispatch",
    "EGL",
    "wayland-client",
    "wayland-cursor",
    "wayland-egl",
    "xkbcommon",
    "epoxy",
    "gcrypt",
    "gpg-error",
    "lz4",
    "lzma",
    "zstd",
    "bz2",
    "brotlidec",
    "brotlicommon",
    "stdc++",
    "gcc_s",
    "m",
    "c",
];

const SNAPS: &[&str] = &[
    "firefox",
    "core22",
    "gnome-42-2204",
    "gtk-common-themes",
    "snapd",
];

/// The browser-sized map: `(path, build ID, base, end of text)`.
fn browser_map() -> Vec<(String, Vec<u8>, u64, u64)> {
    let mut rng = Rng::new(0xb20_5e2);
    let mut paths = Vec::new();
    for lib in LIBS {
        paths.push(format!(
            "/usr/lib/x86_64-linux-gnu/lib{lib}.so.{}",
            rng.below(8)
        ));
    }
    for i in 0..60 {
        let dir = *rng.pick(&[
            "gtk-3.0/modules",
            "gio/modules",
            "gdk-pixbuf-2.0/2.10.0/loaders",
            "dri",
            "pkcs11",
            "gstreamer-1.0",
        ]);
        paths.push(format!(
            "/usr/lib/x86_64-linux-gnu/{dir}/lib{}{i}.so",
            *rng.pick(&[
                "canberra",
                "pixbufloader-",
                "gio",
                "iris_dri",
                "p11-kit",
                "gst"
            ])
        ));
    }
    for name in [
        "chrome",
        "chrome_crashpad_handler",
        "libEGL.so",
        "libGLESv2.so",
        "libvk_swiftshader.so",
        "libvulkan.so.1",
        "libqt5_shim.so",
        "libqt6_shim.so",
    ] {
        paths.push(format!("/opt/google/chrome/{name}"));
    }
    for i in 0..120 {
        paths.push(format!(
            "/opt/google/chrome/WidevineCdm/_platform_specific/linux_x64/lib{i}.so"
        ));
    }
    while paths.len() < 600 {
        let snap = *rng.pick(SNAPS);
        let lib = *rng.pick(LIBS);
        paths.push(format!(
            "/snap/{snap}/{}/usr/lib/x86_64-linux-gnu/lib{lib}.so.{}",
            1000 + rng.below(3000),
            rng.below(4)
        ));
    }
    let mut base = 0x7f3a_1c00_0000u64;
    paths
        .into_iter()
        .map(|p| {
            let id: Vec<u8> = (0..20).map(|_| rng.next_u64() as u8).collect();
            let text = 0x1000 + (rng.below(0x80_0000) & !0xfff);
            let entry = (p, id, base, base + text);
            base += text + 0x1000 + (rng.below(0x100_0000) & !0xfff);
            entry
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let owned = browser_map();
    let images: Vec<Image<'_>> = owned
        .iter()
        .map(|(p, id, base, end)| Image::new(p, *base, *end).with_build_id(id))
        .collect();
    let header = Header::new(WordSize::Bits64, "Linux (Debian GNU/Linux 12 (bookworm))");
    let naive: usize = owned
        .iter()
        .map(|(p, id, ..)| p.len() + 1 + id.len() + 16)
        .sum();
    let path_bytes: usize = owned.iter().map(|(p, ..)| p.len() + 1).sum();
    let mut table = vec![PrefixEntry::EMPTY; path_bytes];
    let mut out = vec![0u8; 1 << 20];
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        let n = encode_with_table(
            &header,
            &images,
            &mut out,
            EncodeOptions::new(mode),
            &mut table,
        )
        .unwrap();
        println!(
            "cif {mode:?}: {} images, {naive} naive bytes -> {n} CIF bytes (ratio {:.2}; paths {path_bytes} bytes)",
            images.len(),
            naive as f64 / n as f64
        );
    }
    // Paths and addresses only: how well the prefix scheme compresses the paths.
    let bare: Vec<Image<'_>> = images
        .iter()
        .map(|i| Image {
            build_id: None,
            ..*i
        })
        .collect();
    let bare_len = encode_with_table(
        &header,
        &bare,
        &mut out,
        EncodeOptions::default(),
        &mut table,
    )
    .unwrap();
    println!(
        "cif without build IDs: {} naive bytes -> {bare_len} CIF bytes (ratio {:.2})",
        path_bytes + 16 * images.len(),
        (path_bytes + 16 * images.len()) as f64 / bare_len as f64
    );
    for cap in [16usize, 128, 512] {
        let n = encode_with_table(
            &header,
            &images,
            &mut out,
            EncodeOptions::default(),
            &mut table[..cap],
        )
        .unwrap();
        println!("cif canonical, prefix table of {cap}: {n} bytes");
    }
    let len = encode_with_table(
        &header,
        &images,
        &mut out,
        EncodeOptions::default(),
        &mut table,
    )
    .unwrap();
    let stream = out[..len].to_vec();

    let mut group = c.benchmark_group("cif");
    group.throughput(Throughput::Elements(images.len() as u64));
    group.bench_function("encode_default_capacity_512", |b| {
        b.iter(|| {
            encode(
                &header,
                black_box(&images),
                &mut out,
                EncodeOptions::default(),
            )
            .unwrap()
        })
    });
    group.bench_function("encode_swift_unbounded_table", |b| {
        b.iter(|| {
            encode_with_table(
                &header,
                black_box(&images),
                &mut out,
                EncodeOptions::new(EncodeMode::Swift),
                &mut table,
            )
            .unwrap()
        })
    });
    let mut small = Encoder::<64>::new();
    group.bench_function("encode_capacity_64", |b| {
        b.iter(|| {
            small
                .encode(
                    &header,
                    black_box(&images),
                    &mut out,
                    EncodeOptions::default(),
                )
                .unwrap()
        })
    });
    group.bench_function("encoded_len", |b| {
        b.iter(|| encoded_len(&header, black_box(&images), EncodeOptions::default()).unwrap())
    });
    let mut refs = vec![PrefixRef::EMPTY; stream.len()];
    let mut path = [0u8; 4096];
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut d =
                Decoder::new(black_box(&stream), DecodeOptions::default(), &mut refs).unwrap();
            let mut total = 0usize;
            while let Some(img) = d.next_image(&mut path).unwrap() {
                total += img.path.unwrap().map_or(0, str::len);
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
