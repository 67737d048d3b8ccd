//! `!` shell injections in skill and command bodies, decided and run as Claude Code does
//! (the measurements in `grammar/tests/data/bash-2.1.332.json`).
//!
//! Every injection of a body (```` ```! ```` blocks and `` !`…` `` inline, the inline form ending
//! at its first backquote) is decided by [`capc_grammar::decide_bash`] with the session's rules
//! and the skill's `allowed-tools` as allow rules, in the turn's permission mode. One that is not
//! allowed aborts the whole expansion: `Shell command permission check failed for pattern "<raw>":
//! <message>`. capc decides every injection before it runs any, so then nothing has run (Claude
//! Code starts them concurrently, so an allowed sibling may already have run there).
//!
//! The allowed ones run concurrently, each as `bash -c` with stderr merged into stdout, in the
//! project folder, in a process group of its own. A command that exits non-zero aborts too
//! (`Shell command failed for pattern "<raw>": [stderr]\n<output>`), except exit 1 from `grep`,
//! `rg`, `diff`, `cmp` and `test`, which mean "no match" or "different". When a command ends, or
//! after [`TIMEOUT`], or when the session is stopped by a signal ([`end_all`], called from the
//! signal handler in `connect/live.rs`), its whole process group is killed, so nothing it started in
//! the background outlives it. Output is cut after [`MAX_OUTPUT_CHARS`] characters (Claude Code's
//! Bash output limit, `BASH_MAX_OUTPUT_LENGTH`) with a notice; empty output reads
//! `(Bash completed with no output)`, as in Claude Code.

use capc_grammar::{
    analyse_shell, decide_bash, BashContext, CommandContext, LinkResolver, PermissionMode, ShellCommand, SourcedRule,
    Template,
};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How long an injection may run before its process group is killed.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// Output kept from one injection: Claude Code's default Bash output limit (30,000 characters,
/// `BASH_MAX_OUTPUT_LENGTH`). The rest is read and dropped, so a flood costs no memory.
pub(crate) const MAX_OUTPUT_CHARS: usize = 30_000;

/// What replaces an injection when `disableSkillShellExecution` is set.
const DISABLED: &str = "[shell command execution disabled by policy]";

/// How long to wait for the rest of the output once the group is killed (a process that left
/// the group may hold the pipe open).
const DRAIN: Duration = Duration::from_secs(1);

/// One `!` injection: what the permission decision said, and how it ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ShellRun {
    pub command: String,
    /// `allow`, `ask` or `deny`.
    pub decision: &'static str,
    /// The rule that decided, as written, with its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Claude Code's reason when it is not allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Exit code, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i32>,
    /// Why an allowed one did not run where Claude Code runs it (the folder is not trusted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

/// Where and how the injections of one expansion are decided and run.
pub(crate) struct Settings<'a> {
    /// The project folder: the working directory of the commands.
    pub dir: &'a Path,
    /// More working directories (`--add-dir`).
    pub additional_dirs: &'a [PathBuf],
    /// The turn's permission mode.
    pub mode: PermissionMode,
    /// Run the allowed ones (`capc session --no-shell` decides only).
    pub run: bool,
    /// The folder is trusted: capc runs nothing a repository asks for before the user trusts it.
    pub trusted: bool,
    /// Run the allowed ones in a folder that is not trusted too, as headless Claude Code does
    /// (the rules given already leave out the project's and local allow rules then).
    pub run_untrusted: bool,
    /// `disableSkillShellExecution`.
    pub disabled: bool,
}

/// The expansion aborted: the line Claude Code prints instead, and what was decided so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Aborted {
    pub message: String,
    pub runs: Vec<ShellRun>,
}

/// Decides and runs the injections of `template` (an expanded body), returning the body with
/// each injection replaced by its output.
pub(crate) fn expand(
    template: &Template,
    rules: &[SourcedRule],
    settings: &Settings<'_>,
) -> Result<(String, Vec<ShellRun>), Aborted> {
    let injections: Vec<&ShellCommand> =
        template.shell_commands.iter().filter(|shell| !template.command(shell).trim().is_empty()).collect();
    let mut runs = decide_all(template, &injections, rules, settings)?;
    let outputs = run_allowed(&mut runs, settings);
    replace_injections(template, &injections, outputs, runs)
}

