//! `capc ls`.

use crate::args::Format;
use crate::commands::{exit, resolution};
use crate::output::{run_check, write_stdout};
use capc_compiler::lock::view;
use capc_compiler::Options;
use std::process::ExitCode;

pub(crate) fn ls(options: Options, format: Format, all: bool) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = resolution(&checked);
    let text = match format {
        Format::Json => view::ls_json(r),
        Format::Human => view::ls_text(r, all),
    };
    exit(write_stdout(&text), 0)
}
