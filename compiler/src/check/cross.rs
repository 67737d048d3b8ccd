//! The cross-check stage: what relates files, given every root's reading ([`Readings`]).
//! Per root, `mcp__server` rules against the servers declared; over the whole check,
//! `large-instructions`, then the part a cache keeps whole ([`Cache::cross`](super::Cache)):
//! the marketplaces nothing declares, what is loaded, name resolution, the resolver's findings
//! and the measures. It hands the policy stage a [`Crossed`]: the check with its resolution
//! set, and the findings of the resolution and measures apart (`later`), sorted by path.

use super::cache;
use super::checked::sort_diagnostics;
use super::placement::{left_out_local, locate_marketplaces};
use super::read::Readings;
use super::{Checked, Keeps, Options, ServerUse};
use crate::decl::{file_name, parent};
use crate::diagnostic::{report_at, Diagnostic};
use crate::model::Item;
use crate::rules;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// What the cross-check stage hands the policy stage.
pub(super) struct Crossed {
    pub(super) all: Checked,
    /// The findings of the resolution and the measures, sorted by path: they may point into
    /// files whose text was dropped as clean (the report stage reads those again). Shared with
    /// the cache that keeps them for the next check, which copies them in only once.
    pub(super) later: Arc<Vec<Diagnostic>>,
}

/// The cross-check stage.
pub(super) fn cross(options: &Options, readings: Readings) -> Crossed {
    let Readings { mut all, servers, fingerprints } = readings;
    for (declared, references) in servers {
        all.diagnostics.extend(undeclared_servers(&declared, references));
    }
    all.diagnostics.extend(large_instructions(&all.instructions, &all.instruction_chars));
    // Kept readings: their declarations are copied in only if the cross-file stage runs.
    let kept = std::mem::take(&mut all.kept);
    let later = match options.cache.as_deref() {
        None => {
            settle_decls(options, &mut all, &kept);
            Arc::new(cross_stage(options, &mut all))
        }
        Some(cache) => {
            let key = cross_key(options, &fingerprints);
            match cache.cross(key) {
                Some(kept) => {
                    all.decls.clear();
                    all.packed.clear();
                    all.not_loaded = kept.not_loaded.clone();
                    all.refused_asked = kept.refused_asked.clone();
                    all.plugin_roots = kept.plugin_roots.clone();
                    all.unloaded_plugins = kept.unloaded_plugins.clone();
                    all.server_spans = kept.server_spans.clone();
                    all.resolution = Some(kept.resolution.clone());
                    kept.later.clone()
                }
                None => {
                    settle_decls(options, &mut all, &kept);
                    let later = Arc::new(cross_stage(options, &mut all));
                    // Not when a read failed for a cancelled source: the stage may lack
                    // what it could not read, under the key of the real texts.
                    if let Some(resolution) = all.resolution.as_ref().filter(|_| !options.texts.cancelled()) {
                        cache.keep_cross(
                            key,
                            Arc::new(cache::Cross {
                                resolution: resolution.clone(),
                                later: later.clone(),
                                not_loaded: all.not_loaded.clone(),
                                refused_asked: all.refused_asked.clone(),
                                plugin_roots: all.plugin_roots.clone(),
                                unloaded_plugins: all.unloaded_plugins.clone(),
                                server_spans: all.server_spans.clone(),
                            }),
                        );
                    }
                    later
                }
            }
        }
    };
    Crossed { all, later }
}

/// The key the cache keeps the cross-file stage under: the options, and what the stage reads
/// of each root.
fn cross_key(options: &Options, fingerprints: &[u64]) -> u64 {
    let mut h = cache::hasher();
    cache::hash_debug(
        &(
            (&options.root, &options.user_dir, &options.managed_dir, &options.add_dirs, &options.plugin_dirs),
            (options.skip_hashes, options.skip_sources, options.leave_out_local, &options.local_kept),
            (options.no_suppressions, options.keeps),
            (&options.filter, &options.policy, &options.measure, &options.surface),
        ),
        &mut h,
    );
    fingerprints.hash(&mut h);
    h.finish()
}

