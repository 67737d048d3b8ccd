//! How Claude Code decides a Bash command against permission rules, from the analysis of
//! [`crate::analyse_shell`]; reproduced from measurements of the real binary
//! (`tests/data/bash-2.1.332.json`) and what is known of its pipeline.
//!
//! [`decide_bash`] answers allow, ask or deny with the deciding rule and Claude Code's message:
//!
//! 1. A whole-tool deny (`Bash`, `Bash(*)`) denies, a whole-tool ask asks.
//! 2. The line is read. Deny rules are matched against the line and against every command in it,
//!    nested ones included and seen through wrappers (`env`, `sudo`, `timeout`, `xargs`, paths):
//!    any match denies the line (a pipeline names the segment).
//! 3. A line that cannot be checked statically (`$(…)`, `${…}`, `<(…)`, …) asks with the reason;
//!    only an exact allow rule spelling the whole line, or the whole tool, allows it.
//! 4. Otherwise: `eval`/`exec`/`find -delete` ask; a `( … )` asks; a pipeline is decided segment
//!    by segment; each command is decided by ask rules, then its paths, then allow rules (exact,
//!    prefix `P:*`, wildcard), then the read-only table; output redirection to a file asks
//!    whatever the rules say; every part must be allowed, and a line that ends up allowed still
//!    asks for a `&` or a variable set in it.
//! 5. `bypassPermissions` allows what is left but deny rules, ask rules and a removal of a working
//!    directory; a whole-tool allow allows the remaining soft asks; `dontAsk` turns every ask into
//!    a deny.

mod dangerous;
mod flags;
mod paths;
mod readonly;
mod resolve;
mod rules;
mod spec;

#[cfg(test)]
mod tests;

use self::paths::{cd_destinations, command_paths, redirection_paths, PathVerdict};
use self::resolve::{is_tilde_variant, Bases};
use self::rules::{BashRules, Kinds};
use crate::matching::shell::strip_output_redirections;
use crate::shell::{CommandContext, ShellAnalysis};
use crate::{analyse_shell, Behavior, SimpleCommand, SourcedRule};

/// Claude Code's permission modes: the choices `--permission-mode` accepts. `manual` is another
/// name for `default`; the Bash check decides `auto` and `plan` as
/// it decides `default` (only `acceptEdits`, `dontAsk` and `bypassPermissions` change it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Auto,
    BypassPermissions,
    Manual,
    DontAsk,
    Plan,
}

impl PermissionMode {
    /// Every mode, in the order `--permission-mode`'s help lists its choices (`default` last,
    /// which it accepts without listing).
    pub const CHOICES: [PermissionMode; 7] = [
        PermissionMode::AcceptEdits,
        PermissionMode::Auto,
        PermissionMode::BypassPermissions,
        PermissionMode::Manual,
        PermissionMode::DontAsk,
        PermissionMode::Plan,
        PermissionMode::Default,
    ];

    /// The word `--permission-mode` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Auto => "auto",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Manual => "manual",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Plan => "plan",
        }
    }

    /// The mode a `--permission-mode` word names.
    pub fn parse(text: &str) -> Option<PermissionMode> {
        PermissionMode::CHOICES.into_iter().find(|mode| mode.as_str() == text)
    }
}

/// Follows symbolic links, so that a path is judged by what it names on disk: a committed link
/// `docs -> /home/me` must not make `cat docs/.ssh/id_rsa` a read inside the project, nor
/// `cat d/*/id_rsa` with `d/lnk -> /home/me/.ssh`. The grammar reads no files; `capc session`
/// supplies one that asks the file system.
pub trait LinkResolver: std::fmt::Debug + Sync {
    /// `path` (absolute; it may hold `.` and `..`) as the kernel resolves it: each link followed
    /// where it stands, so `..` after a link is the parent of the link's target. The part that
    /// does not exist yet is kept as written after the deepest existing folder, resolved. `None`
    /// when it cannot be resolved (a loop of links): the path is then judged outside.
    fn real_path(&self, path: &str) -> Option<String>;

    /// The names in the folder `dir` (absolute; links followed), at most `limit` of them, for
    /// expanding a glob; `None` when it is no folder that can be listed. A name that is not
    /// UTF-8 is given lossily (with U+FFFD), and a glob matching it is not expanded.
    fn entries(&self, dir: &str, limit: usize) -> Option<Vec<String>>;
}

