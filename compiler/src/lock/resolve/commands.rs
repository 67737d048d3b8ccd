//! The command table: its static order, the dynamic skills' place in it, and which entry each
//! name, display name and alias reaches.

use super::{reference, scope_rank, Builder, GraphEdge, GraphNodeKind, Reason, Row};
use crate::builtins::CommandType;
use crate::diagnostic::{report_at, Severity};
use crate::model::{Command, Form, Origin, Scope};
use crate::rules;
use crate::span::Span;

/// Position of a declared command in the static table (Claude Code's command table): skills
/// folders (managed, user, project, `--add-dir`; each by name), then legacy `.claude/commands`
/// (managed, project, user; by path), then plugin commands (plugins in load order; by path),
/// then plugin skills (load order; by name).
fn table_key(c: &Command, load: Option<usize>) -> TableKey<'_> {
    let legacy = c.form == Form::Command;
    let legacy_rank = |s: Scope| match s {
        Scope::Managed => 0,
        Scope::Project | Scope::Local => 1,
        Scope::User => 2,
        _ => 3,
    };
    let (group, rank, by_name) = match (c.origin, legacy) {
        (Origin::Plugin, true) => (2, load.unwrap_or(usize::MAX), false),
        (Origin::Plugin, false) => (3, load.unwrap_or(usize::MAX), true),
        (_, false) => (0, scope_rank(c.scope) as usize, true),
        // Legacy commands of every folder together, by name.
        (_, true) => (1, 0, true),
    };
    let tie = if legacy && c.origin != Origin::Plugin { legacy_rank(c.scope) } else { 0 };
    // A session started in a subfolder loads the skills of each `.claude/` up to the project's:
    // the nearer folder's first.
    let depth = match (group, c.scope) {
        (0, Scope::Project | Scope::Local) => {
            c.path.find(".claude/skills/").map_or(0, |at| c.path[..at].matches('/').count())
        }
        _ => 0,
    };
    TableKey {
        group,
        rank,
        depth: std::cmp::Reverse(depth),
        key: if by_name { &c.name } else { &c.path },
        tie,
        path: &c.path,
    }
}

/// A declared entry's place in the static table (see `table_key`).
#[derive(PartialEq, Eq)]
struct TableKey<'c> {
    group: u8,
    rank: usize,
    /// How deep the skill's `.claude/` is (the deeper first).
    depth: std::cmp::Reverse<usize>,
    /// The name or the path, compared as Claude Code sorts names (`localeCompare`).
    key: &'c str,
    tie: u8,
    path: &'c str,
}

impl Ord for TableKey<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.group, self.rank, self.depth)
            .cmp(&(other.group, other.rank, other.depth))
            .then_with(|| crate::names::locale_cmp(self.key, other.key))
            .then_with(|| (self.tie, self.path).cmp(&(other.tie, other.path)))
    }
}

impl PartialOrd for TableKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
/// A declared command (boxed, as read: moved between the steps below as a pointer) with its
/// span and its plugin's place in the load order.
pub(super) type Declared = (Box<Command>, Option<Span>, Option<usize>);

/// The command table: static entries (with the bundled workflows between the skills folders'
/// entries and the plugins'), then dynamic skills before the first built-in command; then which
/// entry each name, display name and alias reaches.
pub(super) fn command_table(declared: Vec<Declared>, b: &mut Builder) -> (Vec<Command>, Vec<Row>) {
    let mut declared: Vec<Declared> = declared;
    declared.sort_by(|(a, _, la), (c, _, lc)| table_key(a, *la).cmp(&table_key(c, *lc)));
    let (kept, reserved) = without_reserved(declared, b);
    let (dynamic, fixed): (Vec<_>, Vec<_>) =
        kept.into_iter().partition(|(c, _, _)| c.dynamic.is_some() || !c.paths.is_empty());
    let mut table = Table::fixed(fixed, reserved, dynamic.len());
    table.drop_taken_aliases(b);
    table.add_dynamic(dynamic);
    table.mark_hidden(b);
    (table.commands, table.rows)
}

