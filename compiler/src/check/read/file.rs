//! The read stage's per-file reader: one claimed file's text loaded, the reader of its kind
//! run ([`reader`]: the table a new kind is registered in), its `[[run]]` rows, its entry in
//! the lock's sources and its suppression comments.

use super::super::load::{hashed, load};
use super::super::placement::{not_loaded_because, placement, Realm};
use super::super::{Claim, Outcome, SourceFile};
use super::reader::{At, Made, Reader};
use super::{json, markdown, runs};
use crate::decl::{self, Counts, FileCx, FileKind, FileScope};
use crate::diagnostic::{Severity, Sink};
use crate::rules;
use crate::walk::{self, Content, Tree};
use std::path::Path;

/// The reader of each kind of file. A JSON kind's is [`json::read`], which parses the file
/// and then checks and declares by kind; a plugin's `bin/` files are hashed, never read as
/// text ([`runs::read_bin`]).
fn reader(kind: FileKind) -> Reader {
    match kind {
        FileKind::Skill | FileKind::Command => markdown::read_command,
        FileKind::Agent => markdown::read_agent,
        FileKind::OutputStyle => |sink, cx, at, _| decl::components::check_output_style(sink, cx, at.text),
        FileKind::Workflow => |sink, cx, at, _| decl::components::check_workflow(sink, cx, at.text),
        _ => json::read,
    }
}

/// Whether a kind's files are JSON (read by [`json::read`]).
fn is_json(kind: FileKind) -> bool {
    !matches!(kind, FileKind::Skill | FileKind::Command | FileKind::Agent | FileKind::OutputStyle | FileKind::Workflow)
}

/// Reads one claimed file. `content` is the file's text when it was read already.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_claim(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    claim: &Claim,
    realm: Realm,
    hash: bool,
    project_keys: &[String],
    content: Option<Content>,
) -> Outcome {
    let path = realm.display(rel);
    let mut sink = Sink::new(&path);
    let mut counts = Counts::default();
    let not_loaded = not_loaded_because(realm, rel, claim).map(|why| (path.clone(), why));
    match claim.kind {
        FileKind::Skill => counts.skills = 1,
        FileKind::Command => counts.commands = 1,
        FileKind::Agent => counts.agents = 1,
        FileKind::Settings => counts.settings = 1,
        _ => {}
    }
    if claim.kind == FileKind::PluginBin {
        return runs::read_bin(dir, tree, rel, claim, realm, sink);
    }
    let Some(text) = load(dir, tree, rel, content, &mut sink) else {
        let mut outcome = Outcome::new(sink, None, counts, claim.owner.plugin_name.as_deref());
        outcome.not_loaded = not_loaded.map(Box::new);
        return outcome;
    };
    // Claude Code's plugin agent loader skips agent files over 1 MiB (measured).
    if claim.kind == FileKind::Agent && claim.owner.scope == FileScope::Plugin && text.len() > PLUGIN_AGENT_MAX_BYTES {
        sink.report(
            &rules::file_too_large::RULE,
            None,
            format!("agent file is {} KiB; Claude Code skips plugin agents over 1 MiB", text.len() / 1024),
        )
        .severity(Severity::Warning)
        .help("move reference material out of the agent's prompt, into files it reads when needed");
    }
    let is_json = is_json(claim.kind);
    let asked = std::sync::atomic::AtomicBool::new(false);
    let cx = FileCx {
        tree: crate::decl::Listing::new(tree, &asked),
        rel,
        scope: claim.owner.scope,
        plugin_root: claim.owner.plugin_root.as_deref(),
        project_root: claim.owner.project_root.as_deref(),
        json_source: is_json.then_some(text.as_str()),
        plugin_name: claim.owner.plugin_name.as_deref(),
        placement: placement(realm, rel, claim),
    };
    let at = At { rel, claim, realm, path: &path, text: &text, project_keys };
    let mut made = Made { counts, not_loaded, ..Made::default() };
    reader(claim.kind)(&mut sink, &cx, &at, &mut made);
    let Made { counts, name, mut decls, own_runs, not_loaded, skips_plugin } = made;
    sink.decls.append(&mut decls);
    let reads_others = runs::add_runs(&mut sink, &cx, own_runs.as_ref(), (dir, realm), (&text, &path));
    let mut suppressions = if is_json { Vec::new() } else { crate::suppress::parse(&text) };
    for s in &mut suppressions {
        s.path = path.clone();
    }
    // Cross-file checks report only into files with MCP server references; suppressions may
    // be reported themselves.
    let keep = !sink.diagnostics.is_empty() || !sink.server_refs.is_empty() || !suppressions.is_empty();
    let file = SourceFile {
        path: path.as_str().into(),
        kind: claim.kind,
        scope: claim.owner.scope,
        name: name.map(Into::into),
        sha256: hashed(&text, hash),
        unlisted: false,
        // A dropped text's hash: read again for a report, the file must still hold it.
        stamp: if keep { 0 } else { walk::text_hash(&text) },
        text: keep.then(|| text.into()),
        reread: Default::default(),
    };
    let mut outcome = Outcome::new(sink, Some(file), counts, claim.owner.plugin_name.as_deref());
    outcome.suppressions = suppressions;
    outcome.not_loaded = not_loaded.map(Box::new);
    outcome.skips_plugin = skips_plugin.map(Box::new);
    outcome.reads_others = reads_others;
    outcome.reads_listing = asked.load(std::sync::atomic::Ordering::Relaxed);
    outcome
}

/// The largest plugin agent file Claude Code loads.
const PLUGIN_AGENT_MAX_BYTES: usize = 1_048_576;