/// Decides every injection, in body order, with `rules` in the project folder: a run for each,
/// or the abort of the first one not allowed (unless policy disables them all).
fn decide_all(
    template: &Template,
    injections: &[&ShellCommand],
    rules: &[SourcedRule],
    settings: &Settings<'_>,
) -> Result<Vec<ShellRun>, Aborted> {
    let dir = absolute(settings.dir);
    let additional: Vec<String> = settings.additional_dirs.iter().map(|d| absolute(d)).collect();
    let additional_refs: Vec<&str> = additional.iter().map(String::as_str).collect();
    let home = std::env::var("HOME").unwrap_or_default();
    let links = FileSystemLinks;
    let cx = BashContext {
        cwd: &dir,
        additional_dirs: &additional_refs,
        home: &home,
        mode: settings.mode,
        links: Some(&links),
        bare_repository: bare_repository(Path::new(&dir), false),
    };
    // Where the folder looks like a bare repository with a `HEAD` file, a line that may run git
    // is decided without allow rules (as Claude Code does for `!` injections).
    let bare_with_head = bare_repository(Path::new(&dir), true);
    let allows_dropped: Vec<SourcedRule> =
        rules.iter().filter(|r| r.behavior != capc_grammar::Behavior::Allow).cloned().collect();
    let mut runs = Vec::new();
    for shell in injections {
        let command = template.command(shell).to_owned();
        let gated = bare_with_head && may_run_git(&command);
        let decision = decide_bash(if gated { &allows_dropped } else { rules }, &command, &cx);
        let rule = decision.rule.and_then(|index| rules.get(index)).map(|r| format!("{} ({})", rule_text(r), r.source));
        runs.push(ShellRun {
            command,
            decision: decision.behavior.as_str(),
            rule,
            message: decision.message.clone(),
            exit_code: None,
            not_run: None,
        });
        if decision.behavior != capc_grammar::Behavior::Allow && !settings.disabled {
            if gated {
                let message = format!("Couldn't run `{}`. {BARE_REPOSITORY}", template.command(shell).trim());
                return Err(Aborted { message, runs });
            }
            let message = format!(
                "Shell command permission check failed for pattern \"{}\": {}",
                template.text(shell.span),
                decision.message.as_deref().unwrap_or("Permission denied")
            );
            return Err(Aborted { message, runs });
        }
    }
    Ok(runs)
}

/// What replaces each injection, all decided: the policy's placeholder, a not-run notice (the
/// folder is not trusted, or `--no-shell`), or its output once run concurrently (`Err`: why it
/// failed); records each run's exit code or why it did not run.
fn run_allowed(runs: &mut [ShellRun], settings: &Settings<'_>) -> Vec<Result<String, String>> {
    if settings.disabled {
        runs.iter().map(|_| Ok(DISABLED.to_owned())).collect()
    } else if !settings.trusted && !settings.run_untrusted {
        // Headless Claude Code runs them (each allowed above): the turn says so.
        for run in runs.iter_mut() {
            let rule = run.rule.as_deref().map_or_else(String::new, |rule| format!(", allowed by {rule}"));
            run.not_run = Some(format!(
                "the folder is not trusted, so capc did not run it; headless Claude Code runs it{rule}; \
                 `--untrusted-injections run` runs it as Claude Code does"
            ));
        }
        runs.iter().map(|_| Ok("[shell command not run: the folder is not trusted]".to_owned())).collect()
    } else if !settings.run {
        runs.iter().map(|_| Ok("[shell command not run: permission allow]".to_owned())).collect()
    } else {
        let finished: Vec<Ended> = std::thread::scope(|scope| {
            let handles: Vec<_> =
                runs.iter().map(|run| scope.spawn(|| execute(&run.command, settings.dir, TIMEOUT))).collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap_or_else(|_| Ended::failed_to_start("panicked")))
                .collect()
        });
        finished
            .into_iter()
            .zip(runs.iter_mut())
            .map(|(finished, run)| {
                run.exit_code = finished.status;
                finished.replacement(&run.command)
            })
            .collect()
    }
}

