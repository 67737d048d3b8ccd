//! One file per subcommand: each takes its parsed flags, calls the library and maps the
//! outcome to an exit code. What several share is here.

use crate::args::{Color, ReadingFlags, Scopes, Selection};
use crate::output::shown;
use capc_compiler::target::TargetFolder;
use capc_compiler::{printable, Checked, Options};
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) mod check;
pub(crate) mod explain;
pub(crate) mod graph;
pub(crate) mod lock;
pub(crate) mod ls;
pub(crate) mod man;
pub(crate) mod rules;
pub(crate) mod serve;
pub(crate) mod session;

/// Options for `ls`, `explain` and `graph`: the folder PATH is (or belongs to, for a file),
/// read as `capc check` reads it.
pub(crate) fn resolve_options(path: PathBuf, scopes: &Scopes, reading: &ReadingFlags) -> Result<Options, ExitCode> {
    resolve_options_and_config(path, scopes, reading).map(|(options, _)| options)
}

/// [`resolve_options`] and the configuration they come from.
pub(crate) fn resolve_options_and_config(
    path: PathBuf,
    scopes: &Scopes,
    reading: &ReadingFlags,
) -> Result<(Options, capc_compiler::config::Config), ExitCode> {
    let root = match capc_compiler::target::targets(std::slice::from_ref(&path)) {
        Ok(mut targets) if targets.len() == 1 => targets.remove(0).root,
        Ok(_) => path,
        Err(e) => {
            eprintln!("error: {}", shown(&e));
            return Err(ExitCode::from(2));
        }
    };
    scopes.options_and_config(root, reading, &Selection::default())
}

/// The folders PATH… stand for, or why not (exit 2).
pub(crate) fn targets(paths: &[PathBuf]) -> Result<Vec<TargetFolder>, ExitCode> {
    capc_compiler::target::targets(paths).map_err(|e| {
        eprintln!("error: {}", shown(&e));
        ExitCode::from(2)
    })
}

pub(crate) fn use_color(color: Color, terminal: bool) -> bool {
    match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => terminal && std::env::var_os("NO_COLOR").is_none(),
    }
}

pub(crate) fn exit(result: std::io::Result<()>, code: u8) -> ExitCode {
    if result.is_err() {
        ExitCode::from(2)
    } else {
        ExitCode::from(code)
    }
}

/// `capc check FILE` and `capc lock FILE` on files that are no declaration where they are:
/// says so (a lock would otherwise stand for the file's whole folder, and a check would pass
/// a file it never read). The caller exits with code 2.
pub(crate) fn say_not_declarations(target: &TargetFolder, not_read: &[&str]) {
    for path in not_read {
        eprintln!(
            "error: `{}` is not a Claude Code declaration: Claude Code reads no file of this kind at this place",
            printable::escape(&shown_path(target, path))
        );
    }
    eprintln!(
        "help: give skills (`SKILL.md`), commands and agents (`.md` under `commands/` or `agents/`), `.mcp.json`, \
         `settings.json`, `hooks.json`, `plugin.json` or `marketplace.json`, or a folder to check all it declares"
    );
}

pub(crate) fn resolution(checked: &Checked) -> &capc_compiler::lock::resolve::Resolution {
    // `check` always resolves; this is set whenever a check returned.
    checked.resolution.as_ref().unwrap_or_else(|| unreachable!("check() resolves"))
}

/// A path of a target as the report shows it.
pub(crate) fn shown_path(target: &TargetFolder, path: &str) -> String {
    capc_compiler::check::path_under(&target.shown, path)
}
