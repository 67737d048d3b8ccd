//! What a check may keep between runs ([`Options::cache`](super::Options); `capc lsp` keeps one
//! for its workspace, so an edit re-does only what the edit changes):
//!
//! * the walk of each folder, until the keeper says the folder's files changed
//!   ([`Cache::forget_walks`]: a file created, deleted or saved);
//! * each root's discovery (its marketplaces and plugin manifests read, the claim on every
//!   other file), keyed by the folder's listing and the manifests' texts;
//! * each file's reading, keyed by what it reads: its text, its claim (kind, owner, the folder
//!   its name is relative to), the scope, and the folder's list of files and folders when its
//!   reader asked whether another path exists (`decl::Listing`: a file created or deleted
//!   leaves every other reading kept); a reading that also read another file, a script its
//!   hooks or servers run, hashed, is never taken again (a few files of a tree, read anew by
//!   every check); kept as each
//!   root's readings in its claims' order ([`Rows`]), found by place while its discovery is
//!   kept, else (a file added or removed) by path, the claims before and now merged in order;
//! * the cross-file stage (name resolution, the measures, what is loaded), keyed by what it
//!   reads: every file's declarations, the whole text of each JSON file and the frontmatter of
//!   each Markdown file (where the cross-file findings point), and the options. A body edit
//!   of a skill leaves that key as it was (only `content_length`, the body's length, which no
//!   finding reads, is left out of it), so the edit costs one file's reading.
//!
//! A check with a cache reports what a check without one reports (`tests/it/cache.rs` edits
//! real corpora both ways); the keys are 64-bit hashes of what was read. A check whose text
//! source was cancelled part way (`TextSource::cancelled`: `capc lsp` supersedes a check when
//! the next edit comes) keeps nothing: a key is taken from a text's stamp before the text is
//! read, so what such a check made may hold a failed read under the key of the real text.

use super::Outcome;
use crate::lock::resolve::Resolution;
use crate::model::Item;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// See the module docs. Shared by reference between checks run one after another (or at once:
/// each part is behind its own lock).
#[derive(Default)]
pub struct Cache {
    walks: Mutex<HashMap<String, Arc<crate::walk::Tree>>>,
    /// Each root's claim stage (`claim::claim`), by folder and scope.
    discovered: Mutex<HashMap<String, (u64, Arc<Discovered>)>>,
    cross: Mutex<Option<(u64, Arc<Cross>)>>,
    /// Each root's readings in its claims' order (see [`Rows`]), by folder and scope.
    rows: Mutex<HashMap<String, Arc<Rows>>>,
    /// Places a measure found in a file's text (what it looked for, by a hash of the file's
    /// path: a large tree's paths are not copied), under the text's stamp. Two paths under one
    /// hash would also need texts under one stamp: the same text, with the same places.
    #[allow(clippy::type_complexity)]
    spans: Mutex<HashMap<(u64, &'static str), (u64, Option<crate::span::Span>)>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reads = self.rows.lock().map(|r| r.values().map(|rows| rows.rows.len()).sum::<usize>()).unwrap_or(0);
        write!(f, "Cache({reads} readings)")
    }
}

/// One file's reading: its [`Outcome`] as kept, one per file of a tree for as long as the file
/// is unchanged. What few files have (findings, suppressions, servers, why it is not loaded,
/// the plugin it makes Claude Code skip) is behind one box.
pub(super) struct Read {
    pub(super) key: u64,
    /// What the cross-file stage reads of the file (see the module docs).
    pub(super) fingerprint: u64,
    /// Shared with the checks that take this reading ([`Checked::files`](super::Checked)).
    pub(super) file: Option<Arc<super::SourceFile>>,
    decls: KeptDecls,
    /// Its [`Counts`](crate::decl::Counts) (one file's, small), in half the bytes.
    counts: [u32; 8],
    /// It read other files than its own (the scripts its rows run, hashed): never taken again
    /// by a later check, which reads the file anew (see the module docs).
    reads_others: bool,
    /// Its reader asked about other paths of the folder: its key has the folder's listing.
    reads_listing: bool,
    pub(super) rare: Option<Box<Rare>>,
}

