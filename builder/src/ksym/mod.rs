//! Builds ksym-bin v1 blobs from nm, /proc/kallsyms, System.map text and ELF files.
