//! `capc lock PATH…`.

use crate::args::{ReadingFlags, Scopes, Selection};
use crate::commands::{exit, say_not_declarations, targets};
use crate::output::{run_check, shown, write_stdout};
use capc_compiler::lock::write;
use capc_compiler::plan;
use capc_compiler::plural::count;
use capc_compiler::target::TargetFolder;
use capc_compiler::{printable, Options};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy)]
pub(crate) struct LockHow {
    pub(crate) check_only: bool,
    pub(crate) include_local: bool,
    pub(crate) allow_empty: bool,
    /// List the MCP servers live into `[[mcp_tool]]` (`--connect`).
    pub(crate) connect: bool,
    pub(crate) trust: bool,
}

/// `capc lock PATH…`: each folder (a file stands for the folder it belongs to) is locked on its
/// own; the exit code is the worst of them.
pub(crate) fn lock_all(
    paths: &[PathBuf],
    scopes: &Scopes,
    reading: &ReadingFlags,
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
            Ok(o) => {
                // Local files git does not track stay out; outside a repository none does.
                let (leave_out_local, local_kept) = match how.include_local {
                    true => (false, Vec::new()),
                    false => capc_compiler::diff::revision::local_files_kept(&target.root),
                };
                // It writes the lock alone: no table, tools or graph kept.
                let keeps = capc_compiler::check::Keeps::Lock;
                Options { skip_hashes: false, leave_out_local, local_kept, keeps, ..o }
            }
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

/// `capc lock` for one folder: [`plan::plan`] decides, this prints.
pub(crate) fn lock(options: Options, how: LockHow, target: &TargetFolder) -> ExitCode {
    let path = options.root.join(write::FILE_NAME);
    if how.connect && !trusted(&options, how.trust) {
        eprintln!(
            "error: `capc lock --connect` starts the folder's own MCP servers, and `{}` is not trusted: pass --trust, or accept the folder in Claude Code",
            printable::escape(&options.root.display().to_string())
        );
        return ExitCode::from(2);
    }
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
    let check_command = format!("capc check {}", printable::escape(&options.root.display().to_string()));
    let policy = plan::Choices { write_empty: how.check_only || how.allow_empty, leave_out_local: !how.include_local };
    let mut surface = Surface::default();
    let planned = plan::plan_with(&mut checked, policy, |lock| surface.record(lock, how.connect, &path));
    let lockable = match planned {
        plan::Plan::Blocked { errors, findings } => return say_blocked(&errors, &findings, &check_command),
        plan::Plan::Empty => return say_empty(&options),
        // What the check built is not freed: the process ends soon after, and leaving it to
        // the operating system spares freeing tens of thousands of small allocations one by one.
        plan::Plan::Lock(lockable) => std::mem::ManuallyDrop::new(lockable),
    };
    std::mem::forget(checked);
    if let Err(code) = surface.say() {
        return code;
    }
    say_notes(&lockable, &check_command);
    let failed = if surface.name_errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    if how.check_only {
        return say_freshness(&path, &lockable, failed);
    }
    match lockable.write(&path) {
        Ok(written) => {
            say_written(&path, written, &lockable.lock, how.connect);
            failed
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {}", shown(&path.display()), shown(&e));
            ExitCode::from(2)
        }
    }
}

/// The MCP tool surface of the lock, as `capc lock` records it, and what went wrong on the way.
#[derive(Default)]
struct Surface {
    /// Tool names Claude Code would refuse, one line each.
    name_errors: Vec<String>,
    /// The servers that did not connect, with why.
    failed: Vec<(String, String)>,
    connect_error: Option<std::io::Error>,
}

impl Surface {
    /// Fills in the lock's surface: listed live with `connect`, otherwise the one recorded
    /// before in the lock at `path`, for the servers still declared (a lock that does not read
    /// has none to keep).
    fn record(&mut self, lock: &mut capc_compiler::model::Lock, connect: bool, path: &std::path::Path) {
        if connect {
            let settings = capc_runtime::connect::Settings::from_env(|name| std::env::var(name).ok());
            match capc_runtime::connect::surface::list(lock, true, settings) {
                Ok(listed) => {
                    lock.mcp_tools = listed.tools;
                    lock.mcp_failed = listed.failed;
                    self.failed = listed.reasons;
                }
                Err(e) => self.connect_error = Some(e),
            }
        } else {
            capc_compiler::surface::keep(lock, &capc_compiler::surface::Recorded::read(path));
        }
        self.name_errors = capc_compiler::surface::name_errors(&lock.mcp_tools);
    }

    /// Says what went wrong: the connections that could not start (the run stops), the servers
    /// that did not connect, the tool names in error.
    fn say(&self) -> Result<(), ExitCode> {
        if let Some(e) = &self.connect_error {
            eprintln!("error: cannot start the MCP connections: {}", shown(e));
            return Err(ExitCode::from(2));
        }
        for (server, why) in &self.failed {
            eprintln!(
                "warning: MCP server `{}` did not connect; recorded as failed in [[mcp_failed]]: {}",
                printable::escape(server),
                printable::escape_lines(why)
            );
        }
        for line in &self.name_errors {
            eprintln!("error: {line}");
        }
        Ok(())
    }
}

/// Says that errors in what a session loads block the lock, and which; exit code 1.
fn say_blocked(errors: &plan::Listed<String>, findings: &str, check_command: &str) -> ExitCode {
    eprintln!(
        "error: not writing {}: {} in what a session here loads:",
        write::FILE_NAME,
        count(errors.len(), "error")
    );
    for line in indented(errors) {
        eprintln!("{line}");
    }
    eprintln!("help: `{check_command}` shows every finding ({findings}) with its source and help");
    ExitCode::from(1)
}

/// Says that the folder declares nothing, so no empty lock is written; exit code 2.
fn say_empty(options: &Options) -> ExitCode {
    eprintln!(
        "error: no Claude Code declarations found in `{}`; not writing an empty {} (`--allow-empty` writes it)",
        printable::escape(&options.root.display().to_string()),
        write::FILE_NAME
    );
    ExitCode::from(2)
}

/// The notes beside a lock: plugins asked for that Claude Code skips, files left out for their
/// errors, errors Claude Code loads past, the other findings, local settings left out.
fn say_notes(lockable: &plan::Lockable, check_command: &str) {
    // A plugin asked for that Claude Code skips is no reason to fail: Claude Code runs the
    // session without it, and the lock says so (`loaded = false` and why).
    for (name, why) in &lockable.refused_asked {
        say!(
            "note: plugin `{}` is asked to load but Claude Code skips it, and the lock records it as not loaded: {}",
            printable::escape(name),
            printable::escape(why)
        );
    }
    let left_out = &lockable.left_out;
    if !left_out.is_empty() {
        let n = left_out.len();
        say!(
            "note: {} {} errors that do not block the lock: a session here does not load {} (`{check_command}` shows the errors):",
            count(n, "file"),
            if n == 1 { "has" } else { "have" },
            if n == 1 { "it" } else { "them" }
        );
        for (path, why) in &left_out.shown {
            say!("  {}: {}", printable::escape(path), printable::escape(why));
        }
        if left_out.more > 0 {
            say!("  … and {} more", count(left_out.more, "file"));
        }
    }
    let anyway = &lockable.loaded_anyway;
    if !anyway.is_empty() {
        say!(
            "note: {} {} not block the lock: Claude Code loads what it can of these files, as the lock records (`claude plugin validate` rejects them):",
            count(anyway.len(), "error"),
            if anyway.len() == 1 { "does" } else { "do" }
        );
        for line in indented(anyway) {
            say!("{line}");
        }
    }
    if let Some((findings, warned)) = &lockable.findings {
        let level = if *warned { "warning" } else { "note" };
        say!("{level}: found {findings}; `{check_command}` shows them");
    }
    if !lockable.local_left_out.is_empty() {
        say!(
            "note: left out of the lock: {} (local settings; `--include-local` adds them)",
            lockable
                .local_left_out
                .iter()
                .map(|p| format!("`{}`", printable::escape(p)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// `capc lock --check`: whether the lock at `path` is the one this would write; `failed` is
/// the exit code when it is.
fn say_freshness(path: &std::path::Path, lockable: &plan::Lockable, failed: ExitCode) -> ExitCode {
    match lockable.freshness(path) {
        Ok(write::Freshness::Fresh) => {
            say!("{} is up to date", shown(&path.display()));
            failed
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
    }
}

/// The summary of a written lock: what it holds, and with `connect` its MCP tool surface.
fn say_written(path: &std::path::Path, written: write::Written, lock: &capc_compiler::model::Lock, connect: bool) {
    let verb = match written {
        write::Written::Unchanged => "unchanged",
        write::Written::Created => "created",
        write::Written::Updated => "updated",
    };
    // Instruction files are named only where there are some, so other summaries stay as they were.
    let instructions = match lock.instructions.len() {
        0 => String::new(),
        n => format!(", {}", count(n, "instruction file")),
    };
    say!(
        "{} {verb}: {}, {}, {}, {}, {}{instructions} from {}",
        shown(&path.display()),
        count(lock.commands.len(), "command"),
        count(lock.agents.len(), "agent"),
        count(lock.mcp_servers.len(), "MCP server"),
        count(lock.hooks.len(), "hook"),
        count(lock.permissions.len(), "permission rule"),
        count(lock.sources.len(), "file")
    );
    if connect {
        say!(
            "MCP tool surface: {} from {}{}",
            count(lock.mcp_tools.len(), "tool"),
            count(lock.mcp_tools.iter().map(|t| &t.server).collect::<std::collections::BTreeSet<_>>().len(), "server"),
            match lock.mcp_failed.len() {
                0 => String::new(),
                n => format!(", {} failed", count(n, "server")),
            }
        );
    }
}

/// A list of `path:line:col: …` lines, indented, then how many more there are.
fn indented(lines: &plan::Listed<String>) -> Vec<String> {
    let mut out: Vec<String> = lines.shown.iter().map(|line| format!("  {line}")).collect();
    if lines.more > 0 {
        out.push(format!("  … and {} more", lines.more));
    }
    out
}

/// Whether the folder is trusted, as `capc session` decides: `--trust`, or the user's own
/// `.claude.json` (in `--user-dir`) accepted it or a parent folder.
fn trusted(options: &Options, trust: bool) -> bool {
    let root = std::path::absolute(&options.root).unwrap_or_else(|_| options.root.clone());
    let roots = capc_runtime::loaded::Roots {
        root,
        user_dir: options.user_dir.clone(),
        managed_dir: options.managed_dir.clone(),
        add_dirs: options.add_dirs.clone(),
        plugin_dirs: options.plugin_dirs.clone(),
        add_dir_instructions: options.add_dir_instructions,
    };
    trust || roots.user_trusts()
}
