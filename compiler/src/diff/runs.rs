//! What runs (`[[run]]`) and the settings that widen what Claude Code may do (`[[setting]]`),
//! compared. A hook, server or `!` injection that another section already reports added or
//! removed is reported here only when what this section alone knows changes: the script it
//! runs (by hash), its gate, its pinning, its sandbox. Weighed here, in the policy's words:
//! - a new helper, status line, or agent's or skill's own server or hook, naming the gate it
//!   passes; one whose command changed;
//! - a script a row runs whose bytes changed; a gate, pin or sandbox lost;
//! - a permission mode that runs more without asking (`crate::runs::mode_rank`), an added
//!   `additionalDirectories` entry, `disableBypassPermissionsMode` removed;
//! - a sandbox loosened (`crate::runs::SANDBOX`);
//! - an `env` key that redirects traffic or credentials or loads code (`crate::runs::redirects`),
//!   added or given another value.

use super::{Change, Class, Section};
use crate::model::{Gate, Lock, Pinned, Run, RunKind, Setting};
use crate::runs::{effective, mode_rank, redirects, Loosens, SANDBOX};

fn mirrored(r: &Run) -> bool {
    r.owner.is_none() && matches!(r.kind, RunKind::Hook | RunKind::McpServer | RunKind::Injection)
}

type Key<'a> = (RunKind, &'a str, Option<&'a str>, Option<&'a str>, &'a str, &'a str, &'a str);

fn key(r: &Run) -> Key<'_> {
    let run = if matches!(r.kind, RunKind::Hook | RunKind::Injection) { r.run.as_str() } else { "" };
    (r.kind, &r.name, r.hook_type.as_deref(), r.owner.as_deref(), &r.path, r.scope.as_str(), run)
}

fn subject(r: &Run) -> String {
    match &r.owner {
        Some(owner) => format!("{} {} ({owner})", r.kind.as_str(), r.name),
        None => format!("{} {}", r.kind.as_str(), r.name),
    }
}

fn what(r: &Run) -> Option<String> {
    Some(format!("{}, gate {}, {}", r.scope.as_str(), r.gate.as_str(), r.pinned.as_str()))
}

/// What Claude Code asks before it runs, in words.
pub(super) fn gate_words(g: Gate) -> &'static str {
    match g {
        Gate::None => "with nothing asked",
        Gate::Trust => "once the folder is trusted, with nothing else asked",
        Gate::McpApproval => "after the project MCP server dialog",
        Gate::Permission => "after the Bash permission check",
    }
}

fn gate_rank(g: Gate) -> u8 {
    match g {
        Gate::None => 0,
        Gate::Trust => 1,
        Gate::McpApproval | Gate::Permission => 2,
    }
}

fn pin_rank(p: Pinned) -> u8 {
    match p {
        Pinned::Download => 0,
        Pinned::Unpinned | Pinned::Program => 1,
        Pinned::Exact | Pinned::Script | Pinned::NotAProgram => 2,
    }
}

fn pin_note(r: &Run) -> String {
    match (r.pinned, &r.fetches) {
        (Pinned::Download, Some(f)) => format!(" (it downloads a program and runs it: {f})"),
        (Pinned::Unpinned, Some(f)) => format!(" (`{f}` with no exact version: each start may fetch different code)"),
        _ => String::new(),
    }
}

fn runs_words(r: &Run) -> String {
    format!("runs `{}` {}, {}{}", r.run, r.when, gate_words(r.gate), pin_note(r))
}

