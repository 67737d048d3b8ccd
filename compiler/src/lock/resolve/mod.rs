//! Resolution: which declaration each name reaches, as Claude Code decides it, recorded in
//! a petgraph graph whose edges say who shadows, removes or pre-empts whom and by which rule.
//!
//! The orders followed (each cited where it is built):
//! - **Command table** (Claude Code's `loadAllCommands`): skill folders (managed, user,
//!   project, `--add-dir`) then legacy `.claude/commands` (managed, user, project), then
//!   plugin commands, plugin skills, bundled skills, built-in commands.
//!   Older versions (2.1.88) put bundled skills first; Claude Code and the skills docs ("any
//!   local skill overrides a bundled skill") put them after local ones.
//!   Lookup takes the first entry whose name or alias matches.
//! - **Dynamic skills** (nested `.claude/skills/`, and skills with `paths`) go just before
//!   the first built-in command, and never duplicate a name already in the table; a
//!   nested skill whose name is taken is reachable as `<folder>:<name>` (the newer
//!   behaviour).
//! - **Agents**: managed > project > user > plugin > built-in.
//! - **MCP servers**: `managed-mcp.json` replaces every other source; otherwise local >
//!   project > user by name, and a plugin server is dropped when a configured server has
//!   the same command or URL.
//! - **Permissions**: deny → ask → allow, first match decides; a whole-tool
//!   deny removes the tool, or every tool of a server.

use crate::builtins::CommandType;
use crate::diagnostic::{report_at, Diagnostic};
use crate::model::{Agent, Command, Decl, Item, Lock, McpServer, Origin, Permission, Ref, Scope};
use crate::span::Span;
use crate::{model, rules};
use agents::resolve_agents;
use capc_grammar::{parse_permission_rule, PermissionRule};
use commands::command_table;
use gather::{give_plugin_settings, plugin_inventories, split, Gathered};
use mcp::{approvals, resolve_servers, ServerPolicy};
use parts::{alias_clashes, marketplace_plugins, selected_names, Parts};
use permissions::resolve_permissions;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet, HashMap};

mod agents;
mod commands;
mod gather;
mod mcp;
mod parts;
mod permissions;
mod policy;

pub(crate) use permissions::covers;

/// Why one declaration wins over another. Its id is what the lock's `rule` fields and `capc
/// explain` show; its text is the rule in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    ScopeOrder,
    SkillsBeforeCommands,
    PluginCommandsFirst,
    BeforeBuiltins,
    LookupOrder,
    StaticBeforeDynamic,
    DeeperWins,
    SameScope,
    LoadOrder,
    AgentScopeOrder,
    AgentLastFile,
    McpScopeOrder,
    McpEndpoint,
    ManagedMcpExclusive,
}

impl Reason {
    pub const ALL: [Reason; 14] = [
        Reason::ScopeOrder,
        Reason::SkillsBeforeCommands,
        Reason::PluginCommandsFirst,
        Reason::BeforeBuiltins,
        Reason::LookupOrder,
        Reason::StaticBeforeDynamic,
        Reason::DeeperWins,
        Reason::SameScope,
        Reason::LoadOrder,
        Reason::AgentScopeOrder,
        Reason::AgentLastFile,
        Reason::McpScopeOrder,
        Reason::McpEndpoint,
        Reason::ManagedMcpExclusive,
    ];