/// Where the command would run. Paths are absolute and `/`-separated; nothing is read from disk
/// but through [`BashContext::links`].
#[derive(Debug, Clone, Copy)]
pub struct BashContext<'a> {
    /// The working directory, the first of the session's working directories.
    pub cwd: &'a str,
    /// More working directories (`--add-dir`).
    pub additional_dirs: &'a [&'a str],
    /// For `~` and `$HOME`.
    pub home: &'a str,
    pub mode: PermissionMode,
    /// Resolves links in paths; without one, paths are judged as written.
    pub links: Option<&'a dyn LinkResolver>,
    /// The working directory or a folder above it looks like a bare git repository (`HEAD`,
    /// `objects/` or `refs/` outside a `.git/` folder), found by the caller on disk: no git
    /// command is read-only there.
    pub bare_repository: bool,
}

impl<'a> BashContext<'a> {
    pub fn new(cwd: &'a str, home: &'a str) -> BashContext<'a> {
        BashContext {
            cwd,
            additional_dirs: &[],
            home,
            mode: PermissionMode::Default,
            links: None,
            bare_repository: false,
        }
    }

    fn working_dirs(&self) -> impl Iterator<Item = &'a str> + '_ {
        std::iter::once(self.cwd).chain(self.additional_dirs.iter().copied())
    }

    /// `'/a', '/b'`, as Claude Code lists them.
    fn listed_dirs(&self) -> String {
        self.working_dirs().map(|dir| format!("'{}'", normalize(dir))).collect::<Vec<_>>().join(", ")
    }

    /// `path` (absolute, `..` kept) is outside every working directory as written.
    fn outside_spelling_as_written(&self, path: &str) -> bool {
        let written = normalize(path);
        !self.working_dirs().map(normalize).any(|dir| within(&written, &dir))
    }

    /// `path` (absolute, `..` kept) with its links followed on disk, normalised; `None` without a
    /// resolver or when it cannot be resolved.
    fn real_spelling(&self, path: &str) -> Option<String> {
        self.links?.real_path(path).map(|real| normalize(&real))
    }

    /// The spelling of `path` (absolute, `..` kept, from [`BashContext::joined`]) that lies
    /// outside every working directory: the path as written (normalised), else the path with
    /// its links followed on disk (compared with the working directories' own real paths);
    /// `None` when both are inside. A path whose links cannot be followed is outside as written.
    fn outside_spelling(&self, path: &str) -> Option<String> {
        let within = |path: &str, dirs: &[String]| dirs.iter().any(|dir| within(path, dir));
        let written = normalize(path);
        let dirs: Vec<String> = self.working_dirs().map(normalize).collect();
        if !within(&written, &dirs) {
            return Some(written);
        }
        let links = self.links?;
        let Some(real) = links.real_path(path).map(|real| normalize(&real)) else { return Some(written) };
        let real_dirs: Vec<String> =
            dirs.iter().map(|dir| links.real_path(dir).map_or_else(|| dir.clone(), |real| normalize(&real))).collect();
        (!within(&real, &real_dirs)).then_some(real)
    }
}

/// `path` is `dir` or below it (both normalised).
fn within(path: &str, dir: &str) -> bool {
    path == dir || path.starts_with(&format!("{}/", dir.trim_end_matches('/')))
}

/// `/a/./b/../c//d` → `/a/c/d`.
fn normalize(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    format!("/{}", segments.join("/"))
}

/// What [`decide_bash`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashDecision {
    pub behavior: Behavior,
    /// The index of the deciding rule in the caller's list: the deny or ask rule that matched,
    /// or the (first) allow rule. `None` for read-only commands, modes and refusals.
    pub rule: Option<usize>,
    /// Claude Code's message for an ask or a deny; `None` for an allow.
    pub message: Option<String>,
}

const TOOL_DENIED: &str = "Permission to use Bash has been denied.";
const GENERIC_ASK: &str = "Claude requested permissions to use Bash, but you haven't granted it yet.";
const REQUIRES_APPROVAL: &str = "This command requires approval";

/// Claude Code's reason when git would run in a folder with bare-repository indicators.
const BARE_REPOSITORY: &str = "The current directory has bare-repo indicators (HEAD/objects/refs outside a .git/ \
                                   directory). Git may treat it as a git dir and run config/hooks from here, so git \
                                   commands need approval.";

