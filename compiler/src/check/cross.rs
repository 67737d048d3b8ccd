//! Checks that relate files: MCP servers a rule names that no file declares, what the walk
//! could not read, and plugin entries against the marketplace that lists them.

use super::placement::Realm;
use super::ServerUse;
use crate::decl::marketplace::EntryInfo;
use crate::decl::plugin::PluginInfo;
use crate::decl::{file_name, parent};
use crate::diagnostic::{report_at, Diagnostic, Sink};
use crate::walk::{Tree, WalkProblemKind};
use crate::{rules, walk};

/// Permission rules that name an MCP server no file in the check declares. In a plugin,
/// only the plugin's own servers written without their `plugin_<plugin>_` prefix are
/// reported: plugins often rely on servers their users install.
pub(super) fn undeclared_servers(
    declared: &std::collections::BTreeSet<String>,
    references: Vec<ServerUse>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (use_, reference) in references.iter().flat_map(|u| u.named.iter().map(move |r| (u, r))) {
        if declared.contains(&reference.server) {
            continue;
        }
        if let Some(plugin) = &use_.plugin {
            let own = crate::names::plugin_server(plugin, &reference.server);
            if declared.contains(&own) {
                report_at(
                    &mut out,
                    use_.path.clone(),
                    &rules::unknown_mcp_server_in_rule::RULE,
                    reference.span,
                    format!("this plugin's server `{}` is named `{own}` in tool names", reference.server),
                )
                .help(format!("write `mcp__{own}__…`; the bare `mcp__{}__…` matches nothing", reference.server));
            }
            continue;
        }
        let d = report_at(
            &mut out,
            use_.path.clone(),
            &rules::unknown_mcp_server_in_rule::RULE,
            reference.span,
            format!("no MCP server `{}` is declared here", reference.server),
        );
        match crate::diagnostic::did_you_mean(&reference.server, declared.iter().map(String::as_str)) {
            Some(s) => d.help(format!("did you mean `{s}`? Server names are matched as their tools are named (characters outside `[A-Za-z0-9_-]` become `_`)")),
            None => d.help("declare it in `.mcp.json` or a plugin; if it lives in `~/.claude.json` or another plugin, the rule is fine there (check with `--user-dir`)"),
        };
    }
    out
}

pub(super) fn is_manifest(rel: &str, name: &str) -> bool {
    file_name(rel) == name && file_name(parent(rel)) == ".claude-plugin"
}

pub(super) fn walk_problems(tree: &Tree, realm: Realm) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for problem in &tree.problems {
        let (rule, message, help) = match &problem.kind {
            WalkProblemKind::EscapesRoot { target } => (
                &rules::unfollowed_symlink::RULE,
                format!("symbolic link to `{target}` leaves the checked folder; not followed"),
                Some("check the folder that holds the target instead, or copy the files in"),
            ),
            WalkProblemKind::Dangling { target } => (
                &rules::unfollowed_symlink::RULE,
                format!("symbolic link to `{target}` points at nothing"),
                Some("fix or remove the link"),
            ),
            WalkProblemKind::Loop { target } => (
                &rules::unfollowed_symlink::RULE,
                format!("symbolic link to `{target}` loops back to a folder that contains it; not followed"),
                Some("remove the link"),
            ),
            WalkProblemKind::Unreadable { error } => {
                (&rules::unreadable_file::RULE, format!("cannot read this folder: {error}"), None)
            }
            WalkProblemKind::TooManyEntries => (
                &rules::unreadable_file::RULE,
                format!("more than {} entries; the rest of the tree was not checked", walk::MAX_ENTRIES),
                Some("check a smaller folder"),
            ),
            WalkProblemKind::TooDeep => (
                &rules::unreadable_file::RULE,
                format!("more than {} folders deep; this folder and what it holds were not checked", walk::MAX_DEPTH),
                Some("move what Claude Code should load nearer the top, or check this folder on its own"),
            ),
        };
        let d = report_at(&mut out, realm.display(&problem.path), rule, None, message);
        d.help = help.map(str::to_string);
    }
    out
}

/// Marketplace entry vs plugin.json: versions, and strict-mode conflicts.
pub(super) fn cross_check_entries(
    out: &mut Vec<Diagnostic>,
    realm: Realm,
    info: &PluginInfo,
    manifest_rel: Option<&str>,
    entries: &[(String, EntryInfo)],
) {
    for (marketplace_rel, entry) in entries {
        let path = realm.display(marketplace_rel);
        let mut sink = Sink::new(&path);
        if let (Some((entry_version, span)), Some(plugin_version), Some(manifest)) =
            (&entry.version, &info.version, manifest_rel)
        {
            if entry_version != plugin_version {
                sink.report(
                    &rules::version_mismatch::RULE,
                    *span,
                    format!(
                        "entry `{}` says version `{entry_version}`, but its plugin.json says `{plugin_version}`",
                        entry.name
                    ),
                )
                .help(format!(
                    "plugin.json (`{}`) wins; make them equal or drop the entry's `version`",
                    realm.display(manifest)
                ));
            }
        }
        if !entry.strict && entry.declares_components && info.declares_components {
            sink.report(
                &rules::conflicting_manifests::RULE,
                entry.strict_span,
                format!(
                    "entry `{}` has `strict: false` and declares components, and so does its plugin.json",
                    entry.name
                ),
            )
            .help("Claude Code fails with \"conflicting manifests\"; declare components in one place");
        }
        out.extend(sink.diagnostics);
    }
}
