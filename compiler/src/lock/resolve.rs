//! Resolution: which declaration each name reaches, as Claude Code decides it, recorded in
//! a petgraph graph whose edges say who shadows, removes or pre-empts whom and by which rule.
//!
//! The orders followed (each cited where it is built):
//! - **Command table** (Claude Code 2.1.332, read from its bundled `loadAllCommands`): skill
//!   folders (managed, user, project, `--add-dir`) then legacy `.claude/commands` (managed,
//!   user, project), then plugin commands, plugin skills, bundled skills, built-in commands.
//!   The v2.1.88 digest (SEMANTICS §2.5) put bundled skills first; 2.1.332 and the docs
//!   ("any local skill overrides a bundled skill", FORMATS §2.9) put them after local ones.
//!   Lookup takes the first entry whose name or alias matches (SEMANTICS §2.8).
//! - **Dynamic skills** (nested `.claude/skills/`, and skills with `paths`) go just before
//!   the first built-in command, and never duplicate a name already in the table (§2.6); a
//!   nested skill whose name is taken is reachable as `<folder>:<name>` (FORMATS §2.3, the
//!   newer behaviour).
//! - **Agents**: managed > project > user > plugin > built-in (FORMATS §6.2).
//! - **MCP servers**: `managed-mcp.json` replaces every other source; otherwise local >
//!   project > user by name, and a plugin server is dropped when a configured server has
//!   the same command or URL (FORMATS §4.1).
//! - **Permissions**: deny → ask → allow, first match decides (FORMATS §5.4); a whole-tool
//!   deny removes the tool, or every tool of a server (SEMANTICS §7.2).

use crate::builtins::BUILTINS_VERSION;
use crate::diagnostic::{report_at, Diagnostic, Severity};
use crate::model::{self, Agent, Approval, Behavior, Command, Form, Lock, McpServer, Origin, Permission, Ref, Scope};
use crate::model::{Decl, Item, PolicyEntry};
use crate::rules;
use crate::span::Span;
use capc_grammar::{parse_permission_rule, BashPattern, PermissionRule, RuleContent, ToolKind, WildcardPiece};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    pub const ALL: [Reason; 14] = [Reason::ScopeOrder, Reason::SkillsBeforeCommands, Reason::PluginCommandsFirst, Reason::BeforeBuiltins, Reason::LookupOrder, Reason::StaticBeforeDynamic, Reason::DeeperWins, Reason::SameScope, Reason::LoadOrder, Reason::AgentScopeOrder, Reason::AgentLastFile, Reason::McpScopeOrder, Reason::McpEndpoint, Reason::ManagedMcpExclusive];

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
            Reason::PluginCommandsFirst => "plugin commands load before plugin skills (command-table order of Claude Code 2.1.332)",
            Reason::BeforeBuiltins => "skills and commands sit before bundled skills and built-in commands in the table, and lookup takes the first match (Claude Code 2.1.332)",
            Reason::LookupOrder => "an exact name anywhere in the table wins first; then the first entry, in table order, whose display name or alias matches (Claude Code 2.1.332)",
            Reason::StaticBeforeDynamic => "a skill loaded at start keeps its name; a conditional or nested skill of the same name is not added",
            Reason::DeeperWins => "of two nested skills with one name, the deeper folder's wins",
            Reason::SameScope => "one scope declares the name twice; Claude Code takes the first in its load order (capc orders the files by path)",
            Reason::LoadOrder => "two plugins of one name both load (two --plugin-dir folders); the first loaded answers",
            Reason::AgentScopeOrder => "agents: managed > project > --add-dir > user > plugin > built-in (Claude Code 2.1.332)",
            Reason::AgentLastFile => "one scope defines the agent twice; Claude Code reads the files in path order and the last one wins (Claude Code 2.1.332)",
            Reason::McpScopeOrder => "MCP servers of one name: managed > local > project (unless rejected) > user > plugin; the whole entry of the winner is used",
            Reason::McpEndpoint => "a plugin's server that runs the same command or URL as a configured server, or as an earlier plugin's server with the same environment, is a duplicate and is dropped",
            Reason::ManagedMcpExclusive => "managed-mcp.json replaces every other MCP source",
        }
    }

    /// The reason a lock's `rule` field names, if capc knows it.
    pub fn from_id(id: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.id() == id)
    }
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

/// One row of the full command table, built-ins included.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    /// `prompt`, `local` or `local-jsx`.
    pub kind: &'static str,
    pub origin: Origin,
    pub scope: Scope,
    pub path: Option<String>,
    /// The name shown to people, when it differs from `name`.
    pub display_name: Option<String>,
    /// Other names it answers to (a plugin entry's bare alias; a built-in's aliases).
    pub aliases: Vec<String>,
    /// Index into `Lock::commands` for declared entries.
    pub decl: Option<usize>,
    pub shadowed_by: Option<Ref>,
    pub dynamic: Option<String>,
    /// A conditional skill, active once a file matching its `paths` is touched.
    pub conditional: bool,
    /// For a plugin's entry: its plugin's place in the load order.
    pub load: Option<usize>,
}

impl crate::names::Named for Row {
    fn name(&self) -> &str {
        &self.name
    }
    fn display_name(&self) -> Option<&str> {
        self.display_name.as_deref()
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
}

/// A tool-pool name known at compile time.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tool {
    pub name: String,
    /// `builtin`, or `mcp` for a server's `mcp__<server>__*`.
    pub origin: &'static str,
    /// The blanket deny rule that removes it.
    pub removed_by: Option<String>,
}

/// A node of the resolution graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    /// `command`, `agent`, `mcp-server`, `permission`, `plugin`, `tool`.
    pub kind: &'static str,
    pub name: String,
    pub origin: String,
    pub scope: Scope,
    pub path: Option<String>,
}

/// An edge: what it says, and the rule that decided (a `Reason`'s id, or `plugin`,
/// `blanket-deny`, `deny-ask-allow`, `normalized-name`, or the alias taken).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphEdge {
    pub kind: EdgeKind,
    pub rule: String,
}

/// Everything resolution produces.
#[derive(Debug, Clone)]
pub struct Resolution {
    /// The lock's entries (sources are added by the caller).
    pub lock: Lock,
    /// The whole command table in lookup order, built-ins included.
    pub table: Vec<Row>,
    /// Built-in tool names and `mcp__<server>__*` for each active server, with what removes them.
    pub tools: Vec<Tool>,
    pub graph: DiGraph<GraphNode, GraphEdge>,
    pub diagnostics: Vec<Diagnostic>,
    /// The folders of the plugins a session is asked to load (see `plugins::Loading::asked`).
    pub asked_plugins: std::collections::BTreeSet<String>,
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

/// Position of a declared command in the static table (Claude Code 2.1.332, `GXs`): skills
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
        // Legacy commands of every folder together, by name (2.1.332).
        (_, true) => (1, 0, true),
    };
    let tie = if legacy && c.origin != Origin::Plugin { legacy_rank(c.scope) } else { 0 };
    TableKey { group, rank, key: if by_name { &c.name } else { &c.path }, tie, path: &c.path }
}