/// The body with each injection replaced by its output, or the abort of the first that failed.
fn replace_injections(
    template: &Template,
    injections: &[&ShellCommand],
    outputs: Vec<Result<String, String>>,
    runs: Vec<ShellRun>,
) -> Result<(String, Vec<ShellRun>), Aborted> {
    // A failure nearer the top of the body is the one reported.
    let mut replacements = Vec::new();
    for (shell, output) in injections.iter().zip(outputs) {
        match output {
            Ok(output) => replacements.push((shell.span, output)),
            Err(reason) => {
                let message = format!("Shell command failed for pattern \"{}\": {reason}", template.text(shell.span));
                return Err(Aborted { message, runs });
            }
        }
    }
    let mut text = template.source.clone();
    for (span, output) in replacements.into_iter().rev() {
        text.replace_range(span.start..span.end, &output);
    }
    Ok((text, runs))
}

/// Claude Code's reason when an injection that may run git is not allowed in a folder that
/// looks like a bare repository.
const BARE_REPOSITORY: &str =
    "This folder or one above it looks like a bare git repository that may not be yours, and \
                               git can run commands named in a repository's files. If you trust this folder, allow the \
                               git commands this needs, for example with /permissions, and try again.";

/// The line may run git: the word `git` anywhere in it (Claude Code looks for it in each
/// command's words, and gates every line that is not one simple command; capc reads the whole
/// line, which gates at least as many).
fn may_run_git(command: &str) -> bool {
    let lower = command.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    lower
        .match_indices("git")
        .any(|(at, _)| (at == 0 || !word(bytes[at - 1])) && bytes.get(at + 3).is_none_or(|b| !word(*b)))
}

/// `dir` or a folder above it looks like a bare git repository, as Claude Code checks before
/// a git command: from `dir` upwards, a folder whose `.git` is a repository (a `HEAD` file,
/// `objects/` and `refs/` folders) or a `.git` file ends the search (nothing gated); otherwise
/// the folder itself has bare-repository indicators: with `needs_head`, a `HEAD` that is not a
/// folder and `refs` or `commondir`; without, a `HEAD` file or link, or `objects` or `refs`.
pub(crate) fn bare_repository(dir: &Path, needs_head: bool) -> bool {
    let exists = |path: PathBuf| std::fs::symlink_metadata(path).is_ok();
    let mut at = Some(dir);
    while let Some(folder) = at {
        let git = folder.join(".git");
        match std::fs::symlink_metadata(&git) {
            Ok(meta) if meta.is_dir() => {
                let head = std::fs::symlink_metadata(git.join("HEAD")).is_ok_and(|m| m.is_file());
                let dirs = ["objects", "refs"].iter().all(|d| git.join(d).is_dir());
                if head && dirs {
                    return false;
                }
            }
            Ok(meta) => return planted_git_dir(dir, folder, &git, meta.file_type().is_symlink()),
            Err(_) => {}
        }
        let head = std::fs::symlink_metadata(folder.join("HEAD"));
        let indicators = if needs_head {
            head.is_ok_and(|m| !m.is_dir()) && (exists(folder.join("refs")) || exists(folder.join("commondir")))
        } else {
            head.is_ok_and(|m| m.is_file() || m.file_type().is_symlink())
                || exists(folder.join("objects"))
                || exists(folder.join("refs"))
        };
        if indicators {
            return true;
        }
        at = folder.parent();
    }
    false
}