// Kept for every file of a tree: with its `Arc`'s two counts, within mimalloc's 112-byte class.
const _: () = assert!(std::mem::size_of::<Read>() <= 96);

/// What few files' readings have (see [`Read`]).
pub(super) struct Rare {
    pub(super) diagnostics: Box<[crate::Diagnostic]>,
    pub(super) suppressions: Box<[crate::suppress::Suppression]>,
    pub(super) servers: Option<Box<super::ServerUse>>,
    pub(super) not_loaded: Option<Box<(String, String)>>,
    pub(super) skips_plugin: Option<Box<(String, String)>>,
}

impl Read {
    fn new(key: u64, outcome: Outcome) -> Read {
        let fingerprint = fingerprint(&outcome);
        let Outcome {
            file,
            decls,
            counts,
            diagnostics,
            servers,
            suppressions,
            not_loaded,
            skips_plugin,
            head: _,
            reads_others,
            reads_listing,
        } = outcome;
        let rare = (!diagnostics.is_empty()
            || !suppressions.is_empty()
            || servers.is_some()
            || not_loaded.is_some()
            || skips_plugin.is_some())
        .then(|| {
            Box::new(Rare {
                diagnostics: diagnostics.into_boxed_slice(),
                suppressions: suppressions.into_boxed_slice(),
                servers,
                not_loaded,
                skips_plugin,
            })
        });
        let decls = KeptDecls::keep(decls, file.as_ref().map(|f| &*f.path));
        let crate::decl::Counts { skills, commands, agents, plugins, marketplaces, mcp_servers, hooks, settings } =
            counts;
        let counts = [skills, commands, agents, plugins, marketplaces, mcp_servers, hooks, settings]
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        Read { key, fingerprint, file: file.map(Arc::new), decls, counts, reads_others, reads_listing, rare }
    }

    /// The declarations it counted, by kind.
    pub(super) fn counts(&self) -> crate::decl::Counts {
        let [skills, commands, agents, plugins, marketplaces, mcp_servers, hooks, settings] =
            self.counts.map(|n| n as usize);
        crate::decl::Counts { skills, commands, agents, plugins, marketplaces, mcp_servers, hooks, settings }
    }

    /// Its declarations, added to `into` in the order the reader made them.
    pub(super) fn decls_into(&self, into: &mut Vec<crate::model::Decl>) {
        self.decls.copy_into(self.file.as_ref().map(|f| &*f.path), into);
    }
}

/// A kept reading's declarations. Most files of a large tree are skills and commands, whose
/// one declaration is a [`Command`](crate::model::lock::Command): kept packed, as JSON (each
/// absent field left out, the file's path not repeated), about half what the declaration
/// takes in memory, and unpacked only when the cross-file stage runs again (an edit of
/// what it reads). Any other declaration is kept as it is.
#[derive(Clone)]
pub(super) enum KeptDecls {
    Plain(Box<[crate::model::Decl]>),
    Packed(Box<[u8]>),
}

impl std::fmt::Debug for KeptDecls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeptDecls::Plain(decls) => f.debug_tuple("Plain").field(decls).finish(),
            KeptDecls::Packed(bytes) => write!(f, "Packed({} bytes)", bytes.len()),
        }
    }
}

/// One packed declaration of a command: its path and span, and the command with its path left
/// empty where it is the file's.
#[derive(serde::Serialize, serde::Deserialize)]
struct Packed {
    /// The declaration's path, when it is not the command's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    span: Option<(usize, usize)>,
    command: crate::model::lock::Command,
}