/// A declared entry's place in the static table (see `table_key`).
#[derive(PartialEq, Eq)]
struct TableKey<'c> {
    group: u8,
    rank: usize,
    /// The name or the path, compared as Claude Code sorts names (`localeCompare`).
    key: &'c str,
    tie: u8,
    path: &'c str,
}

impl Ord for TableKey<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.group, self.rank)
            .cmp(&(other.group, other.rank))
            .then_with(|| crate::names::locale_cmp(self.key, other.key))
            .then_with(|| (self.tie, self.path).cmp(&(other.tie, other.path)))
    }
}

impl PartialOrd for TableKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
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
    fn node(&mut self, kind: &'static str, name: &str, origin: &str, scope: Scope, path: Option<&str>) -> NodeIndex {
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
    fn edge(&mut self, from: NodeIndex, to: NodeIndex, kind: EdgeKind, rule: &str) {
        self.graph.add_edge(from, to, GraphEdge { kind, rule: rule.to_string() });
    }
}

/// Resolves every declaration of a check.
/// A pin as the lock keeps it: a credential in its package, URL or command
/// (`https://user:TOKEN@host/…`, `?token=…`) replaced by its `sha256:<hex>`, the rest kept so
/// the pin still says where it comes from. The readers report the credential
/// (`literal-secret`); this makes sure no pin, whoever recorded it, carries one into the lock.
fn pin_without_secrets(mut pin: model::Pin) -> model::Pin {
    let hide = |text: &mut String| {
        if let Some(hidden) = crate::secrets::redact_words(text) {
            *text = hidden;
        }
    };
    hide(&mut pin.package);
    pin.requested.iter_mut().for_each(hide);
    pin.exact.iter_mut().for_each(hide);
    pin
}

pub fn resolve(decls: Vec<Decl>) -> Resolution {
    let mut b = Builder::new();
    let mut loading = super::plugins::load(&decls, &mut b.diagnostics);
    let approvals = approvals(&decls);
    let policy = Policy::of(&decls);
    // Every plugin folder, deepest first, to tell which one a component file belongs to.
    let roots: Vec<String> = loading.plugins.iter().map(|p| p.root.clone()).collect();
    let load_index: HashMap<&str, usize> = loading.loaded_roots().enumerate().map(|(i, r)| (r, i)).collect();
    let owner = |plugin: &Option<String>, path: &str| -> Option<String> {
        plugin.as_ref()?;
        super::plugins::owner(path, &roots).map(str::to_string)
    };

    let marketplaces: Vec<(String, String, Vec<String>)> = decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::Marketplace { name, plugins, .. } => {
                Some((d.path.clone(), name.clone(), plugins.iter().filter_map(|(_, r)| r.clone()).collect()))
            }
            _ => None,
        })
        .collect();
    // What the marketplaces of the checked folder list (not the user's, not a cache's).
    let listings: Vec<(String, String, Vec<model::decl::ListedEntry>)> = {
        let mut found: Vec<(String, String, Vec<model::decl::ListedEntry>)> = decls
            .iter()
            .filter(|d| !d.path.starts_with("~/") && !d.path.starts_with('<'))
            .filter_map(|d| match &d.item {
                Item::Marketplace { name, entries, .. } => Some((d.path.clone(), name.clone(), entries.clone())),
                _ => None,
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    };
    let listed_roots: BTreeSet<&str> =
        listings.iter().flat_map(|(_, _, entries)| entries.iter().filter_map(|e| e.root.as_deref())).collect();
    let refused: HashMap<String, String> = decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::Plugin(f) => Some((f.root.clone(), f.refused.clone()?)),
            _ => None,
        })
        .collect();
    let mut pins: Vec<model::Pin> = decls
        .iter()
        .filter_map(|d| if let Item::Pin(p) = &d.item { Some(pin_without_secrets(p.clone())) } else { None })
        .collect();
    pins.sort();
    pins.dedup();
    let mut session = Parts::default();
    let mut units: BTreeMap<String, Parts> = BTreeMap::new();
    for d in decls {
        let (plugin, path) = match &d.item {
            Item::Command(c) => (c.plugin.clone(), c.path.clone()),
            Item::Agent(a) => (a.plugin.clone(), a.path.clone()),
            Item::Server(s) => (s.plugin.clone(), s.path.clone()),
            Item::Hook(h) => (h.plugin.clone(), h.path.clone()),
            Item::Rule(_) => (None, String::new()),
            _ => continue,
        };
        match owner(&plugin, &path) {
            Some(root) => {
                let position = load_index.get(root.as_str()).copied();
                if let Some(position) = position {
                    session.push(d.clone(), Some(position));
                }
                units.entry(root).or_default().push(d, position);
            }
            None if plugin.is_some() => {}
            None => session.push(d, None),
        }
    }

    // Each plugin on its own, side by side: what it holds, and (when no session loads it) its
    // own clashes, reported in plugin order.
    let units: Vec<(Parts, bool, bool)> = loading
        .plugins
        .iter()
        .map(|p| (units.remove(&p.root).unwrap_or_default(), !p.loaded, listed_roots.contains(p.root.as_str())))
        .collect();
    let inventories: Vec<(model::Inventory, Vec<Diagnostic>, Option<Installed>)> = {
        use rayon::prelude::*;
        units.into_par_iter().map(|(unit, report, install)| inventory(unit, report, install)).collect()
    };
    let mut installed: HashMap<String, Installed> = HashMap::new();
    for (plugin, (held, mut diagnostics, alone)) in loading.plugins.iter_mut().zip(inventories) {
        plugin.inventory = held;
        b.diagnostics.append(&mut diagnostics);
        if let Some(alone) = alone {
            installed.insert(plugin.root.clone(), alone);
        }
    }
    let marketplace_plugins = marketplace_plugins(&listings, &loading.plugins, &installed, &refused);

    alias_clashes(&marketplaces, &loading.plugins, &mut b);
    let (commands, table) = command_table(session.commands, &mut b);
    let parsed: Vec<Option<PermissionRule>> =
        session.permissions.iter().map(|(p, _)| parse_permission_rule(&p.rule).ok()).collect();
    let agents = resolve_agents(session.agents, &session.permissions, &parsed, &mut b);
    let servers = resolve_servers(session.servers, &approvals, &policy, &session.permissions, &parsed, &mut b);
    let (permissions, tools) = resolve_permissions(session.permissions, &parsed, &servers, &agents, &mut b);
    let hooks = session.hooks;
    let plugins = loading.plugins;
    let asked_plugins = loading.asked;
    // Every declaration is a node, whether or not anything shadows it; so is every built-in
    // command, bundled skill and tool of the tables (views leave out the untouched ones).
    for row in table.iter().filter(|r| r.decl.is_none()) {
        b.node("command", &row.name, row.origin.as_str(), Scope::Builtin, None);
    }
    for tool in &tools {
        b.node("tool", &tool.name, tool.origin, Scope::Builtin, None);
    }
    for c in &commands {
        b.node("command", &c.name, c.origin.as_str(), c.scope, Some(&c.path));
    }
    for a in &agents {
        b.node("agent", &a.name, "agent", a.scope, Some(&a.path));
    }
    for s in &servers {
        b.node("mcp-server", &s.name, "mcp", s.scope, Some(&s.path));
    }
    for p in &permissions {
        b.node("permission", &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
    }
    // Each loaded plugin declares its components.
    let plugin_nodes: Vec<(&str, NodeIndex)> = plugins
        .iter()
        .filter(|p| p.loaded)
        .map(|p| (p.root.as_str(), b.node("plugin", &p.id, "plugin", Scope::Plugin, Some(&p.root))))
        .collect();
    let declarer = |path: &str| {
        plugin_nodes
            .iter()
            .filter(|(root, _)| super::plugins::inside(path, root))
            .max_by_key(|(r, _)| r.len())
            .map(|(_, n)| *n)
    };
    for h in &hooks {
        let name = match &h.matcher {
            Some(m) if !m.is_empty() => format!("{} {m}", h.event),
            _ => h.event.clone(),
        };
        let hook = b.node("hook", &name, &h.kind, h.scope, Some(&h.path));
        if let Some(from) = h.plugin.as_ref().and_then(|_| declarer(&h.path)) {
            b.edge(from, hook, EdgeKind::Declares, "plugin");
        }
    }
    for c in commands.iter().filter(|c| c.plugin.is_some()) {
        if let Some(from) = declarer(&c.path) {
            let to = b.node("command", &c.name, c.origin.as_str(), c.scope, Some(&c.path));
            b.edge(from, to, EdgeKind::Declares, "plugin");
        }
    }
    for a in agents.iter().filter(|a| a.plugin.is_some()) {
        if let Some(from) = declarer(&a.path) {
            let to = b.node("agent", &a.name, "agent", a.scope, Some(&a.path));
            b.edge(from, to, EdgeKind::Declares, "plugin");
        }
    }
    for s in servers.iter().filter(|s| s.plugin.is_some()) {
        if let Some(from) = declarer(&s.path) {
            let to = b.node("mcp-server", &s.name, "mcp", s.scope, Some(&s.path));
            b.edge(from, to, EdgeKind::Declares, "plugin");
        }
    }
    let lock = Lock {
        version: model::LOCK_VERSION,
        claude_code: model::CLAUDE_CODE_VERSION.to_string(),
        builtins: BUILTINS_VERSION.to_string(),
        sources: Vec::new(),
        plugins,
        commands,
        agents,
        mcp_servers: servers,
        hooks,
        permissions,
        pins,
        marketplace_plugins,
    };
    Resolution { lock, table, tools, graph: b.graph, diagnostics: b.diagnostics, asked_plugins }
}