/// The command runs `git` (past its wrappers), or `xargs` that starts it.
fn is_git(command: &SimpleCommand) -> bool {
    let words = command.program_words();
    match words.first().map(|w| w.text.as_str()) {
        Some("git") => true,
        Some("xargs") => words.iter().any(|w| w.text == "git"),
        _ => false,
    }
}
/// Claude Code's reason for a line that changes directory and runs git, wherever each stands
/// in it: the folder it goes to may hold a repository's configuration or hooks.
const CD_GIT: &str = "This command changes directory before running a version-control command, which can pick up \
untrusted hooks or repository configuration from the target directory. Approve only if you trust it.";

/// The command changes directory (past its wrappers: `command cd`, `builtin cd`).
fn is_cd(command: &SimpleCommand) -> bool {
    command.program_words().first().is_some_and(|w| matches!(w.text.as_str(), "cd" | "pushd" | "popd" | "chdir"))
}

/// The line changes directory and runs git, in any of its commands (pipeline segments and
/// quoted substitutions included): Claude Code asks, whatever allows each command, unless the
/// line's one `cd` is a plain `cd DIR` to the working directory itself (`cd . && git status`).
/// A line Claude Code cannot check at all keeps that reason.
fn changes_directory_for_git(text: &str, cx: &BashContext<'_>) -> bool {
    let analysis = analyse_shell(text);
    if analysis.refusal.is_some() {
        return false;
    }
    let cds: Vec<&SimpleCommand> = analysis.commands.iter().filter(|c| is_cd(c)).collect();
    if cds.is_empty() || !analysis.commands.iter().any(is_git) {
        return false;
    }
    let stays_here = |command: &SimpleCommand| {
        let [cd, destination] = command.words.as_slice() else { return false };
        let plain = destination.text.bytes().all(|b| !b"$`*?[\\~".contains(&b))
            && !destination.text.is_empty()
            && !destination.text.starts_with('-')
            && !destination.text.split('/').any(|part| part == "..");
        let joined = cx.joined(cx.cwd, &destination.text);
        let same = match cx.links {
            Some(links) => {
                links.real_path(&joined).map(|p| normalize(&p)) == links.real_path(cx.cwd).map(|p| normalize(&p))
            }
            None => normalize(&joined) == normalize(cx.cwd),
        };
        cd.text == "cd" && command.assignments.is_empty() && !destination.dynamic && plain && same
    };
    !(cds.len() == 1 && stays_here(cds[0]))
}

/// Claude Code's reason for a line that writes git repository files and runs git.
const GIT_STRUCTURE: &str =
    "This command creates git repository structure files (HEAD/objects/refs/hooks) and then runs \
git, which can execute hooks/fsmonitor from the created files.";

/// A path git reads as a repository's own file where it stands: `HEAD`, `objects/…`, `refs/…`,
/// `hooks/…` (relative, case folded, as Claude Code compares them).
fn is_git_structure(path: &str) -> bool {
    let path = normalize(path.trim_start_matches("./"));
    let path = path.trim_start_matches('/').to_lowercase();
    path == "head"
        || ["objects", "refs", "hooks"].iter().any(|dir| path == *dir || path.starts_with(&format!("{dir}/")))
}

/// The line runs git and creates or writes a file git would read as its repository's own
/// (`touch HEAD`, `mkdir -p objects refs`, `cp x HEAD`, `> HEAD`, `cp -r hooks .`): Claude
/// Code asks, whatever allows each command.
fn writes_git_structure(text: &str) -> bool {
    let analysis = analyse_shell(text);
    if analysis.refusal.is_some() || !analysis.commands.iter().any(is_git) {
        return false;
    }
    let writes = analysis.commands.iter().any(|command| {
        let words = command.program_words();
        let Some(name) = words.first().map(|w| w.text.as_str()) else { return false };
        if !matches!(name, "touch" | "mkdir" | "mv" | "cp" | "tee" | "ln" | "truncate" | "install") {
            return false;
        }
        let operands: Vec<&str> =
            words[1..].iter().map(|w| w.text.as_str()).filter(|w| !w.starts_with('-') || *w == "-").collect();
        let into_here = matches!(name, "cp" | "mv")
            && operands.last().is_some_and(|last| {
                matches!(*last, "." | "./" | "") || last.split('/').filter(|s| !s.is_empty()).all(|s| s == "..")
            });
        operands.iter().any(|operand| {
            is_git_structure(operand)
                || (into_here && is_git_structure(operand.trim_end_matches('/').rsplit('/').next().unwrap_or("")))
        })
    });
    writes || analysis.redirections.iter().any(|r| r.writes_file() && is_git_structure(&r.target))
}

