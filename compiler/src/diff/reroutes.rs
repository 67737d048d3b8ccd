//! Names that reach a different entry than before: a command's name, display name or alias
//! looked up in each side's command table, and the agent and MCP server each name reaches.

use super::pairing::entry;
use super::{Change, Class, FieldChange, Section};
use crate::model::{Command, Lock};

use std::collections::{BTreeSet, HashMap};

/// An entry of a rebuilt command table.
struct Row<'a> {
    name: &'a str,
    display_name: Option<&'a str>,
    aliases: Vec<&'a str>,
    /// `None` for a built-in.
    command: Option<&'a Command>,
    origin: &'static str,
}

impl Row<'_> {
    fn id(&self) -> (&str, &str, &str) {
        match self.command {
            Some(c) => (&c.name, c.scope.as_str(), &c.path),
            None => (self.name, "builtin", ""),
        }
    }

    /// The entry, and how `typed` reached it when not by its name.
    fn describe(&self, typed: &str, how: &str) -> String {
        let how = if how == "name" { String::new() } else { format!(" through its {how} `/{typed}`") };
        match self.command {
            Some(c) => format!("{} `/{}` ({}, {}){how}", c.origin.as_str(), c.name, c.scope.as_str(), c.path),
            None => format!("{} `/{}`{how}", self.origin, self.name),
        }
    }
}

/// The command table of a lock as lookup sees it at the start of a session: its static
/// entries in order, then the built-ins; and the first row for each exact name and each
/// display name or alias.
struct Table<'a> {
    rows: Vec<Row<'a>>,
    exact: HashMap<&'a str, usize>,
    labels: HashMap<&'a str, (usize, &'static str)>,
}

impl<'a> Table<'a> {
    fn of(lock: &'a Lock) -> Table<'a> {
        let mut rows: Vec<Row<'a>> = lock
            .commands
            .iter()
            .filter(|c| c.dynamic.is_none() && c.paths.is_empty())
            .map(|c| Row {
                name: &c.name,
                display_name: c.display_name.as_deref(),
                aliases: c.aliases.iter().map(String::as_str).collect(),
                command: Some(c),
                origin: "",
            })
            .collect();
        rows.extend(crate::builtins::table().iter().map(|b| Row {
            name: b.name,
            display_name: None,
            aliases: b.aliases.to_vec(),
            command: None,
            origin: b.origin.as_str(),
        }));
        let mut exact = HashMap::with_capacity(rows.len());
        let mut labels = HashMap::new();
        for (i, row) in rows.iter().enumerate() {
            exact.entry(row.name).or_insert(i);
            if let Some(d) = row.display_name {
                labels.entry(d).or_insert((i, "display name"));
            }
            for a in &row.aliases {
                labels.entry(*a).or_insert((i, "alias"));
            }
        }
        Table { rows, exact, labels }
    }

    fn lookup(&self, typed: &str) -> Option<(&Row<'a>, &'static str)> {
        if let Some(&i) = self.exact.get(typed) {
            return Some((&self.rows[i], "name"));
        }
        self.labels.get(typed).map(|&(i, how)| (&self.rows[i], how))
    }
}

/// Names (commands, agents, MCP servers) that reach a different entry than before.
pub(super) fn reroutes(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let (before, after) = (Table::of(old), Table::of(new));
    let mut typed: BTreeSet<&str> = BTreeSet::new();
    for table in [&before, &after] {
        typed.extend(table.exact.keys().copied());
        typed.extend(table.labels.keys().copied());
    }
    for name in typed {
        let (Some((o, o_how)), Some((n, n_how))) = (before.lookup(name), after.lookup(name)) else { continue };
        if o.id() == n.id() {
            continue;
        }
        let files: Vec<&str> = [n.command, o.command].iter().flatten().map(|c| c.path.as_str()).collect();
        let mut change = entry(Section::Command, Class::Rerouted, format!("/{name}"), None, &files);
        change.fields.push(FieldChange {
            field: "reaches".to_string(),
            old: Some(o.describe(name, o_how)),
            new: Some(n.describe(name, n_how)),
        });
        if n.command.is_some() {
            change.escalations.push(format!(
                "`/{name}` now runs {} instead of {}",
                n.describe(name, n_how),
                o.describe(name, o_how)
            ));
        }
        out.push(change);
    }

    // Agents: the definition each name reaches (a built-in when nothing declares it).
    let agent_winner = |lock: &Lock, name: &str| -> Option<Reached> {
        match lock.agents.iter().find(|a| a.name == name && a.shadowed_by.is_none()) {
            Some(a) => Some((format!("{} agent `{}` ({})", a.scope.as_str(), a.name, a.path), a.path.clone())),
            None => (crate::builtins::builtin_agents().iter().any(|a| a.name == name))
                .then(|| (format!("built-in agent `{name}`"), String::new())),
        }
    };
    let mut agent_names: BTreeSet<&str> = old.agents.iter().chain(&new.agents).map(|a| a.name.as_str()).collect();
    agent_names.extend(crate::builtins::builtin_agents().iter().map(|a| a.name));
    let agents = Winners { section: Section::Agent, names: agent_names, winner: &agent_winner };
    agents.rerouted(old, new, out, |name, o, n| {
        (!n.1.is_empty()).then(|| format!("agent `{name}` now runs the {} instead of the {}", n.0, o.0))
    });

    // MCP servers: the entry each name reaches.
    let server_winner = |lock: &Lock, name: &str| -> Option<Reached> {
        lock.mcp_servers
            .iter()
            .find(|s| s.name == name && s.shadowed_by.is_none())
            .map(|s| (format!("{} server `{}` ({})", s.scope.as_str(), s.name, s.path), s.path.clone()))
    };
    let server_names: BTreeSet<&str> =
        old.mcp_servers.iter().chain(&new.mcp_servers).map(|s| s.name.as_str()).collect();
    let servers = Winners { section: Section::McpServer, names: server_names, winner: &server_winner };
    servers.rerouted(old, new, out, |name, o, n| {
        Some(format!("`{name}` now connects to the {} instead of the {}", n.0, o.0))
    });
}

/// What a name reaches: the entry described, and its file (empty for a built-in).
type Reached = (String, String);

/// The names of one section (agents, MCP servers) and the entry each reaches in a lock.
struct Winners<'n, F: Fn(&Lock, &str) -> Option<Reached>> {
    section: Section,
    names: BTreeSet<&'n str>,
    winner: &'n F,
}

impl<F: Fn(&Lock, &str) -> Option<Reached>> Winners<'_, F> {
    /// A change for each name that reaches an entry in both locks, a different one now, with the
    /// escalation `escalation` gives for it (`None` when the entry reached now is no wider, as a
    /// built-in agent).
    fn rerouted(
        &self,
        old: &Lock,
        new: &Lock,
        out: &mut Vec<Change>,
        escalation: impl Fn(&str, &Reached, &Reached) -> Option<String>,
    ) {
        for &name in &self.names {
            let (Some(o), Some(n)) = ((self.winner)(old, name), (self.winner)(new, name)) else { continue };
            if o == n {
                continue;
            }
            let mut change = entry(self.section, Class::Rerouted, name.to_string(), None, &[&n.1, &o.1]);
            change.escalations.extend(escalation(name, &o, &n));
            change.fields.push(FieldChange { field: "reaches".to_string(), old: Some(o.0), new: Some(n.0) });
            out.push(change);
        }
    }
}