    /// The id written in the lock (`scope-order`, …).
    pub fn id(self) -> &'static str {
        match self {
            Reason::ScopeOrder => "scope-order",
            Reason::SkillsBeforeCommands => "skills-before-commands",
            Reason::PluginCommandsFirst => "plugin-commands-first",
            Reason::BeforeBuiltins => "before-builtins",
            Reason::LookupOrder => "lookup-order",
            Reason::StaticBeforeDynamic => "static-before-dynamic",
            Reason::DeeperWins => "deeper-wins",
            Reason::SameScope => "same-scope",
            Reason::LoadOrder => "load-order",
            Reason::AgentScopeOrder => "agent-scope-order",
            Reason::AgentLastFile => "agent-last-file",
            Reason::McpScopeOrder => "mcp-scope-order",
            Reason::McpEndpoint => "mcp-endpoint",
            Reason::ManagedMcpExclusive => "managed-mcp-exclusive",
        }
    }

    /// The rule in words, as `capc explain` and the diagnostics' help say it.
    pub fn text(self) -> &'static str {
        match self {
            Reason::ScopeOrder => "skills folders load managed first, then user, then project, then --add-dir folders; lookup takes the first entry with the name",
            Reason::SkillsBeforeCommands => "skills folders load before .claude/commands, so a skill beats a command of the same name",
            Reason::PluginCommandsFirst => "plugin commands load before plugin skills (command-table order of Claude Code)",
            Reason::BeforeBuiltins => "skills and commands sit before bundled skills and built-in commands in the table, and lookup takes the first match (Claude Code)",
            Reason::LookupOrder => "an exact name anywhere in the table wins first; then the first entry, in table order, whose display name or alias matches (Claude Code)",
            Reason::StaticBeforeDynamic => "a skill loaded at start keeps its name; a conditional or nested skill of the same name is not added",
            Reason::DeeperWins => "of two nested skills with one name, the deeper folder's wins",
            Reason::SameScope => "one scope declares the name twice; Claude Code takes the first in its load order (capc orders the files by path)",
            Reason::LoadOrder => "two plugins of one name both load (two --plugin-dir folders); the first loaded answers",
            Reason::AgentScopeOrder => "agents: managed > project > --add-dir > user > plugin > built-in (Claude Code)",
            Reason::AgentLastFile => "one scope defines the agent twice; Claude Code reads the files in path order and the last one wins (Claude Code)",
            Reason::McpScopeOrder => "MCP servers of one name: managed > local > project (unless rejected) > user > plugin; the whole entry of the winner is used",
            Reason::McpEndpoint => "a plugin's server that runs the same command or URL as a configured server, or as an earlier plugin's server with the same environment, is a duplicate and is dropped",
            Reason::ManagedMcpExclusive => "managed-mcp.json replaces every other MCP source",
        }
    }

    /// The reason a lock's `rule` field names, if capc knows it.
    pub(crate) fn from_id(id: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.id() == id)
    }
}

/// The words of a lock's `rule` id (`capc explain`, a session's `why`). Every id resolution
/// writes is a `Reason`; a lock is data, so an id this capc does not know (a lock written by
/// another capc, or edited) is said to be unknown rather than refused; the id itself is shown
/// beside these words.
pub fn rule_text(id: &str) -> &'static str {
    Reason::from_id(id).map_or("a rule this capc does not know", Reason::text)
}

/// What an edge of the resolution graph says: who shadows, removes or pre-empts whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// The source hides the target: a lookup of the name reaches the source.
    Shadows,
    /// A blanket deny rule removes the target (a tool, a server's tools, an agent).
    Removes,
    /// A deny or ask rule decides every call an allow rule would.
    PreEmpts,
    /// A plugin declares the target.
    Declares,
    /// The source answers to an alias or display name the target also claims.
    TakesAlias,
    /// Two servers whose names normalize to the same tool prefix.
    Clashes,
}

impl EdgeKind {
    /// The word `capc graph` writes (`shadows`, `pre-empts`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Shadows => "shadows",
            EdgeKind::Removes => "removes",
            EdgeKind::PreEmpts => "pre-empts",
            EdgeKind::Declares => "declares",
            EdgeKind::TakesAlias => "takes-alias",
            EdgeKind::Clashes => "clashes",
        }
    }
}

/// What a node of the resolution graph stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphNodeKind {
    Command,
    Agent,
    McpServer,
    Permission,
    Plugin,
    Tool,
    Hook,
}

