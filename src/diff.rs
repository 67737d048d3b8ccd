//! `capc diff OLD NEW`: reads both sides (lock files, folders or git revisions), compares
//! them and prints the report; exits 1 when `--fail-on` names a class of change found.

use capc_compiler::diff::{self, render, revision, Class, FailOn};
use capc_compiler::printable::escape;
use clap::ValueEnum;
use std::path::Path;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum DiffFormat {
    Human,
    Json,
    Markdown,
}

/// What `--fail-on` accepts.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum FailOnArg {
    Added,
    Removed,
    Changed,
    Rerouted,
    Escalation,
    Any,
}

impl FailOnArg {
    fn to_fail_on(self) -> FailOn {
        match self {
            FailOnArg::Added => FailOn::Class(Class::Added),
            FailOnArg::Removed => FailOn::Class(Class::Removed),
            FailOnArg::Changed => FailOn::Class(Class::Changed),
            FailOnArg::Rerouted => FailOn::Class(Class::Rerouted),
            FailOnArg::Escalation => FailOn::Escalation,
            FailOnArg::Any => FailOn::Any,
        }
    }
}

pub(crate) fn run(
    old: &str,
    new: &str,
    format: DiffFormat,
    fail_on: &[FailOnArg],
    scopes: &revision::Scopes,
) -> ExitCode {
    // Revisions are read at the place in the repository of the folder being compared.
    let folder = [new, old].into_iter().map(Path::new).find(|p| p.is_dir()).unwrap_or(Path::new("."));
    let sides = revision::load(old, folder, scopes).and_then(|o| Ok((o, revision::load(new, folder, scopes)?)));
    let (old, new) = match sides {
        Ok(sides) => sides,
        Err(e) => {
            // A revision's error may quote its files' names, which its author chose.
            eprintln!("error: {}", escape(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    for side in [&old.side, &new.side].into_iter().filter(|s| s.errors > 0) {
        say!(
            "warning: {} has {} (`capc check` shows them); the diff shows what resolves",
            escape(&side.arg),
            capc_compiler::plural::count(side.errors, "error")
        );
    }
    let report = diff::diff_loaded(old, new);
    let text = match format {
        // A `--plugin-dir` folder as a terminal opens it; JSON and Markdown keep the lock's name.
        DiffFormat::Human => crate::output::plugin_dirs_shown(&scopes.plugin_dirs, render::to_text(&report)),
        DiffFormat::Json => render::to_json(&report),
        DiffFormat::Markdown => render::to_markdown(&report),
    };
    if crate::output::write_stdout(&text).is_err() {
        return ExitCode::from(2);
    }
    let fail_on: Vec<FailOn> = fail_on.iter().map(|f| f.to_fail_on()).collect();
    if report.fails(&fail_on) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
