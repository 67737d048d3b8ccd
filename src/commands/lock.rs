//! `capc lock PATH…`.

use crate::args::{Reading, Scopes, Selection};
use crate::commands::{exit, say_not_declarations, targets};
use crate::output::{run_check, shown, write_stdout};
use capc_compiler::lock::write;
use capc_compiler::plural::count;
use capc_compiler::target::Target;
use capc_compiler::{printable, report, Checked, Options};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy)]
pub(crate) struct LockHow {
    pub(crate) check_only: bool,
    pub(crate) include_local: bool,
    pub(crate) allow_empty: bool,
}

/// `capc lock PATH…`: each folder (a file stands for the folder it belongs to) is locked on its
/// own; the exit code is the worst of them.
pub(crate) fn lock_all(
    paths: &[PathBuf],
    scopes: &Scopes,
    reading: &Reading,
    selection: &Selection,
    how: LockHow,
) -> ExitCode {
    let targets = match targets(paths) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut worst = 0u8;
    for target in targets {
        let options = match scopes.options(target.root.clone(), reading, selection) {
            Ok(o) => Options { skip_hashes: false, leave_out_local: !how.include_local, ..o },
            Err(code) => return code,
        };
        let code = lock(options, how, &target);
        worst = worst.max(if code == ExitCode::SUCCESS {
            0
        } else if code == ExitCode::from(1) {
            1
        } else {
            2
        });
    }
    ExitCode::from(worst)
}

/// How many blocking errors, and left-out files, `capc lock` lists before `… and N more`.
const LOCK_LISTS: usize = 10;

/// `2 errors, 14 warnings, 6 infos` (the severities found, errors first), `no findings` when
/// there are none.
pub(crate) fn findings(checked: &Checked) -> String {
    use capc_compiler::Severity as S;
    let parts: Vec<String> = [(S::Error, "error"), (S::Warning, "warning"), (S::Info, "info")]
        .into_iter()
        .filter(|(s, _)| checked.count(*s) > 0)
        .map(|(s, noun)| count(checked.count(s), noun))
        .collect();
    if parts.is_empty() {
        "no findings".to_string()
    } else {
        parts.join(", ")
    }
}

