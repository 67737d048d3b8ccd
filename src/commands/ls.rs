//! `capc ls` and `capc ls --budget`.

use crate::args::Format;
use crate::commands::{exit, resolution};
use crate::output::{run_check, write_stdout};
use capc_compiler::lock::view;
use capc_compiler::Options;
use capc_runtime::budget;
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

/// `capc ls --budget`: the Skill listing for each context window the configuration names.
pub(crate) fn ls_budget(options: Options, config: &capc_compiler::config::Config, format: Format) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let measured = budget::measure_each(&checked, &options, &config.context_windows.value);
    let text = match format {
        Format::Json => budget::to_json(&measured),
        Format::Human => budget::to_text(&measured),
    };
    exit(write_stdout(&text), 0)
}
