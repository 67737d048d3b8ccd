//! The read stage's `[[run]]` rows: what a file's hooks, servers and `!` injections run (and
//! its agent's or skill's own frontmatter), with the scripts inside the folder hashed; and the
//! reader of a plugin's `bin/` files, which are hashed, never parsed.

use super::super::placement::{placement, Realm};
use super::super::{Claim, Outcome, SourceFile};
use crate::decl::{self, file_name, FileKind};
use crate::diagnostic::{Severity, Sink};
use crate::model::Item;
use crate::node::Node;
use crate::rules;
use crate::walk::{self, Tree};
use std::path::Path;

/// Adds the `[[run]]` rows of a placed file to `sink`'s declarations, and hashes the scripts
/// inside the folder that its rows, monitors and LSP servers run; whether it read any.
pub(super) fn add_runs(
    sink: &mut Sink<'_>,
    cx: &crate::decl::FileCx<'_>,
    own_runs: Option<&(Node, String, bool)>,
    (dir, realm): (&Path, Realm),
    (text, path): (&str, &str),
) -> bool {
    let Some(at) = cx.placement else { return false };
    let rows = runs_of(&sink.decls, own_runs, text, path, at);
    let scripts = Scripts {
        dir,
        tree: cx.tree,
        realm,
        project: cx.project_root,
        plugin: cx.plugin_root,
        read: std::cell::Cell::new(false),
    };
    for d in &mut sink.decls {
        match &mut d.item {
            Item::Run(row) => scripts.hash(row),
            // A monitor's or LSP server's script inside the folder, hashed as a row's.
            Item::Monitor(m) => {
                let mut row = crate::model::Run { run: m.command.clone(), ..crate::model::Run::default() };
                scripts.hash(&mut row);
                (m.script, m.script_sha256) = (row.script, row.script_sha256);
            }
            Item::LspServer(l) => {
                let mut row = crate::model::Run { run: l.command.clone(), ..crate::model::Run::default() };
                scripts.hash(&mut row);
                (l.script, l.script_sha256) = (row.script, row.script_sha256);
            }
            _ => {}
        }
    }
    let parts: Vec<(crate::model::PartKind, String, String)> = sink
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::PluginPart(part) => Some((part.kind, part.name.clone(), part.plugin.clone())),
            _ => None,
        })
        .collect();
    for (kind, name, plugin) in parts {
        let row = match kind {
            crate::model::PartKind::Module => scripts.module(&name, &plugin, path),
            // The workflow script is this file: its own bytes.
            crate::model::PartKind::Workflow => Some(crate::model::Run {
                kind: crate::model::RunKind::Workflow,
                name,
                run: path.to_string(),
                scope: crate::model::Scope::Plugin,
                path: path.to_string(),
                plugin: Some(plugin),
                script: Some(path.to_string()),
                script_sha256: Some(crate::secrets::sha256_hex(text.as_bytes())),
                ..crate::model::Run::default()
            }),
            crate::model::PartKind::Theme => None,
        };
        if let Some(row) = row {
            sink.decls.push(crate::model::Decl { path: path.to_string(), span: None, item: Item::Run(Box::new(row)) });
        }
    }
    for mut row in rows {
        scripts.hash(&mut row);
        sink.decls.push(crate::model::Decl { path: path.to_string(), span: None, item: Item::Run(Box::new(row)) });
    }
    scripts.read.get()
}

/// The `[[run]]` rows of one file: the line of each hook, server and `!` injection it declares,
/// and what its agent's or skill's own frontmatter runs.
fn runs_of(
    decls: &[crate::model::Decl],
    own: Option<&(Node, String, bool)>,
    text: &str,
    path: &str,
    at: crate::model::Placement<'_>,
) -> Vec<crate::model::Run> {
    let runs_something = |d: &crate::model::Decl| match &d.item {
        Item::Hook(_) => true,
        Item::Server(s) => s.command.is_some(),
        Item::Command(c) => !c.shell_injections.is_empty(),
        _ => false,
    };
    let owns = own.is_some_and(|(f, _, agent)| f.get("hooks").is_some() || (*agent && f.get("mcpServers").is_some()));
    if !owns && !decls.iter().any(runs_something) {
        return Vec::new();
    }
    let lines = crate::diagnostic::LineIndex::new(text);
    let here = crate::runs::At { text, lines: &lines, path, scope: at.scope, plugin: at.plugin };
    let mut rows = crate::runs::declared(decls, &here);
    if let Some((fields, owner, agent)) = own.filter(|_| owns) {
        // Exact spans, so a row's line does not depend on whether the file has findings.
        let fields = exact_spans(fields, text);
        crate::runs::frontmatter(&fields, owner, *agent, &decl::hooks::EVENTS, &here, &mut rows);
    }
    rows
}

