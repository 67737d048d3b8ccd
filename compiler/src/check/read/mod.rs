//! The read stage: each claimed file of a root read once, side by side, by the reader of its
//! kind (`file.rs`: `read_claim` dispatches on the claim's `FileKind`), then the instruction
//! files a session here reads (`instructions/`); what it hands on is one [`RootReading`] per
//! root, then ([`gather`]) one [`Readings`] for the whole check: every file, declaration and
//! finding, the instruction files in the order Claude Code sends them. A cache wraps the
//! per-file reader ([`Cache::read_each`]): a file whose text, claim and folder listing are as
//! before keeps its reading.
//!
//! `file.rs` reads one claimed file, `reader.rs` is what every reader is given and fills,
//! `json.rs` reads the JSON kinds, `markdown.rs` skills, commands and agents and the names
//! Claude Code gives them, `runs.rs` the `[[run]]` rows of a file and the files of a plugin's
//! `bin/`.

mod file;
mod json;
mod markdown;
mod reader;
mod runs;

use super::cache::{self, Discovered, Read};
use super::instructions::{self, Excludes, Loading};
use super::placement::{project_keys, Realm};
use super::walk::Walked;
use super::{Cache, Checked, Claim, Options, Outcome, ServerUse};
use crate::decl::FileKind;
use crate::model::{Decl, Item, Scope};
use crate::walk;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;

/// What the read stage takes from the options, made once for every root.
pub(super) struct Reading<'o> {
    cache: Option<&'o Cache>,
    /// The keys `~/.claude.json` may file the checked project under.
    project_keys: Vec<String>,
    /// What `claudeMdExcludes` leaves out of the instruction files.
    excludes: Excludes,
    /// [`Options::add_dir_instructions`].
    add_dir_instructions: bool,
    /// Whether the settings switch off the built-in plugin behind the AGENTS.md fallback.
    agents_md_off: bool,
    /// [`Options::start`]: the folder Claude Code starts in.
    start: &'o str,
    /// Keep each file's skills and commands packed until the cross-file stage (see
    /// [`Checked::packed`]): for a check that keeps only its findings (`capc check`), whose
    /// peak is the end of this stage. A check that keeps its lock (`capc lock`, `capc serve`)
    /// peaks later, and higher with them packed (measured: 6–8 MiB on a 100,000-file tree).
    pack: bool,
}

