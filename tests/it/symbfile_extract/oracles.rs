//! llvm-symbolizer and objdump as oracles (filled below).