/// The changes of `[[run]]`. `unchanged(path)`: both sides hashed the file and found the
/// same bytes (a row of such a file missing from an old lock is one its capc did not record).
pub(super) fn runs(old: &Lock, new: &Lock, unchanged: &dyn Fn(&str) -> bool, out: &mut Vec<Change>) {
    let paired = super::pairing::pair(&old.runs, &new.runs, key);
    for r in paired.added.into_iter().filter(|r| !mirrored(r)) {
        if old.runs.is_empty() && unchanged(&r.path) {
            continue;
        }
        let mut change = super::pairing::entry(Section::Run, Class::Added, subject(r), what(r), &[&r.path]);
        change.escalations.push(format!("new: {} {}", subject(r), runs_words(r)));
        out.push(change);
    }
    for r in paired.removed.into_iter().filter(|r| !mirrored(r)) {
        out.push(super::pairing::entry(Section::Run, Class::Removed, subject(r), what(r), &[&r.path]));
    }
    for (o, n) in paired.kept.into_iter().filter(|(o, n)| o != n) {
        let ignore: &[&str] = if mirrored(n) { &["line", "when", "run"] } else { &["line"] };
        let fields = super::pairing::compare_fields(o, n, ignore);
        if fields.is_empty() {
            continue;
        }
        let mut escalations = Vec::new();
        if !mirrored(n) && o.run != n.run {
            escalations.push(format!("{} now {}", subject(n), runs_words(n)));
        }
        if let (Some(a), Some(b), Some(script)) = (&o.script_sha256, &n.script_sha256, &n.script) {
            if a != b {
                escalations.push(format!(
                    "the script `{script}` that {} runs changed; it runs {}, {}",
                    subject(n),
                    n.when,
                    gate_words(n.gate)
                ));
            }
        }
        // The other sections weigh what a mirrored row's gate and pin come from (approval, pins).
        if !mirrored(n) && gate_rank(n.gate) < gate_rank(o.gate) {
            escalations.push(format!(
                "{} now runs {} (before: {})",
                subject(n),
                gate_words(n.gate),
                gate_words(o.gate)
            ));
        }
        if !mirrored(n) && pin_rank(n.pinned) < pin_rank(o.pinned) {
            escalations.push(format!("{} is no longer pinned: {}{}", subject(n), n.pinned.as_str(), pin_note(n)));
        }
        if o.sandboxed && !n.sandboxed {
            escalations.push(format!("{} no longer runs in the sandbox", subject(n)));
        }
        let mut change = super::pairing::entry(Section::Run, Class::Changed, subject(n), what(n), &[&n.path]);
        change.fields = fields;
        change.escalations = escalations;
        out.push(change);
    }
}

fn setting_subject(s: &Setting) -> String {
    format!("{} = {}", s.key, s.value)
}

/// The changes of `[[setting]]`, and what they widen.
pub(super) fn settings(old: &Lock, new: &Lock, unchanged: &dyn Fn(&str) -> bool, out: &mut Vec<Change>) {
    let paired = super::pairing::pair(&old.settings, &new.settings, |s| {
        (s.key.as_str(), s.scope, s.path.as_str(), s.value.as_str())
    });
    let start = out.len();
    for s in paired.added {
        if old.settings.is_empty() && unchanged(&s.path) {
            continue;
        }
        let mut change = super::pairing::entry(
            Section::Setting,
            Class::Added,
            setting_subject(s),
            Some(s.scope.as_str().to_string()),
            &[&s.path],
        );
        change.escalations = setting_added(s, old);
        out.push(change);
    }
    for s in paired.removed {
        let mut change = super::pairing::entry(
            Section::Setting,
            Class::Removed,
            setting_subject(s),
            Some(s.scope.as_str().to_string()),
            &[&s.path],
        );
        change.escalations = setting_removed(s, new);
        out.push(change);
    }
    // What the settings of all scopes come to: the permission mode and the sandbox's switches.
    let mut overall = Vec::new();
    let mode = |l: &Lock| effective(l, "permissions.defaultMode").map(|s| s.value.clone());
    let (om, nm) = (mode(old), mode(new));
    if mode_rank(nm.as_deref()) > mode_rank(om.as_deref()) {
        overall.push((
            "permissions.defaultMode",
            format!(
                "the permission mode is now `{}` (was `{}`): more runs without asking",
                nm.as_deref().unwrap_or("default"),
                om.as_deref().unwrap_or("default")
            ),
        ));
    }
    // The selected output style is sent in every turn: selecting another one changes what the
    // model is told each time, as an instruction file that starts loading in every turn does.
    let style = |l: &Lock| effective(l, "outputStyle").map(|s| s.value.clone()).filter(|v| v != "default");
    if let Some(now) = style(new).filter(|now| style(old).as_ref() != Some(now)) {
        let kept = new.output_styles.iter().find(|o| o.name == now).is_some_and(|o| o.keep_coding_instructions);
        overall.push((
            "outputStyle",
            format!(
                "the selected output style is now `{now}` (was `{}`): its text is sent to the model in every turn{}",
                style(old).as_deref().unwrap_or("default"),
                if kept { "" } else { ", in place of Claude Code's coding instructions" }
            ),
        ));
    }
    for (key, loosens) in SANDBOX {
        let Loosens::When { value, default } = loosens else { continue };
        let get = |l: &Lock| effective(l, key).map_or(*default, |s| s.value == "true");
        if get(new) == *value && get(old) != *value {
            overall.push((key, format!("the sandbox is loosened: `{key}` is now `{value}`")));
        }
    }
    for (key, why) in overall {
        match out[start..].iter_mut().find(|c| c.subject.starts_with(&format!("{key} ="))) {
            Some(change) => change.escalations.push(why),
            None => {
                let mut change = super::pairing::entry(Section::Setting, Class::Changed, key.to_string(), None, &[]);
                change.escalations.push(why);
                out.push(change);
            }
        }
    }
}