const SHELL_OPERATORS: &str = "This command uses shell operators that require approval for safety";
const MULTIPLE_CD: &str = "Multiple directory changes in one command require approval for clarity";
const BACKGROUND: &str = "This command uses the `&` background operator, which defers execution past approval-time \
safety checks. Approve only if you trust it.";
const DONT_ASK: &str = "Permission to use Bash has been denied because Claude Code is running in don't ask mode. \
IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish \
this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, \
e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this \
restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this \
capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and \
why you need this permission. Let the user decide how to proceed.";

fn denied(command: &str) -> String {
    format!("Permission to use Bash with command {command} has been denied.")
}

fn parts_message(parts: &[String]) -> String {
    let list = parts.join(", ");
    if parts.len() == 1 {
        format!("This Bash command contains multiple operations. The following part requires approval: {list}")
    } else {
        format!("This Bash command contains multiple operations. The following parts require approval: {list}")
    }
}

/// The Bash check's verdict, before modes and whole-tool allow rules.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BashVerdict {
    Allow(Option<usize>),
    Deny {
        rule: Option<usize>,
        message: String,
    },
    /// `hard`: an ask rule or a safety check, which no whole-tool allow and no mode overrides.
    Ask {
        rule: Option<usize>,
        message: String,
        hard: bool,
    },
    /// Nothing allows it: ask, unless the whole tool is allowed or the mode says otherwise.
    Passthrough(String),
}

/// One command of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PartVerdict {
    Allow(Option<usize>),
    Deny(usize),
    /// `overridable`: a write inside the working directories, which an exact allow rule for the
    /// whole line also covers.
    Ask {
        rule: Option<usize>,
        message: String,
        hard: bool,
        overridable: bool,
    },
    Passthrough(String),
}

/// Decides a Bash command as Claude Code does; see the module documentation.
pub fn decide_bash(rules: &[SourcedRule], command: &str, cx: &BashContext<'_>) -> BashDecision {
    let set = BashRules::new(rules);
    let decision =
        |behavior, rule, message: Option<&str>| BashDecision { behavior, rule, message: message.map(str::to_owned) };
    let decided = if let Some(index) = set.whole_tool(Behavior::Deny) {
        decision(Behavior::Deny, Some(index), Some(TOOL_DENIED))
    } else if let Some(index) = set.whole_tool(Behavior::Ask) {
        decision(Behavior::Ask, Some(index), Some(GENERIC_ASK))
    } else {
        let trimmed = command.trim();
        let verdict = if trimmed.is_empty() {
            BashVerdict::Passthrough(REQUIRES_APPROVAL.to_owned())
        } else {
            check_line(&set, trimmed, cx, &line_bases(&set, trimmed, cx))
        };
        // Checked on the whole line: each pipeline segment is decided on its own, and a `cd`
        // in one reaches the git of another (`cd sub && true | git log -p`).
        let verdict = match verdict {
            deny @ BashVerdict::Deny { .. } => deny,
            ask @ BashVerdict::Ask { rule: Some(_), hard: true, .. } => ask,
            _ if !trimmed.is_empty() && writes_git_structure(trimmed) => {
                BashVerdict::Ask { rule: None, message: GIT_STRUCTURE.to_owned(), hard: false }
            }
            _ if !trimmed.is_empty() && changes_directory_for_git(trimmed, cx) => {
                BashVerdict::Ask { rule: None, message: CD_GIT.to_owned(), hard: false }
            }
            other => other,
        };
        match verdict {
            BashVerdict::Deny { rule, message } => decision(Behavior::Deny, rule, Some(&message)),
            BashVerdict::Ask { rule, message, hard: true } => decision(Behavior::Ask, rule, Some(&message)),
            _ if cx.mode == PermissionMode::BypassPermissions => decision(Behavior::Allow, None, None),
            BashVerdict::Allow(rule) => decision(Behavior::Allow, rule, None),
            BashVerdict::Ask { rule, message, .. } => match set.whole_tool(Behavior::Allow) {
                Some(index) => decision(Behavior::Allow, Some(index), None),
                None => decision(Behavior::Ask, rule, Some(&message)),
            },
            BashVerdict::Passthrough(message) => match set.whole_tool(Behavior::Allow) {
                Some(index) => decision(Behavior::Allow, Some(index), None),
                None => decision(Behavior::Ask, None, Some(&message)),
            },
        }
    };
    if decided.behavior == Behavior::Ask && cx.mode == PermissionMode::DontAsk {
        return BashDecision { behavior: Behavior::Deny, rule: decided.rule, message: Some(DONT_ASK.to_owned()) };
    }
    decided
}

