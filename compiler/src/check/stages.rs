//! The steps of a check after resolution: the cross checks, the marketplaces nothing declares,
//! `large-instructions`, which instruction files `claudeMdExcludes` leaves out, and capc.toml's
//! policy with the suppression comments.

use super::checked::sort_diagnostics;
use super::placement::{locate_marketplaces, Places};
use super::{cache, Checked, Options};
use crate::decl::{file_name, parent};
use crate::diagnostic::Diagnostic;
use crate::model::Item;
use crate::walk;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// `large-instructions`: each file sent at the start longer than Claude Code's per-file
/// threshold, and the largest of the others when they pass its total threshold together
/// (Claude Code with a context window of up to 200,000 tokens).
pub(super) fn large_instructions(
    instructions: &[crate::model::Instruction],
    chars: &std::collections::BTreeMap<String, usize>,
) -> Vec<crate::diagnostic::Diagnostic> {
    const FILE: usize = 40_000;
    const TOTAL: usize = 120_000;
    let sized: Vec<(&str, usize)> = instructions
        .iter()
        .filter(|i| i.at_start() && i.key.is_none())
        .filter_map(|i| chars.get(&i.path).map(|n| (i.path.as_str(), *n)))
        .collect();
    let thousands = |n: usize| {
        let digits = n.to_string();
        let mut out = String::new();
        for (k, c) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let mut out = Vec::new();
    for (path, n) in sized.iter().filter(|(_, n)| *n > FILE) {
        let mut sink = crate::diagnostic::Sink::new(path);
        sink.report(
            &crate::rules::large_instructions::RULE,
            None,
            format!(
                "`{path}` sends {} characters to the model in every turn; Claude Code warns past {}",
                thousands(*n),
                thousands(FILE)
            ),
        )
        .help("move what only some tasks need into rules with `paths:` or into skills, which load when needed");
        out.extend(sink.diagnostics);
    }
    let total: usize = sized.iter().filter(|(_, n)| *n <= FILE).map(|(_, n)| n).sum();
    if total > TOTAL {
        if let Some((path, _)) = sized.iter().filter(|(_, n)| *n <= FILE).max_by_key(|(_, n)| *n) {
            let mut sink = crate::diagnostic::Sink::new(path);
            sink.report(
                &crate::rules::large_instructions::RULE,
                None,
                format!("the instruction files sent at the start come to {} characters together, the largest this one; Claude Code warns past {}", thousands(total), thousands(TOTAL)),
            )
            .help("move what only some tasks need into rules with `paths:` or into skills, which load when needed");
            out.extend(sink.diagnostics);
        }
    }
    out
}

/// The `claudeMdExcludes` of the settings a session here reads: the project's, its local
/// settings (unless left out), the user's and the managed ones, in that order.
pub(super) fn exclude_patterns(options: &Options) -> Vec<String> {
    let mut files: Vec<PathBuf> = vec![options.root.join(".claude/settings.json")];
    if !options.leave_out_local || options.local_kept.iter().any(|p| p == ".claude/settings.local.json") {
        files.push(options.root.join(".claude/settings.local.json"));
    }
    if let Some(home) = &options.user_dir {
        files.push(home.join(".claude/settings.json"));
    }
    if let Some(dir) = &options.managed_dir {
        files.push(dir.join("managed-settings.json"));
    }
    let mut patterns = Vec::new();
    for file in files {
        let walk::Content::Text(text) = options.texts.read(&file) else { continue };
        let Ok(settings) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        if let Some(list) = settings.get("claudeMdExcludes").and_then(serde_json::Value::as_array) {
            patterns.extend(list.iter().filter_map(|p| p.as_str().map(str::to_string)));
        }
    }
    patterns
}

/// Whether the file at `path` (as the lock names it) is local settings a check asked to leave
/// out ([`Options::leave_out_local`], less [`Options::local_kept`]).
pub(super) fn left_out_local(options: &Options, path: &str) -> bool {
    crate::lock::write::is_local_file(path) && !options.local_kept.iter().any(|kept| kept == path)
}

/// The declarations the cross-file stage reads: those of kept readings copied in, local
/// settings left out when asked, in a stable order whatever order the parallel reads finished
/// in (a file's own declarations keep theirs).
pub(super) fn settle_decls(options: &Options, all: &mut Checked, kept: &[Arc<cache::Read>]) {
    for read in kept {
        all.decls.extend(read.outcome.decls.iter().cloned());
    }
    if options.leave_out_local {
        all.decls.retain(|d| !left_out_local(options, &d.path));
    }
    all.decls.sort_by(|a, b| (&a.path, a.span.map(|s| s.start)).cmp(&(&b.path, b.span.map(|s| s.start))));
}

/// The cross-file stage of a check: what is loaded, name resolution, the findings that relate
/// files, the measures. Reads `all`'s declarations (moved into the resolution) and files;
/// returns the findings it makes, sorted (see `cache` for what a cache keys it by).
pub(super) fn cross_stage(options: &Options, all: &mut Checked) -> Vec<Diagnostic> {
    locate_marketplaces(options, &mut all.decls);
    undeclared_marketplaces(all);
    // Claude Code skips a plugin it refuses and loads the rest: its errors, asked for or not,
    // leave the session's lock truthful.
    let refused: std::collections::BTreeSet<String> = all
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::Plugin(f) if f.refused.is_some() => Some(f.root.clone()),
            _ => None,
        })
        .collect();
    // Where each server is declared, for findings about what it offers.
    all.server_spans = all
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::Server(s) => Some(((s.name.clone(), d.path.clone()), d.span?)),
            _ => None,
        })
        .collect();
    let resolution = crate::lock::resolve::resolve(std::mem::take(&mut all.decls));
    for p in &resolution.lock.plugins {
        let asked = resolution.asked_plugins.contains(&p.root);
        if !p.loaded && asked && refused.contains(&p.root) {
            all.refused_asked.push((p.name.clone(), p.reason.clone()));
        }
        let why = (!p.loaded && (!asked || refused.contains(&p.root)))
            .then(|| format!("plugin `{}` does not load here: {}", p.name, p.reason));
        all.plugin_roots.push((p.root.clone(), why));
    }
    all.unloaded_plugins =
        all.plugin_roots.iter().filter_map(|(root, why)| Some((root.clone(), why.clone()?))).collect();
    let mut later = resolution.diagnostics.clone();
    if let Some(recorded) = options.surface.as_deref().filter(|r| !r.tools.is_empty()) {
        later.extend(crate::surface::name_findings(recorded, &resolution.lock, &all.server_spans));
    }
    all.resolution = Some(Arc::new(resolution));
    for measure in &options.measure.0 {
        later.extend(measure.findings(all, options));
    }
    // By path (then as the report sorts them), so their files are found in one pass.
    sort_diagnostics(&mut later);
    later
}

