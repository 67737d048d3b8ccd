//! The grammar's integration tests, one binary: the Bash cases measured on Claude Code
//! (`bash_cases`, `bash_variants`), property tests (`bash_properties`, `shell_scan`).

mod bash_cases;
mod bash_properties;
mod bash_variants;
mod shell_scan;