/// Sets apart the entries in `anthropic-skills`, Anthropic's namespace: a non-plugin entry
/// that takes it is dropped (and reported), a plugin's is returned second, to go after the
/// built-ins.
fn without_reserved(declared: Vec<Declared>, b: &mut Builder) -> (Vec<Declared>, Vec<Declared>) {
    let mut reserved: Vec<Declared> = Vec::new();
    let mut kept = Vec::with_capacity(declared.len());
    for (c, span, load) in declared {
        let names = std::iter::once(c.name.as_str()).chain(c.display_name.as_deref());
        if names.clone().any(crate::names::is_reserved_namespace) {
            if c.origin == Origin::Plugin {
                reserved.push((c, span, load));
            } else {
                report_at(&mut b.diagnostics, c.path.clone(), &rules::reserved_name::RULE, span, format!("`{}` is in the `anthropic-skills` namespace, which Claude Code keeps for Anthropic's own skills", names.clone().find(|n| crate::names::is_reserved_namespace(n)).unwrap_or_default()))
                    .loads_anyway()
                    .help("Claude Code drops this skill; rename it (its folder, or its frontmatter `name`)");
            }
            continue;
        }
        kept.push((c, span, load));
    }
    (kept, reserved)
}

/// The row of declared command `c`, which is `Lock::commands[decl]`.
fn declared_row(c: &Command, decl: usize, load: Option<usize>) -> Row {
    Row {
        load,
        name: c.name.clone(),
        kind: CommandType::Prompt,
        origin: c.origin,
        scope: c.scope,
        path: Some(c.path.clone()),
        display_name: c.display_name.as_deref().map(str::to_string),
        aliases: c.aliases.to_vec(),
        decl: Some(decl),
        shadowed_by: None,
        dynamic: c.dynamic.as_deref().map(str::to_string),
        conditional: !c.paths.is_empty(),
    }
}

/// The row of a built-in command or bundled skill.
fn builtin_row(t: &crate::builtins::TableEntry) -> Row {
    Row {
        load: None,
        name: t.name.to_string(),
        kind: t.command_type,
        origin: t.origin,
        scope: Scope::Builtin,
        path: None,
        display_name: None,
        aliases: t.aliases.iter().map(|a| a.to_string()).collect(),
        decl: None,
        shadowed_by: None,
        dynamic: None,
        conditional: false,
    }
}

/// Who hides whom in the table: the first row with a name hides a later one of that name; the
/// row that answers to an alias or display name first hides a later one that also claims it.
enum Hides {
    Name(usize, usize),
    Alias(usize, usize, String),
}

/// The command table as it is built: its rows in lookup order, and the declared commands the
/// rows point at (`Row::decl`) with their spans.
struct Table {
    rows: Vec<Row>,
    commands: Vec<Command>,
    spans: Vec<Option<Span>>,
}

impl Table {
    /// The static table: the skills folders' and `.claude/commands` entries, the bundled
    /// workflows, the plugins' entries, the built-in commands and bundled skills, then the
    /// plugins' entries in the reserved namespace.
    fn fixed(fixed: Vec<Declared>, reserved: Vec<Declared>, dynamic: usize) -> Table {
        // Every declared command is unboxed once, into a list made to its size.
        let declared = fixed.len() + reserved.len() + dynamic;
        let mut table = Table {
            rows: Vec::with_capacity(declared + crate::builtins::table().len()),
            commands: Vec::with_capacity(declared),
            spans: Vec::with_capacity(declared),
        };
        let workflows =
            crate::builtins::table().iter().filter(|t| t.kind == crate::builtins::BuiltinKind::BundledWorkflow);
        let mut workflows_placed = false;
        for entry in fixed {
            if !workflows_placed && entry.0.origin == Origin::Plugin {
                table.rows.extend(workflows.clone().map(builtin_row));
                workflows_placed = true;
            }
            table.push(entry);
        }
        if !workflows_placed {
            table.rows.extend(workflows.map(builtin_row));
        }
        table.rows.extend(
            crate::builtins::table()
                .iter()
                .filter(|t| {
                    t.kind != crate::builtins::BuiltinKind::BundledWorkflow
                        && (t.builtin.headless || t.builtin.interactive)
                })
                .map(builtin_row),
        );
        for entry in reserved {
            table.push(entry);
        }
        table
    }

    /// Adds a declared entry: its row at the end of the table.
    fn push(&mut self, (c, span, load): Declared) {
        self.rows.push(declared_row(&c, self.commands.len(), load));
        self.commands.push(*c);
        self.spans.push(span);
    }

