//! Finding call instructions (spec §6 step 2): x86-64 through iced-x86, aarch64 by
//! instruction masks.

use iced_x86::{Decoder, DecoderError, DecoderOptions, Mnemonic};

/// The instruction sets return pads can be made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// x86-64.
    X86_64,
    /// AArch64, little-endian.
    Aarch64,
}

/// A call (or system call) instruction: its address and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// Address of the instruction.
    pub va: u64,
    /// Its length in bytes.
    pub len: u64,
}

/// Decodes `code` (at `va`) linearly and lists its calls. Decoding stops at the first
/// undecodable or truncated instruction; the calls before it are kept (symblib abandons
/// the rest of the range the same way).
pub fn calls(arch: Arch, va: u64, code: &[u8]) -> Vec<Call> {
    match arch {
        Arch::X86_64 => x86_calls(va, code),
        Arch::Aarch64 => aarch64_calls(va, code),
    }
}

/// The length of the first instruction of `code`, `None` if it does not decode.
pub fn first_len(arch: Arch, va: u64, code: &[u8]) -> Option<u64> {
    match arch {
        Arch::X86_64 => {
            let mut d = Decoder::with_ip(64, code, va, DecoderOptions::NONE);
            let i = d.decode();
            (!i.is_invalid()).then_some(i.len() as u64)
        }
        Arch::Aarch64 => (code.len() >= 4).then_some(4),
    }
}

fn x86_calls(va: u64, code: &[u8]) -> Vec<Call> {
    let mut out = Vec::new();
    let mut d = Decoder::with_ip(64, code, va, DecoderOptions::NONE);
    while d.can_decode() {
        let i = d.decode();
        if i.is_invalid() || d.last_error() != DecoderError::None {
            break;
        }
        // `INT3` and `INT1` are other mnemonics: only `INT imm8` counts, as in symblib.
        if matches!(
            i.mnemonic(),
            Mnemonic::Call | Mnemonic::Syscall | Mnemonic::Int | Mnemonic::Into
        ) {
            out.push(Call {
                va: i.ip(),
                len: i.len() as u64,
            });
        }
    }
    out
}

/// `BL`, `BLR` and `SVC` (pointer-authenticated calls are not recognised, as in symblib).
fn aarch64_calls(va: u64, code: &[u8]) -> Vec<Call> {
    let mut out = Vec::new();
    for (k, w) in code.chunks_exact(4).enumerate() {
        let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let is_bl = w & 0xfc00_0000 == 0x9400_0000;
        let is_blr = w & 0xffff_fc1f == 0xd63f_0000;
        let is_svc = w & 0xffe0_001f == 0xd400_0001;
        if is_bl || is_blr || is_svc {
            out.push(Call {
                va: va + 4 * k as u64,
                len: 4,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_calls_and_not_int3() {
        // int3; nop; call rel32; int 0x80; syscall; into is invalid in 64-bit mode.
        let code = b"\xcc\x90\xe8\x11\x22\x33\x44\xcd\x80\x0f\x05\xce";
        let c = calls(Arch::X86_64, 0x10, code);
        assert_eq!(
            c,
            vec![
                Call { va: 0x12, len: 5 },
                Call { va: 0x17, len: 2 },
                Call { va: 0x19, len: 2 }
            ]
        );
        // Truncated call: nothing after the nop.
        assert!(calls(Arch::X86_64, 0, b"\x90\xe8\x00").is_empty());
    }

    #[test]
    fn aarch64_masks() {
        // blr x0; bl +0x1234; b +0x1234; nop; svc #0
        let code =
            b"\x00\x00\x3f\xd6\x8d\x04\x00\x94\x8d\x04\x00\x14\x1f\x20\x03\xd5\x01\x00\x00\xd4";
        let c = calls(Arch::Aarch64, 0x100, code);
        let at: Vec<u64> = c.iter().map(|c| c.va).collect();
        assert_eq!(at, vec![0x100, 0x104, 0x110]);
    }
}