impl<'o> Reading<'o> {
    pub(super) fn new(options: &'o Options) -> Reading<'o> {
        Reading {
            cache: options.cache.as_deref(),
            // `~/.claude.json` keeps local-scope servers under the project's absolute path.
            project_keys: project_keys(&options.root),
            excludes: Excludes::new(&exclude_patterns(options)),
            add_dir_instructions: options.add_dir_instructions,
            agents_md_off: agents_md_off(options),
            start: &options.start,
            pack: options.keeps == super::Keeps::Findings,
        }
    }
}

/// One root read: what its files hold, and the MCP servers they declare and name (for the
/// cross-file stage; `None` for an `--add-dir` folder, whose rules are not checked against
/// them).
pub(super) struct RootReading {
    pub(super) checked: Checked,
    pub(super) servers: Option<(BTreeSet<String>, Vec<ServerUse>)>,
}

/// Every root read: what the cross-file stage is handed.
pub(super) struct Readings {
    pub(super) all: Checked,
    /// Each root's servers (see [`RootReading::servers`]).
    pub(super) servers: Vec<(BTreeSet<String>, Vec<ServerUse>)>,
    /// With a cache: what the cross-file stage reads of each root (see `cache`).
    pub(super) fingerprints: Vec<u64>,
}

/// The read stage of one root, given its walk and its claims. Both are freed once the files
/// are read, before the readings are gathered (the stage's largest moment).
pub(super) fn read(walked: Walked, discovered: Arc<Discovered>, reading: &Reading<'_>) -> RootReading {
    let (realm, listing) = (walked.realm, walked.listing);
    let Discovered { outcomes, diagnostics, counts, plugin_decls, fingerprint, .. } = &*discovered;
    let (outcomes, diagnostics, counts, plugin_decls) =
        (outcomes.clone(), diagnostics.clone(), *counts, plugin_decls.clone());
    // With a cache, what the cross-file stage reads of each file, in order, for its key
    // (the claims' own part hashed once, when they were made).
    let mut fingerprints: Vec<u64> = match reading.cache {
        Some(_) => vec![*fingerprint],
        None => Vec::new(),
    };
    let (parsed, found) = read_files(&walked, &discovered, reading);
    drop(discovered);
    let Walked { dir, tree, .. } = walked;
    let ignored = tree.ignored;
    drop(tree);

    let mut checked = Checked::empty(diagnostics);
    checked.declarations = counts;
    let mut plugin_decls = plugin_decls;
    checked.ignored = ignored;
    let mut declared: BTreeSet<String> = BTreeSet::new();
    let mut references: Vec<ServerUse> = Vec::new();
    let skipped: BTreeMap<String, String> =
        outcomes.iter().filter_map(|o| o.skips_plugin.as_deref().cloned()).chain(parsed.skips()).collect();
    refuse_skipped(&mut plugin_decls, &skipped);
    if reading.pack {
        checked.packed.push(cache::KeptDecls::Plain(plugin_decls.into_boxed_slice()));
    } else {
        checked.decls = plugin_decls;
    }
    let mut take = |servers: ServerUse| {
        declared.extend(servers.declared.iter().cloned());
        if !servers.named.is_empty() {
            references.push(servers);
        }
    };
    for outcome in outcomes {
        take(checked.absorb(outcome, reading.pack));
    }
    match parsed {
        Got::Read(mut parts) => {
            checked.absorb_parts(parts.iter_mut().map(|part| &mut part.checked).collect());
            parts.into_iter().flat_map(|part| part.servers).for_each(&mut take);
        }
        Got::Kept(reads) => {
            checked.files.reserve(reads.len());
            fingerprints.reserve(reads.len());
            for read in reads {
                fingerprints.push(read.fingerprint);
                take(checked.absorb_kept(read));
            }
        }
    }
    if let Some(found) = found {
        for outcome in found.outcomes {
            take(checked.absorb(outcome, reading.pack));
        }
        checked.instructions = found.entries;
        // An `--add-dir` folder's instruction files are not weighed by `large-instructions`.
        if !matches!(realm, Realm::AddDir(_)) {
            checked.instruction_chars = found.chars;
        }
    }
    if let Some(listing) = listing {
        // The plugin declarations are the claim stage's (in its fingerprint), marked refused
        // by the files read (whose fingerprints say which they skip).
        let mut h = cache::hasher();
        (dir.as_path(), listing, realm, &fingerprints).hash(&mut h);
        checked.fingerprint = h.finish();
    }
    let servers = (!matches!(realm, Realm::AddDir(_))).then_some((declared, references));
    RootReading { checked, servers }
}

/// The claimed files of a root read, and the instruction files a session started there reads
/// with the files their imports name (for the realms that have them).
fn read_files(
    walked: &Walked,
    discovered: &Arc<Discovered>,
    reading: &Reading<'_>,
) -> (Got, Option<instructions::Instructions>) {
    let Walked { dir, tree, realm, hash, .. } = walked;
    let (dir, realm, hash) = (dir.as_path(), *realm, *hash);
    let claims = &discovered.claims;
    // Started below the checked folder: the folders on the way are the project's (their
    // readings differ from the cached ones, which are the checked folder's).
    let started = (realm == Realm::Project && !reading.start.is_empty()).then(|| claims.started_in(reading.start));
    let claims = started.as_ref().unwrap_or(claims);
    let cache = reading.cache.filter(|_| started.is_none());
    let claimed: Vec<(&String, &Claim)> = claims.read_in_order().collect();
    let parsed = read_claims(walked, &claimed, reading, cache, discovered);
    let found = matches!(realm, Realm::Project | Realm::User | Realm::Managed | Realm::AddDir(_)).then(|| {
        let claimed = |rel: &str| claims.0.contains_key(rel);
        let loading = Loading {
            excludes: Some(&reading.excludes),
            add_dirs: reading.add_dir_instructions,
            agents_md_off: reading.agents_md_off,
        };
        instructions::read_instructions(dir, tree, realm, hash, &claimed, &loading)
    });
    (parsed, found)
}

/// The files of a root read: made now, or kept in a cache (a kept reading's declarations are
/// copied out only when the cross-file stage runs).
enum Got {
    /// Folded as they were read, each run of files read on one thread into one [`Part`], the
    /// parts in claim order.
    Read(Vec<Part>),
    Kept(Vec<Arc<Read>>),
}

impl Got {
    /// The plugins (their roots, as shown) Claude Code refuses to load because of a file read,
    /// with why, in claim order.
    fn skips(&self) -> Vec<(String, String)> {
        match self {
            Got::Read(parts) => parts.iter().flat_map(|part| part.skips.iter().cloned()).collect(),
            Got::Kept(reads) => {
                reads.iter().filter_map(|read| read.rare.as_ref()?.skips_plugin.as_deref().cloned()).collect()
            }
        }
    }
}

/// A run of claimed files read one after the other on one thread, each file's outcome added
/// as soon as it is read ([`Checked::absorb`]): a file's reading is never held beside the
/// others in a form of its own, only in the lists every file's go to.
struct Part {
    checked: Checked,
    /// See [`Reading::pack`].
    pack: bool,
    /// The servers each file declares or names, for the files that declare or name one.
    servers: Vec<ServerUse>,
    /// See [`Got::skips`].
    skips: Vec<(String, String)>,
}

impl Part {
    fn new(pack: bool) -> Part {
        Part { checked: Checked::empty(Vec::new()), pack, servers: Vec::new(), skips: Vec::new() }
    }

