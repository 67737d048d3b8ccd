//! The read stage's Markdown readers: skills and commands, agents, and the names Claude Code
//! gives them.

use super::super::Claim;
use super::reader::{At, Made};
use super::runs::exact_spans;
use crate::decl::markdown::MarkdownKind;
use crate::decl::{self, file_name, markdown, parent, FileCx, FileKind, FileScope};
use crate::diagnostic::Sink;
use crate::model::Item;
use crate::node::Node;

/// A skill or a command: its frontmatter checked, its name, its declaration.
pub(super) fn read_command(sink: &mut Sink<'_>, cx: &FileCx<'_>, at: &At<'_>, made: &mut Made) {
    let At { rel, claim, path, text, .. } = *at;
    let kind = if claim.kind == FileKind::Skill { MarkdownKind::Skill } else { MarkdownKind::Command };
    let fields = markdown::check(sink, cx, text, kind);
    let own = match kind {
        MarkdownKind::Skill => skill_name(rel, claim, fields.as_ref()),
        _ => command_name(rel, claim),
    };
    // A `synced` skill folder is skipped (`reserved-name`): nothing of it is declared.
    let skipped = kind == MarkdownKind::Skill && markdown::is_synced_folder(cx);
    if let (Some(placed), false) = (cx.placement, skipped) {
        // What was loaded from a commands folder (a file or a SKILL.md folder) sits with
        // the commands in the table; a skills folder's with the skills.
        let form = if claim.base.is_some() { MarkdownKind::Command } else { MarkdownKind::Skill };
        let mut decl = crate::decl::declare::command(sink, own.clone(), form, fields.as_ref(), text, placed, path);
        if let Item::Command(command) = &mut decl.item {
            other_names(command, claim, kind, fields.as_ref());
            made.own_runs = fields.clone().map(|f| (f, format!("/{}", command.name), false));
        }
        made.decls.push(decl);
    }
    made.name = Some(own);
}

/// An agent: its frontmatter checked (and its own servers' packages), its name, its
/// declaration.
pub(super) fn read_agent(sink: &mut Sink<'_>, cx: &FileCx<'_>, at: &At<'_>, made: &mut Made) {
    let At { rel, claim, path, text, .. } = *at;
    let fields = markdown::check(sink, cx, text, MarkdownKind::Agent);
    // An agent's own servers start when it runs: their packages are weighed as
    // `.mcp.json`'s (Claude Code ignores them in a plugin's agent).
    if let Some(f) = fields.as_ref().filter(|f| f.get("mcpServers").is_some()) {
        if claim.owner.scope != FileScope::Plugin {
            let f = exact_spans(f, text);
            for entry in f.get("mcpServers").and_then(Node::as_array).unwrap_or_default() {
                if let Some([(name, config)]) = entry.as_object() {
                    decl::mcp::check_provenance(sink, cx, &name.name, config);
                }
            }
        }
    }
    let own = agent_name(rel, claim, fields.as_ref());
    if let Some(placed) = cx.placement {
        let agent = crate::decl::declare::agent(sink, own.clone(), fields.as_ref(), placed, path);
        if agent.is_some() {
            made.own_runs = fields.map(|f| (f, format!("agent {own}"), true));
        }
        made.decls.extend(agent);
    }
    made.name = Some(own);
}

/// `plugin:` in front of a plugin component's name.
fn namespaced(claim: &Claim, name: &str) -> String {
    match &claim.owner.plugin_name {
        Some(plugin) => format!("{plugin}:{name}"),
        None => name.to_string(),
    }
}

/// The path of `rel` below `base`, without `.md`, its folders joined with `:`.
fn relative_name(base: &str, rel: &str) -> String {
    let below = rel.strip_prefix(base).unwrap_or(rel).trim_start_matches('/');
    below.strip_suffix(".md").unwrap_or(below).replace('/', ":")
}

fn frontmatter_name(fields: Option<&Node>) -> Option<&str> {
    fields?.get("name")?.as_str().map(str::trim).filter(|n| !n.is_empty())
}

/// A skill is named after its folder, as Claude Code names it: in a plugin, `<plugin>:<folder>`
/// with every character outside `[A-Za-z0-9_-]` made `-`; a plugin that is one root
/// `SKILL.md` takes its frontmatter `name`, else the plugin folder's name, sanitized alike; a
/// `SKILL.md` inside a commands folder takes the folder's path (`a:b`). The frontmatter `name`
/// of any other skill is its display name, not its name (see `other_names`).
fn skill_name(rel: &str, claim: &Claim, fields: Option<&Node>) -> String {
    let dir = parent(rel);
    if let Some(base) = &claim.base {
        return namespaced(claim, &relative_name(base, dir));
    }
    match (&claim.owner.plugin_name, &claim.owner.plugin_root) {
        (Some(plugin), Some(root)) if &**root == dir => {
            let folder = if dir.is_empty() { &**plugin } else { file_name(dir) };
            crate::names::plugin_root_skill(plugin, frontmatter_name(fields), folder)
        }
        (Some(plugin), _) => crate::names::plugin_skill(plugin, file_name(dir)),
        (None, _) => file_name(dir).to_string(),
    }
}

/// The display name and aliases Claude Code gives a skill or command besides its name:
/// a plugin's skills and commands take their frontmatter `name` as display name and, without
/// a `:`, as a bare alias; a skills folder's skill takes it as display name only;
/// legacy `.claude/commands` files ignore it.
fn other_names(command: &mut crate::model::Command, claim: &Claim, kind: MarkdownKind, fields: Option<&Node>) {
    let given = fields.and_then(|f| f.get("name")).and_then(scalar_text);
    if claim.owner.plugin_name.is_some() {
        let names = crate::names::plugin_names(&command.name, given.as_deref().map(str::trim));
        command.display_name = names.display_name.map(Into::into);
        command.aliases = names.aliases.into();
        command.shed_aliases = names.shed.into();
    } else if kind == MarkdownKind::Skill && claim.base.is_none() {
        command.display_name = crate::names::frontmatter_name(given.as_deref().map(str::trim))
            .filter(|n| *n != command.name)
            .map(Into::into);
    }
}

/// A scalar frontmatter value as text (Claude Code reads `name: 42` as `"42"`).
fn scalar_text(node: &Node) -> Option<String> {
    use crate::node::NodeKind;
    match &node.kind {
        NodeKind::String(s) => Some(s.clone()),
        NodeKind::Number(n) => Some(n.clone()),
        NodeKind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A command is named after its path below the commands folder: `frontend/component.md`
/// is `frontend:component` (the loader's rule since Claude Code 1.0.45; the docs still say
/// the subfolder does not count).
fn command_name(rel: &str, claim: &Claim) -> String {
    namespaced(claim, &relative_name(claim.base.as_deref().unwrap_or(parent(rel)), rel))
}

/// An agent is named by its frontmatter `name`, else its file name; a plugin's agents add
/// their subfolders (`review:security`).
fn agent_name(rel: &str, claim: &Claim, fields: Option<&Node>) -> String {
    let stem = file_name(rel).strip_suffix(".md").unwrap_or(file_name(rel));
    let own = frontmatter_name(fields).unwrap_or(stem);
    if claim.owner.plugin_name.is_none() {
        return own.to_string();
    }
    let folders = claim.base.as_deref().map(|base| relative_name(base, parent(rel))).unwrap_or_default();
    if folders.is_empty() {
        namespaced(claim, own)
    } else {
        namespaced(claim, &format!("{folders}:{own}"))
    }
}