impl GraphNodeKind {
    /// The word `capc graph` writes (`command`, `mcp-server`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            GraphNodeKind::Command => "command",
            GraphNodeKind::Agent => "agent",
            GraphNodeKind::McpServer => "mcp-server",
            GraphNodeKind::Permission => "permission",
            GraphNodeKind::Plugin => "plugin",
            GraphNodeKind::Tool => "tool",
            GraphNodeKind::Hook => "hook",
        }
    }
}

/// One row of the full command table, built-ins included.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub kind: CommandType,
    pub origin: Origin,
    pub scope: Scope,
    pub path: Option<String>,
    /// The name shown to people, when it differs from `name`.
    pub display_name: Option<String>,
    /// Other names it answers to (a plugin entry's bare alias; a built-in's aliases).
    pub aliases: Vec<String>,
    /// Index into `Lock::commands` for declared entries (a check keeping only the table,
    /// `check::Keeps::Table`, keeps no commands in its lock).
    pub decl: Option<usize>,
    pub shadowed_by: Option<Box<Ref>>,
    pub dynamic: Option<String>,
    /// A conditional skill, active once a file matching its `paths` is touched.
    pub conditional: bool,
    /// For a plugin's entry: its plugin's place in the load order.
    pub load: Option<usize>,
}

crate::names::named_by_fields!(Row);

/// A tool-pool name known at compile time.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tool {
    pub name: String,
    /// `Builtin`, or `Mcp` for a server's `mcp__<server>__*`.
    pub origin: Origin,
    /// The blanket deny rule that removes it.
    pub(crate) removed_by: Option<String>,
}

/// A node of the resolution graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    pub kind: GraphNodeKind,
    pub name: String,
    pub origin: String,
    pub scope: Scope,
    pub path: Option<String>,
}

/// An edge: what it says, with what decided it where more than one thing can (the `Reason`
/// a declaration wins by, the alias taken).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphEdge {
    Shadows(Reason),
    Removes,
    PreEmpts,
    Declares,
    /// The alias or display name, without its `/`.
    TakesAlias(String),
    Clashes,
}

impl GraphEdge {
    pub fn kind(&self) -> EdgeKind {
        match self {
            GraphEdge::Shadows(_) => EdgeKind::Shadows,
            GraphEdge::Removes => EdgeKind::Removes,
            GraphEdge::PreEmpts => EdgeKind::PreEmpts,
            GraphEdge::Declares => EdgeKind::Declares,
            GraphEdge::TakesAlias(_) => EdgeKind::TakesAlias,
            GraphEdge::Clashes => EdgeKind::Clashes,
        }
    }

    /// The rule that decided, as `capc graph` writes it: a `Reason`'s id, `blanket-deny`,
    /// `deny-ask-allow`, `plugin`, the alias taken (`/name`) or `normalized-name`.
    pub fn rule(&self) -> std::borrow::Cow<'static, str> {
        match self {
            GraphEdge::Shadows(reason) => reason.id().into(),
            GraphEdge::Removes => "blanket-deny".into(),
            GraphEdge::PreEmpts => "deny-ask-allow".into(),
            GraphEdge::Declares => "plugin".into(),
            GraphEdge::TakesAlias(alias) => format!("/{alias}").into(),
            GraphEdge::Clashes => "normalized-name".into(),
        }
    }
}

/// Everything resolution produces.
#[derive(Debug, Clone)]
pub struct Resolution {
    /// The lock's entries (sources are added by the caller); shared, so a session's view of
    /// a check (`capc lsp`'s measures) borrows it instead of copying it.
    pub lock: std::sync::Arc<Lock>,
    /// The whole command table in lookup order, built-ins included.
    pub table: Vec<Row>,
    /// Built-in tool names and `mcp__<server>__*` for each active server, with what removes them.
    pub tools: Vec<Tool>,
    pub graph: DiGraph<GraphNode, GraphEdge>,
    pub diagnostics: Vec<Diagnostic>,
    /// The folders of the plugins a session is asked to load (see `plugins::Loading::asked`).
    pub(crate) asked_plugins: std::collections::BTreeSet<String>,
}