    /// Drops the plugin aliases Claude Code drops, each reported: the name of any entry, an
    /// alias of a non-plugin entry or of a built-in (switched off or not), a name with `:` or
    /// an MCP tool name. (Headless sessions do not count `help` and `feedback`, which they
    /// lack.)
    fn drop_taken_aliases(&mut self, b: &mut Builder) {
        let dropped = self.taken_aliases();
        let Table { rows, commands, spans } = self;
        for (i, d, alias, by) in dropped {
            report_at(
                &mut b.diagnostics,
                commands[d].path.clone(),
                &rules::shadowed_declaration::RULE,
                spans[d],
                format!("the alias `/{alias}` of `{}` is dropped: it belongs to {by}", rows[i].name),
            )
            .help(format!(
                "`/{alias}` does not reach this entry; `/{}` does. Rename the frontmatter `name` if the short form matters",
                rows[i].name
            ));
            rows[i].aliases.retain(|a| *a != alias);
            commands[d].aliases.retain(|a| *a != alias);
            commands[d].shed_aliases.push(alias);
        }
    }

    /// The plugin aliases to drop, in table order: the row, its command, the alias and what
    /// takes it. The decisions read only names and non-plugin aliases, which dropping an alias
    /// does not change, so they are all made before any is carried out.
    fn taken_aliases(&self) -> Vec<(usize, usize, String, String)> {
        let (rows, commands) = (&self.rows, &self.commands);
        let mut dropped: Vec<(usize, usize, String, String)> = Vec::new();
        let names: foldhash::HashSet<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        let foreign_aliases: foldhash::HashSet<&str> = rows
            .iter()
            .filter(|r| r.origin != Origin::Plugin)
            .flat_map(|r| r.aliases.iter().map(String::as_str))
            .collect();
        for (i, row) in rows.iter().enumerate() {
            let Some(d) = row.decl.filter(|_| row.origin == Origin::Plugin) else { continue };
            for alias in &row.aliases {
                let taker = if names.contains(alias.as_str()) {
                    rows.iter().find(|r| r.name == *alias).map(|r| what(r, commands))
                } else if foreign_aliases.contains(alias.as_str()) {
                    rows.iter()
                        .find(|r| r.origin != Origin::Plugin && r.aliases.contains(alias))
                        .map(|r| format!("{} (an alias)", what(r, commands)))
                } else if crate::names::alias_never_allowed(alias) {
                    Some("nothing: a bare alias may not hold `:` or start with `mcp__`".to_string())
                } else if crate::builtins::is_taken(alias) && alias != "help" && alias != "feedback" {
                    Some(format!("Claude Code's own `/{alias}`"))
                } else {
                    None
                };
                if let Some(by) = taker {
                    dropped.push((i, d, alias.clone(), by));
                }
            }
        }
        dropped
    }

    /// Adds the dynamic skills just before the first built-in command: deeper folders first
    /// (they win a shared name), then the table order; a nested skill whose name is taken
    /// answers to its folder-qualified name.
    fn add_dynamic(&mut self, mut dynamic: Vec<Declared>) {
        fn dynamic_key(c: &Command, load: Option<usize>) -> (std::cmp::Reverse<usize>, TableKey<'_>) {
            let depth = c.dynamic.as_deref().map_or(0, |d| d.split('/').count());
            (std::cmp::Reverse(depth), table_key(c, load))
        }
        dynamic.sort_by(|(a, _, la), (c, _, lc)| dynamic_key(a, *la).cmp(&dynamic_key(c, *lc)));
        let rows = &mut self.rows;
        let taken: foldhash::HashSet<&str> =
            if dynamic.is_empty() { Default::default() } else { rows.iter().map(|r| r.name.as_str()).collect() };
        let mut added: Vec<Row> = Vec::new();
        for (mut c, span, load) in dynamic {
            if taken.contains(c.name.as_str()) {
                if let Some(folder) = c.dynamic.clone() {
                    c.name = format!("{folder}:{}", c.name);
                }
            }
            added.push(declared_row(&c, self.commands.len(), load));
            self.commands.push(*c);
            self.spans.push(span);
        }
        let at =
            rows.iter().position(|r| crate::builtins::is_command(&r.name) && r.decl.is_none()).unwrap_or(rows.len());
        rows.splice(at..at, added);
    }