fn setting_added(s: &Setting, old: &Lock) -> Vec<String> {
    let had = |key: &str, value: &str| old.settings.iter().any(|o| o.key == key && o.value == value);
    if s.key == "permissions.additionalDirectories" && !had(&s.key, &s.value) {
        return vec![format!("Claude Code may now read and edit files in `{}` too", s.value)];
    }
    if let Some(name) = s.key.strip_prefix("env.") {
        if let Some(why) = redirects(name) {
            return vec![format!("`{name}` is set to `{}`: it {why}", s.value)];
        }
    }
    let added_loosens = SANDBOX.iter().any(|(k, l)| *k == s.key && matches!(l, Loosens::Added));
    if added_loosens && !had(&s.key, &s.value) {
        return vec![format!("the sandbox is loosened: `{}` gains `{}`", s.key, s.value)];
    }
    Vec::new()
}

fn setting_removed(s: &Setting, new: &Lock) -> Vec<String> {
    let still = new.settings.iter().any(|n| n.key == s.key && n.value == s.value);
    if s.key == "permissions.disableBypassPermissionsMode" && effective(new, &s.key).is_none() {
        return vec!["`bypassPermissions` mode can be turned on again".to_string()];
    }
    let removed_loosens = SANDBOX.iter().any(|(k, l)| *k == s.key && matches!(l, Loosens::Removed));
    if removed_loosens && !still {
        return vec![format!("the sandbox is loosened: `{}` no longer holds `{}`", s.key, s.value)];
    }
    Vec::new()
}

/// An agent's own fields that let it do more.
pub(super) fn agent_widened(old: &crate::model::Agent, new: &crate::model::Agent) -> Vec<String> {
    let mut out = Vec::new();
    if new.permission_mode.is_some()
        && mode_rank(new.permission_mode.as_deref()) > mode_rank(old.permission_mode.as_deref())
    {
        out.push(format!(
            "agent `{}` runs in permission mode `{}` (was `{}`)",
            new.name,
            new.permission_mode.as_deref().unwrap_or("default"),
            old.permission_mode.as_deref().unwrap_or("the session's")
        ));
    }
    if old.isolation.is_some() && new.isolation.is_none() {
        out.push(format!("agent `{}` no longer runs isolated: it works in the checkout itself", new.name));
    }
    if old.memory.is_none() && new.memory.is_some() {
        out.push(format!(
            "agent `{}` now keeps `{}` memory that later sessions load",
            new.name,
            new.memory.as_deref().unwrap_or("")
        ));
    }
    out
}

/// A new agent that runs in a mode wider than the session's default.
pub(super) fn agent_added(a: &crate::model::Agent) -> Vec<String> {
    match a.permission_mode.as_deref() {
        Some(mode) if mode_rank(Some(mode)) > mode_rank(None) => {
            vec![format!("a new agent `{}` runs in permission mode `{mode}`", a.name)]
        }
        _ => Vec::new(),
    }
}
