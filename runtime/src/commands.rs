//! The turn's command table: the lock's entries, bundled skills and built-ins with availability
//! and enablement re-checked for the context and activated dynamic skills placed, and the
//! lookup a typed `/name` goes through.

use crate::context::{Auth, TurnContext};
use crate::loaded::Loaded;
use capc_compiler::builtins::{Availability, BuiltinKind, BundledSkill, BundledSource, CommandType, Gate};
use capc_compiler::model::{Command, Origin, Scope};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// One entry of the turn's command table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CommandView {
    pub name: Arc<str>,
    /// The name it also answers to and shows (a skill's `name:`), when different.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<Arc<str>>,
    /// `prompt`, `local` or `local-jsx`.
    #[serde(rename = "type")]
    #[schemars(with = "String")]
    pub kind: CommandType,
    pub origin: Origin,
    pub scope: Scope,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Arc<str>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    #[schemars(default)]
    pub aliases: Arc<[Arc<str>]>,
    /// Index into the lock's commands, for declared entries.
    #[serde(skip)]
    pub decl: Option<usize>,
    /// Joined the table this turn because a touched file activated it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[schemars(default)]
    pub dynamic: bool,
}

fn is_available(availability: Availability, cx: &TurnContext) -> bool {
    match availability {
        Availability::Everyone => true,
        Availability::FirstParty => cx.auth.first_party(),
        Availability::ClaudeAi => cx.auth == Auth::ClaudeAi,
    }
}

/// The settings switches that remove built-ins, read once per turn.
struct BuiltinSwitches {
    no_bundled: bool,
    no_doctor: bool,
}

impl BuiltinSwitches {
    fn of(cx: &TurnContext) -> BuiltinSwitches {
        BuiltinSwitches { no_bundled: cx.no_bundled(), no_doctor: cx.flag("DISABLE_DOCTOR_COMMAND") }
    }
    /// `/doctor` stays when bundled skills are off, unless `DISABLE_DOCTOR_COMMAND`.
    fn enabled(&self, name: &str, kind: BuiltinKind) -> bool {
        match kind {
            BuiltinKind::BundledSkill | BuiltinKind::BundledWorkflow if name == "doctor" => !self.no_doctor,
            BuiltinKind::BundledSkill | BuiltinKind::BundledWorkflow => !self.no_bundled,
            BuiltinKind::PluginSkill => true,
            BuiltinKind::Command => true,
        }
    }
}

/// A gitignore-style match of a relative path: `**` any folders, `*` and `?` within one
/// segment; a pattern without `/` matches the file name at any depth.
pub(crate) fn path_matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim_start_matches("./");
    if pattern.is_empty() || path.starts_with("..") || path.starts_with('/') {
        return false;
    }
    if !pattern.trim_end_matches('/').contains('/') {
        let name = path.rsplit('/').next().unwrap_or(path);
        return glob_segment(pattern, name)
            || path.split('/').any(|seg| glob_segment(pattern.trim_end_matches('/'), seg));
    }
    let pat: Vec<&str> = pattern.trim_start_matches('/').split('/').collect();
    let segs: Vec<&str> = path.split('/').collect();
    // A pattern naming a folder covers everything below it.
    glob_path(&pat, &segs) || (1..segs.len()).any(|n| glob_path(&pat, &segs[..n]))
}

fn glob_path(pat: &[&str], segs: &[&str]) -> bool {
    match pat.first() {
        None => segs.is_empty(),
        Some(&"**") => (0..=segs.len()).any(|skip| glob_path(&pat[1..], &segs[skip..])),
        Some(p) => segs.first().is_some_and(|s| glob_segment(p, s)) && glob_path(&pat[1..], &segs[1..]),
    }
}