    /// Lookup (`$s`): an exact name anywhere first, then the first display name or alias. Marks
    /// each row another hides, in table order, with its edge and finding.
    fn mark_hidden(&mut self, b: &mut Builder) {
        let Table { rows, commands, spans } = self;
        for hide in hides(rows) {
            match hide {
                Hides::Name(w, l) => shadow(rows, commands, spans, w, l, b),
                Hides::Alias(w, l, alias) => alias_taken(rows, commands, spans, w, l, &alias, b),
            }
        }
    }
}

/// Who hides whom, in table order. It depends only on names, display names and aliases, which
/// marking a row hidden leaves alone: all is found before any is carried out.
fn hides(rows: &[Row]) -> Vec<Hides> {
    let mut hides: Vec<Hides> = Vec::new();
    let mut owner: foldhash::HashMap<&str, usize> =
        foldhash::HashMap::with_capacity_and_hasher(rows.len(), Default::default());
    for (i, row) in rows.iter().enumerate() {
        owner.entry(row.name.as_str()).or_insert(i);
    }
    let mut other: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    for (i, row) in rows.iter().enumerate() {
        let first = owner[row.name.as_str()];
        if first != i {
            hides.push(Hides::Name(first, i));
        }
        for alias in row.display_name.iter().chain(row.aliases.iter()) {
            let w = match owner.get(alias.as_str()) {
                Some(&w) => w,
                None => *other.entry(alias.as_str()).or_insert(i),
            };
            if w != i {
                hides.push(Hides::Alias(w, i, alias.clone()));
            }
        }
    }
    hides
}

/// The rule by which command row `w` hides row `l`.
fn command_rule(w: &Row, l: &Row, commands: &[Command]) -> Reason {
    let form = |r: &Row| r.decl.map(|i| commands[i].form.as_str());
    if w.origin == Origin::Plugin && l.origin == Origin::Plugin && w.load.is_some() && w.load != l.load {
        Reason::LoadOrder
    } else if l.dynamic.is_some() && w.dynamic.is_some() {
        Reason::DeeperWins
    } else if l.dynamic.is_some() || l.conditional {
        Reason::StaticBeforeDynamic
    } else if l.decl.is_none() {
        Reason::BeforeBuiltins
    } else if w.origin == Origin::Plugin && l.origin == Origin::Plugin && form(w) != form(l) {
        Reason::PluginCommandsFirst
    } else if w.scope != l.scope {
        Reason::ScopeOrder
    } else if form(w) != form(l) {
        Reason::SkillsBeforeCommands
    } else {
        Reason::SameScope
    }
}

fn what(row: &Row, commands: &[Command]) -> String {
    match row.decl {
        Some(i) if commands[i].form == Form::Command => format!("command `/{}`", row.name),
        Some(_) => format!("skill `/{}`", row.name),
        None if row.origin == Origin::Bundled => format!("the bundled skill `/{}`", row.name),
        None => format!("the built-in command `/{}`", row.name),
    }
}

