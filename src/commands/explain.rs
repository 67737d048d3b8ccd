//! `capc explain NAME`.

use crate::commands::{exit, resolution};
use crate::output::plugin_dirs_shown;
use crate::output::{run_check, write_stdout};
use capc_compiler::lock::view;
use capc_compiler::{printable, Options};
use std::process::ExitCode;

pub(crate) fn explain(options: Options, name: &str) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // An instruction file, by its path: whether, when and through which imports it is sent.
    if let Some(text) = view::explain_instruction(&checked.instructions, name) {
        return exit(write_stdout(&text), 0);
    }
    if let Some(d) = checked.diagnostics.iter().find(|d| d.path == name && d.rule == "unread-agents-md") {
        return exit(write_stdout(&format!("{name}: not read: {}\n", printable::escape(&d.message))), 0);
    }
    let r = resolution(&checked);
    match view::explain(r, name) {
        Some(text) => exit(write_stdout(&plugin_dirs_shown(&options.plugin_dirs, text)), 0),
        None => {
            let bare = name.trim_start_matches('/');
            let names = view::names(r);
            match capc_compiler::diagnostic::did_you_mean(bare, names.iter().map(String::as_str)) {
                Some(s) => eprintln!(
                    "error: nothing here is named `{}`; did you mean `{}`?",
                    printable::escape(bare),
                    printable::escape(s)
                ),
                None => {
                    eprintln!("error: nothing here is named `{}`; `capc ls` lists every name", printable::escape(bare))
                }
            }
            ExitCode::from(1)
        }
    }
}