/// The declarations the cross-file stage reads: those of the files read (each file's packed
/// ones unpacked, and freed as they are) and of kept readings (copied), local settings left out
/// when asked, in a stable order whatever order the parallel reads finished in (a file's own
/// declarations keep theirs).
fn settle_decls(options: &Options, all: &mut Checked, kept: &[Arc<cache::Read>]) {
    use rayon::prelude::*;
    // Unpacked side by side, a run of files at a time, then added in their order.
    fn in_runs<I: IndexedParallelIterator>(
        each: I,
        add: impl Fn(I::Item, &mut Vec<crate::model::Decl>) + Sync + Send,
    ) -> Vec<Vec<crate::model::Decl>> {
        each.chunks(1024)
            .map(|run| {
                let mut decls = Vec::with_capacity(run.len());
                run.into_iter().for_each(|one| add(one, &mut decls));
                decls
            })
            .collect()
    }
    let read = in_runs(std::mem::take(&mut all.packed).into_par_iter(), cache::KeptDecls::into_decls);
    let copied = in_runs(kept.par_iter(), |read, into| read.decls_into(into));
    all.decls.reserve(read.iter().chain(&copied).map(Vec::len).sum());
    for run in read.into_iter().chain(copied) {
        all.decls.extend(run);
    }
    if options.leave_out_local {
        all.decls.retain(|d| !left_out_local(options, &d.path));
    }
    all.decls.sort_by(|a, b| (&a.path, a.span.map(|s| s.start)).cmp(&(&b.path, b.span.map(|s| s.start))));
}

/// The cross-file stage of a check: what is loaded, name resolution, the findings that relate
/// files, the measures. Reads `all`'s declarations (moved into the resolution) and files;
/// returns the findings it makes, sorted (see `cache` for what a cache keys it by).
fn cross_stage(options: &Options, all: &mut Checked) -> Vec<Diagnostic> {
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
    let mut resolution = crate::lock::resolve::resolve(std::mem::take(&mut all.decls), !options.skip_sources);
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
    // What the caller does not read goes now, before the measures run (they read the lock):
    // the command table (unless kept), the tools and the graph, a quarter of what a large
    // tree's check holds here. The resolver's findings are then moved, not copied.
    let mut later = if options.keeps == Keeps::Everything {
        resolution.diagnostics.clone()
    } else {
        if options.keeps != Keeps::Table {
            resolution.table = Vec::new();
        }
        resolution.tools = Vec::new();
        resolution.graph = Default::default();
        // Nor, unless it writes or compares a lock, what each plugin holds (its inventory: the
        // lock's, `capc ls`'s and `capc explain`'s; the resolver's marketplace clashes have
        // read it): every skill and command name of a plugin, again.
        if options.keeps != Keeps::Lock {
            if let Some(lock) = Arc::get_mut(&mut resolution.lock) {
                lock.plugins.iter_mut().for_each(|p| p.inventory = Default::default());
            }
        }
        std::mem::take(&mut resolution.diagnostics)
    };
    if let Some(recorded) = options.surface.as_deref().filter(|r| !r.tools.is_empty()) {
        later.extend(crate::surface::name_findings(recorded, &resolution.lock, &all.server_spans));
    }
    all.resolution = Some(Arc::new(resolution));
    for measure in &options.measure.0 {
        later.extend(measure.findings(all, options));
    }
    // Once the measures have read them, the lock's skills and commands go too when the caller
    // reads the table instead (each is a copy of a file's declaration, which a cache keeps).
    if options.keeps == Keeps::Table {
        if let Some(lock) = all.resolution.as_mut().and_then(Arc::get_mut).and_then(|r| Arc::get_mut(&mut r.lock)) {
            lock.commands = Vec::new();
        }
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
            Item::KnownMarketplace(k) => k.location.as_deref(),
            _ => None,
        })
        .collect();
    let paths = all.files.iter().map(|f| &*f.path).chain(all.diagnostics.iter().map(|d| d.path.as_str()));
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

/// `large-instructions`: each file sent at the start longer than Claude Code's per-file
/// threshold, and the largest of the others when they pass its total threshold together
/// (Claude Code with a context window of up to 200,000 tokens).
fn large_instructions(
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

/// Permission rules that name an MCP server no file in the check declares. In a plugin,
/// only the plugin's own servers written without their `plugin_<plugin>_` prefix are
/// reported: plugins often rely on servers their users install.
fn undeclared_servers(declared: &std::collections::BTreeSet<String>, references: Vec<ServerUse>) -> Vec<Diagnostic> {
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