impl KeptDecls {
    /// `decls` as kept: packed when they are all commands. With the path of their `file`, a
    /// command's own path is left empty when it is the file's (the same `file` unpacks them),
    /// so a command whose path is empty is kept as it is.
    pub(super) fn keep(decls: Vec<crate::model::Decl>, file: Option<&str>) -> KeptDecls {
        let packable = |d: &crate::model::Decl| match &d.item {
            Item::Command(c) => file.is_none() || !c.path.is_empty(),
            _ => false,
        };
        if decls.is_empty() || !decls.iter().all(packable) {
            return KeptDecls::Plain(decls.into_boxed_slice());
        }
        let packed: Vec<Packed> = decls
            .into_iter()
            .filter_map(|decl| match decl.item {
                Item::Command(command) => {
                    let mut command = *command;
                    let at = (decl.path != command.path).then_some(decl.path);
                    if Some(command.path.as_str()) == file {
                        command.path = String::new();
                    }
                    Some(Packed { at, span: decl.span.map(|s| (s.start, s.end)), command })
                }
                _ => None,
            })
            .collect();
        match serde_json::to_vec(&packed) {
            Ok(bytes) => KeptDecls::Packed(bytes.into_boxed_slice()),
            // Not reached (a command is strings, flags and lists); kept whole all the same.
            Err(_) => KeptDecls::Plain(packed.into_iter().map(|p| Self::unpacked(p, file)).collect()),
        }
    }

    fn unpacked(packed: Packed, file: Option<&str>) -> crate::model::Decl {
        let Packed { at, span, mut command } = packed;
        if let Some(file) = file.filter(|_| command.path.is_empty()) {
            command.path = file.to_string();
        }
        crate::model::Decl {
            path: at.unwrap_or_else(|| command.path.clone()),
            span: span.map(|(start, end)| crate::span::Span::new(start, end)),
            item: Item::Command(Box::new(command)),
        }
    }

    /// Adds copies of the declarations to `into`, in their order (kept with `file`'s path).
    fn copy_into(&self, file: Option<&str>, into: &mut Vec<crate::model::Decl>) {
        match self {
            KeptDecls::Plain(decls) => into.extend(decls.iter().cloned()),
            KeptDecls::Packed(packed) => KeptDecls::unpack(packed, file, into),
        }
    }

    /// Adds the declarations to `into`, in their order (kept without a file's path).
    pub(super) fn into_decls(self, into: &mut Vec<crate::model::Decl>) {
        match self {
            KeptDecls::Plain(decls) => into.extend(decls.into_vec()),
            KeptDecls::Packed(packed) => KeptDecls::unpack(&packed, None, into),
        }
    }

    fn unpack(bytes: &[u8], file: Option<&str>, into: &mut Vec<crate::model::Decl>) {
        // Bytes this process wrote from the same type: they read back.
        let packed: Vec<Packed> = serde_json::from_slice(bytes).expect("a kept reading's commands read back");
        into.extend(packed.into_iter().map(|p| Self::unpacked(p, file)));
    }
}

impl std::fmt::Debug for Read {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Read({:?})", self.file.as_ref().map(|f| &f.path))
    }
}

/// A root's readings in the order of its discovery's claims, each with the hash of its key's
/// part that comes before its text's stamp (a reading's key is the hash of that hash and the
/// stamp). While the root's discovery is the one kept (so its claims are), the reading of the
/// i-th claimed file is found at its place, without a lookup by path.
pub(super) struct Rows {
    /// The discovery whose claims these follow.
    pub(super) discovered: Arc<Discovered>,
    /// The hash of what every key of the root shares (the folder, its listing, the scope…).
    pub(super) shared: u64,
    pub(super) rows: Vec<(u64, Arc<Read>)>,
}

/// A reading's key: the hash of its key's part before the stamp (see [`Rows`]) and the stamp.
fn keyed(before: u64, stamp: u64) -> u64 {
    let mut h = hasher();
    (before, stamp).hash(&mut h);
    h.finish()
}

/// What a root holds before its files are read: the claim stage's value (`claim::claim`).
pub(super) struct Discovered {
    pub(super) claims: super::Claims,
    pub(super) outcomes: Vec<Outcome>,
    pub(super) diagnostics: Vec<crate::Diagnostic>,
    pub(super) counts: crate::decl::Counts,
    pub(super) plugin_decls: Vec<crate::model::Decl>,
    /// What the cross-file stage reads of it: its outcomes' fingerprints and its plugin
    /// declarations, hashed (computed only with a cache; 0 otherwise).
    pub(super) fingerprint: u64,
}