fn scope_rank(scope: Scope) -> u8 {
    match scope {
        Scope::Managed => 0,
        Scope::User => 1,
        Scope::Project | Scope::Local => 2,
        Scope::AddDir => 3,
        Scope::Plugin => 4,
        Scope::Builtin => 5,
    }
}

fn reference(name: &str, origin: Origin, scope: Scope, path: Option<&str>, rule: Reason) -> Ref {
    Ref { name: name.to_string(), origin, scope, path: path.map(str::to_string), rule: rule.id().to_string() }
}

struct Builder {
    graph: DiGraph<GraphNode, GraphEdge>,
    /// Nodes by a hash of (kind, name, path or origin); equal hashes are told apart by the
    /// node's own fields, so looking a node up allocates nothing.
    nodes: HashMap<u64, Vec<NodeIndex>>,
    hasher: foldhash::fast::RandomState,
    diagnostics: Vec<Diagnostic>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            graph: DiGraph::new(),
            nodes: HashMap::new(),
            hasher: foldhash::fast::RandomState::default(),
            diagnostics: Vec::new(),
        }
    }
    fn node(&mut self, kind: GraphNodeKind, name: &str, origin: &str, scope: Scope, path: Option<&str>) -> NodeIndex {
        use std::hash::BuildHasher;
        let key = self.hasher.hash_one((kind, name, path.unwrap_or(origin), path.is_some()));
        let same = |n: &GraphNode| {
            n.kind == kind
                && n.name == name
                && match path {
                    Some(p) => n.path.as_deref() == Some(p),
                    None => n.path.is_none() && n.origin == origin,
                }
        };
        if let Some(found) = self.nodes.get(&key).and_then(|c| c.iter().find(|i| same(&self.graph[**i]))) {
            return *found;
        }
        let i = self.graph.add_node(GraphNode {
            kind,
            name: name.to_string(),
            origin: origin.to_string(),
            scope,
            path: path.map(str::to_string),
        });
        self.nodes.entry(key).or_default().push(i);
        i
    }
    fn edge(&mut self, from: NodeIndex, to: NodeIndex, edge: GraphEdge) {
        self.graph.add_edge(from, to, edge);
    }

    /// Adds a node for every declaration of the lock, whether or not anything shadows it, and
    /// for every built-in command, bundled skill and tool of the tables (views leave out the
    /// untouched ones).
    fn add_nodes(&mut self, table: &[Row], tools: &[Tool], lock: &Lock) {
        for row in table.iter().filter(|r| r.decl.is_none()) {
            self.node(GraphNodeKind::Command, &row.name, row.origin.as_str(), Scope::Builtin, None);
        }
        for tool in tools {
            self.node(GraphNodeKind::Tool, &tool.name, tool.origin.as_str(), Scope::Builtin, None);
        }
        for c in &lock.commands {
            self.node(GraphNodeKind::Command, &c.name, c.origin.as_str(), c.scope, Some(&c.path));
        }
        for a in &lock.agents {
            self.node(GraphNodeKind::Agent, &a.name, "agent", a.scope, Some(&a.path));
        }
        for s in &lock.mcp_servers {
            self.node(GraphNodeKind::McpServer, &s.name, "mcp", s.scope, Some(&s.path));
        }
        for p in &lock.permissions {
            self.node(GraphNodeKind::Permission, &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
        }
    }

    /// Adds a node for each loaded plugin, with an edge to each component it declares, and a
    /// node for every hook.
    fn add_declared(&mut self, lock: &Lock) {
        let plugin_nodes: Vec<(&str, NodeIndex)> = lock
            .plugins
            .iter()
            .filter(|p| p.loaded)
            .map(|p| (p.root.as_str(), self.node(GraphNodeKind::Plugin, &p.id, "plugin", Scope::Plugin, Some(&p.root))))
            .collect();
        let declarer = |path: &str| {
            plugin_nodes
                .iter()
                .filter(|(root, _)| super::plugins::inside(path, root))
                .max_by_key(|(r, _)| r.len())
                .map(|(_, n)| *n)
        };
        for h in &lock.hooks {
            let name = match &h.matcher {
                Some(m) if !m.is_empty() => format!("{} {m}", h.event),
                _ => h.event.clone(),
            };
            let hook = self.node(GraphNodeKind::Hook, &name, &h.kind, h.scope, Some(&h.path));
            if let Some(from) = h.plugin.as_ref().and_then(|_| declarer(&h.path)) {
                self.edge(from, hook, GraphEdge::Declares);
            }
        }
        for c in lock.commands.iter().filter(|c| c.plugin.is_some()) {
            if let Some(from) = declarer(&c.path) {
                let to = self.node(GraphNodeKind::Command, &c.name, c.origin.as_str(), c.scope, Some(&c.path));
                self.edge(from, to, GraphEdge::Declares);
            }
        }
        for a in lock.agents.iter().filter(|a| a.plugin.is_some()) {
            if let Some(from) = declarer(&a.path) {
                let to = self.node(GraphNodeKind::Agent, &a.name, "agent", a.scope, Some(&a.path));
                self.edge(from, to, GraphEdge::Declares);
            }
        }
        for s in lock.mcp_servers.iter().filter(|s| s.plugin.is_some()) {
            if let Some(from) = declarer(&s.path) {
                let to = self.node(GraphNodeKind::McpServer, &s.name, "mcp", s.scope, Some(&s.path));
                self.edge(from, to, GraphEdge::Declares);
            }
        }
    }
}