/// The folders the line's relative paths are resolved from: the session's directory, and each
/// `cd` destination in the line (in any segment), from each folder before it, that the `cd`'s
/// own check lets through. Every command's paths are judged from each of them (a superset of
/// where bash opens them): `cd d && cat lnk/x` reads `d/lnk/x`.
fn line_bases(rules: &BashRules<'_>, text: &str, cx: &BashContext<'_>) -> Bases {
    let mut bases = Bases::of(cx);
    for command in &analyse_shell(text).commands {
        let words = command.program_words();
        if words.first().is_none_or(|word| word.text != "cd") {
            continue;
        }
        bases.cd = true;
        for destination in cd_destinations(words) {
            if is_tilde_variant(destination) || destination == "-" {
                continue;
            }
            // From every folder so far: `cd d && command cd sub` may be in d/sub.
            for base in bases.dirs.clone() {
                let Ok(dirs) = cx.expand(&base, destination, &bases) else { continue };
                for dir in dirs {
                    if paths::read_allowed(&dir, cx, rules.all) {
                        bases.add(dir);
                    }
                }
            }
        }
    }
    bases
}

/// The Bash check of one line (or one pipeline segment).
fn check_line(rules: &BashRules<'_>, text: &str, cx: &BashContext<'_>, bases: &Bases) -> BashVerdict {
    let analysis = analyse_shell(text);
    if let Some(verdict) = deny_sweep(rules, text, &analysis) {
        return verdict;
    }
    match &analysis.refusal {
        Some(refusal) => {
            if let Some(index) = rules.find(Behavior::Ask, Kinds::All, text) {
                return BashVerdict::Ask { rule: Some(index), message: GENERIC_ASK.to_owned(), hard: true };
            }
            if let Some(index) = rules.exact_allow(text) {
                return BashVerdict::Allow(Some(index));
            }
            BashVerdict::Ask {
                rule: None,
                message: refusal.reason.message(),
                hard: refusal.reason == crate::RefusalReason::Ambiguous,
            }
        }
        None => check_simple(rules, text, &analysis, cx, bases),
    }
}

/// A deny rule matching the line, a pipeline segment, or any command in it, nested ones included.
fn deny_sweep(rules: &BashRules<'_>, text: &str, analysis: &ShellAnalysis) -> Option<BashVerdict> {
    if analysis.refusal.is_none() && !analysis.pipe_segments.is_empty() {
        return analysis.pipe_segments.iter().find_map(|segment| {
            let segment = strip_output_redirections(segment.slice(text).unwrap_or("").trim());
            deny_sweep(rules, &segment, &analyse_shell(&segment))
        });
    }
    let index = rules.find(Behavior::Deny, Kinds::All, text).or_else(|| {
        analysis.commands.iter().find_map(|command| rules.find(Behavior::Deny, Kinds::All, &command.text))
    })?;
    Some(BashVerdict::Deny { rule: Some(index), message: denied(text) })
}

