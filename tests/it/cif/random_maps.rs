//! Seeded random image maps that stress every part of the encoder.

use super::support::OwnedImage;

pub use crate::common::splitmix::Rng;

impl Rng {
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

fn word(rng: &mut Rng, alphabet: &[u8], min: u64, max: u64) -> String {
    let len = min + rng.below(max - min + 1);
    (0..len).map(|_| *rng.pick(alphabet) as char).collect()
}

/// A random path of one of many shapes (or none).
pub fn random_path(rng: &mut Rng, unique: &mut u64) -> Option<String> {
    const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789_-.+";
    const UPPER: &[u8] = b"ABCDEFGHIKLMNOPQRSTUVWXYZKit";
    let name = word(rng, LOWER, 1, 14);
    let path = match rng.below(16) {
        0 => return None,
        1 => String::new(),
        2 => {
            // Framework names past 64 bytes must not use the framewk opcode.
            let fw = word(rng, UPPER, 1, 70);
            let root = rng.pick(&[
                "/System/Library/Frameworks",
                "/System/Library/PrivateFrameworks",
                "/Library/Frameworks",
                "/opt/Frameworks",
            ]);
            let version = rng.pick(&["A", "B", "C", "1"]);
            format!("{root}/{fw}.framework/Versions/{version}/{fw}")
        }
        3 => format!(
            "C:\\{}\\{}\\{}.dll",
            rng.pick(&[
                "Program Files",
                "Windows\\System32",
                "Program Files (x86)",
                "Users\\u"
            ]),
            word(rng, UPPER, 1, 8),
            name
        ),
        4 => {
            // A fresh directory: guarantees new dynamic prefixes (hundreds per map).
            *unique += 1;
            format!("/d{}/{}/{}", *unique, word(rng, LOWER, 1, 4), name)
        }
        5 => {
            // Deep and long: several str chunks, many prefixes.
            let depth = rng.below(30);
            let mut p = String::from(*rng.pick(&["/usr/lib", "/home/u", "/nix/store/abc"]));
            for _ in 0..depth {
                p.push('/');
                p += *rng.pick(&["x", "yy", "é", "z\\w", "lib", "ünï", "deep"]);
            }
            p
        }
        6 => format!("/lib{name}"),
        7 => format!(
            "/snap/{}/{}/usr/lib/{name}.so",
            word(rng, LOWER, 2, 6),
            rng.below(40)
        ),
        _ => {
            let dir = rng.pick(&[
                "/usr/lib",
                "/lib",
                "/usr/local/lib",
                "/opt/lib",
                "/usr/lib/x86_64-linux-gnu",
                "/usr/lib/x86_64-linux-gnu/gtk-3.0/modules",
                "/opt/google/chrome",
                "/System/iOSSupport/usr/lib",
                "/Applications/App.app/Contents/MacOS",
                "/home/u/app",
            ]);
            let sub = rng.pick(&["", "sub/", "deep/er/", "swift/linux/", "x/"]);
            format!("{dir}/{sub}{name}")
        }
    };
    Some(path)
}

/// A random map of `count` images for `bits`-bit addresses.
pub fn random_map(rng: &mut Rng, bits: u32, count: usize) -> Vec<OwnedImage> {
    let top: u64 = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let span_bits: &[u32] = match bits {
        16 => &[4, 6, 8],
        32 => &[4, 12, 20],
        _ => &[4, 12, 20, 28, 36],
    };
    let mut addr = rng.below(top >> 4);
    let mut unique = 0u64;
    let mut images = Vec::with_capacity(count);
    for _ in 0..count {
        let shift = *rng.pick(span_bits);
        let span = 1 + rng.below(1u64 << shift);
        if addr >= top - span || rng.chance(8) {
            addr = rng.below(top / 2);
        }
        let base = addr;
        let end = base + span;
        let build_id = match rng.below(6) {
            0 => None,
            1 => Some(Vec::new()),
            2 => {
                let n = *rng.pick(&[64, 100, 127, 128, 1024]);
                Some(rng.bytes(n))
            }
            _ => {
                let n = *rng.pick(&[4, 8, 16, 20]);
                Some(rng.bytes(n))
            }
        };
        let path = random_path(rng, &mut unique);
        let name = if rng.chance(5) {
            Some(word(rng, b"ABCKit", 0, 6))
        } else {
            None
        };
        images.push(OwnedImage {
            path,
            name,
            build_id,
            base,
            end_of_text: end,
        });
        let gap = *rng.pick(span_bits);
        addr = end.saturating_add(rng.below(1u64 << gap));
    }
    images
}
