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
mod git;
mod paths;
mod readonly;
mod resolve;
mod rules;
mod semantics;
mod spec;

#[cfg(test)]
mod tests;

use self::git::*;
use self::paths::{cd_destinations, command_paths, redirection_paths, PathVerdict};
use self::resolve::{is_tilde_variant, Bases};
use self::rules::{BashRules, Kinds};
use self::semantics::*;
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