fn check_simple(
    rules: &BashRules<'_>,
    text: &str,
    analysis: &ShellAnalysis,
    cx: &BashContext<'_>,
    bases: &Bases,
) -> BashVerdict {
    let commands: Vec<&SimpleCommand> =
        analysis.commands.iter().filter(|command| command.context != CommandContext::Refused).collect();
    if let Some(message) = commands.iter().find_map(|command| refused_semantics(command)) {
        return BashVerdict::Ask { rule: None, message, hard: false };
    }
    if let Some(index) = rules.find(Behavior::Ask, Kinds::Exact, text) {
        return BashVerdict::Ask { rule: Some(index), message: GENERIC_ASK.to_owned(), hard: true };
    }
    let whole_allow = rules.find(Behavior::Allow, Kinds::Exact, text);
    if analysis.subshell {
        return BashVerdict::Ask { rule: None, message: SHELL_OPERATORS.to_owned(), hard: false };
    }
    if !analysis.pipe_segments.is_empty() {
        return check_pipeline(rules, text, analysis, cx, bases, whole_allow);
    }
    if commands.iter().filter(|command| command.words.first().is_some_and(|w| w.text == "cd")).count() > 1 {
        return BashVerdict::Ask { rule: None, message: MULTIPLE_CD.to_owned(), hard: false };
    }
    let redirections: Vec<_> = analysis.redirections.iter().collect();
    let redirected = redirection_paths(&redirections, cx, bases, rules.all);
    let approved = matches!(redirected, PathVerdict::Fine | PathVerdict::Approved);
    let parts: Vec<(&SimpleCommand, PartVerdict)> = commands
        .iter()
        .map(|command| (*command, check_command(rules, command, analysis, cx, bases, approved)))
        .collect();
    if let Some(index) =
        parts.iter().find_map(|(_, part)| if let PartVerdict::Deny(index) = part { Some(*index) } else { None })
    {
        return BashVerdict::Deny { rule: Some(index), message: denied(text) };
    }
    let any_ask = parts.iter().any(|(_, part)| matches!(part, PartVerdict::Ask { .. }));
    match redirected {
        PathVerdict::Deny(index) => return BashVerdict::Deny { rule: Some(index), message: denied(text) },
        PathVerdict::AskInside(message) | PathVerdict::AskOutside(message) | PathVerdict::Dangerous(message)
            if !any_ask =>
        {
            return BashVerdict::Ask { rule: None, message, hard: false };
        }
        _ => {}
    }
    let pending: Vec<&(&SimpleCommand, PartVerdict)> =
        parts.iter().filter(|(_, part)| !matches!(part, PartVerdict::Allow(_))).collect();
    let overridable =
        |part: &PartVerdict| matches!(part, PartVerdict::Passthrough(_) | PartVerdict::Ask { overridable: true, .. });
    if whole_allow.is_some() && pending.iter().all(|(_, part)| overridable(part)) {
        return finish_allow(analysis, whole_allow);
    }
    if let [(_, PartVerdict::Ask { rule, message, hard, .. })] = pending.as_slice() {
        return BashVerdict::Ask { rule: *rule, message: message.clone(), hard: *hard };
    }
    if pending.is_empty() {
        let rule = parts.iter().find_map(|(_, part)| if let PartVerdict::Allow(rule) = part { *rule } else { None });
        return finish_allow(analysis, rule);
    }
    if let [(_, PartVerdict::Passthrough(message))] = parts.as_slice() {
        return BashVerdict::Passthrough(message.clone());
    }
    let hard = pending.iter().any(|(_, part)| matches!(part, PartVerdict::Ask { hard: true, .. }));
    let names: Vec<String> = pending.iter().map(|(command, _)| strip_output_redirections(&command.text)).collect();
    if hard {
        BashVerdict::Ask { rule: None, message: parts_message(&names), hard }
    } else {
        BashVerdict::Passthrough(parts_message(&names))
    }
}

/// Each `|` segment is checked as a line of its own; every one must be allowed.
fn check_pipeline(
    rules: &BashRules<'_>,
    text: &str,
    analysis: &ShellAnalysis,
    cx: &BashContext<'_>,
    bases: &Bases,
    whole_allow: Option<usize>,
) -> BashVerdict {
    let mut pending = Vec::new();
    let mut hard = false;
    let mut first_rule = None;
    for segment in &analysis.pipe_segments {
        let segment = strip_output_redirections(segment.slice(text).unwrap_or("").trim());
        match check_line(rules, &segment, cx, bases) {
            deny @ BashVerdict::Deny { .. } => return deny,
            BashVerdict::Allow(rule) => first_rule = first_rule.or(rule),
            BashVerdict::Ask { hard: is_hard, .. } => {
                hard |= is_hard;
                pending.push(segment);
            }
            BashVerdict::Passthrough(_) => pending.push(segment),
        }
    }
    let redirections: Vec<_> = analysis.redirections.iter().collect();
    match redirection_paths(&redirections, cx, bases, rules.all) {
        PathVerdict::Deny(index) => return BashVerdict::Deny { rule: Some(index), message: denied(text) },
        PathVerdict::AskInside(message) | PathVerdict::AskOutside(message) | PathVerdict::Dangerous(message)
            if pending.is_empty() =>
        {
            return BashVerdict::Ask { rule: None, message, hard: false };
        }
        _ => {}
    }
    if pending.is_empty() {
        return finish_allow(analysis, first_rule);
    }
    if whole_allow.is_some() && !hard {
        return finish_allow(analysis, whole_allow);
    }
    if hard {
        BashVerdict::Ask { rule: None, message: parts_message(&pending), hard }
    } else {
        BashVerdict::Passthrough(parts_message(&pending))
    }
}