/// Marketplace files that no `extraKnownMarketplaces` entry of the check points at: a session
/// started here reads them only through one.
fn undeclared_marketplaces(all: &mut Checked) {
    let declared: std::collections::BTreeSet<&str> = all
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::KnownMarketplace { location: Some(location), .. } => Some(location.as_str()),
            _ => None,
        })
        .collect();
    let paths = all.files.iter().map(|f| f.path.as_str()).chain(all.diagnostics.iter().map(|d| d.path.as_str()));
    let mut undeclared = Vec::new();
    for path in paths {
        if file_name(path) != "marketplace.json" || file_name(parent(path)) != ".claude-plugin" {
            continue;
        }
        let root = parent(parent(path));
        if !declared.contains(root) {
            undeclared.push(path.to_string());
        }
    }
    for path in undeclared {
        all.not_loaded.insert(
            path,
            "a marketplace no setting here declares (`extraKnownMarketplaces`); a session reads it only through one"
                .to_string(),
        );
    }
}

/// capc.toml's severities and per-path ignores, then the suppression comments.
pub(super) fn apply_policy(options: &Options, all: &mut Checked) {
    let policy = options.policy.as_deref();
    let grade = |diagnostics: &mut Vec<Diagnostic>| {
        if let Some(policy) = policy {
            diagnostics.retain_mut(|d| match policy.severity(d.rule, d.severity) {
                Some(severity) => {
                    d.severity = severity;
                    true
                }
                None => false,
            });
        }
    };
    grade(&mut all.diagnostics);
    if options.no_suppressions {
        return;
    }
    let places = Places::new(options);
    let mut suppressed: Vec<Diagnostic> = Vec::new();
    let mut per_path = |diagnostics: &mut Vec<Diagnostic>| {
        let Some(policy) = policy.filter(|p| !p.per_path.is_empty()) else { return };
        let (hidden, kept): (Vec<Diagnostic>, Vec<Diagnostic>) =
            std::mem::take(diagnostics).into_iter().partition(|d| policy.ignores(&places.absolute(&d.path), d.rule));
        *diagnostics = kept;
        suppressed.extend(hidden);
    };
    per_path(&mut all.diagnostics);
    // What the comments hid, by file (counted only when there are comments).
    let mut gone: BTreeMap<String, usize> = BTreeMap::new();
    if !all.suppressions.is_empty() {
        let runs = |rule: &str| policy.is_none_or(|p| p.severity(rule, crate::diagnostic::Severity::Info).is_some());
        let before: BTreeMap<String, usize> =
            count_by_path(&all.diagnostics).into_iter().map(|(p, n)| (p.to_string(), n)).collect();
        let (_, mut about) = crate::suppress::apply(&mut all.diagnostics, &all.suppressions, runs);
        let after = count_by_path(&all.diagnostics);
        for (path, n) in before {
            let hidden = n - after.get(path.as_str()).copied().unwrap_or(0);
            if hidden > 0 {
                gone.insert(path, hidden);
            }
        }
        grade(&mut about);
        per_path(&mut about);
        all.diagnostics.extend(about);
    }
    all.suppressed = count_by_path(&suppressed).into_iter().map(|(p, n)| (p.to_string(), n)).collect();
    for (path, n) in gone {
        *all.suppressed.entry(path).or_default() += n;
    }
}

fn count_by_path(diagnostics: &[Diagnostic]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for d in diagnostics {
        *counts.entry(d.path.as_str()).or_default() += 1;
    }
    counts
}