pub(crate) fn lock(options: Options, how: LockHow, target: &Target) -> ExitCode {
    let check_only = how.check_only;
    let mut checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Some(files) = &target.files {
        let not_read = checked.not_read(files);
        if !not_read.is_empty() {
            say_not_declarations(target, &not_read);
            return ExitCode::from(2);
        }
    }
    // `capc lock` reports in a few lines, whatever the repository holds: the errors that
    // block it (the first ones, one line each), the files it leaves out, and a count of the
    // rest with the `capc check` that shows them. `capc check` is the report.
    let check_command = format!("capc check {}", printable::escape(&options.root.display().to_string()));
    let blocking: Vec<&capc_compiler::Diagnostic> = checked.blocking_errors().collect();
    if !blocking.is_empty() {
        eprintln!(
            "error: not writing {}: {} in what a session here loads:",
            write::FILE_NAME,
            count(blocking.len(), "error")
        );
        for line in first_lines(&checked, &blocking) {
            eprintln!("{line}");
        }
        eprintln!("help: `{check_command}` shows every finding ({}) with its source and help", findings(&checked));
        return ExitCode::from(1);
    }
    if checked.files_checked == 0 && !check_only && !how.allow_empty {
        eprintln!(
            "error: no Claude Code declarations found in `{}`; not writing an empty {} (`--allow-empty` writes it)",
            printable::escape(&options.root.display().to_string()),
            write::FILE_NAME
        );
        return ExitCode::from(2);
    }
    let left_out: Vec<(String, String)> =
        checked.left_out().into_iter().map(|(p, w)| (p.to_string(), w.to_string())).collect();
    // A plugin the session is asked to load that Claude Code refuses: the lock says so and is
    // written (Claude Code loads the rest), and the run fails, as cargo writes Cargo.lock and
    // still fails a build with errors.
    let refused_asked = std::mem::take(&mut checked.refused_asked);
    for (name, why) in &refused_asked {
        eprintln!(
            "error: plugin `{}` is asked to load but does not: {}",
            printable::escape(name),
            printable::escape(why)
        );
    }
    if !left_out.is_empty() {
        let n = left_out.len();
        say!(
            "note: {} {} errors that do not block the lock: a session here does not load {} (`{check_command}` shows the errors):",
            count(n, "file"),
            if n == 1 { "has" } else { "have" },
            if n == 1 { "it" } else { "them" }
        );
        for (path, why) in left_out.iter().take(LOCK_LISTS) {
            say!("  {}: {}", printable::escape(path), printable::escape(why));
        }
        if n > LOCK_LISTS {
            say!("  … and {} more", count(n - LOCK_LISTS, "file"));
        }
    }
    let anyway: Vec<&capc_compiler::Diagnostic> = checked.loaded_anyway().collect();
    if !anyway.is_empty() {
        say!(
            "note: {} {} not block the lock: Claude Code loads these files as they are (`claude plugin validate` rejects them):",
            count(anyway.len(), "error"),
            if anyway.len() == 1 { "does" } else { "do" }
        );
        for line in first_lines(&checked, &anyway) {
            say!("{line}");
        }
    }
    if !checked.diagnostics.is_empty() {
        let level = if checked.count(capc_compiler::Severity::Warning) > 0 { "warning" } else { "note" };
        say!("{level}: found {}; `{check_command}` shows them", findings(&checked));
    }
    if options.leave_out_local {
        let local: Vec<&str> =
            checked.files.iter().map(|f| f.path.as_str()).filter(|p| write::is_local_settings(p)).collect();
        if !local.is_empty() {
            say!(
                "note: left out of the lock: {} (local settings; `--include-local` adds them)",
                local.iter().map(|p| format!("`{}`", printable::escape(p))).collect::<Vec<_>>().join(", ")
            );
        }
    }
    // What the check built is not freed: the process ends soon after, and leaving it to the
    // operating system spares freeing tens of thousands of small allocations one by one.
    let lock = std::mem::ManuallyDrop::new(checked.take_lock());
    std::mem::forget(checked);
    let notes: Vec<(&str, &str)> = left_out.iter().map(|(p, w)| (p.as_str(), w.as_str())).collect();
    let text = write::encode_leaving_out(&lock, &notes);
    let path = options.root.join(write::FILE_NAME);
    if check_only {
        return match write::freshness(&path, &text) {
            Ok(write::Freshness::Fresh) => {
                say!("{} is up to date", shown(&path.display()));
                if refused_asked.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            }
            Ok(write::Freshness::Stale { diff }) => {
                // The lock on disk may hold anything: no control character reaches the terminal.
                let diff = printable::escape_lines(&diff);
                eprintln!("error: {} is stale; run `capc lock` to update it", shown(&path.display()));
                exit(write_stdout(&diff), 1)
            }
            Ok(write::Freshness::Missing) => {
                eprintln!("error: {} does not exist; run `capc lock` to create it", shown(&path.display()));
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {}", shown(&path.display()), shown(&e));
                ExitCode::from(2)
            }
        };
    }
    match write::write(&path, &text) {
        Ok(written) => {
            let verb = match written {
                write::Written::Unchanged => "unchanged",
                write::Written::Created => "created",
                write::Written::Updated => "updated",
            };
            say!(
                "{} {verb}: {}, {}, {}, {}, {} from {}",
                shown(&path.display()),
                count(lock.commands.len(), "command"),
                count(lock.agents.len(), "agent"),
                count(lock.mcp_servers.len(), "MCP server"),
                count(lock.hooks.len(), "hook"),
                count(lock.permissions.len(), "permission rule"),
                count(lock.sources.len(), "file")
            );
            if refused_asked.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {}", shown(&path.display()), shown(&e));
            ExitCode::from(2)
        }
    }
}

/// The first `LOCK_LISTS` of `errors`, one indented line each (file:line:column), then how many
/// more there are.
fn first_lines(checked: &capc_compiler::Checked, errors: &[&capc_compiler::Diagnostic]) -> Vec<String> {
    let shown = &errors[..errors.len().min(LOCK_LISTS)];
    let mut lines: Vec<String> =
        report::short_lines(checked, shown.iter().copied()).lines().map(|line| format!("  {line}")).collect();
    if errors.len() > shown.len() {
        lines.push(format!("  … and {} more", errors.len() - shown.len()));
    }
    lines
}