/// An allowed line still asks when it runs something in the background or sets a variable.
fn finish_allow(analysis: &ShellAnalysis, rule: Option<usize>) -> BashVerdict {
    if analysis.background {
        return BashVerdict::Ask { rule: None, message: BACKGROUND.to_owned(), hard: false };
    }
    if !analysis.bare_assignments.is_empty() {
        return BashVerdict::Ask { rule: None, message: crate::RefusalReason::VariableSet.message(), hard: false };
    }
    BashVerdict::Allow(rule)
}

/// One command: ask rules, then its paths, then allow rules, then the read-only table.
/// `redirections_approved`: the line's file redirections, if any, are approved (by the mode or
/// an `Edit(…)` rule), so they do not stop a read-only command.
fn check_command(
    rules: &BashRules<'_>,
    command: &SimpleCommand,
    analysis: &ShellAnalysis,
    cx: &BashContext<'_>,
    bases: &Bases,
    redirections_approved: bool,
) -> PartVerdict {
    let text = command.text.as_str();
    if let Some(index) = rules.find(Behavior::Deny, Kinds::All, text) {
        return PartVerdict::Deny(index);
    }
    if let Some(index) = rules
        .find(Behavior::Ask, Kinds::Exact, text)
        .or_else(|| rules.find(Behavior::Ask, Kinds::PrefixOrWildcard, text))
    {
        return PartVerdict::Ask { rule: Some(index), message: GENERIC_ASK.to_owned(), hard: true, overridable: false };
    }
    let paths = command_paths(command, cx, bases, rules.all);
    match &paths {
        PathVerdict::Deny(index) => return PartVerdict::Deny(*index),
        PathVerdict::Dangerous(message) => {
            return PartVerdict::Ask { rule: None, message: message.clone(), hard: true, overridable: false }
        }
        PathVerdict::AskOutside(message) => {
            return PartVerdict::Ask { rule: None, message: message.clone(), hard: false, overridable: false }
        }
        PathVerdict::AskInside(_) | PathVerdict::Fine | PathVerdict::Approved => {}
    }
    if let Some(index) = rules
        .find(Behavior::Allow, Kinds::Exact, text)
        .or_else(|| rules.find(Behavior::Allow, Kinds::PrefixOrWildcard, text))
    {
        return PartVerdict::Allow(Some(index));
    }
    // A folder that looks like a bare repository is git's repository: its committed `config`
    // names programs git runs (`core.fsmonitor`, `diff.*.textconv`).
    if cx.bare_repository && is_git(command) {
        return PartVerdict::Passthrough(BARE_REPOSITORY.to_owned());
    }
    if paths == PathVerdict::Approved || is_read_only(command, analysis, redirections_approved) {
        return PartVerdict::Allow(None);
    }
    match paths {
        PathVerdict::AskInside(message) => PartVerdict::Ask { rule: None, message, hard: false, overridable: true },
        _ => PartVerdict::Passthrough(REQUIRES_APPROVAL.to_owned()),
    }
}

/// Commands Claude Code refuses on what they do: running text as code, `find` actions (also
/// behind wrappers: `nohup find . -delete`).
fn refused_semantics(command: &SimpleCommand) -> Option<String> {
    let name = command.words.first()?.text.as_str();
    if matches!(name, "eval" | "exec") {
        return Some(format!("'{name}' evaluates arguments as shell code"));
    }
    let words = command.program_words();
    let name = words.first()?.text.as_str();
    if matches!(name, "[" | "[[") {
        return test_subscript(&words[1..]);
    }
    match name {
        "eval" => Some(format!("'{name}' evaluates arguments as shell code")),
        "find" => words.iter().skip(1).find(|w| readonly::FIND_ACTIONS.contains(&w.text.as_str())).map(|action| {
            format!(
                "find with '{}' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule",
                action.text
            )
        }),
        _ => None,
    }
}

