//! What Claude Code loads whatever ignore files say: the files of the folder it starts in, and
//! below a plugin or marketplace the components it names ([`LoadedPaths`]).

use super::file::{read_regular, Links};
use super::{WalkCx, MAX_FILE_BYTES};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What Claude Code loads from the folder it starts in, whatever ignore files say: it lists
/// `.claude/` with ripgrep's `--no-ignore` and reads `.mcp.json` and the settings directly.
/// These are never left out, by ignore files or by `exclude`: an entry committed in
/// `.gitignore` or capc.toml would otherwise hide a `Bash(*)` rule, a hook or an MCP server from
/// `check`, `lock` and `diff` while Claude Code still loads them. A plugin's components are
/// read the same way ([`PLUGIN_LOADS`], [`LoadedPaths`]).
pub(super) fn loaded_whatever_is_ignored(rel: &str) -> bool {
    let top = rel.split('/').next().unwrap_or(rel);
    // The instruction files Claude Code reads by their names: CLAUDE.local.md is each user's
    // own and git-ignored by design.
    let instructions = matches!(rel, "CLAUDE.md" | "CLAUDE.local.md" | "AGENTS.md");
    matches!(top, ".claude" | ".claude-plugin") || rel == ".mcp.json" || instructions
}

/// What Claude Code looks for at a plugin's root (Claude Code's loader: the manifest
/// folder, the component folders, the root files and `bin/`, which joins the session's PATH):
/// read whatever ignore files and `exclude` say, with everything below them. The rest of a
/// plugin's folder (its README, scripts, backups, build output) is not loaded, so ignore files
/// and `exclude` apply to it as anywhere else.
pub(crate) const PLUGIN_LOADS: &[&str] = &[
    ".claude-plugin",
    "commands",
    "agents",
    "skills",
    "hooks",
    "output-styles",
    "themes",
    "monitors",
    "workflows",
    "bin",
    "SKILL.md",
    ".mcp.json",
    ".lsp.json",
    "settings.json",
];

/// The fields of plugin.json (and of its `experimental` object, and of a marketplace entry)
/// whose values are paths of components, loaded as well.
const PATH_FIELDS: &[&str] = &[
    "skills",
    "commands",
    "agents",
    "workflows",
    "hooks",
    "mcpServers",
    "outputStyles",
    "lspServers",
    "themes",
    "monitors",
];

/// What Claude Code loads below the plugins and marketplaces above a folder: each plugin's
/// [`PLUGIN_LOADS`], the component paths its plugin.json names, and for a marketplace the same
/// for each plugin folder an entry's local `source` names (with the paths the entry itself
/// declares). Paths are relative to the walked root; each is loaded with everything below it.
pub(super) struct LoadedPaths {
    pub(super) paths: BTreeSet<String>,
    pub(super) parent: Option<Arc<LoadedPaths>>,
}

/// Whether Claude Code loads an entry whatever ignore files say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exempt {
    No,
    /// Loaded, with everything below it.
    Whole,
    /// A folder on the way to a loaded path: entered, its other entries left to the rules.
    Leads,
}

impl LoadedPaths {
    pub(super) fn find(mut at: Option<&LoadedPaths>, rel: &str) -> Exempt {
        if at.is_none() {
            return Exempt::No;
        }
        let below = format!("{rel}/");
        let mut leads = false;
        while let Some(node) = at {
            if node.paths.contains(rel) {
                return Exempt::Whole;
            }
            leads |= node.paths.range(below.clone()..).next().is_some_and(|p| p.starts_with(&below));
            at = node.parent.as_deref();
        }
        if leads {
            Exempt::Leads
        } else {
            Exempt::No
        }
    }
}

/// `path` (a manifest's `./…`) joined to the folder `dir`, when it stays inside it.
fn join_inside(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let floor = parts.len();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.len() > floor => {
                parts.pop();
            }
            ".." => return None,
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The paths of the components of the plugin at `root` that Claude Code loads: the defaults,
/// and what `manifest` (plugin.json, or a marketplace entry) names.
fn add_plugin(paths: &mut BTreeSet<String>, root: &str, manifest: Option<&crate::node::Node>) {
    for name in PLUGIN_LOADS {
        paths.extend(join_inside(root, name));
    }
    let Some(manifest) = manifest else { return };
    let objects = [Some(manifest), manifest.get("experimental")];
    for object in objects.into_iter().flatten() {
        for field in PATH_FIELDS {
            let Some(value) = object.get(field) else { continue };
            let items = match value.as_array() {
                Some(items) => items.iter().collect(),
                None => vec![value],
            };
            paths.extend(items.into_iter().filter_map(|i| i.as_str()).filter_map(|p| join_inside(root, p)));
        }
    }
}

impl WalkCx<'_> {
    /// A manifest of the folder `rel` (`.claude-plugin/NAME`), parsed as the check parses it; a
    /// link is followed only inside the root.
    fn manifest(&self, rel: &str, name: &str) -> Option<crate::node::Node> {
        let path = self.canonical_root.join(rel).join(".claude-plugin").join(name);
        let real = path.canonicalize().ok().filter(|p| p.starts_with(self.canonical_root))?;
        let bytes = read_regular(&real, MAX_FILE_BYTES, Links::Follow).ok()?;
        crate::json::parse(&String::from_utf8_lossy(&bytes)).ok()
    }

    /// What Claude Code loads below the folder `rel`, which holds `.claude-plugin/`.
    pub(super) fn loads(&self, rel: &str) -> BTreeSet<String> {
        let mut paths = BTreeSet::new();
        let plugin = self.manifest(rel, "plugin.json");
        add_plugin(&mut paths, rel, plugin.as_ref());
        let Some(marketplace) = self.manifest(rel, "marketplace.json") else { return paths };
        let plugin_root = marketplace
            .get("metadata")
            .and_then(|m| m.get("pluginRoot"))
            .and_then(crate::node::Node::as_str)
            .and_then(|p| join_inside(rel, p));
        for entry in marketplace.get("plugins").and_then(crate::node::Node::as_array).unwrap_or_default() {
            let Some(source) = entry.get("source").and_then(crate::node::Node::as_str) else { continue };
            let base = if source.starts_with("./") || source == "." { Some(rel) } else { plugin_root.as_deref() };
            if let Some(root) = base.and_then(|base| join_inside(base, source)) {
                add_plugin(&mut paths, &root, Some(entry));
            }
        }
        paths
    }
}

/// Files that are read even when an ignore file names them: `.claude/settings.local.json` is
/// each user's own and git-ignored by design (Claude Code adds it to `.gitignore`), yet Claude
/// Code loads it, so `check`, `ls` and `explain` keep reading it.
pub(super) fn read_even_if_ignored(rel: &str) -> bool {
    rel == ".claude/settings.local.json" || rel.ends_with("/.claude/settings.local.json")
}