/// What the cross-file stage made.
pub(super) struct Cross {
    pub(super) resolution: Arc<Resolution>,
    pub(super) later: Arc<Vec<crate::Diagnostic>>,
    pub(super) not_loaded: BTreeMap<String, String>,
    pub(super) refused_asked: Vec<(String, String)>,
    pub(super) plugin_roots: Vec<(String, Option<String>)>,
    pub(super) unloaded_plugins: Vec<(String, String)>,
    pub(super) server_spans: BTreeMap<(String, String), crate::span::Span>,
}

/// What a root's kept parts are filed under: its folder and scope.
fn root_key(dir: &std::path::Path, realm: super::placement::Realm) -> String {
    format!("{}\u{0}{realm:?}", dir.display())
}

/// A hasher for keys: the standard library's, seeded the same in every process.
pub(super) fn hasher() -> std::collections::hash_map::DefaultHasher {
    std::collections::hash_map::DefaultHasher::new()
}

/// Feeds a value's `Debug` text into a hasher without building the string.
pub(super) fn hash_debug(value: &impl std::fmt::Debug, h: &mut impl Hasher) {
    struct Feed<'a, H: Hasher>(&'a mut H);
    impl<H: Hasher> std::fmt::Write for Feed<'_, H> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let _ = std::fmt::write(&mut Feed(h), format_args!("{value:?}"));
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// Forgets the walks: the next check lists every folder again.
    pub fn forget_walks(&self) {
        if let Ok(mut walks) = self.walks.lock() {
            walks.clear();
        }
    }

    /// Forgets everything.
    pub fn clear(&self) {
        self.forget_walks();
        if let Ok(mut cross) = self.cross.lock() {
            *cross = None;
        }
        if let Ok(mut spans) = self.spans.lock() {
            spans.clear();
        }
        if let Ok(mut discovered) = self.discovered.lock() {
            discovered.clear();
        }
        if let Ok(mut rows) = self.rows.lock() {
            rows.clear();
        }
    }

    /// The walk of `dir` with `filter`, listed now or kept from before.
    pub(super) fn walk(&self, dir: &std::path::Path, filter: &crate::walk::Filter) -> crate::walk::Tree {
        let key = format!("{}\u{0}{filter:?}", dir.display());
        if let Some(tree) = self.walks.lock().ok().and_then(|w| w.get(&key).cloned()) {
            return tree.shallow_clone();
        }
        let tree = crate::walk::walk_filtered(dir, filter);
        // Computed once, for every check that borrows the listing.
        tree.fingerprint();
        let copy = tree.shallow_clone();
        if let Ok(mut walks) = self.walks.lock() {
            walks.insert(key, Arc::new(tree));
        }
        copy
    }

    /// Where `what` is in the file `path` whose text has `stamp` ([`SourceFile::stamp`](super::SourceFile)),
    /// found by `find` (which reads `texts`) unless it was found in that text before.
    pub fn span_in(
        &self,
        path: &str,
        what: &'static str,
        stamp: u64,
        texts: &crate::walk::Texts,
        find: impl FnOnce() -> Option<crate::span::Span>,
    ) -> Option<crate::span::Span> {
        let mut h = hasher();
        path.hash(&mut h);
        let key = (h.finish(), what);
        if let Some((_, span)) = self.spans.lock().ok().and_then(|s| s.get(&key).copied()).filter(|(s, _)| *s == stamp)
        {
            return span;
        }
        let span = find();
        // Not found because the read failed for a cancelled source: not kept.
        if texts.cancelled() {
            return span;
        }
        if let Ok(mut spans) = self.spans.lock() {
            spans.insert(key, (stamp, span));
        }
        span
    }

    /// The discovery of the root `dir` in `realm` under `key`, made by `discover` unless the
    /// one kept has that key.
    pub(super) fn discovered(
        &self,
        dir: &std::path::Path,
        realm: super::placement::Realm,
        key: u64,
        texts: &crate::walk::Texts,
        discover: impl FnOnce() -> Discovered,
    ) -> Arc<Discovered> {
        let root = root_key(dir, realm);
        if let Some((_, found)) =
            self.discovered.lock().ok().and_then(|d| d.get(&root).cloned()).filter(|(k, _)| *k == key)
        {
            return found;
        }
        let found = Arc::new(discover());
        // A discovery that read a cancelled source may lack what it could not read.
        if texts.cancelled() {
            return found;
        }
        if let Ok(mut kept) = self.discovered.lock() {
            kept.insert(root, (key, found.clone()));
        }
        found
    }

    /// The rows kept for the root `dir` in `realm`.
    pub(super) fn rows(&self, dir: &std::path::Path, realm: super::placement::Realm) -> Option<Arc<Rows>> {
        let root = root_key(dir, realm);
        self.rows.lock().ok()?.get(&root).cloned()
    }

    pub(super) fn keep_rows(&self, dir: &std::path::Path, realm: super::placement::Realm, rows: Rows) {
        let root = root_key(dir, realm);
        if let Ok(mut kept) = self.rows.lock() {
            kept.insert(root, Arc::new(rows));
        }
    }

    pub(super) fn cross(&self, key: u64) -> Option<Arc<Cross>> {
        self.cross.lock().ok()?.as_ref().filter(|(k, _)| *k == key).map(|(_, c)| c.clone())
    }

    pub(super) fn keep_cross(&self, key: u64, cross: Arc<Cross>) {
        if let Ok(mut kept) = self.cross.lock() {
            *kept = Some((key, cross));
        }
    }
}