/// A `.git` file (`gitdir: PATH`) or link in `folder` that redirects git to a folder a
/// repository could have planted: one inside `dir`, or one with no `.git` in its path (Claude
/// Code gates git there too). A redirect it cannot read is planted.
fn planted_git_dir(dir: &Path, folder: &Path, git: &Path, link: bool) -> bool {
    let target = if link {
        std::fs::read_link(git).ok()
    } else {
        let mut text = String::new();
        let read = std::fs::File::open(git).and_then(|f| f.take(4096).read_to_string(&mut text));
        read.ok().and_then(|_| text.strip_prefix("gitdir: ").map(|t| PathBuf::from(t.trim_end_matches(['\r', '\n']))))
    };
    let Some(target) = target else { return true };
    let mut resolved = PathBuf::new();
    for part in folder.join(target).components() {
        match part {
            std::path::Component::ParentDir => {
                resolved.pop();
            }
            std::path::Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(dir) || !resolved.components().any(|c| c.as_os_str() == ".git")
}

/// Follows links on this machine's file system for the path checks of [`decide_bash`]: a
/// committed link to a folder outside the project makes a read through it a read outside. The
/// one resolver of every Bash decision capc makes on disk (`!` injections here, Bash calls in
/// [`crate::permissions`]).
#[derive(Debug)]
pub(crate) struct FileSystemLinks;

/// Links followed in one path before it counts as a loop (Linux's `MAXSYMLINKS`).
const MAX_LINK_HOPS: usize = 40;

impl LinkResolver for FileSystemLinks {
    fn real_path(&self, path: &str) -> Option<String> {
        // Segment by segment, as the kernel walks it: a link is replaced by its target where it
        // stands, so a later `..` climbs from the target. Past the first segment that does not
        // exist, the rest is kept as written.
        let mut pending: Vec<std::ffi::OsString> =
            Path::new(path).iter().filter(|s| *s != "/").map(ToOwned::to_owned).collect();
        pending.reverse();
        let mut real = PathBuf::from("/");
        let mut exists = true;
        let mut hops = 0;
        while let Some(segment) = pending.pop() {
            if segment == "." {
                continue;
            }
            if segment == ".." {
                real.pop();
                continue;
            }
            let next = real.join(&segment);
            if exists {
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        hops += 1;
                        if hops > MAX_LINK_HOPS {
                            return None;
                        }
                        let target = std::fs::read_link(&next).ok()?;
                        if target.is_absolute() {
                            real = PathBuf::from("/");
                        }
                        pending.extend(target.iter().filter(|s| *s != "/").map(ToOwned::to_owned).rev());
                        continue;
                    }
                    Ok(_) => {}
                    Err(_) => exists = false,
                }
            }
            real = next;
        }
        Some(real.to_string_lossy().into_owned())
    }

    fn entries(&self, dir: &str, limit: usize) -> Option<Vec<String>> {
        let entries = std::fs::read_dir(dir).ok()?;
        Some(entries.flatten().take(limit).map(|entry| entry.file_name().to_string_lossy().into_owned()).collect())
    }
}

fn rule_text(rule: &SourcedRule) -> String {
    match &rule.rule.specifier {
        Some(spec) => format!("{}({})", rule.rule.tool.written, spec.text),
        None => rule.rule.tool.written.clone(),
    }
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).to_string_lossy().into_owned()
}

/// How one command ended.
#[derive(Debug)]
struct Ended {
    output: String,
    status: Option<i32>,
    timed_out: bool,
    /// It could not be started: why.
    start_error: Option<String>,
}

impl Ended {
    fn failed_to_start(why: &str) -> Ended {
        Ended { output: String::new(), status: None, timed_out: false, start_error: Some(why.to_owned()) }
    }

    /// What replaces the injection (`Ok`), or why the expansion aborts (`Err`).
    fn replacement(self, command: &str) -> Result<String, String> {
        if let Some(why) = self.start_error {
            return Err(format!("[stderr]\ncould not start bash: {why}"));
        }
        let output = self.output.trim();
        if self.timed_out {
            return Err(format!(
                "{}\n[timed out after {} s; its process group was killed]",
                format!("\n[stderr]\n{output}").trim(),
                TIMEOUT.as_secs()
            ));
        }
        let success = match self.status {
            Some(0) => true,
            Some(1) => exit_one_is_success(command),
            _ => false,
        };
        if !success {
            return Err(format!("\n[stderr]\n{output}").trim().to_owned());
        }
        Ok(if output.is_empty() { "(Bash completed with no output)".to_owned() } else { output.to_owned() })
    }
}