    fn add(mut self, mut outcome: Outcome) -> Part {
        self.skips.extend(outcome.skips_plugin.take().map(|s| *s));
        let servers = self.checked.absorb(outcome, self.pack);
        if !servers.declared.is_empty() || !servers.named.is_empty() {
            self.servers.push(servers);
        }
        self
    }

    /// The part with its lists at their length: a finished part waits for the others, and
    /// the room its lists grew into would count in the stage's peak (a tenth of a large
    /// check's memory).
    fn finished(mut self) -> Part {
        let checked = &mut self.checked;
        checked.files.shrink_to_fit();
        checked.decls.shrink_to_fit();
        checked.packed.shrink_to_fit();
        checked.diagnostics.shrink_to_fit();
        self.servers.shrink_to_fit();
        self
    }
}

/// Reads the claimed files side by side, each by the reader of its kind; with a cache, each
/// through [`Cache::read_each`].
fn read_claims(
    walked: &Walked,
    claimed: &[(&String, &Claim)],
    reading: &Reading<'_>,
    cache: Option<&Cache>,
    discovered: &Arc<Discovered>,
) -> Got {
    let (project_keys, pack) = (reading.project_keys.as_slice(), reading.pack);
    let Walked { dir, tree, realm, hash, listing, .. } = walked;
    let (dir, realm, hash) = (dir.as_path(), *realm, *hash);
    let read_one = |rel: &str, claim: &Claim, content: Option<walk::Content>| {
        file::read_claim(dir, tree, rel, claim, realm, hash, project_keys, content)
    };
    match cache.zip(*listing) {
        // Each run of files a thread reads is folded into one part, the runs in claim order
        // (rayon's `collect` keeps the order of a `fold`'s runs).
        None => Got::Read(
            claimed
                .par_iter()
                .fold(|| Part::new(pack), |part, (rel, claim)| part.add(read_one(rel, claim, None)))
                .map(Part::finished)
                .collect(),
        ),
        Some((cache, listing)) => {
            let root = cache::Root { dir, tree, realm, hash, listing, project_keys };
            let read = |rel: &str, claim: &Claim, content| read_one(rel, claim, Some(content));
            Got::Kept(cache.read_each(&root, discovered, claimed, read))
        }
    }
}

/// Marks the plugins of `skipped` (root as shown → why) refused: Claude Code skips them
/// whole and loads the others (see `hooks::skips_plugin`).
fn refuse_skipped(decls: &mut [Decl], skipped: &BTreeMap<String, String>) {
    for d in decls {
        if let Item::Plugin(folder) = &mut d.item {
            if let (None, Some(why)) = (&folder.refused, skipped.get(&folder.root)) {
                folder.refused = Some(format!("Claude Code refuses to load it: {why}"));
            }
        }
    }
}

/// Every root's reading as one: local instruction files left out when asked, the instruction
/// files in the order Claude Code sends them, files sorted by path.
pub(super) fn gather(options: &Options, roots: Vec<RootReading>) -> Readings {
    let mut all = Checked::empty(Vec::new());
    let mut servers = Vec::new();
    let mut fingerprints: Vec<u64> = Vec::new();
    for RootReading { checked: one, servers: uses } in roots {
        fingerprints.push(one.fingerprint);
        servers.extend(uses);
        all.files_checked += one.files_checked;
        all.suppressions.extend(one.suppressions);
        all.ignored += one.ignored;
        all.not_loaded.extend(one.not_loaded);
        append(&mut all.files, one.files);
        all.declarations += one.declarations;
        append(&mut all.diagnostics, one.diagnostics);
        append(&mut all.decls, one.decls);
        append(&mut all.packed, one.packed);
        all.kept.extend(one.kept);
        all.instructions.extend(one.instructions);
        all.instruction_chars.extend(one.instruction_chars);
    }
    // CLAUDE.local.md (and what it alone imports) is each user's own, as local settings are,
    // unless the repository tracks it ([`Options::local_kept`]).
    if options.leave_out_local {
        let mut kept: BTreeSet<String> = BTreeSet::new();
        let mut local: BTreeSet<String> = BTreeSet::new();
        for i in all.instructions.iter().filter(|i| i.scope == Scope::Local) {
            let tracked = options.local_kept.contains(&i.path);
            if tracked || i.imported_by.as_ref().is_some_and(|by| kept.contains(by)) {
                kept.insert(i.path.clone());
            } else {
                local.insert(i.path.clone());
            }
        }
        all.instructions.retain(|i| i.scope != Scope::Local || kept.contains(&i.path));
        for file in all.files.iter_mut().filter(|f| f.kind == FileKind::Instructions && local.contains(&*f.path)) {
            Arc::make_mut(file).unlisted = true;
        }
    }
    // Managed instructions are sent first, then the user's, the project's, the `--add-dir`
    // folders'; nested folders' files wait for a file below them.
    all.instructions.sort_by_key(|i| match i.scope {
        Scope::Managed => 0,
        Scope::User => 1,
        _ if i.path.starts_with("<add-dir ") => 3,
        _ => 2,
    });
    for (n, instruction) in all.instructions.iter_mut().enumerate() {
        instruction.order = u32::try_from(n + 1).unwrap_or(u32::MAX);
    }
    all.files.sort_by(|a, b| a.path.cmp(&b.path));
    Readings { all, servers, fingerprints }
}

/// `more` after `list`: moved, not copied, when `list` is empty (most checks read one root,
/// whose lists are every file's).
fn append<T>(list: &mut Vec<T>, more: Vec<T>) {
    if list.is_empty() {
        *list = more;
    } else {
        list.extend(more);
    }
}

/// The `claudeMdExcludes` of the settings a session here reads: the project's, its local
/// settings (unless left out), the user's and the managed ones, in that order.
fn exclude_patterns(options: &Options) -> Vec<String> {
    let mut patterns = Vec::new();
    for settings in settings_read(options) {
        if let Some(list) = settings.get("claudeMdExcludes").and_then(serde_json::Value::as_array) {
            patterns.extend(list.iter().filter_map(|p| p.as_str().map(str::to_string)));
        }
    }
    patterns
}

/// The id under which Claude Code's settings name the built-in plugin that reads AGENTS.md
/// where a folder has no CLAUDE.md.
const AGENTS_MD_PLUGIN: &str = "agents-md@builtin";

/// Whether `enabledPlugins` switches off the built-in plugin behind the AGENTS.md fallback: its
/// value in the last settings file (user, project, local, managed: the later wins) that names
/// it is `false`. It is on by default.
fn agents_md_off(options: &Options) -> bool {
    let mut off = false;
    for settings in settings_read(options) {
        if let Some(on) = settings.get("enabledPlugins").and_then(|e| e.get(AGENTS_MD_PLUGIN)) {
            off = on.as_bool() == Some(false);
        }
    }
    off
}

/// The settings files that decide how instruction files load, lowest precedence first: the
/// user's, the project's, its local ones (unless left out of the lock), the managed ones; each
/// one that reads as a JSON value.
fn settings_read(options: &Options) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(home) = &options.user_dir {
        files.push(home.join(".claude/settings.json"));
    }
    files.push(options.root.join(".claude/settings.json"));
    if !options.leave_out_local || options.local_kept.iter().any(|p| p == ".claude/settings.local.json") {
        files.push(options.root.join(".claude/settings.local.json"));
    }
    if let Some(dir) = &options.managed_dir {
        files.push(dir.join("managed-settings.json"));
    }
    files
        .iter()
        .filter_map(|file| match options.texts.read(file) {
            walk::Content::Text(text) => serde_json::from_str::<serde_json::Value>(&text).ok(),
            _ => None,
        })
        .collect()
}