/// Two plugins of one marketplace with the same bare alias: once both are installed, typed
/// `/x` runs whichever loads first and the Skill tool calls `x` ambiguous (2.1.332). An info:
/// each plugin works, namespaced names reach both, and it matters only to a user who
/// installs both.
fn alias_clashes(marketplaces: &[(String, String, Vec<String>)], plugins: &[model::Plugin], b: &mut Builder) {
    for (path, marketplace, roots) in marketplaces {
        let mut first: BTreeMap<&str, &str> = BTreeMap::new();
        let mut reported: BTreeSet<&str> = BTreeSet::new();
        for p in roots.iter().filter_map(|r| plugins.iter().find(|p| &p.root == r)) {
            let aliases: BTreeSet<&str> =
                p.inventory.commands.iter().flat_map(|c| c.aliases.iter().map(String::as_str)).collect();
            for alias in aliases {
                match first.get(alias) {
                    Some(other) if *other != p.name.as_str() && reported.insert(alias) => {
                        report_at(&mut b.diagnostics, path.clone(), &rules::shadowed_declaration::RULE, None, format!("plugins `{other}` and `{}` of marketplace `{marketplace}` both answer to `/{alias}`", p.name))
                            .severity(crate::diagnostic::Severity::Info)
                            .help(format!("with both installed, typed `/{alias}` runs the one that loads first and the Skill tool calls `{alias}` ambiguous; rename the frontmatter `name` of one"));
                    }
                    Some(_) => {}
                    None => {
                        first.insert(alias, &p.name);
                    }
                }
            }
        }
    }
}

/// Declarations of one set (the session, or one plugin), split by kind. A command carries its
/// plugin's place in the load order.
#[derive(Default)]
struct Parts {
    commands: Vec<(Command, Option<Span>, Option<usize>)>,
    agents: Vec<(Agent, Option<Span>)>,
    servers: Vec<(McpServer, Option<Span>, Option<usize>)>,
    hooks: Vec<model::Hook>,
    permissions: Vec<(Permission, Option<Span>)>,
}

impl Parts {
    fn push(&mut self, d: Decl, position: Option<usize>) {
        match d.item {
            Item::Command(c) => self.commands.push((*c, d.span, position)),
            Item::Agent(a) => self.agents.push((*a, d.span)),
            Item::Server(s) => self.servers.push((*s, d.span, position)),
            Item::Hook(h) => self.hooks.push(h),
            Item::Rule(r) => self.permissions.push((r, d.span)),
            _ => {}
        }
    }
}

/// What a plugin gives Claude Code when it is the only plugin installed: its entries resolved
/// against the built-ins and each other, with no setting applied.
struct Installed {
    commands: Vec<Command>,
    agents: Vec<Agent>,
    servers: Vec<McpServer>,
    hooks: Vec<model::Hook>,
}

/// The `[[marketplace_plugin]]` entries: each entry of each marketplace in the checked folder,
/// in file then entry order, with what its folder holds when it has one here.
fn marketplace_plugins(
    listings: &[(String, String, Vec<model::decl::ListedEntry>)],
    plugins: &[model::Plugin],
    installed: &HashMap<String, Installed>,
    refused: &HashMap<String, String>,
) -> Vec<model::MarketplacePlugin> {
    let mut out = Vec::new();
    for (path, marketplace, entries) in listings {
        for e in entries {
            let folder = e.root.as_deref().and_then(|r| plugins.iter().find(|p| p.root == r));
            let alone = e.root.as_deref().and_then(|r| installed.get(r));
            let mut source = e.source.clone();
            if let Some(hidden) = crate::secrets::redact_words(&source) {
                source = hidden;
            }
            out.push(model::MarketplacePlugin {
                id: format!("{}@{marketplace}", e.name),
                marketplace: path.clone(),
                source,
                root: e.root.clone(),
                strict: e.strict,
                version: folder.and_then(|p| p.version.clone()).or_else(|| e.version.clone()),
                refused: e.root.as_deref().and_then(|r| refused.get(r).cloned()),
                commands: alone.map(|a| a.commands.clone()).unwrap_or_default(),
                agents: alone.map(|a| a.agents.clone()).unwrap_or_default(),
                mcp_servers: alone.map(|a| a.servers.clone()).unwrap_or_default(),
                hooks: alone.map(|a| a.hooks.clone()).unwrap_or_default(),
            });
        }
    }
    out
}