/// What the cross-file stage reads of one file's reading: its declarations (without
/// `content_length`), the servers it declares and names, whether it is loaded and why not,
/// the plugin it makes Claude Code skip, and its text up to the end of a Markdown file's
/// frontmatter (all of any other file).
pub(super) fn fingerprint(outcome: &Outcome) -> u64 {
    let mut h = hasher();
    for decl in &outcome.decls {
        match &decl.item {
            Item::Command(command) if command.content_length != 0 => {
                let mut command = command.clone();
                command.content_length = 0;
                let decl =
                    crate::model::Decl { path: decl.path.clone(), span: decl.span, item: Item::Command(command) };
                hash_debug(&decl, &mut h);
            }
            _ => hash_debug(decl, &mut h),
        }
    }
    hash_debug(&outcome.servers, &mut h);
    outcome.not_loaded.hash(&mut h);
    outcome.skips_plugin.hash(&mut h);
    hash_debug(&outcome.counts, &mut h);
    match &outcome.file {
        Some(file) => {
            file.path.hash(&mut h);
            file.kind.hash(&mut h);
            hash_debug(&file.scope, &mut h);
            file.name.hash(&mut h);
        }
        None => 0u8.hash(&mut h),
    }
    outcome.head.hash(&mut h);
    h.finish()
}

/// The hash of what the cross-file stage may point into: a Markdown file's text up to the end
/// of its frontmatter (the whole text when it has none), any other file's whole text.
pub(super) fn text_head(text: &str, kind: crate::decl::FileKind) -> u64 {
    use crate::decl::FileKind;
    let head = match kind {
        FileKind::Skill | FileKind::Command | FileKind::Agent => match crate::frontmatter::split(text) {
            crate::frontmatter::Split::Found(block) => &text[..block.body_start.min(text.len())],
            _ => text,
        },
        _ => text,
    };
    let mut h = hasher();
    head.hash(&mut h);
    h.finish()
}

/// Where a root's files are read from, for the keys of their readings.
pub(super) struct Root<'a> {
    pub(super) dir: &'a std::path::Path,
    pub(super) tree: &'a crate::walk::Tree,
    pub(super) realm: super::placement::Realm,
    pub(super) hash: bool,
    /// The listing's fingerprint.
    pub(super) listing: u64,
    pub(super) project_keys: &'a [String],
}