fn glob_segment(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Whether a dynamic or conditional skill is active for these touched files.
fn activated(command: &Command, touched: &[String]) -> bool {
    if let Some(dir) = &command.dynamic {
        let inside = |f: &String| f.strip_prefix(&**dir).is_some_and(|rest| rest.starts_with('/'));
        if !touched.iter().any(inside) {
            return false;
        }
        // A nested skill with `paths` needs a matching file too, relative to its folder.
        return command.paths.is_empty()
            || touched
                .iter()
                .filter_map(|f| f.strip_prefix(&format!("{dir}/")))
                .any(|f| command.paths.iter().any(|p| path_matches(p, f)));
    }
    touched.iter().any(|f| command.paths.iter().any(|p| path_matches(p, f)))
}

/// The command table (in Claude Code's order): the lock's static
/// entries (already in table order), bundled skills, built-ins; then every activated dynamic
/// skill whose name is not taken, just before the first built-in command.
pub fn command_table(loaded: &Loaded, cx: &TurnContext) -> Vec<CommandView> {
    if cx.flag("disableSlashCommands") {
        return Vec::new();
    }
    let commands = &loaded.lock.commands;
    let mut table: Vec<CommandView> = Vec::with_capacity(commands.len() + capc_compiler::builtins::builtins().len());
    let view = |i: usize, c: &Command, dynamic: bool| CommandView {
        name: loaded.names[i].0.clone(),
        display: loaded.displays[i].clone(),
        kind: CommandType::Prompt,
        origin: c.origin,
        scope: c.scope,
        path: Some(loaded.names[i].1.clone()),
        aliases: loaded.aliases[i].clone(),
        decl: Some(i),
        dynamic,
    };
    // A plugin that only project settings enable is not loaded in an untrusted folder.
    let loads = |i: usize| cx.trusted || !loaded.needs_trust[i];
    for (i, c) in commands.iter().enumerate() {
        if c.dynamic.is_none() && c.paths.is_empty() && loads(i) {
            table.push(view(i, c, false));
        }
    }
    let switches = BuiltinSwitches::of(cx);
    for (row, kind, available) in builtin_rows() {
        if is_available(*available, cx) && switches.enabled(&row.name, *kind) {
            table.push(row.clone());
        }
    }
    if !cx.touched_files.is_empty() {
        let active = (0..commands.len()).filter(|&i| {
            let c = &commands[i];
            (c.dynamic.is_some() || !c.paths.is_empty()) && loads(i) && activated(c, &cx.touched_files)
        });
        // A name already in the table stays with its static owner.
        let in_base = |name: &str| {
            loaded.static_names.contains(name)
                || builtin_rows().iter().any(|(row, kind, available)| {
                    &*row.name == name && is_available(*available, cx) && switches.enabled(name, *kind)
                })
        };
        let mut added: Vec<CommandView> = Vec::new();
        for i in active {
            let name = &commands[i].name;
            if !in_base(name) && !added.iter().any(|a| &*a.name == name.as_str()) {
                added.push(view(i, &commands[i], true));
            }
        }
        if !added.is_empty() {
            let at = table
                .iter()
                .position(|c| match c.decl {
                    Some(i) => loaded.builtin_named[i],
                    None => c.origin == Origin::Builtin,
                })
                .unwrap_or(table.len());
            table.splice(at..at, added);
        }
    }
    table
}

/// The built-in rows (`capc_compiler::builtins::table`), as views, with who may use them (the
/// availability the compiler reads from Claude Code's data); built once.
fn builtin_rows() -> &'static [(CommandView, BuiltinKind, Availability)] {
    static ROWS: OnceLock<Vec<(CommandView, BuiltinKind, Availability)>> = OnceLock::new();
    ROWS.get_or_init(|| {
        capc_compiler::builtins::table()
            .iter()
            .map(|b| {
                let row = CommandView {
                    name: Arc::from(b.name),
                    display: None,
                    kind: b.command_type,
                    origin: b.origin,
                    scope: Scope::Builtin,
                    path: None,
                    aliases: b.aliases.iter().map(|a| Arc::from(*a)).collect(),
                    decl: None,
                    dynamic: false,
                };
                (row, b.kind, b.builtin.availability)
            })
            .collect()
    })
}

/// The entry a typed name runs (Claude Code's lookup): an exact name anywhere in the
/// table first; otherwise the first entry, in table order, whose display name is the name or
/// whose aliases hold it.
pub fn find<'t>(table: &'t [CommandView], name: &str) -> Option<&'t CommandView> {
    table
        .iter()
        .find(|c| &*c.name == name)
        .or_else(|| table.iter().find(|c| c.display.as_deref() == Some(name) || c.aliases.iter().any(|a| &**a == name)))
}

/// `loadedFrom` as Claude Code sets it for a lock entry.
pub(crate) fn loaded_from(c: &Command) -> Option<&'static str> {
    match (c.origin, c.form.as_str()) {
        (Origin::Plugin, "skill") => Some("plugin"),
        (Origin::Plugin, _) => None,
        (_, "command") => Some("commands_DEPRECATED"),
        _ => Some("skills"),
    }
}

/// Whether a bundled skill or built-in prompt command exists in this context: its gate holds
/// and bundled skills are not turned off (a built-in plugin's skill stays even then).
pub(crate) fn bundled_exists(b: &BundledSkill, cx: &TurnContext) -> bool {
    let gate = match b.gate {
        Gate::Always => true,
        Gate::Cron => !cx.flag("CLAUDE_CODE_DISABLE_CRON"),
        Gate::Workflows => !cx.flag("CLAUDE_CODE_DISABLE_WORKFLOWS"),
        Gate::ClaudeAi => cx.auth == Auth::ClaudeAi,
    };
    gate && (b.source == BundledSource::BuiltinPlugin || !cx.no_bundled())
}