/// One plugin's inventory, resolved as if it were loaded alone (its names, the aliases it
/// keeps against the built-ins and its own names). With `report`, its own clashes are
/// returned beside it, since no session reports them; with `install`, everything it holds,
/// as installing it alone gives it.
fn inventory(unit: Parts, report: bool, install: bool) -> (model::Inventory, Vec<Diagnostic>, Option<Installed>) {
    let mut scratch = Builder::new();
    // A plugin without skills or commands has an empty table of its own: the built-in rows
    // alone shadow nothing that is reported.
    let commands = if unit.commands.is_empty() { Vec::new() } else { command_table(unit.commands, &mut scratch).0 };
    let agents = resolve_agents(unit.agents, &[], &[], &mut scratch);
    let diagnostics = if report { std::mem::take(&mut scratch.diagnostics) } else { Vec::new() };
    let mut hooks: BTreeMap<String, usize> = BTreeMap::new();
    for h in &unit.hooks {
        *hooks.entry(h.event.clone()).or_default() += 1;
    }
    let mut servers: Vec<String> = unit.servers.iter().map(|(s, _, _)| format!("mcp__{}__", s.normalized)).collect();
    servers.sort();
    servers.dedup();
    let held = model::Inventory {
        commands: commands
            .iter()
            .filter(|c| c.shadowed_by.is_none())
            .map(|c| model::InventoryEntry {
                name: c.name.clone(),
                display_name: c.display_name.clone(),
                aliases: c.aliases.clone(),
            })
            .collect(),
        agents: agents.iter().filter(|a| a.shadowed_by.is_none()).map(|a| a.name.clone()).collect(),
        hooks: hooks.into_iter().map(|(e, n)| if n == 1 { e } else { format!("{e} ×{n}") }).collect(),
        mcp_servers: servers,
    };
    let installed = install.then(|| {
        let (none, policy) = (approvals(&[]), Policy::of(&[]));
        let servers = resolve_servers(unit.servers, &none, &policy, &[], &[], &mut scratch);
        Installed { commands, agents, servers, hooks: unit.hooks }
    });
    (held, diagnostics, installed)
}