/// Resolves every declaration of a check: which plugins load, what each plugin holds, what the
/// policy switches remove, then the session's commands, agents, MCP servers and permissions,
/// the graph of who shadows whom, and the lock. Without `for_lock` (a check that writes no
/// lock), the plugins a marketplace here lists are not each resolved as installed alone: the
/// lock's `[[marketplace_plugin]]` entries then hold no components, which no finding reads.
pub fn resolve(decls: Vec<Decl>, for_lock: bool) -> Resolution {
    let mut b = Builder::new();
    let (refused_marketplaces, marketplaces_removed) = policy::marketplaces(&decls);
    let mut loading = super::plugins::load(&decls, &refused_marketplaces, &mut b.diagnostics);
    let approvals = approvals(&decls);
    let policy = ServerPolicy::of(&decls);
    let switches = policy::Switches::of(&decls);
    // Every plugin folder, to tell which one a component file belongs to; each loaded one's
    // place in the load order.
    let roots: Vec<String> = loading.plugins.iter().map(|p| p.root.clone()).collect();
    let positions: HashMap<String, usize> =
        loading.loaded_roots().enumerate().map(|(i, r)| (r.to_string(), i)).collect();
    let gathered = Gathered::of(&decls, &roots);
    let (mut session, units) = split(decls, &roots, &positions);
    let listed = if for_lock { gathered.listed_roots() } else { Default::default() };
    let installed = plugin_inventories(&mut loading.plugins, units, &listed, &mut b.diagnostics);
    session.runs.extend(give_plugin_settings(&mut loading.plugins, gathered.plugin_settings, &positions));
    let marketplace_plugins = marketplace_plugins(&gathered.listings, &loading.plugins, installed, &gathered.refused);

    alias_clashes(&gathered.marketplaces, &loading.plugins, &mut b);
    let mut removed_by_policy =
        policy::apply(&switches, &mut session, &loading.plugins, &gathered.managed_marketplaces);
    removed_by_policy.extend(marketplaces_removed);
    let Parts { commands, agents, servers, hooks, permissions, runs, monitors, lsp_servers, bins, styles, parts: _ } =
        session;
    let (commands, table) = command_table(commands, &mut b);
    let parsed: Vec<Option<PermissionRule>> =
        permissions.iter().map(|(p, _)| parse_permission_rule(&p.rule).ok()).collect();
    let agents = resolve_agents(agents, &permissions, &parsed, &mut b);
    let servers = resolve_servers(servers, &approvals, &policy, &permissions, &parsed, &mut removed_by_policy, &mut b);
    removed_by_policy.sort();
    removed_by_policy.dedup();
    let (permissions, tools) = resolve_permissions(permissions, &parsed, &servers, &agents, &mut b);
    // What the loaded plugins run and offer beyond commands, agents, hooks and servers, in
    // plugin load order (the session's parts carry it), then file and position.
    let monitors = in_order(monitors, |a, b| (a.0, &a.1.path, a.1.line).cmp(&(b.0, &b.1.path, b.1.line)));
    let lsp_servers = in_order(lsp_servers, |a, b| (a.0, &a.1.path, a.1.line).cmp(&(b.0, &b.1.path, b.1.line)));
    let plugin_bins = in_order(bins, |a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
    let output_styles =
        in_order(styles, |a, b| (a.1.scope, a.0, &a.1.name, &a.1.path).cmp(&(b.1.scope, b.0, &b.1.name, &b.1.path)));
    selected_names(&gathered.selects, &agents, &output_styles, &mut b);
    let mut lock = Lock {
        version: model::LOCK_VERSION,
        claude_code: model::CLAUDE_CODE_VERSION.to_string(),
        builtins: model::CLAUDE_CODE_VERSION.to_string(),
        sources: Vec::new(),
        plugins: loading.plugins,
        commands,
        agents,
        mcp_servers: servers,
        hooks,
        permissions,
        pins: gathered.pins,
        marketplace_plugins,
        mcp_tools: Vec::new(),
        mcp_failed: Vec::new(),
        settings_not_loaded: gathered.settings_not_loaded,
        instructions: Vec::new(),
        runs: Vec::new(),
        settings: gathered.settings,
        policy: switches.into_lock(),
        removed_by_policy,
        monitors,
        lsp_servers,
        plugin_bins,
        output_styles,
    };
    b.add_nodes(&table, &tools, &lock);
    b.add_declared(&lock);
    lock.runs = crate::runs::inventory(&lock, &runs);
    Resolution {
        lock: std::sync::Arc::new(lock),
        table,
        tools,
        graph: b.graph,
        diagnostics: b.diagnostics,
        asked_plugins: loading.asked,
    }
}

/// The entries, each kept with its plugin's place in the load order, sorted by `order` and
/// without that place.
fn in_order<T>(
    mut entries: Vec<(usize, T)>,
    order: impl FnMut(&(usize, T), &(usize, T)) -> std::cmp::Ordering,
) -> Vec<T> {
    entries.sort_by(order);
    entries.into_iter().map(|(_, entry)| entry).collect()
}

/// The lock of a folder that declares nothing (the built-in entries only).
pub fn empty_lock() -> Lock {
    std::sync::Arc::unwrap_or_clone(resolve(Vec::new(), true).lock)
}

#[cfg(test)]
mod tests {
    use super::Reason;

    #[test]
    fn every_reason_reads_back_from_its_id_and_has_words() {
        for reason in Reason::ALL {
            assert_eq!(Reason::from_id(reason.id()), Some(reason));
            assert!(!reason.text().is_empty(), "{reason:?}");
        }
        assert_eq!(Reason::from_id("not-a-reason"), None);
        assert_eq!(super::rule_text("not-a-reason"), "a rule this capc does not know");
        assert_eq!(super::rule_text(Reason::ALL[0].id()), Reason::ALL[0].text());
    }
}