/// The key of a root's claim stage: what it reads, the listing and the manifests' texts.
pub(super) fn claim_key(root: &Root<'_>, plugin_dirs: &[(usize, String)]) -> u64 {
    use super::placement::is_manifest;
    let Root { dir, tree, realm, hash, listing, .. } = *root;
    let mut h = hasher();
    (dir, realm, hash, plugin_dirs, listing).hash(&mut h);
    for rel in tree.files.iter().filter(|f| is_manifest(f, "marketplace.json") || is_manifest(f, "plugin.json")) {
        let path = dir.join(rel);
        let stamp = tree.texts.stamp(&path).unwrap_or_else(|| crate::walk::content_hash(&tree.texts.read(&path)));
        (rel, stamp).hash(&mut h);
    }
    h.finish()
}

impl Cache {
    /// The read stage's per-file reader `read` wrapped: each claimed file of `root` (in the
    /// order of `discovered`'s claims) keeps its reading while its text, claim and folder
    /// listing are as before; a file read anew is read by `read`, given its text.
    pub(super) fn read_each(
        &self,
        root: &Root<'_>,
        discovered: &Arc<Discovered>,
        claimed: &[(&String, &super::Claim)],
        read: impl Fn(&str, &super::Claim, crate::walk::Content) -> Outcome + Sync,
    ) -> Vec<Arc<Read>> {
        use rayon::prelude::*;
        let Root { dir, tree, realm, hash, listing, project_keys } = *root;
        // What every file's key shares, hashed once. Not the folder's listing: only a reading
        // whose reader asked about other paths has it in its key (a file created or deleted
        // leaves every other reading as it was).
        let mut shared = hasher();
        (dir, hash, project_keys, realm).hash(&mut shared);
        let shared_key = shared.finish();
        // A reading's key: its part before the stamp, the folder's listing when its reader
        // asked about other paths, its text's stamp.
        let key_of = |before: u64, listed: bool, stamp: u64| {
            let before = if listed { keyed(before, listing) } else { before };
            keyed(before, stamp)
        };
        let kept = self.rows(dir, realm).filter(|k| k.shared == shared_key);
        // Where each file's reading is in the rows kept: at its place while the discovery is
        // the one kept, else (a file added or removed since) found by path, the claims of the
        // kept discovery and of this one merged in their order.
        let same = kept.as_deref().filter(|k| Arc::ptr_eq(&k.discovered, discovered) && k.rows.len() == claimed.len());
        let moved: Vec<Option<usize>> = match (same, kept.as_deref()) {
            (None, Some(kept)) => {
                let mut before = kept.discovered.claims.read_in_order().map(|(rel, _)| rel).enumerate().peekable();
                claimed
                    .iter()
                    .map(|(rel, _)| {
                        while before.next_if(|(_, was)| was < rel).is_some() {}
                        before.next_if(|(_, was)| was == rel).map(|(j, _)| j).filter(|j| *j < kept.rows.len())
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let rows: Vec<(u64, Arc<Read>)> = claimed
            .par_iter()
            .enumerate()
            .map(|(i, (rel, claim))| {
                let path = dir.join(rel.as_str());
                // The key before the stamp: the same claim at the same place as before has it.
                let before = match same {
                    Some(same) => same.rows[i].0,
                    None => {
                        let mut h = shared.clone();
                        (rel.as_str(), claim).hash(&mut h);
                        h.finish()
                    }
                };
                // The text's hash as the source knows it, else read now (and kept for the reading).
                let (stamp, mut content) = match tree.texts.stamp(&path) {
                    Some(stamp) => (stamp, None),
                    None => {
                        let content = tree.texts.read(&path);
                        (crate::walk::content_hash(&content), Some(content))
                    }
                };
                let found = match (same, moved.get(i).copied().flatten()) {
                    (Some(same), _) => Some(&same.rows[i].1),
                    (None, Some(j)) => kept.as_deref().map(|kept| &kept.rows[j].1),
                    (None, None) => None,
                };
                let taken =
                    |read: &&Arc<Read>| read.key == key_of(before, read.reads_listing, stamp) && !read.reads_others;
                if let Some(read) = found.filter(taken) {
                    return (before, read.clone());
                }
                // Keyed by what is read now, even if the file changed since the source's stamp.
                let (content, stamp) = match content.take() {
                    Some(content) => (content, stamp),
                    None => tree.texts.read_stamped(&path),
                };
                let head = match &content {
                    crate::walk::Content::Text(text) => text_head(text, claim.kind),
                    _ => 0,
                };
                let mut outcome = read(rel, claim, content);
                outcome.head = head;
                if let Some(file) = &mut outcome.file {
                    file.stamp = stamp;
                }
                let key = key_of(before, outcome.reads_listing, stamp);
                (before, Arc::new(Read::new(key, outcome)))
            })
            .collect();
        let got = rows.iter().map(|(_, read)| read.clone()).collect();
        if !tree.texts.cancelled() {
            self.keep_rows(dir, realm, Rows { discovered: discovered.clone(), shared: shared_key, rows });
        }
        got
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lock::Command;
    use crate::model::Decl;

    fn command(path: &str, description: &str) -> Command {
        Command {
            name: "review".into(),
            path: path.into(),
            description: Some(description.into()),
            allowed_tools: vec!["Bash(git diff:*)".to_string()].into(),
            paths: vec!["src/**/*.rs".to_string()].into(),
            content_length: 42,
            shell_injections: vec!["git status".to_string()].into(),
            ..Command::default()
        }
    }

    fn unpacked(kept: &KeptDecls, file: Option<&str>) -> Vec<Decl> {
        let mut out = Vec::new();
        kept.copy_into(file, &mut out);
        out
    }

    /// A file's commands are kept packed and read back as they were: the file's own path, a
    /// declaration whose path is another, a command whose path is not the file's, a span or
    /// none, text that JSON escapes.
    #[test]
    fn commands_kept_packed_read_back_as_they_were() {
        let file = "plugins/p/skills/review/SKILL.md";
        let decls = vec![
            Decl {
                path: file.into(),
                span: Some(crate::span::Span::new(4, 10)),
                item: Item::Command(Box::new(command(file, "Reviews \"diffs\"\n\tand — more"))),
            },
            Decl { path: "elsewhere.json".into(), span: None, item: Item::Command(Box::new(command(file, ""))) },
            Decl { path: file.into(), span: None, item: Item::Command(Box::new(command("other/SKILL.md", "x"))) },
        ];
        let before = format!("{decls:?}");
        let kept = KeptDecls::keep(decls, Some(file));
        assert!(matches!(kept, KeptDecls::Packed(_)), "a file of commands only is kept packed");
        assert_eq!(format!("{:?}", unpacked(&kept, Some(file))), before);
    }

    /// A file with any other declaration keeps them all as they are, in their order.
    #[test]
    fn other_declarations_are_kept_as_they_are() {
        let file = ".claude/settings.json";
        let decls = vec![
            Decl { path: file.into(), span: None, item: Item::Command(Box::new(command(file, "d"))) },
            Decl { path: file.into(), span: None, item: Item::Rule(Box::default()) },
        ];
        let before = format!("{decls:?}");
        let kept = KeptDecls::keep(decls, Some(file));
        assert!(matches!(kept, KeptDecls::Plain(_)));
        assert_eq!(format!("{:?}", unpacked(&kept, Some(file))), before);
        assert!(matches!(KeptDecls::keep(Vec::new(), None), KeptDecls::Plain(_)), "no declarations: nothing packed");
        // A command without a path would read back with the file's: kept as it is.
        let pathless = vec![Decl { path: String::new(), span: None, item: Item::Command(Box::new(command("", "d"))) }];
        let before = format!("{pathless:?}");
        let kept = KeptDecls::keep(pathless.clone(), Some(file));
        assert!(matches!(kept, KeptDecls::Plain(_)));
        assert_eq!(format!("{:?}", unpacked(&kept, Some(file))), before);
        // Without the file's path, nothing is left out: packed, and read back as it was.
        let kept = KeptDecls::keep(pathless, None);
        assert!(matches!(kept, KeptDecls::Packed(_)));
        assert_eq!(format!("{:?}", unpacked(&kept, None)), before);
    }
}