fn shadow(rows: &mut [Row], commands: &mut [Command], spans: &[Option<Span>], w: usize, l: usize, b: &mut Builder) {
    let rule = command_rule(&rows[w], &rows[l], commands);
    let (winner, loser) = (rows[w].clone(), rows[l].clone());
    let by = reference(&winner.name, winner.origin, winner.scope, winner.path.as_deref(), rule);
    rows[l].shadowed_by = Some(Box::new(by.clone()));
    if let Some(i) = loser.decl {
        commands[i].shadowed_by = Some(Box::new(by));
    }
    if let Some(i) = winner.decl {
        commands[i].shadows.push(reference(&loser.name, loser.origin, loser.scope, loser.path.as_deref(), rule));
    }
    let from =
        b.node(GraphNodeKind::Command, &winner.name, winner.origin.as_str(), winner.scope, winner.path.as_deref());
    let to = b.node(GraphNodeKind::Command, &loser.name, loser.origin.as_str(), loser.scope, loser.path.as_deref());
    b.edge(from, to, GraphEdge::Shadows(rule));
    let plugin_pair = rule == Reason::PluginCommandsFirst;
    match (loser.decl, winner.path.as_deref()) {
        (Some(i), Some(winner_path)) => {
            let (rule_def, severity) = if rule == Reason::SameScope && loser.load == winner.load {
                (&rules::duplicate_declaration::RULE, Severity::Warning)
            } else {
                (&rules::shadowed_declaration::RULE, Severity::Warning)
            };
            let message = if rule == Reason::LoadOrder {
                format!(
                    "{} is declared again by a second loaded plugin of the same name; the first loaded answers",
                    what(&loser, commands)
                )
            } else if plugin_pair {
                format!(
                    "the plugin has both `commands/` and `skills/` entries named `{}`; the command is used",
                    loser.name
                )
            } else if rule == Reason::SameScope {
                format!("{} is declared twice in the {} scope", what(&loser, commands), loser.scope.as_str())
            } else {
                format!(
                    "{} is hidden by {} ({})",
                    what(&loser, commands),
                    what(&winner, commands),
                    winner.scope.as_str()
                )
            };
            report_at(&mut b.diagnostics, commands[i].path.clone(), rule_def, spans[i], message)
                .severity(severity)
                .help(format!("`/{}` runs `{winner_path}`: {}; rename one of them", winner.name, rule.text()));
        }
        (None, _) => {
            if let Some(i) = winner.decl {
                report_at(
                    &mut b.diagnostics,
                    commands[i].path.clone(),
                    &rules::shadowed_declaration::RULE,
                    spans[i],
                    format!("{} hides {}", what(&winner, commands), what(&loser, commands)),
                )
                .help(format!(
                    "`/{}` now runs this file instead of Claude Code's own; rename it unless that is the point",
                    winner.name
                ));
            }
        }
        _ => {}
    }
}

/// Row `w` answers to `alias` (by its name, or by a display name or alias earlier in the
/// table), so `alias` never reaches row `l`, which also claims it.
fn alias_taken(
    rows: &mut [Row],
    commands: &mut [Command],
    spans: &[Option<Span>],
    w: usize,
    l: usize,
    alias: &str,
    b: &mut Builder,
) {
    let (winner, loser) = (rows[w].clone(), rows[l].clone());
    let by_name = winner.name == alias;
    let from =
        b.node(GraphNodeKind::Command, &winner.name, winner.origin.as_str(), winner.scope, winner.path.as_deref());
    let to = b.node(GraphNodeKind::Command, &loser.name, loser.origin.as_str(), loser.scope, loser.path.as_deref());
    b.edge(from, to, GraphEdge::TakesAlias(alias.to_string()));
    let kind = if loser.display_name.as_deref() == Some(alias) { "display name" } else { "alias" };
    match (winner.decl, loser.decl) {
        (Some(i), None) => {
            commands[i].shadows.push(reference(alias, loser.origin, loser.scope, None, Reason::BeforeBuiltins));
            report_at(
                &mut b.diagnostics,
                commands[i].path.clone(),
                &rules::shadowed_declaration::RULE,
                spans[i],
                format!("{} takes `/{alias}`, an alias of {}", what(&winner, commands), what(&loser, commands)),
            )
            .help(format!("`/{alias}` now runs this file; `/{}` still reaches Claude Code's own", loser.name));
        }
        (_, Some(i)) => {
            let how = if by_name {
                "its name"
            } else if winner.display_name.as_deref() == Some(alias) {
                "its display name, earlier in the table"
            } else {
                "its alias, earlier in the table"
            };
            let both_plugins = winner.origin == Origin::Plugin && loser.origin == Origin::Plugin && !by_name;
            let help = if both_plugins {
                format!("typed `/{alias}` runs `{}` (its plugin loads first) and the Skill tool calls `{alias}` ambiguous; `/{}` always reaches this one", winner.name, loser.name)
            } else {
                format!("lookup takes an exact name anywhere in the table first, then the first display name or alias; `/{}` still reaches this one", loser.name)
            };
            report_at(
                &mut b.diagnostics,
                commands[i].path.clone(),
                &rules::shadowed_declaration::RULE,
                spans[i],
                format!(
                    "the {kind} `/{alias}` of {} reaches {} instead ({how})",
                    what(&loser, commands),
                    what(&winner, commands)
                ),
            )
            .help(help);
        }
        (None, None) => {}
    }
}
