//! What each plugin holds and gives once installed: the declarations of one set (the session
//! or a plugin) split by kind, a plugin's inventory and its entries resolved as if it were the
//! only plugin installed, the `[[marketplace_plugin]]` entries, and the names selected by
//! `outputStyle` and `agent`.

use super::*;

/// Two plugins of one marketplace with the same bare alias: once both are installed, typed
/// `/x` runs whichever loads first and the Skill tool calls `x` ambiguous. An info:
/// each plugin works, namespaced names reach both, and it matters only to a user who
/// installs both.
pub(super) fn alias_clashes(
    marketplaces: &[(String, String, Vec<String>)],
    plugins: &[model::Plugin],
    b: &mut Builder,
) {
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
pub(super) struct Parts {
    /// Boxed as declared: the table is sorted and split by moving pointers, not commands.
    pub(super) commands: Vec<super::commands::Declared>,
    pub(super) agents: Vec<(Agent, Option<Span>)>,
    pub(super) servers: Vec<(McpServer, Option<Span>, Option<usize>)>,
    pub(super) hooks: Vec<model::Hook>,
    pub(super) permissions: Vec<(Permission, Option<Span>)>,
    /// Rows of what runs, for `crate::runs::inventory`.
    pub(super) runs: Vec<model::Run>,
    /// Each with its plugin's place in the load order (`usize::MAX`: none).
    pub(super) monitors: Vec<(usize, model::Monitor)>,
    pub(super) lsp_servers: Vec<(usize, model::LspServer)>,
    pub(super) bins: Vec<(usize, model::PluginBin)>,
    pub(super) styles: Vec<(usize, model::OutputStyle)>,
    pub(super) parts: Vec<(model::PartKind, String)>,
}

impl Parts {
    pub(super) fn push(&mut self, d: Decl, position: Option<usize>) {
        let at = position.unwrap_or(usize::MAX);
        match d.item {
            Item::Command(c) => self.commands.push((c, d.span, position)),
            Item::Agent(a) => self.agents.push((*a, d.span)),
            Item::Server(s) => self.servers.push((*s, d.span, position)),
            Item::Hook(h) => self.hooks.push(*h),
            Item::Rule(r) => self.permissions.push((*r, d.span)),
            Item::Run(r) => self.runs.push(*r),
            Item::Monitor(m) => self.monitors.push((at, *m)),
            Item::LspServer(l) => self.lsp_servers.push((at, *l)),
            Item::PluginBin(b) => self.bins.push((at, *b)),
            Item::OutputStyle(o) => self.styles.push((at, *o)),
            Item::PluginPart(part) => self.parts.push((part.kind, part.name)),
            _ => {}
        }
    }
}

/// What a plugin gives Claude Code when it is the only plugin installed: its entries resolved
/// against the built-ins and each other, with no setting applied.
#[derive(Clone, Default)]
pub(super) struct Installed {
    pub(super) commands: Vec<Command>,
    pub(super) agents: Vec<Agent>,
    pub(super) servers: Vec<McpServer>,
    pub(super) hooks: Vec<model::Hook>,
    pub(super) monitors: Vec<model::Monitor>,
    pub(super) lsp_servers: Vec<model::LspServer>,
    pub(super) bins: Vec<model::PluginBin>,
    pub(super) styles: Vec<model::OutputStyle>,
}

/// The `[[marketplace_plugin]]` entries: each entry of each marketplace in the checked folder,
/// in file then entry order, with what its folder holds when it has one here.
pub(super) fn marketplace_plugins(
    listings: &[(String, String, Vec<model::decl::ListedEntry>)],
    plugins: &[model::Plugin],
    mut installed: HashMap<String, Installed>,
    refused: &HashMap<String, String>,
) -> Vec<model::MarketplacePlugin> {
    // How many entries name each folder: the last one takes its installed entries, the others
    // copy them.
    let mut naming: HashMap<&str, usize> = HashMap::new();
    for e in listings.iter().flat_map(|(_, _, entries)| entries) {
        if let Some(root) = e.root.as_deref() {
            *naming.entry(root).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for (path, marketplace, entries) in listings {
        for e in entries {
            let folder = e.root.as_deref().and_then(|r| plugins.iter().find(|p| p.root == r));
            let alone = e.root.as_deref().and_then(|r| {
                let left = naming.get_mut(r)?;
                *left -= 1;
                if *left == 0 {
                    installed.remove(r)
                } else {
                    installed.get(r).cloned()
                }
            });
            let alone = alone.unwrap_or_default();
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
                commands: alone.commands,
                agents: alone.agents,
                mcp_servers: alone.servers,
                hooks: alone.hooks,
                monitors: alone.monitors,
                lsp_servers: alone.lsp_servers,
                plugin_bins: alone.bins,
                output_styles: alone.styles,
            });
        }
    }
    out
}

/// One plugin's inventory, resolved as if it were loaded alone (its names, the aliases it
/// keeps against the built-ins and its own names). With `report`, its own clashes are
/// returned beside it, since no session reports them; with `install`, everything it holds,
/// as installing it alone gives it.
pub(super) fn inventory(
    unit: Parts,
    report: bool,
    install: bool,
) -> (model::Inventory, Vec<Diagnostic>, Option<Installed>) {
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
                display_name: c.display_name.as_deref().map(str::to_string),
                aliases: c.aliases.to_vec(),
            })
            .collect(),
        agents: agents.iter().filter(|a| a.shadowed_by.is_none()).map(|a| a.name.clone()).collect(),
        hooks: hooks.into_iter().map(|(e, n)| if n == 1 { e } else { format!("{e} ×{n}") }).collect(),
        mcp_servers: servers,
        lsp_servers: sorted(unit.lsp_servers.iter().map(|(_, l)| l.name.clone())),
        monitors: sorted(unit.monitors.iter().map(|(_, m)| m.name.clone())),
        output_styles: sorted(unit.styles.iter().map(|(_, o)| o.name.clone())),
        themes: sorted(part_names(&unit.parts, model::PartKind::Theme)),
        workflows: sorted(part_names(&unit.parts, model::PartKind::Workflow)),
        bin: sorted(unit.bins.iter().map(|(_, b)| b.name.clone())),
        modules: sorted(part_names(&unit.parts, model::PartKind::Module)),
    };
    let installed = install.then(|| {
        let (none, policy) = (approvals(&[]), ServerPolicy::of(&[]));
        let servers = resolve_servers(unit.servers, &none, &policy, &[], &[], &mut Vec::new(), &mut scratch);
        // In the orders the lock keeps a loaded plugin's in: file and position, or name.
        let mut monitors = unit.monitors;
        monitors.sort_by(|a, b| (&a.1.path, a.1.line).cmp(&(&b.1.path, b.1.line)));
        let mut lsp_servers = unit.lsp_servers;
        lsp_servers.sort_by(|a, b| (&a.1.path, a.1.line).cmp(&(&b.1.path, b.1.line)));
        let mut bins = unit.bins;
        bins.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        let mut styles = unit.styles;
        styles.sort_by(|a, b| (&a.1.name, &a.1.path).cmp(&(&b.1.name, &b.1.path)));
        Installed {
            commands,
            agents,
            servers,
            hooks: unit.hooks,
            monitors: monitors.into_iter().map(|(_, m)| m).collect(),
            lsp_servers: lsp_servers.into_iter().map(|(_, l)| l).collect(),
            bins: bins.into_iter().map(|(_, b)| b).collect(),
            styles: styles.into_iter().map(|(_, o)| o).collect(),
        }
    });
    (held, diagnostics, installed)
}