/// Frontmatter `fields` with the exact span of every nested value (a check computes them only
/// for a file with findings).
pub(super) fn exact_spans(fields: &Node, text: &str) -> Node {
    let mut fields = fields.clone();
    if let crate::frontmatter::Split::Found(block) = crate::frontmatter::split(text) {
        crate::frontmatter::refine_spans(text, &block, &mut fields);
    }
    fields
}

/// Where the scripts a file's rows run are found, to hash them.
struct Scripts<'a> {
    dir: &'a Path,
    tree: crate::decl::Listing<'a>,
    realm: Realm,
    project: Option<&'a str>,
    plugin: Option<&'a str>,
    /// Whether a script's bytes were read.
    read: std::cell::Cell<bool>,
}

impl Scripts<'_> {
    /// Records the script inside the folder that `row` runs, with the SHA-256 of its bytes (a
    /// regular file, never through a link, at most `walk::MAX_FILE_BYTES`), when it has one.
    fn hash(&self, row: &mut crate::model::Run) {
        let Some(word) = crate::runs::script_word(&row.run) else { return };
        let Some(target) = crate::runs::script_path(&word, self.project, self.plugin) else { return };
        if let Some(sha256) = self.sha256(&target) {
            row.script = Some(self.realm.display(&target));
            row.script_sha256 = Some(sha256);
        }
    }

    /// The SHA-256 of the script at `target` (relative to the folder), when it is in the tree
    /// and a regular file; noted in `read` whenever it is in the tree.
    fn sha256(&self, target: &str) -> Option<String> {
        if !self.tree.exists(target) {
            return None;
        }
        self.read.set(true);
        let bytes = walk::read_regular(&self.dir.join(target), walk::MAX_FILE_BYTES, walk::Links::Refuse).ok()?;
        Some(crate::secrets::sha256_hex(&bytes))
    }
}

impl Scripts<'_> {
    /// The row of the hooks module `module` (its path in the plugin) that the hooks file at
    /// `path` names, with the SHA-256 of its bytes when it is a regular file inside the plugin.
    fn module(&self, module: &str, plugin: &str, path: &str) -> Option<crate::model::Run> {
        let root = self.plugin?;
        let target = if root.is_empty() { module.to_string() } else { format!("{root}/{module}") };
        let shown = self.realm.display(&target);
        let mut row = crate::model::Run {
            kind: crate::model::RunKind::HooksModule,
            name: module.to_string(),
            run: shown.clone(),
            scope: crate::model::Scope::Plugin,
            path: path.to_string(),
            plugin: Some(plugin.to_string()),
            ..crate::model::Run::default()
        };
        if let Some(sha256) = self.sha256(&target) {
            row.script = Some(shown);
            row.script_sha256 = Some(sha256);
        }
        Some(row)
    }
}

/// A file of a plugin's `bin/`: any bytes, hashed (up to the declaration cap) and recorded
/// with whether it may run; never parsed.
pub(super) fn read_bin(dir: &Path, tree: &Tree, rel: &str, claim: &Claim, realm: Realm, mut sink: Sink<'_>) -> Outcome {
    let _ = tree;
    let path = sink.path().to_string();
    let (digest, executable) = match walk::read_program(&dir.join(rel), walk::MAX_FILE_BYTES) {
        Ok((bytes, executable)) => (Some(Box::new(crate::secrets::sha256(&bytes))), executable),
        Err(e) => {
            sink.report(&rules::unreadable_file::RULE, None, format!("cannot read file: {e}"))
                .severity(Severity::Warning)
                .help("capc records it unhashed; Claude Code still puts it on the PATH");
            (None, false)
        }
    };
    let sha256 = digest.as_deref().map(crate::secrets::hex).unwrap_or_default();
    if let (Some(at), Some(plugin)) = (placement(realm, rel, claim), claim.owner.plugin_name.as_deref()) {
        let _ = at;
        sink.decls.push(crate::model::Decl {
            path: path.clone(),
            span: None,
            item: Item::PluginBin(Box::new(crate::model::PluginBin {
                name: file_name(rel).to_string(),
                plugin: plugin.to_string(),
                path: path.clone(),
                sha256,
                executable,
            })),
        });
    }
    // Hashed whatever the options say: the hash is the entry's, in the lock and its sources.
    let file = SourceFile {
        path: path.into(),
        kind: FileKind::PluginBin,
        scope: claim.owner.scope,
        name: None,
        sha256: digest,
        unlisted: false,
        text: None,
        stamp: 0,
        reread: Default::default(),
    };
    Outcome::new(sink, Some(file), crate::decl::Counts::default(), claim.owner.plugin_name.as_deref())
}
