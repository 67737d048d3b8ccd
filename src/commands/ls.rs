//! `capc ls`, `capc ls --budget` and `capc ls --runs`.

use crate::args::Format;
use crate::commands::{exit, resolution};
use crate::output::plugin_dirs_shown;
use crate::output::{run_check, write_stdout};
use capc_compiler::lock::view;
use capc_compiler::surface::Recorded;
use capc_compiler::Options;
use capc_runtime::{budget, cost};
use std::process::ExitCode;

pub(crate) fn ls(options: Options, format: Format, all: bool) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = resolution(&checked);
    let text = match format {
        Format::Json => view::ls_json(r),
        Format::Human => plugin_dirs_shown(
            &options.plugin_dirs,
            view::ls_text(r, all) + &view::instructions_text(&checked.instructions),
        ),
    };
    exit(write_stdout(&text), 0)
}

/// `capc ls --budget`: the Skill listing for each context window the configuration names,
/// then the MCP tool surface the folder's lock recorded and what a turn reads up front.
pub(crate) fn ls_budget(options: Options, config: &capc_compiler::config::Config, format: Format) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let measured = budget::measure_each(&checked, &options, &config.context_windows.value);
    let recorded = Recorded::read(&options.root.join(capc_compiler::lock::write::FILE_NAME));
    let (surface, totals) = cost::measure(&checked, &options, &recorded, &measured);
    let max = config.max_context_tokens.value;
    let text = match format {
        Format::Json => {
            let mut keys = cost::to_json(&surface, &measured, &totals, max);
            keys.insert("instructions".to_string(), cost::instructions_json(&checked));
            budget::to_json(&measured, keys)
        }
        Format::Human => plugin_dirs_shown(
            &options.plugin_dirs,
            budget::to_text(&measured)
                + &cost::to_text(&surface, &measured, &totals, max)
                + &view::instructions_text(&checked.instructions),
        ),
    };
    exit(write_stdout(&text), 0)
}

/// `capc ls --runs`: what Claude Code may run from the declarations (the lock's `[[run]]`).
pub(crate) fn ls_runs(options: Options, format: Format) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let lock = checked.shared_lock();
    let text = match format {
        Format::Json => view::runs_json(&lock.runs),
        Format::Human => plugin_dirs_shown(&options.plugin_dirs, view::runs_text(&lock.runs)),
    };
    exit(write_stdout(&text), 0)
}