/// Output styles Claude Code has built in (`default` is none at all).
pub(super) const BUILTIN_OUTPUT_STYLES: &[&str] = &["default", "Proactive", "Concise", "Explanatory", "Learning"];

/// `outputStyle` and `agent` settings naming nothing this check reads. Claude Code looks the
/// style up by its exact name and, finding none, runs with no style, without a word; it takes
/// the agent whose type is the name or ends in `:name` (a plugin's), and otherwise warns and
/// runs the main thread as usual (measured in its code).
pub(super) fn selected_names(
    selects: &[(String, Option<Span>, &'static str, String)],
    agents: &[Agent],
    styles: &[model::OutputStyle],
    b: &mut Builder,
) {
    for (path, span, key, value) in selects {
        let (found, what, help) = match *key {
            "outputStyle" => (
                BUILTIN_OUTPUT_STYLES.contains(&value.as_str()) || styles.iter().any(|s| s.name == *value),
                "output style",
                "Claude Code then runs with no output style, without a word; name one of `.claude/output-styles/`, a loaded plugin's (`plugin:name`) or a built-in one (`Explanatory`, `Learning`), or check with `--user-dir` for one of `~/.claude/output-styles/`",
            ),
            _ => (
                crate::builtins::builtin_agent(value).is_some()
                    || agents.iter().any(|a| a.name == *value || a.name.ends_with(&format!(":{value}"))),
                "agent",
                "Claude Code warns and runs the main thread as usual; name an agent of `.claude/agents/`, a loaded plugin's or a built-in one, or check with `--user-dir` for one of `~/.claude/agents/`",
            ),
        };
        if !found {
            report_at(
                &mut b.diagnostics,
                path.clone(),
                &rules::unknown_selected_name::RULE,
                *span,
                format!("`{key}` names `{value}`, but no {what} of that name loads here"),
            )
            .help(help);
        }
    }
}

pub(super) fn sorted(names: impl Iterator<Item = String>) -> Vec<String> {
    let mut names: Vec<String> = names.collect();
    names.sort();
    names.dedup();
    names
}

pub(super) fn part_names(
    parts: &[(model::PartKind, String)],
    kind: model::PartKind,
) -> impl Iterator<Item = String> + '_ {
    parts.iter().filter(move |(k, _)| *k == kind).map(|(_, n)| n.clone())
}
