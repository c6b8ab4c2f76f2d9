//! ksym-bin v2: what it is measured against. [`kallsyms_oracle`] measures the kernel's own
//! kallsyms tables for a symbol list ([`kallsyms`] checks that oracle).

mod kallsyms;
pub mod kallsyms_oracle;
