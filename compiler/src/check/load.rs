//! Loading one file's text and JSON for a reader: why a file cannot be used (too large, not
//! text, unreadable), `invalid-json` with what the failure costs, and the file's entry in the
//! lock's sources. Below every stage: the claim stage reads manifests with it, the read stage
//! every other file.

use super::placement::Realm;
use super::{Outcome, SourceFile};
use crate::decl::{Counts, FileCx, FileKind, FileScope};
use crate::diagnostic::Sink;
use crate::node::Node;
use crate::rules;
use crate::walk::{self, Content, Tree};
use std::path::Path;

/// The SHA-256 of a file's text for the lock's list of sources, when hashes are taken
/// (`SourceFile::sha256`).
pub(super) fn hashed(text: &str, hash: bool) -> Option<Box<[u8; 32]>> {
    hash.then(|| Box::new(crate::secrets::sha256(text.as_bytes())))
}

/// Reads a file's text (`content`, when it was read already), reporting why it cannot be
/// used; `None` when there is no text.
pub(super) fn load(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    content: Option<Content>,
    sink: &mut Sink<'_>,
) -> Option<String> {
    match content.unwrap_or_else(|| tree.texts.read(&dir.join(rel))) {
        Content::Text(text) => Some(text),
        Content::TooLarge { bytes } => {
            sink.report(&rules::file_too_large::RULE, None, format!("file is {} MiB; capc reads declaration files up to {} MiB", bytes / (1024 * 1024), walk::MAX_FILE_BYTES / (1024 * 1024)))
                .help("a declaration this large is almost certainly a mistake; Claude Code would put it all into the model's context");
            None
        }
        Content::NotText { offset, reason, .. } => {
            sink.report(
                &rules::unreadable_file::RULE,
                None,
                format!("file {reason} (first bad byte at offset {offset})"),
            )
            .help(
                "declarations must be UTF-8 text; re-save the file as UTF-8, or remove it if it is not a declaration",
            );
            None
        }
        Content::Error(e) => {
            sink.report(&rules::unreadable_file::RULE, None, format!("cannot read file: {e}"));
            None
        }
    }
}

pub(super) fn read_json<T>(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    realm: Realm,
    kind: FileKind,
    hash: bool,
    f: impl FnOnce(&mut Sink<'_>, &FileCx<'_>, &Node) -> T,
) -> (Outcome, Option<T>) {
    let path = realm.display(rel);
    let mut sink = Sink::new(&path);
    let Some(text) = load(dir, tree, rel, None, &mut sink) else {
        return (Outcome::new(sink, None, Counts::default(), None), None);
    };
    // A manifest's discovery is kept by the folder's listing whatever its reader asks.
    let asked = std::sync::atomic::AtomicBool::new(false);
    let cx = FileCx {
        tree: crate::decl::Listing::new(tree, &asked),
        rel,
        scope: FileScope::Plugin,
        plugin_root: None,
        project_root: None,
        json_source: Some(&text),
        plugin_name: None,
        placement: None,
    };
    let result = parse_json(&mut sink, &text, kind).map(|node| f(&mut sink, &cx, &node));
    // Manifests stay: cross-file checks may report into them later.
    let file = SourceFile {
        path: path.as_str().into(),
        kind,
        scope: FileScope::Plugin,
        name: None,
        sha256: hashed(&text, hash),
        unlisted: false,
        text: Some(text.into()),
        stamp: 0,
        reread: Default::default(),
    };
    (Outcome::new(sink, Some(file), Counts::default(), None), result)
}

/// The JSON of a declaration file, or `invalid-json` with what the failure costs.
pub(super) fn parse_json(sink: &mut Sink<'_>, text: &str, kind: FileKind) -> Option<Node> {
    match crate::json::parse(text) {
        Ok(node) => Some(node),
        Err(e) => {
            sink.report(&rules::invalid_json::RULE, e.span, e.message).help(json_help(kind));
            None
        }
    }
}

fn json_help(kind: FileKind) -> &'static str {
    match kind {
        FileKind::PluginManifest => "Claude Code cannot load this plugin until plugin.json parses",
        FileKind::Marketplace => "Claude Code cannot add this marketplace until marketplace.json parses",
        FileKind::ProjectMcp | FileKind::PluginMcp => "Claude Code reads none of these servers until the file parses",
        FileKind::Hooks => "Claude Code fails the plugin's hooks until the file parses",
        FileKind::Settings => "Claude Code ignores this settings file until it parses",
        FileKind::Monitors => "Claude Code loads none of these monitors until the file parses",
        FileKind::LspConfig => "Claude Code starts none of these LSP servers until the file parses",
        FileKind::Theme => "Claude Code skips this theme until the file parses",
        FileKind::PluginSettings => {
            "Claude Code applies none of it (it warns, and falls back on plugin.json's `settings`)"
        }
        _ => "fix the JSON syntax",
    }
}