/// The command table: static entries (with the bundled workflows between the skills folders'
/// entries and the plugins'), then dynamic skills before the first built-in command; then which
/// entry each name, display name and alias reaches.
fn command_table(declared: Vec<(Command, Option<Span>, Option<usize>)>, b: &mut Builder) -> (Vec<Command>, Vec<Row>) {
    let mut declared: Vec<(Command, Option<Span>, Option<usize>)> = declared;
    declared.sort_by(|(a, _, la), (c, _, lc)| table_key(a, *la).cmp(&table_key(c, *lc)));
    // `anthropic-skills` is Anthropic's namespace (2.1.332): a non-plugin entry that takes it
    // is dropped, a plugin's moves after the built-ins.
    let mut reserved: Vec<(Command, Option<Span>, Option<usize>)> = Vec::new();
    let mut kept = Vec::with_capacity(declared.len());
    for (c, span, load) in declared {
        let names = std::iter::once(c.name.as_str()).chain(c.display_name.as_deref());
        if names.clone().any(crate::names::is_reserved_namespace) {
            if c.origin == Origin::Plugin {
                reserved.push((c, span, load));
            } else {
                report_at(&mut b.diagnostics, c.path.clone(), &rules::reserved_name::RULE, span, format!("`{}` is in the `anthropic-skills` namespace, which Claude Code keeps for Anthropic's own skills", names.clone().find(|n| crate::names::is_reserved_namespace(n)).unwrap_or_default()))
                    .help("Claude Code drops this skill; rename it (its folder, or its frontmatter `name`)");
            }
            continue;
        }
        kept.push((c, span, load));
    }
    let (dynamic, fixed): (Vec<_>, Vec<_>) =
        kept.into_iter().partition(|(c, _, _)| c.dynamic.is_some() || !c.paths.is_empty());
    let mut spans: Vec<Option<Span>> = Vec::new();
    let mut commands: Vec<Command> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let row_of = |c: &Command, decl: usize, load: Option<usize>| Row {
        load,
        name: c.name.clone(),
        kind: "prompt",
        origin: c.origin,
        scope: c.scope,
        path: Some(c.path.clone()),
        display_name: c.display_name.clone(),
        aliases: c.aliases.clone(),
        decl: Some(decl),
        shadowed_by: None,
        dynamic: c.dynamic.clone(),
        conditional: !c.paths.is_empty(),
    };
    let builtin_row = |t: &crate::builtins::TableEntry| Row {
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
    };
    let workflows = crate::builtins::table().iter().filter(|t| t.kind == crate::builtins::BuiltinKind::BundledWorkflow);
    let mut workflows_placed = false;
    for (c, span, load) in fixed {
        if !workflows_placed && c.origin == Origin::Plugin {
            rows.extend(workflows.clone().map(builtin_row));
            workflows_placed = true;
        }
        rows.push(row_of(&c, commands.len(), load));
        commands.push(c);
        spans.push(span);
    }
    if !workflows_placed {
        rows.extend(workflows.map(builtin_row));
    }
    rows.extend(
        crate::builtins::table()
            .iter()
            .filter(|t| {
                t.kind != crate::builtins::BuiltinKind::BundledWorkflow && (t.builtin.headless || t.builtin.interactive)
            })
            .map(builtin_row),
    );
    for (c, span, load) in reserved {
        rows.push(row_of(&c, commands.len(), load));
        commands.push(c);
        spans.push(span);
    }
    // Plugin aliases Claude Code drops (`XXs`): the name of any entry, an alias of a non-plugin
    // entry or of a built-in (switched off or not), a name with `:` or an MCP tool name.
    // (Headless sessions do not count `help` and `feedback`, which they lack.)
    // The decisions read only names and non-plugin aliases, which nothing below changes; they
    // are made first and carried out after, in table order.
    let mut dropped: Vec<(usize, usize, String, String)> = Vec::new();
    {
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
                    rows.iter().find(|r| r.name == *alias).map(|r| what(r, &commands))
                } else if foreign_aliases.contains(alias.as_str()) {
                    rows.iter()
                        .find(|r| r.origin != Origin::Plugin && r.aliases.contains(alias))
                        .map(|r| format!("{} (an alias)", what(r, &commands)))
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
    }
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
    // Dynamic skills: deeper folders first (they win a shared name), then the table order.
    let mut dynamic = dynamic;
    fn dynamic_key(c: &Command, load: Option<usize>) -> (std::cmp::Reverse<usize>, TableKey<'_>) {
        let depth = c.dynamic.as_deref().map_or(0, |d| d.split('/').count());
        (std::cmp::Reverse(depth), table_key(c, load))
    }
    dynamic.sort_by(|(a, _, la), (c, _, lc)| dynamic_key(a, *la).cmp(&dynamic_key(c, *lc)));
    let taken: foldhash::HashSet<&str> =
        if dynamic.is_empty() { Default::default() } else { rows.iter().map(|r| r.name.as_str()).collect() };
    let mut added: Vec<Row> = Vec::new();
    for (mut c, span, load) in dynamic {
        if taken.contains(c.name.as_str()) {
            if let Some(folder) = c.dynamic.clone() {
                // A nested skill whose name is taken answers to its folder-qualified name.
                c.name = format!("{folder}:{}", c.name);
            }
        }
        added.push(row_of(&c, commands.len(), load));
        commands.push(c);
        spans.push(span);
    }
    let at = rows.iter().position(|r| crate::builtins::is_command(&r.name) && r.decl.is_none()).unwrap_or(rows.len());
    rows.splice(at..at, added);

    // Lookup (`$s`): an exact name anywhere first, then the first display name or alias. Who
    // hides whom depends only on names, display names and aliases, which marking a row hidden
    // leaves alone: found first, then carried out in table order.
    enum Hides {
        Name(usize, usize),
        Alias(usize, usize, String),
    }
    let mut hides: Vec<Hides> = Vec::new();
    {
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
    }
    for hide in hides {
        match hide {
            Hides::Name(w, l) => shadow(&mut rows, &mut commands, &spans, w, l, b),
            Hides::Alias(w, l, alias) => alias_taken(&mut rows, &mut commands, &spans, w, l, &alias, b),
        }
    }
    (commands, rows)
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
    rows[l].shadowed_by = Some(by.clone());
    if let Some(i) = loser.decl {
        commands[i].shadowed_by = Some(by);
    }
    if let Some(i) = winner.decl {
        commands[i].shadows.push(reference(&loser.name, loser.origin, loser.scope, loser.path.as_deref(), rule));
    }
    let from = b.node("command", &winner.name, winner.origin.as_str(), winner.scope, winner.path.as_deref());
    let to = b.node("command", &loser.name, loser.origin.as_str(), loser.scope, loser.path.as_deref());
    b.edge(from, to, EdgeKind::Shadows, rule.id());
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
    let from = b.node("command", &winner.name, winner.origin.as_str(), winner.scope, winner.path.as_deref());
    let to = b.node("command", &loser.name, loser.origin.as_str(), loser.scope, loser.path.as_deref());
    b.edge(from, to, EdgeKind::TakesAlias, &format!("/{alias}"));
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

/// Agents by name: the first in precedence order wins.
fn resolve_agents(
    mut agents: Vec<(Agent, Option<Span>)>,
    permissions: &[(Permission, Option<Span>)],
    parsed: &[Option<PermissionRule>],
    b: &mut Builder,
) -> Vec<Agent> {
    // Claude Code 2.1.332 fills one map by agent type, later wins: built-in, plugin, user,
    // `--add-dir` folders, the project's own, managed; within one folder the last file read
    // (in path order) wins.
    let rank = |s: Scope| match s {
        Scope::Managed => 0,
        Scope::Project | Scope::Local => 1,
        Scope::AddDir => 2,
        Scope::User => 3,
        Scope::Plugin => 4,
        Scope::Builtin => 5,
    };
    agents.sort_by(|(a, _), (c, _)| {
        (&a.name, rank(a.scope), std::cmp::Reverse(&a.path)).cmp(&(&c.name, rank(c.scope), std::cmp::Reverse(&c.path)))
    });
    let mut first: HashMap<String, usize> = HashMap::new();
    for i in 0..agents.len() {
        let w = *first.entry(agents[i].0.name.clone()).or_insert(i);
        if w == i {
            continue;
        }
        let same = agents[w].0.scope == agents[i].0.scope;
        let rule = if same { Reason::AgentLastFile } else { Reason::AgentScopeOrder };
        let winner = agents[w].0.clone();
        let loser = agents[i].0.clone();
        agents[i].0.shadowed_by = Some(reference(&winner.name, Origin::Agent, winner.scope, Some(&winner.path), rule));
        agents[w].0.shadows.push(reference(&loser.name, Origin::Agent, loser.scope, Some(&loser.path), rule));
        let from = b.node("agent", &winner.name, "agent", winner.scope, Some(&winner.path));
        let to = b.node("agent", &loser.name, "agent", loser.scope, Some(&loser.path));
        b.edge(from, to, EdgeKind::Shadows, rule.id());
        let (def, message) = if same {
            (
                &rules::duplicate_declaration::RULE,
                format!("agent `{}` is defined twice in the {} scope", loser.name, loser.scope.as_str()),
            )
        } else {
            (
                &rules::shadowed_declaration::RULE,
                format!("agent `{}` is hidden by the {} agent of the same name", loser.name, winner.scope.as_str()),
            )
        };
        report_at(&mut b.diagnostics, loser.path.clone(), def, agents[i].1, message).help(format!(
            "Claude Code uses `{}`: {}; rename one of them",
            winner.path,
            rule.text()
        ));
    }
    for (agent, span) in &agents {
        if agent.shadowed_by.is_none() && crate::builtins::builtin_agent(&agent.name).is_some() {
            report_at(
                &mut b.diagnostics,
                agent.path.clone(),
                &rules::shadowed_declaration::RULE,
                *span,
                format!("agent `{}` replaces Claude Code's built-in agent of that name", agent.name),
            )
            .help("every delegation to it now uses this definition; rename it unless that is the point");
            let from = b.node("agent", &agent.name, "agent", agent.scope, Some(&agent.path));
            let to = b.node("agent", &agent.name, "builtin", Scope::Builtin, None);
            b.edge(from, to, EdgeKind::Shadows, Reason::AgentScopeOrder.id());
        }
    }
    let mut out: Vec<Agent> = agents.into_iter().map(|(a, _)| a).collect();
    for agent in &mut out {
        for (i, (p, _)) in permissions.iter().enumerate() {
            let Some(rule) = parsed[i].as_ref().filter(|_| p.behavior == Behavior::Deny) else { continue };
            if let Some(RuleContent::AgentType(t)) = &rule.content {
                if *t == agent.name && agent.denied_by.is_none() {
                    agent.denied_by = Some(p.rule.clone());
                    let from = b.node("permission", &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
                    let to = b.node("agent", &agent.name, "agent", agent.scope, Some(&agent.path));
                    b.edge(from, to, EdgeKind::Removes, "blanket-deny");
                }
            }
        }
    }
    out
}

/// Project-server approval from every settings file: (enable all, enabled, disabled), and
/// the other servers turned off in this project (`disabledMcpServers`).
struct Approvals {
    enable_all: Option<bool>,
    enabled: BTreeSet<String>,
    disabled: BTreeSet<String>,
    turned_off: BTreeSet<String>,
}

fn approvals(decls: &[Decl]) -> Approvals {
    let mut found: Vec<&Item> =
        decls.iter().map(|d| &d.item).filter(|i| matches!(i, Item::McpApproval { .. })).collect();
    found.sort_by_key(|i| match i {
        Item::McpApproval { scope, .. } => scope_rank(*scope),
        _ => u8::MAX,
    });
    let mut out = Approvals {
        enable_all: None,
        enabled: BTreeSet::new(),
        disabled: BTreeSet::new(),
        turned_off: BTreeSet::new(),
    };
    for item in found {
        if let Item::McpApproval { enable_all, enabled, disabled, .. } = item {
            out.enable_all = out.enable_all.or(*enable_all);
            out.enabled.extend(enabled.iter().cloned());
            out.disabled.extend(disabled.iter().cloned());
        }
    }
    for d in decls {
        if let Item::McpToggle { disabled } = &d.item {
            out.turned_off.extend(disabled.iter().cloned());
        }
    }
    out
}

/// The MCP policy of every settings file (FORMATS §4.5): `deniedMcpServers` entries, and
/// `allowedMcpServers` — unset allows every server, `[]` none; once it has a `serverCommand`
/// entry a stdio server must match one, once it has a `serverUrl` entry a remote server must
/// match one, otherwise the name must be listed. Deny beats allow. Lists merge across files;
/// a managed `allowManagedMcpServersOnly` keeps only the managed allowlist.
struct Policy {
    allowed: Option<Vec<PolicyEntry>>,
    /// The files whose allowlist counts.
    allowed_in: BTreeSet<String>,
    denied: Vec<(PolicyEntry, String)>,
}

impl Policy {
    fn of(decls: &[Decl]) -> Policy {
        let managed_only = decls
            .iter()
            .any(|d| matches!(d.item, Item::McpPolicy { scope: Scope::Managed, managed_only: Some(true), .. }));
        let mut policy = Policy { allowed: None, allowed_in: BTreeSet::new(), denied: Vec::new() };
        for d in decls {
            let Item::McpPolicy { scope, allowed, denied, .. } = &d.item else { continue };
            policy.denied.extend(denied.iter().map(|e| (e.clone(), d.path.clone())));
            if let Some(allowed) = allowed.as_ref().filter(|_| !managed_only || *scope == Scope::Managed) {
                policy.allowed.get_or_insert_with(Vec::new).extend(allowed.iter().cloned());
                policy.allowed_in.insert(d.path.clone());
            }
        }
        policy
    }

    fn matches(entry: &PolicyEntry, s: &McpServer) -> bool {
        use PolicyEntry as E;
        match entry {
            E::Name(name) => *name == s.name,
            E::Command(argv) => {
                s.url.is_none()
                    && argv.first() == s.command.as_ref()
                    && argv.len() == s.args.len() + 1
                    && argv[1..] == s.args[..]
            }
            E::Url(pattern) => s.url.as_deref().is_some_and(|url| glob_match(pattern, url)),
        }
    }

    /// Why the policy keeps `s` from loading, if it does.
    fn blocks(&self, s: &McpServer) -> Option<String> {
        use PolicyEntry as E;
        if let Some((entry, path)) = self.denied.iter().find(|(e, _)| Policy::matches(e, s)) {
            return Some(format!("deniedMcpServers {entry} ({path})"));
        }
        let allowed = self.allowed.as_ref()?;
        let remote = s.url.is_some();
        let by_command = allowed.iter().any(|e| matches!(e, E::Command(_)));
        let by_url = allowed.iter().any(|e| matches!(e, E::Url(_)));
        // Which kind of entry the server must match, and what to say when none does.
        let (needed, kind): (&str, fn(&E) -> bool) = match (remote, by_command, by_url) {
            (false, true, _) => {
                ("no serverCommand entry of allowedMcpServers matches its command", |e| matches!(e, E::Command(_)))
            }
            (true, _, true) => ("no serverUrl entry of allowedMcpServers matches its URL", |e| matches!(e, E::Url(_))),
            _ => ("allowedMcpServers does not list its name", |e| matches!(e, E::Name(_))),
        };
        if allowed.iter().any(|e| kind(e) && Policy::matches(e, s)) {
            return None;
        }
        let files = self.allowed_in.iter().map(String::as_str).collect::<Vec<_>>().join(", ");
        Some(if allowed.is_empty() {
            format!("allowedMcpServers is empty ({files})")
        } else {
            format!("{needed} ({files})")
        })
    }
}

/// What a server connects to. `${CLAUDE_PLUGIN_ROOT}` differs per plugin, so two plugins
/// running `${CLAUDE_PLUGIN_ROOT}/server` are different servers.
fn endpoint(s: &McpServer) -> String {
    let text = match &s.url {
        Some(url) => url.clone(),
        None => format!("{} {}", s.command.clone().unwrap_or_default(), s.args.join(" ")),
    };
    match &s.plugin {
        Some(plugin) => text.replace("${CLAUDE_PLUGIN_ROOT}", &format!("<plugin {plugin}>")),
        None => text,
    }
}

/// What a server runs together with its environment: two plugins' servers that differ only in
/// `env` are two servers.
fn signature(s: &McpServer) -> String {
    let env: Vec<String> = s.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{} {}", endpoint(s), env.join(" "))
}

/// `*` in a pattern matches any run of characters.
fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

fn resolve_servers(
    servers: Vec<(McpServer, Option<Span>, Option<usize>)>,
    approvals: &Approvals,
    policy: &Policy,
    permissions: &[(Permission, Option<Span>)],
    parsed: &[Option<PermissionRule>],
    b: &mut Builder,
) -> Vec<McpServer> {
    let rank = |s: Scope| match s {
        Scope::Managed => 0,
        Scope::Local => 1,
        Scope::Project => 2,
        Scope::User => 3,
        _ => 4,
    };
    // Plugins' servers in the plugins' load order; the others by name.
    let mut servers = servers;
    servers.sort_by(|(a, _, la), (c, _, lc)| {
        (rank(a.scope), la, &a.name, &a.path).cmp(&(rank(c.scope), lc, &c.name, &c.path))
    });
    let mut servers: Vec<(McpServer, Option<Span>)> = servers.into_iter().map(|(s, span, _)| (s, span)).collect();
    // Names Claude Code 2.1.332 keeps for its own servers: such an entry never loads.
    // (The reader reports them: `reserved-name`.)
    for (s, _) in servers.iter_mut() {
        if s.plugin.is_none() && crate::builtins::is_reserved_mcp_name(&s.name) {
            s.blocked_by = Some(format!("`{}` is a name Claude Code keeps for its own servers", s.name));
        }
    }
    // `managed-mcp.json` replaces every other source; managed settings' `managedMcpServers`
    // load beside the others.
    let exclusive = |m: &McpServer| m.scope == Scope::Managed && m.path.ends_with("managed-mcp.json");
    let managed = servers.iter().any(|(s, _)| exclusive(s));
    // A project server the settings reject does not hide another of its name (2.1.332, `NE`).
    let rejected = |m: &McpServer| m.scope == Scope::Project && approvals.disabled.contains(&m.name);
    let mut by_name: HashMap<String, usize> = HashMap::new();
    // What a configured server runs (without its environment), and what a plugin's runs (with
    // it): a plugin's duplicate of the one, or of an earlier plugin's, is dropped (`iSs`).
    let mut configured: HashMap<String, usize> = HashMap::new();
    let mut plugin_signatures: HashMap<String, usize> = HashMap::new();
    for i in 0..servers.len() {
        let s = servers[i].0.clone();
        if s.blocked_by.is_some() {
            continue;
        }
        let winner = if managed && !exclusive(&s) {
            servers.iter().position(|(m, _)| exclusive(m)).map(|w| (w, Reason::ManagedMcpExclusive))
        } else if s.scope == Scope::Plugin {
            configured
                .get(&endpoint(&s))
                .or_else(|| plugin_signatures.get(&signature(&s)))
                .map(|w| (*w, Reason::McpEndpoint))
        } else if rejected(&s) {
            None
        } else {
            by_name.get(&s.name).map(|w| (*w, Reason::McpScopeOrder))
        };
        match winner {
            Some((w, rule)) => {
                let win = servers[w].0.clone();
                servers[i].0.shadowed_by = Some(reference(&win.name, Origin::Mcp, win.scope, Some(&win.path), rule));
                servers[w].0.shadows.push(reference(&s.name, Origin::Mcp, s.scope, Some(&s.path), rule));
                let from = b.node("mcp-server", &win.name, "mcp", win.scope, Some(&win.path));
                let to = b.node("mcp-server", &s.name, "mcp", s.scope, Some(&s.path));
                b.edge(from, to, EdgeKind::Shadows, rule.id());
                let message = match rule {
                    Reason::ManagedMcpExclusive => format!(
                        "MCP server `{}` is never started: `{}` replaces every other MCP source",
                        s.name, win.path
                    ),
                    Reason::McpEndpoint => format!(
                        "MCP server `{}` runs the same {} as `{}` ({}) and is dropped",
                        s.name,
                        if s.url.is_some() { "URL" } else { "command" },
                        win.name,
                        win.path
                    ),
                    _ => format!(
                        "MCP server `{}` is hidden by the {} server of the same name ({})",
                        s.name,
                        win.scope.as_str(),
                        win.path
                    ),
                };
                report_at(
                    &mut b.diagnostics,
                    s.path.clone(),
                    &rules::shadowed_declaration::RULE,
                    servers[i].1,
                    message,
                )
                .help(rule.text());
            }
            None if rejected(&s) => {}
            None if s.scope == Scope::Plugin => {
                plugin_signatures.entry(signature(&s)).or_insert(i);
            }
            None => {
                by_name.entry(s.name.clone()).or_insert(i);
                configured.entry(endpoint(&s)).or_insert(i);
            }
        }
    }
    // Names that collide once normalized, and names that hold the `__` separator.
    let mut by_normalized: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..servers.len() {
        let s = &servers[i].0;
        if s.shadowed_by.is_some() {
            continue;
        }
        let raw = s.name.rsplit(':').next().unwrap_or(&s.name);
        if raw.contains("__") {
            report_at(&mut b.diagnostics, s.path.clone(), &rules::mcp_server_name_clash::RULE, servers[i].1, format!("MCP server name `{raw}` contains `__`, the separator of tool names"))
                .severity(Severity::Warning)
                .help(format!("Claude Code splits `mcp__{}__tool` at the first `__`, so rules and hooks for this server match the wrong thing; rename it (`{}`)", s.normalized, raw.replace("__", "_")));
        }
        match by_normalized.get(&s.normalized) {
            Some(&w) if servers[w].0.name != s.name => {
                let other = servers[w].0.clone();
                report_at(&mut b.diagnostics, s.path.clone(), &rules::mcp_server_name_clash::RULE, servers[i].1, format!("MCP servers `{}` and `{}` both name their tools `mcp__{}__…`", other.name, s.name, s.normalized))
                    .help(format!("`{}` declares `{}`; one server's tools replace the other's and no rule can tell them apart; rename one", other.path, other.name));
                let from = b.node("mcp-server", &other.name, "mcp", other.scope, Some(&other.path));
                let to = b.node("mcp-server", &s.name, "mcp", s.scope, Some(&s.path));
                b.edge(from, to, EdgeKind::Clashes, "normalized-name");
            }
            Some(_) => {}
            None => {
                by_normalized.insert(s.normalized.clone(), i);
            }
        }
    }
    let mut out: Vec<McpServer> = servers.into_iter().map(|(s, _)| s).collect();
    for s in &mut out {
        if s.scope == Scope::Project {
            let bare = &s.name;
            s.approval = Some(if approvals.disabled.contains(bare) {
                Approval::Disabled
            } else if approvals.enable_all == Some(true) || approvals.enabled.contains(bare) {
                Approval::Approved
            } else {
                Approval::Pending
            });
        } else if approvals.turned_off.contains(&s.name) {
            // Turned off with `/mcp` in this project (FORMATS §4.4).
            s.approval = Some(Approval::Disabled);
        }
        if s.blocked_by.is_none() {
            s.blocked_by = policy.blocks(s);
        }
        for (i, (p, _)) in permissions.iter().enumerate() {
            let Some(rule) = parsed[i].as_ref() else { continue };
            if p.behavior != Behavior::Deny || rule.content.is_some() || s.denied_by.is_some() {
                continue;
            }
            let hit = match &rule.tool.kind {
                ToolKind::Mcp { server, tool } => {
                    tool.as_deref().is_none_or(|t| t == "*") && glob_match(server, &s.normalized)
                }
                ToolKind::Glob => glob_match(&rule.tool.canonical, &format!("mcp__{}__", s.normalized)),
                _ => false,
            };
            if hit {
                s.denied_by = Some(p.rule.clone());
                let from = b.node("permission", &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
                let to = b.node("mcp-server", &s.name, "mcp", s.scope, Some(&s.path));
                b.edge(from, to, EdgeKind::Removes, "blanket-deny");
            }
        }
    }
    // By name, and within a name in precedence order (the winner first).
    out.sort_by(|a, c| (&a.name, rank(a.scope), &a.path).cmp(&(&c.name, rank(c.scope), &c.path)));
    out
}

/// The literal text a shell pattern starts with, and whether it matches only that text.
fn shell_prefix(p: &BashPattern) -> (String, bool) {
    match p {
        BashPattern::Exact(s) => (s.clone(), true),
        BashPattern::Prefix(s) => (s.clone(), false),
        BashPattern::Wildcard(pieces) => match pieces.first() {
            Some(WildcardPiece::Literal(s)) => (s.clone(), false),
            _ => (String::new(), false),
        },
    }
}

/// Whether `deny` (or ask) matches every call `allow` matches.
pub(crate) fn covers(deny: &PermissionRule, allow: &PermissionRule) -> bool {
    let same_tool = deny.tool.canonical == allow.tool.canonical;
    match (&deny.tool.kind, &allow.tool.kind) {
        (ToolKind::Glob, _) if deny.content.is_none() => {
            return glob_match(&deny.tool.canonical, &allow.tool.canonical);
        }
        (ToolKind::Mcp { server: ds, tool: dt }, ToolKind::Mcp { server: as_, tool: at }) if deny.content.is_none() => {
            let server = glob_match(ds, as_);
            return server
                && match (dt.as_deref(), at.as_deref()) {
                    (None | Some("*"), _) => true,
                    (Some(d), Some(a)) => glob_match(d, a),
                    (Some(_), None) => false,
                };
        }
        _ => {}
    }
    if !same_tool {
        return false;
    }
    match (&deny.content, &allow.content) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(d), Some(a)) if d == a => true,
        (Some(RuleContent::Bash(d)), Some(RuleContent::Bash(a))) => {
            let (dp, d_exact) = shell_prefix(d);
            let (ap, _) = shell_prefix(a);
            let only_star = matches!(d, BashPattern::Wildcard(p) if p.len() == 2 && matches!(p[1], WildcardPiece::Star))
                || matches!(d, BashPattern::Prefix(_));
            // `Bash(git *)` / `Bash(git:*)` cover every command that starts with `git `.
            !d_exact
                && only_star
                && (ap.starts_with(&dp)
                    && (dp.ends_with(' ') || ap.len() == dp.len() || ap[dp.len()..].starts_with(' ')))
        }
        (Some(RuleContent::Domain { host: d }), Some(RuleContent::Domain { host: a })) => d == "*" || d == a,
        _ => false,
    }
}

fn resolve_permissions(
    rules_in: Vec<(Permission, Option<Span>)>,
    parsed: &[Option<PermissionRule>],
    servers: &[McpServer],
    agents: &[Agent],
    b: &mut Builder,
) -> (Vec<Permission>, Vec<Tool>) {
    let mut out: Vec<Permission> = rules_in.iter().map(|(p, _)| p.clone()).collect();
    // Blanket denies: what they remove from the pool.
    let mut tools: Vec<Tool> = capc_grammar::BUILTIN_TOOLS
        .iter()
        .map(|t| Tool { name: t.to_string(), origin: "builtin", removed_by: None })
        .collect();
    tools.sort();
    for s in servers
        .iter()
        .filter(|s| s.shadowed_by.is_none() && s.blocked_by.is_none() && s.approval != Some(Approval::Disabled))
    {
        tools.push(Tool { name: format!("mcp__{}__*", s.normalized), origin: "mcp", removed_by: s.denied_by.clone() });
    }
    for (i, p) in out.iter_mut().enumerate() {
        let Some(rule) = parsed[i].as_ref() else { continue };
        if p.behavior != Behavior::Deny {
            continue;
        }
        if rule.content.is_some() {
            // `Agent(name)` removes that agent (marked on the agent by `resolve_agents`).
            p.removes.extend(
                agents
                    .iter()
                    .filter(|a| a.denied_by.as_deref() == Some(p.rule.as_str()))
                    .map(|a| format!("Agent({})", a.name)),
            );
            continue;
        }
        let from = b.node("permission", &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
        match &rule.tool.kind {
            ToolKind::Builtin | ToolKind::Glob => {
                for tool in tools.iter_mut().filter(|t| t.origin == "builtin") {
                    if glob_match(&rule.tool.canonical, &tool.name) {
                        if tool.removed_by.is_none() {
                            tool.removed_by = Some(p.rule.clone());
                        }
                        p.removes.push(tool.name.clone());
                        let to = b.node("tool", &tool.name, "builtin", Scope::Builtin, None);
                        b.edge(from, to, EdgeKind::Removes, "blanket-deny");
                    }
                }
                for s in servers.iter().filter(|s| s.denied_by.as_deref() == Some(p.rule.as_str())) {
                    p.removes.push(format!("mcp__{}", s.normalized));
                }
            }
            ToolKind::Mcp { .. } => {
                for s in servers.iter().filter(|s| s.denied_by.as_deref() == Some(p.rule.as_str())) {
                    p.removes.push(format!("mcp__{}", s.normalized));
                }
            }
            ToolKind::Unknown => {}
        }
        for a in agents.iter().filter(|a| a.denied_by.as_deref() == Some(p.rule.as_str())) {
            p.removes.push(format!("Agent({})", a.name));
        }
        p.removes.sort();
        p.removes.dedup();
    }
    // Allow rules that a deny or ask rule always decides first.
    for i in 0..out.len() {
        if out[i].behavior != Behavior::Allow {
            continue;
        }
        let Some(allow) = parsed[i].as_ref() else { continue };
        let blocker = (0..out.len())
            .filter(|&j| out[j].behavior == Behavior::Deny)
            .chain((0..out.len()).filter(|&j| out[j].behavior == Behavior::Ask))
            .find(|&j| parsed[j].as_ref().is_some_and(|d| covers(d, allow)));
        if let Some(j) = blocker {
            let (deny, allow_rule) = (out[j].clone(), out[i].clone());
            out[i].pre_empted_by = Some(format!("{} {} ({})", deny.behavior.as_str(), deny.rule, deny.path));
            let from = b.node("permission", &deny.rule, deny.behavior.as_str(), deny.scope, Some(&deny.path));
            let to = b.node(
                "permission",
                &allow_rule.rule,
                allow_rule.behavior.as_str(),
                allow_rule.scope,
                Some(&allow_rule.path),
            );
            b.edge(from, to, EdgeKind::PreEmpts, "deny-ask-allow");
            report_at(&mut b.diagnostics, allow_rule.path.clone(), &rules::pre_empted_allow_rule::RULE, rules_in[i].1, format!("allow rule `{}` never decides: {} rule `{}` matches every call it matches", allow_rule.rule, deny.behavior.as_str(), deny.rule))
                .help(format!("`{}` ({}) is checked first (deny → ask → allow, whatever the scope); remove this rule or narrow the {} rule", deny.rule, deny.path, deny.behavior.as_str()));
        }
    }
    (out, tools)
}
