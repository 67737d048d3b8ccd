//! `capc`: the capability compiler for Claude Code. Each subcommand parses its flags,
//! calls one library function and maps the outcome to an exit code:
//! 0 clean (warnings allowed), 1 errors found, 2 capc itself could not run.

use crate::args::{Cli, CliCommand};
use crate::commands::check::{check, CheckHow};
use crate::commands::explain::explain;
use crate::commands::graph::graph;
use crate::commands::lock::{lock_all, LockHow};
use crate::commands::ls::{ls, ls_budget, ls_runs};
use crate::commands::man::man;
use crate::commands::rules::{config_command, rules_command};
use crate::commands::serve::serve;
use crate::commands::session::{lock_of, session};
use crate::commands::{exit, resolve_options, resolve_options_and_config};
use crate::output::{shown, write_stdout};
use clap::{CommandFactory, Parser};
use std::io::IsTerminal;
use std::process::ExitCode;

/// `eprintln!` for capc's own notes, hints and summaries: silenced by `-q/--quiet`. Errors
/// use `eprintln!`.
macro_rules! say {
    ($($arg:tt)*) => {
        if !crate::output::quiet() {
            eprintln!($($arg)*);
        }
    };
}

mod alloc;
mod args;
mod commands;
mod compare;
mod diff;
mod output;
mod verify;

fn main() -> ExitCode {
    let cli = Cli::parse();
    alloc::tune(!matches!(cli.command, CliCommand::Serve { .. } | CliCommand::Session { .. }));
    output::QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        CliCommand::Check {
            paths,
            format,
            scopes,
            color,
            list_files,
            shown,
            fix,
            diff,
            reading,
            selection,
            compared,
        } => {
            let how = CheckHow { format, color, list_files, shown, fix, diff, compared };
            check(&paths, &scopes, &reading, &selection, how)
        }
        CliCommand::Lock { paths, check, include_local, allow_empty, connect, trust, scopes, reading, selection } => {
            let how = LockHow { check_only: check, include_local, allow_empty, connect, trust };
            lock_all(&paths, &scopes, &reading, &selection, how)
        }
        CliCommand::Ls { path, format, all, budget, runs, scopes, reading } => {
            match resolve_options_and_config(path, &scopes, &reading) {
                Ok((options, config)) if budget => ls_budget(options, &config, format),
                Ok((options, _)) if runs => ls_runs(options, format),
                Ok((options, _)) => ls(options, format, all),
                Err(code) => code,
            }
        }
        CliCommand::Explain { name, path, scopes, reading } => match resolve_options(path, &scopes, &reading) {
            Ok(options) => explain(options, &name),
            Err(code) => code,
        },
        CliCommand::Graph { path, format, all, scopes, reading } => match resolve_options(path, &scopes, &reading) {
            Ok(options) => graph(options, format, all),
            Err(code) => code,
        },
        CliCommand::Session { path, lock, repl, json, connect, from } => {
            let repl = repl || (!json && std::io::stdin().is_terminal());
            session(lock_of(path, lock), repl, connect, from)
        }
        CliCommand::Serve { path, lock, tree, http, allow_remote, token_env, watch, connect, from } => {
            let limits = capc_runtime::serve::http::Limits::from_env(|name| std::env::var(name).ok());
            let options = capc_runtime::serve::Options { http, allow_remote, token: None, watch, connect, limits };
            serve(path, lock, tree, options, token_env.as_deref(), from)
        }
        CliCommand::Diff { old, new, format, fail_on, scopes } => match scopes.sides() {
            Ok(scopes) => diff::run(&old, &new, format, &fail_on, &scopes),
            Err(code) => code,
        },
        CliCommand::Verify { path, user_dir, connect, trust, installed_only } => {
            verify::run(&path, user_dir, connect.then_some(trust), installed_only)
        }
        CliCommand::Rules { id, config } => match config {
            Some(path) => config_command(&path),
            None => rules_command(id.as_deref()),
        },
        CliCommand::Lsp => match capc_runtime::lsp::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: capc lsp: {}", shown(&e));
                ExitCode::from(2)
            }
        },
        CliCommand::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "capc", &mut out);
            exit(write_stdout(&String::from_utf8_lossy(&out)), 0)
        }
        CliCommand::Man { command } => man(command.as_deref()),
    }
}
