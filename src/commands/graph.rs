//! `capc graph`.

use crate::args::GraphFormat;
use crate::commands::{exit, resolution};
use crate::output::{run_check, write_stdout};
use capc_compiler::lock::view;
use capc_compiler::Options;
use std::process::ExitCode;

pub(crate) fn graph(options: Options, format: GraphFormat, all: bool) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = resolution(&checked);
    let text = match format {
        GraphFormat::Dot => view::graph_dot(r, all),
        GraphFormat::Json => view::graph_json(r, all),
    };
    exit(write_stdout(&text), 0)
}
