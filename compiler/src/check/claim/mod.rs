//! The claim stage: given a root's walk ([`Walked`]), the declaration roots under it
//! (marketplaces, plugins, projects, skill collections) and the claim on each of their files,
//! in that order, the first claim on a file winning. It reads the marketplaces and plugin
//! manifests (they say which folders are plugins and where their components are) and nothing
//! else; what it hands the read stage is a [`Discovered`]: the claims, the manifests' outcomes,
//! the plugin and marketplace declarations and the findings about the folders. A cache keeps
//! it while the listing and the manifests stay as they were (the driver wraps this stage).
//!
//! `plugins.rs` claims the plugins' files (and reads the manifests); `folders.rs` the files
//! of `.claude/` folders, skills folders and `--add-dir` folders.

mod folders;
mod plugins;

use super::cache::Discovered;
use super::placement::Realm;
use super::walk::{walk_problems, Walked};
use super::{Claims, Outcome, Owner};
use crate::decl::{file_name, parent, Counts, FileKind, FileScope};
use crate::diagnostic::Diagnostic;
use crate::model::Decl;
use crate::walk::Tree;
use folders::{claim_added_dir, claim_claude_dir, claim_project};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// What the claim stage builds up for one root.
struct Claiming<'w> {
    walked: &'w Walked,
    claims: Claims,
    diagnostics: Vec<Diagnostic>,
    counts: Counts,
    outcomes: Vec<Outcome>,
    plugin_decls: Vec<Decl>,
}

/// The claim stage of one root. `keyed`: with a cache, which keys the cross-file stage by the
/// claims' fingerprint (computed only then).
pub(super) fn claim(walked: &Walked, keyed: bool) -> Discovered {
    let mut c = Claiming {
        walked,
        claims: Claims(BTreeMap::new()),
        diagnostics: walk_problems(&walked.tree, walked.realm),
        counts: Counts::default(),
        outcomes: Vec::new(),
        plugin_decls: Vec::new(),
    };
    if let Realm::AddDir(_) = walked.realm {
        claim_added_dir(&walked.tree, &mut c.claims, &mut c.diagnostics, walked.realm);
        return c.finish(keyed);
    }
    let tree = &walked.tree;
    // The name of the checked folder itself, for a plugin at the root without a manifest.
    let root_name = walked
        .dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // Marketplaces first: they name plugin folders.
    let marketplaces = plugins::read_marketplaces(&mut c);
    let plugins = plugins::plugin_roots(walked, &marketplaces);
    let project_roots = project_roots(tree, &plugins.roots);
    plugins::claim_plugins(&mut c, &marketplaces, &plugins, &project_roots, &root_name);
    c.claim_projects(&project_roots, &plugins.roots, &root_name);
    c.finish(keyed)
}

/// The folders of `tree` that are projects: those with a `.claude/` folder, and the checked
/// root with a `.mcp.json`.
fn project_roots(tree: &Tree, plugin_roots: &BTreeMap<String, Option<String>>) -> std::collections::BTreeSet<String> {
    tree.dirs
        .iter()
        .filter(|d| {
            let claude = if d.is_empty() { ".claude".to_string() } else { format!("{d}/.claude") };
            // A `.mcp.json` alone marks a project only at the checked root: Claude Code reads it
            // from the folder it starts in, and a nested one (a test fixture, an example) is
            // not a project unless a `.claude/` folder sits beside it.
            let mcp_here = d.is_empty() && tree.is_file(".mcp.json") && !plugin_roots.contains_key("");
            tree.is_dir(&claude) || mcp_here
        })
        .filter(|d| file_name(d) != ".claude")
        .cloned()
        .collect()
}

impl Claiming<'_> {
    /// After the plugins: the projects, the user's and managed files, then the skill
    /// collections (whatever `SKILL.md` is left).
    fn claim_projects(
        &mut self,
        project_roots: &std::collections::BTreeSet<String>,
        plugin_roots: &BTreeMap<String, Option<String>>,
        root_name: &str,
    ) {
        let (tree, realm) = (&self.walked.tree, self.walked.realm);
        let (claims, diagnostics) = (&mut self.claims, &mut self.diagnostics);
        for root in project_roots {
            claim_project(tree, claims, root, plugin_roots.contains_key(root.as_str()), realm, diagnostics);
        }
        // `capc check path/to/.claude` (or `~/.claude`): the folder itself is a `.claude` folder;
        // `$CLAUDE_PROJECT_DIR` is its parent, outside the check.
        if root_name == ".claude" && realm == Realm::Project {
            claim_claude_dir(tree, claims, "", &Owner::bare(FileScope::Project), diagnostics, realm);
        }
        if realm == Realm::User && tree.is_file(".claude.json") {
            claims.add(".claude.json", FileKind::UserConfig, &Owner::project(FileScope::User, ""), None);
        }
        if realm == Realm::Managed {
            for rel in tree.files.iter() {
                let in_settings_d = parent(rel) == "managed-settings.d" && rel.ends_with(".json");
                if rel == "managed-settings.json" || in_settings_d {
                    claims.add(rel, FileKind::Settings, &Owner::project(FileScope::Managed, ""), None);
                } else if rel == "managed-mcp.json" {
                    claims.add(rel, FileKind::ProjectMcp, &Owner::bare(FileScope::Managed), None);
                }
            }
        }
        // Whatever SKILL.md is left belongs to a skill collection.
        // (Except inside `.claude-plugin/`, where nothing is loaded; see component-in-manifest-dir.)
        // A file already claimed through a symbolic link is the same skill: Claude Code, too,
        // loads a skill reachable from several places once, by its real path.
        let claimed_real: std::collections::BTreeSet<String> = if tree.links.is_empty() {
            std::collections::BTreeSet::new()
        } else {
            claims.0.keys().map(|k| tree.real_path(k)).collect()
        };
        for rel in
            tree.files.iter().filter(|f| file_name(f) == "SKILL.md" && !f.split('/').any(|s| s == ".claude-plugin"))
        {
            if claimed_real.contains(rel.as_str()) && !claims.0.contains_key(rel.as_str()) {
                continue;
            }
            claims.add(rel, FileKind::Skill, &Owner::bare(FileScope::Collection), None);
        }
    }

    /// The stage's value: with `keyed`, its fingerprint for the cross-file stage's key.
    fn finish(self, keyed: bool) -> Discovered {
        let Claiming { claims, diagnostics, counts, mut outcomes, plugin_decls, .. } = self;
        let fingerprint = keyed.then(|| {
            // A manifest keeps its text: what the cross-file stage may point into.
            for outcome in &mut outcomes {
                if let Some(file) = &outcome.file {
                    outcome.head = file.text.as_deref().map_or(0, |text| super::cache::text_head(text, file.kind));
                }
            }
            let mut h = super::cache::hasher();
            outcomes.iter().map(super::cache::fingerprint).collect::<Vec<u64>>().hash(&mut h);
            super::cache::hash_debug(&plugin_decls, &mut h);
            h.finish()
        });
        let fingerprint = fingerprint.unwrap_or(0);
        Discovered { claims, outcomes, diagnostics, counts, plugin_decls, fingerprint }
    }
}