/// Search and compare commands say "nothing found" or "different" with exit status 1.
fn exit_one_is_success(command: &str) -> bool {
    let analysis = analyse_shell(command);
    let last = analysis.commands.iter().rev().find(|c| c.context == CommandContext::TopLevel);
    last.and_then(|c| c.words.first()).is_some_and(|name| {
        matches!(name.text.as_str(), "grep" | "egrep" | "fgrep" | "rg" | "diff" | "cmp" | "test" | "[")
    })
}

/// Process groups of the injections running now, for [`end_all`].
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kills every injection's process group (the session is being stopped by a signal).
pub(crate) fn end_all() {
    let groups = RUNNING.lock().map(|running| running.clone()).unwrap_or_default();
    for group in groups {
        kill_group(group);
    }
}

fn kill_group(group: i32) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{killpg, Signal};
        let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = group;
}

fn bash() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "bash"
    }
}

/// Runs one command in its own process group, output capped, killed at `timeout`.
fn execute(command: &str, dir: &Path, timeout: Duration) -> Ended {
    use std::process::{Command, Stdio};
    let mut process = Command::new(bash());
    // `eval` so that a syntax error is reported like any other failure, on stderr, which is
    // merged into stdout first.
    process.arg("-c").arg("exec 2>&1; eval \"$1\"").arg(bash()).arg(command);
    process.current_dir(dir).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        process.process_group(0);
    }
    crate::launch::starting();
    let mut child = match process.spawn() {
        Ok(child) => child,
        Err(e) => return Ended::failed_to_start(&e.to_string()),
    };
    let group = i32::try_from(child.id()).unwrap_or(0);
    if let Ok(mut running) = RUNNING.lock() {
        running.push(group);
    }
    let captured = Arc::new(Mutex::new(Captured::default()));
    let (done_reading, read_finished) = mpsc::channel();
    if let Some(mut stdout) = child.stdout.take() {
        let captured = captured.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(read) = stdout.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                if let Ok(mut captured) = captured.lock() {
                    captured.take(&buffer[..read]);
                }
            }
            let _ = done_reading.send(());
        });
    }
    let (exited, exit) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = exited.send(child.wait());
    });
    let (status, timed_out) = match exit.recv_timeout(timeout) {
        Ok(status) => (status.ok().and_then(|s| s.code()), false),
        Err(_) => {
            kill_group(group);
            let status = exit.recv_timeout(DRAIN).ok().and_then(Result::ok).and_then(|s| s.code());
            (status, true)
        }
    };
    // Whatever the command left running in its group ends with it.
    kill_group(group);
    if let Ok(mut running) = RUNNING.lock() {
        running.retain(|g| *g != group);
    }
    let _ = read_finished.recv_timeout(DRAIN);
    let output = captured.lock().map(|captured| captured.text()).unwrap_or_default();
    Ended { output, status, timed_out, start_error: None }
}

/// The first [`MAX_OUTPUT_CHARS`] characters' worth of bytes, and how many characters came in all.
#[derive(Default)]
struct Captured {
    kept: Vec<u8>,
    /// Characters seen (counted as UTF-8 lead bytes), kept or not.
    chars: usize,
}

impl Captured {
    fn take(&mut self, bytes: &[u8]) {
        let room = (MAX_OUTPUT_CHARS * 4).saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.chars += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
    }

    fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.kept);
        if self.chars <= MAX_OUTPUT_CHARS {
            return text.into_owned();
        }
        let cut = text.char_indices().nth(MAX_OUTPUT_CHARS).map_or(text.len(), |(at, _)| at);
        format!("{}\n\n[output cut: the first {MAX_OUTPUT_CHARS} of {} characters are shown]", &text[..cut], self.chars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capc_grammar::{parse_permission_rule, parse_template, Behavior};

    fn allow(rules: &[&str]) -> Vec<SourcedRule> {
        rules
            .iter()
            .map(|text| SourcedRule {
                rule: parse_permission_rule(text).expect("a valid rule"),
                behavior: Behavior::Allow,
                source: "the skill's allowed-tools".to_owned(),
                settings_dir: None,
            })
            .collect()
    }

    fn settings(dir: &Path) -> Settings<'_> {
        Settings {
            dir,
            additional_dirs: &[],
            mode: PermissionMode::Default,
            run: true,
            trusted: true,
            run_untrusted: false,
            disabled: false,
        }
    }

    /// A scratch folder, removed when the test ends.
    struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("capc-shell-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }

    fn run_body(body: &str, rules: &[&str], dir: &Path) -> Result<(String, Vec<ShellRun>), Aborted> {
        let (template, _) = parse_template(body);
        expand(&template, &allow(rules), &settings(dir))
    }

    /// The resolver walks a path as the kernel does: a link is followed where it stands (so a
    /// later `..` climbs from its target), a dangling link leads to its target, a loop resolves
    /// to nothing, and what does not exist is kept as written.
    #[test]
    fn links_are_followed_where_they_stand() {
        use std::os::unix::fs::symlink;
        let dir = scratch("links");
        let dir = std::fs::canonicalize(&*dir).expect("canonical");
        let at = |rel: &str| format!("{}/{rel}", dir.display());
        std::fs::create_dir_all(dir.join("p/d")).expect("mkdir");
        std::fs::create_dir_all(dir.join("o/deep")).expect("mkdir");
        std::fs::write(dir.join("o/secret.txt"), "s").expect("write");
        symlink(dir.join("o/deep"), dir.join("p/d/lnk")).expect("link");
        symlink("../../o/secret.txt", dir.join("p/d/rel")).expect("link");
        symlink(dir.join("o/not-yet"), dir.join("p/dangling")).expect("link");
        symlink(dir.join("p/loop"), dir.join("p/loop")).expect("link");
        let links = FileSystemLinks;
        assert_eq!(links.real_path(&at("p/d/lnk/../secret.txt")), Some(at("o/secret.txt")));
        assert_eq!(links.real_path(&at("p/d/rel")), Some(at("o/secret.txt")));
        assert_eq!(links.real_path(&at("p/dangling")), Some(at("o/not-yet")));
        assert_eq!(links.real_path(&at("p/d/./new/file")), Some(at("p/d/new/file")));
        assert_eq!(links.real_path(&at("p/loop/x")), None);
        assert_eq!(
            links.entries(&at("p/d/lnk/.."), 10).map(|mut e| {
                e.sort();
                e
            }),
            Some(vec!["deep".to_owned(), "secret.txt".to_owned()])
        );
        assert_eq!(links.entries(&at("p/d/lnk/.."), 1).map(|e| e.len()), Some(1));
        assert_eq!(links.entries(&at("o/secret.txt"), 10), None);
    }

    /// Every path form that leaves the folder is refused before anything runs: tilde variants, a bare
    /// `cd`, and a glob or a `cd` leading through a link out of the folder.
    #[test]
    fn path_forms_leading_outside_do_not_run() {
        use std::os::unix::fs::symlink;
        let dir = scratch("forms");
        std::fs::create_dir_all(dir.join("proj/d")).expect("mkdir");
        std::fs::create_dir_all(dir.join("outside")).expect("mkdir");
        std::fs::write(dir.join("outside/x"), "x").expect("write");
        symlink(dir.join("outside"), dir.join("proj/d/lnk")).expect("link");
        for command in [
            "cat ~root/../etc/passwd",
            "cat ~-/x",
            "cd ~- && ls",
            "cd && ls",
            "cd; ls -la",
            "cat d/*/x",
            "cd d && cat lnk/x",
        ] {
            let body = format!("!`{command}`");
            let failure = run_body(&body, &[], &dir.join("proj")).expect_err(command);
            assert!(failure.message.contains("permission check failed"), "{command}: {}", failure.message);
            assert_eq!(failure.runs.last().map(|run| run.exit_code), Some(None), "{command} ran");
        }
    }

    #[test]
    fn the_issues_reproductions_do_not_run() {
        let dir = scratch("issue");
        let outside = dir.join("outside");
        let outside = outside.to_string_lossy();
        let cases = [
            (
                format!("!`git status $(touch {outside})`"),
                "A nested command in this command can't be checked before it runs",
            ),
            (
                format!("```!\ngit status `touch {outside}`\n```"),
                "A nested command in this command can't be checked before it runs",
            ),
            (format!("!`git status > {outside}`"), "Output redirection to"),
        ];
        for (body, reason) in cases {
            let failure = run_body(&body, &["Bash(git status:*)"], &dir.join("proj")).expect_err("refused");
            assert!(
                failure
                    .message
                    .starts_with(&format!("Shell command permission check failed for pattern \"{body}\": {reason}")),
                "{}",
                failure.message
            );
            assert!(!dir.join("outside").exists(), "{body} ran");
        }
        // The inline form ends at the first backquote: only `git status` is an injection.
        let (template, _) = parse_template(&format!("!`git status `touch {outside}``"));
        assert_eq!(template.shell_commands.len(), 1);
        assert_eq!(template.command(&template.shell_commands[0]), "git status");
    }

    #[test]
    fn an_allowed_command_runs_and_its_output_replaces_it() {
        let dir = scratch("run");
        let (text, runs) = run_body("a !`echo hi` b !`true`", &[], &dir).expect("allowed");
        assert_eq!(text, "a hi b (Bash completed with no output)");
        assert_eq!(runs[0].decision, "allow");
        assert_eq!(runs[0].exit_code, Some(0));
    }

    #[test]
    fn a_failing_command_aborts_the_expansion() {
        let dir = scratch("fail");
        let failure = run_body("x !`ls no-such-file`", &[], &dir).expect_err("failed");
        assert!(
            failure.message.starts_with("Shell command failed for pattern \"!`ls no-such-file`\": [stderr]\nls: "),
            "{}",
            failure.message
        );
        std::fs::write(dir.join("empty"), "").expect("a file");
        let (text, _) = run_body("!`grep -c x empty`", &[], &dir).expect("exit 1 of grep is not a failure");
        assert_eq!(text, "0");
    }

    #[test]
    fn a_huge_output_is_cut_with_a_notice() {
        let dir = scratch("huge");
        let (text, _) = run_body("!`seq 1 100000`", &[], &dir).expect("allowed");
        assert!(
            text.ends_with(&format!("\n\n[output cut: the first {MAX_OUTPUT_CHARS} of 588895 characters are shown]")),
            "{}",
            &text[text.len() - 200..]
        );
        assert_eq!(
            text.chars().count(),
            MAX_OUTPUT_CHARS + "\n\n[output cut: the first 30000 of 588895 characters are shown]".len()
        );
    }

    #[test]
    fn the_whole_process_group_is_killed_at_the_timeout() {
        let dir = scratch("timeout");
        let started = std::time::Instant::now();
        // The shell records its process group (its own pid), starts a child that sleeps in the
        // background, then sleeps past the timeout itself.
        let finished = execute("echo $$ > group; sleep 300 & sleep 300", &dir, Duration::from_millis(500));
        assert!(finished.timed_out);
        assert!(started.elapsed() < Duration::from_secs(5));
        let group = std::fs::read_to_string(dir.join("group")).expect("the group id");
        assert_group_gone(group.trim());
        let failure = Ended { ..finished }.replacement("sleep 300").expect_err("a timeout aborts");
        assert_eq!(failure, "[stderr]\n[timed out after 10 s; its process group was killed]");
    }

    #[test]
    fn a_background_child_does_not_outlive_its_injection() {
        let dir = scratch("background");
        let finished = execute("echo $$ > group; sleep 300 &", &dir, TIMEOUT);
        assert_eq!(finished.status, Some(0));
        let group = std::fs::read_to_string(dir.join("group")).expect("the group id");
        assert_group_gone(group.trim());
    }

    /// No live process is left in the process group (zombies waiting for init are dead).
    fn assert_group_gone(group: &str) {
        for _ in 0..50 {
            let members: Vec<String> = std::fs::read_dir("/proc")
                .expect("/proc")
                .flatten()
                .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
                .filter(|stat| {
                    // `pid (comm) state ppid pgrp …`; comm may hold spaces, so split after `)`.
                    let fields: Vec<&str> =
                        stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
                    fields.get(2) == Some(&group) && fields.first() != Some(&"Z")
                })
                .collect();
            if members.is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("processes of group {group} outlived their injection");
    }
}