/// A test (`[ … ]`, `[[ … ]]`) whose operand bash evaluates as an array subscript or as
/// arithmetic, which runs the `$(…)` inside it: Claude Code's reasons (it names both
/// `[[`).
fn test_subscript(words: &[crate::ShellWord]) -> Option<String> {
    let runtime = |word: &crate::ShellWord| word.dynamic || word.text.contains(['$', '`']);
    for (at, word) in words.iter().enumerate() {
        let next = words.get(at + 1);
        if matches!(word.text.as_str(), "-v" | "-R") && next.is_some_and(|n| n.text.contains('[') || runtime(n)) {
            return Some(format!(
                "'[[ {}' operand contains array subscript or runtime-determined value — bash evaluates $(cmd) in \
                 subscripts",
                word.text
            ));
        }
        if word.text == "-t" && next.is_some_and(|n| !dangerous::is_plain_operand(&n.text)) {
            return Some("'[[ -t' operand is non-numeric — zsh arith-evals identifiers (may run $(cmd))".to_owned());
        }
        let sides = [at.checked_sub(1).and_then(|i| words.get(i)), next];
        if dangerous::ARITHMETIC_TESTS.contains(&word.text.as_str())
            && sides.into_iter().flatten().any(|side| side.text != "]]" && !dangerous::is_plain_operand(&side.text))
        {
            return Some(format!(
                "'[[ ... {} ...' operand is non-numeric — `[[` arithmetically evaluates identifiers/subscripts (may \
                 run $(cmd))",
                word.text
            ));
        }
    }
    None
}

/// Environment variables that cannot change what a read-only command does.
const SAFE_ASSIGNMENTS: &[&str] = &[
    "CI",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLORTERM",
    "COLUMNS",
    "DEBIAN_FRONTEND",
    "FORCE_COLOR",
    "GIT_TERMINAL_PROMPT",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_COLLATE",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "LINES",
    "NODE_ENV",
    "NO_COLOR",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "TERM",
    "TZ",
];

/// Read-only without a rule: the line has no subshell, `&`, variable set or output redirection to
/// a file, and does not combine `cd` with `git`; the command's assignments are safe, its
/// expansions are `$HOME` or substitutions of read-only commands, and its words are in the table.
fn is_read_only(command: &SimpleCommand, analysis: &ShellAnalysis, redirections_approved: bool) -> bool {
    if analysis.subshell
        || analysis.background
        || !analysis.bare_assignments.is_empty()
        || (!redirections_approved && analysis.redirections.iter().any(|r| r.writes_file()))
    {
        return false;
    }
    // `git` after a `cd` may run in another repository's configuration. The program is named
    // past its wrappers: `command cd d`, `builtin cd d` change directories too.
    let changes_directory = analysis.commands.iter().any(|c| {
        c.program_words().first().is_some_and(|w| matches!(w.text.as_str(), "cd" | "pushd" | "popd" | "chdir"))
    });
    if changes_directory && is_git(command) {
        return false;
    }
    let safe_assignment = |name: &str, value: &str| {
        (SAFE_ASSIGNMENTS.contains(&name) || name.starts_with("GO"))
            && !value.is_empty()
            && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
    };
    if !command.assignments.iter().all(|a| safe_assignment(&a.name, &a.value)) {
        return false;
    }
    if command.words.iter().any(|word| word.dynamic && !expansions_are_known(&word.text)) {
        return false;
    }
    let nested_read_only = analysis
        .commands
        .iter()
        .filter(|nested| {
            // Strictly inside: two commands the analysis gives one span (`"&g`a;Z`"`) would
            // otherwise each count as nested in the other, and the check would never end.
            nested.context == CommandContext::QuotedSubstitution
                && nested.span.start >= command.span.start
                && nested.span.end <= command.span.end
                && nested.span.end - nested.span.start < command.span.end - command.span.start
        })
        .all(|nested| is_read_only(nested, analysis, redirections_approved));
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_str()).collect();
    nested_read_only && readonly::is_read_only(&words, &command.text)
}

/// Every `$NAME` in the word is `$HOME` (substitutions and arithmetic were already accepted by
/// the analysis): any other variable may hold a secret (`$GITHUB_TOKEN`), and Claude Code asks.
fn expansions_are_known(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(offset) = text[at..].find('$') {
        let start = at + offset + 1;
        let end = start + bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        let name = &text[start..end];
        if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) && name != "HOME" {
            return false;
        }
        at = end.max(start);
    }
    true
}
