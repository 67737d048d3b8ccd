//! The checker thread: one `capc check` of the workspace per generation of the open buffers,
//! and its findings as LSP diagnostics by file.
//!
//! The main loop numbers every change of the buffers (a generation) and sends the checker a
//! job; the checker takes the newest job waiting and drops the older ones (cancellation by
//! generation number). A check already running is cancelled too: the main loop's newest
//! generation is shared with it, its reads fail once a newer change is made, and its result
//! is dropped unsent. The main loop still publishes a result only if no change came after it,
//! so a client never sees findings of a text it no longer has.

use super::shown::FileFindings;
pub(crate) use super::shown::FileUrl;
pub(crate) use super::shown::Findings;
use super::shown::Shown;
use super::text::{Buffers, Cancel, Converted, DiskCache, Lines, Snapshot};
use capc_compiler::check::{locate, Checked};
use capc_compiler::config::{Config, ConfigError};
use capc_compiler::{walk, Options};
use crossbeam_channel::{Receiver, Sender};
use lsp_types::{DiagnosticSeverity, Position, Range, Url};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The scopes besides the workspace, as `capc check`'s flags give them (the client's
/// `initializationOptions`: `userDir`, `managedDir`, `addDirs`, `pluginDirs`), and the
/// baseline its findings are compared with (`baseline`, as `capc check --baseline`).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct Scopes {
    pub(crate) user_dir: Option<PathBuf>,
    pub(crate) managed_dir: Option<PathBuf>,
    pub(crate) add_dirs: Vec<PathBuf>,
    pub(crate) plugin_dirs: Vec<PathBuf>,
    /// A baseline file, relative to the workspace; `""` for none. Without it,
    /// [`DEFAULT_BASELINE`] at the workspace's top when there is one.
    pub(crate) baseline: Option<PathBuf>,
}

/// The baseline the README and `docs/adoption.md` have CI pass to `capc check --baseline`: the
/// editor shows what CI reports, the findings it accepts hidden.
pub(crate) const DEFAULT_BASELINE: &str = "capc-baseline.toml";

/// The baseline file a check of `root` is compared with, if any.
fn baseline_file(root: &std::path::Path, scopes: &Scopes) -> Option<PathBuf> {
    match &scopes.baseline {
        Some(path) if path.as_os_str().is_empty() => None,
        Some(path) => Some(root.join(path)),
        None => Some(root.join(DEFAULT_BASELINE)).filter(|p| p.is_file()),
    }
}

/// Hides the findings of `checked` that the baseline `file` records, as `capc check --baseline`
/// does (rule, file and fingerprint, counted); why not when it cannot be read.
fn apply_baseline(
    checked: &mut Checked,
    texts: &walk::Texts,
    root: &std::path::Path,
    file: &std::path::Path,
) -> Result<(), String> {
    use capc_compiler::baseline::{self, Baseline, Remaining};
    let recorded = Baseline::read(file)?;
    let canonical = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let dir = canonical(file.parent().unwrap_or(root));
    let root = canonical(root);
    let keys = baseline::keys(checked, texts, |p| baseline::path_in(&dir, &root, p));
    Remaining::new(recorded).apply(checked, &keys);
    Ok(())
}

pub(crate) struct Job {
    pub(crate) generation: u64,
    pub(crate) buffers: Arc<Buffers>,
    /// The main loop's newest generation: a check it has passed stops reading and is dropped.
    pub(crate) newest: Arc<AtomicU64>,
}

/// One check of the workspace and what the editor is shown of it.
pub(crate) struct Analysis {
    pub(crate) generation: u64,
    pub(crate) options: Options,
    /// The texts it read (the buffers of its generation over the disk cache).
    pub(crate) snapshot: Snapshot,
    /// `None` when the workspace folder itself cannot be read.
    pub(crate) checked: Option<Checked>,
    /// Each file with findings, by its URL (as text: see [`FileUrl`]), sorted by it.
    pub(crate) files: Vec<(FileUrl, Shows)>,
}

/// What one file is shown.
pub(crate) struct Shows {
    /// Its findings as shown (shared with the converted findings kept for the next check, and
    /// with what was published).
    pub(crate) findings: Findings,
    /// Where they come from: the first of `findings` that comes from `checked.diagnostics` (an
    /// error of capc's setup comes before them), and their indices there, in the same order.
    first: usize,
    group: std::ops::Range<usize>,
}

impl Analysis {
    /// The text the check read for a path as shown in the report: the one it kept, or the
    /// buffer's or the disk's when it is still that text.
    pub(crate) fn text(&self, path: &str) -> Option<Arc<str>> {
        self.checked.as_ref()?.source(path)?.text_in(&self.options.texts)
    }

    /// The findings shown in the file at `url`, each with this check's finding it was converted
    /// from (`None` for an error of capc's setup, which comes first).
    pub(crate) fn findings(&self, url: &str) -> impl Iterator<Item = (&Shown, Option<&capc_compiler::Diagnostic>)> {
        let shows = self.shows(url);
        let shown = shows.map_or(&[][..], |f| &f.findings.shown[..]);
        let (first, group) = shows.map_or((shown.len(), 0..0), |f| (f.first, f.group.clone()));
        let all = self.checked.as_ref().map_or(&[][..], |c| &c.diagnostics[..]);
        let found = all.get(group).unwrap_or_default().iter().map(Some);
        shown.iter().zip(std::iter::repeat_n(None, first).chain(found))
    }

    /// The findings of the file at `url` as LSP diagnostics, to send: each with its message
    /// from this check's finding (or its own, for an error of capc's setup).
    pub(crate) fn lsp(&self, url: &Url) -> Vec<lsp_types::Diagnostic> {
        self.findings(url.as_str()).map(|(shown, finding)| shown.lsp(finding)).collect()
    }

    /// What the file at `url` (as text) is shown, if anything.
    pub(crate) fn shows(&self, url: &str) -> Option<&Shows> {
        let at = self.files.binary_search_by(|(key, _)| (**key).cmp(url)).ok()?;
        Some(&self.files[at].1)
    }

    /// The path as the report shows it for a file URL (the workspace's files only).
    pub(crate) fn shown(&self, url: &Url) -> Option<String> {
        let path = url.to_file_path().ok()?;
        let rel = path.strip_prefix(&self.options.root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    pub(crate) fn url(&self, shown: &str) -> Option<Url> {
        Url::from_file_path(locate(&self.options, shown)).ok()
    }
}

/// Starts the checker; it ends when `jobs` is dropped or the results are no longer received.
pub(crate) fn spawn(root: PathBuf, scopes: Scopes, disk: Arc<DiskCache>) -> (Sender<Job>, Receiver<Analysis>) {
    let (jobs, job_receiver) = crossbeam_channel::unbounded::<Job>();
    let (result_sender, results) = crossbeam_channel::unbounded::<Analysis>();
    let spawned = std::thread::Builder::new().name("capc-lsp-checker".into()).spawn(move || {
        while let Ok(mut job) = job_receiver.recv() {
            // Only the newest state of the buffers is worth checking.
            while let Ok(newer) = job_receiver.try_recv() {
                job = newer;
            }
            let cancel = Cancel { generation: job.generation, newest: job.newest.clone() };
            if cancel.is_superseded() {
                // A newer job is on its way: this one was cancelled while queued.
                continue;
            }
            let analysis = analyse(&root, &scopes, &disk, job);
            if cancel.is_superseded() {
                // Cancelled while running (its reads failed from the change on): never seen.
                continue;
            }
            if result_sender.send(analysis).is_err() {
                break;
            }
        }
    });
    if spawned.is_err() {
        eprintln!("capc lsp: cannot start the checker thread");
    }
    (jobs, results)
}

/// The capc.toml a check of `root` uses, as `capc check` finds it, with an open buffer of it
/// (saved or not) standing for the file: a buffer `capc.toml` or `.capc.toml` in `root`
/// itself, else the file `config::find` finds; and its text when a buffer has it.
/// A configuration file's path and, when a buffer has it open, the buffer's text.
type ConfigFile = (PathBuf, Option<Arc<str>>);

fn config_file(root: &std::path::Path, buffers: &Buffers) -> Result<Option<ConfigFile>, ConfigError> {
    let buffered = |path: &std::path::Path| buffers.get(path).cloned();
    let in_root: Vec<PathBuf> =
        capc_compiler::config::FILE_NAMES.iter().map(|n| root.join(n)).filter(|p| buffers.contains_key(p)).collect();
    if let [one] = in_root.as_slice() {
        let other = capc_compiler::config::FILE_NAMES.iter().map(|n| root.join(n)).find(|p| p != one && p.is_file());
        if other.is_none() {
            return Ok(Some((one.clone(), buffered(one))));
        }
    }
    Ok(capc_compiler::config::find(root)?.map(|found| {
        let text = buffered(&found);
        (found, text)
    }))
}

/// The options `capc check` would use for `root`: its capc.toml (an open buffer of it as it
/// stands; defaults when it cannot be read, with the reason), then the client's scopes over it;
/// `surface` is what the workspace's lock recorded.
pub(crate) fn options(
    root: &std::path::Path,
    scopes: &Scopes,
    buffers: &Buffers,
    surface: Arc<capc_compiler::surface::Recorded>,
) -> (Options, Option<(ConfigError, Option<PathBuf>)>) {
    let file = config_file(root, buffers);
    let at = file.as_ref().ok().and_then(|f| f.as_ref().map(|(path, _)| path.clone()));
    let loaded = match file {
        Err(e) => Err(e),
        Ok(None) => Ok(Config::defaults(root)),
        Ok(Some((path, Some(text)))) => Config::parse_found(root, &path, &text),
        Ok(Some((path, None))) => Config::read_found(root, &path),
    };
    let (mut config, error) = match loaded {
        Ok(config) => (config, None),
        Err(e) => (Config::defaults(root), Some((e, at))),
    };
    if let Some(dir) = &scopes.user_dir {
        config.user_dir.set(Some(dir.clone()), "--user-dir");
    }
    if let Some(dir) = &scopes.managed_dir {
        config.managed_dir.set(Some(dir.clone()), "--managed-dir");
    }
    if !scopes.add_dirs.is_empty() {
        config.add_dir.set(scopes.add_dirs.clone(), "--add-dir");
    }
    if !scopes.plugin_dirs.is_empty() {
        config.plugin_dir.set(scopes.plugin_dirs.clone(), "--plugin-dir");
    }
    let options = Options {
        root: root.to_path_buf(),
        user_dir: config.user_dir.value.clone(),
        managed_dir: config.managed_dir.value.clone(),
        add_dirs: config.add_dir.value.clone(),
        plugin_dirs: config.plugin_dir.value.clone(),
        skip_hashes: true,
        skip_sources: true,
        filter: config.filter(),
        policy: Some(Arc::new(config.policy())),
        // The editor shows `listing-budget`, `max-context-tokens` and `invalid-mcp-tool-name`
        // as `capc check` reports them.
        measure: crate::cost::measures(&config, &surface),
        surface: Some(surface),
        // Hovers, completions, definitions and references read the lock and the command table.
        keeps: capc_compiler::check::Keeps::Table,
        ..Options::default()
    };
    (options, error)
}

pub(crate) fn analyse(root: &std::path::Path, scopes: &Scopes, disk: &Arc<DiskCache>, job: Job) -> Analysis {
    let (mut options, config_error) = options(root, scopes, &job.buffers, disk.surface(root));
    options.cache = Some(disk.check.clone());
    let cancel = Cancel { generation: job.generation, newest: job.newest };
    let snapshot = Snapshot { buffers: job.buffers, disk: disk.clone(), cancel: None };
    options.texts = walk::Texts::new(Arc::new(Snapshot { cancel: Some(cancel.clone()), ..snapshot.clone() }));
    let mut checked = capc_compiler::check(&options).ok();
    if cancel.is_superseded() {
        // Dropped unsent ([`spawn`]), and like the check's cache, the conversions kept for the
        // next check keep nothing of it: its reads failed from the change on, and the files it
        // could not read would be converted for nothing (the first check, superseded as the
        // editor opens a file, fails all of a large tree's) and held through the next check.
        return Analysis { generation: job.generation, options, snapshot, checked: None, files: Vec::new() };
    }
    // What is read after the check (the baseline's texts, positions, fixes, references) is read
    // without the cancellation.
    options.texts = walk::Texts::new(Arc::new(snapshot.clone()));
    let baseline = baseline_file(root, scopes);
    let baseline_error = match (&mut checked, &baseline) {
        (Some(checked), Some(file)) => apply_baseline(checked, &options.texts, root, file).err(),
        _ => None,
    };
    let mut analysis = Analysis { generation: job.generation, options, snapshot, checked: None, files: Vec::new() };
    if let Some(checked) = &checked {
        convert(&mut analysis, checked, disk);
    }
    if let Some((error, file)) = config_error {
        config_diagnostic(&mut analysis, &error, file);
    }
    if let (Some(why), Some(file)) = (baseline_error, baseline) {
        file_error(&mut analysis, &file, format!("{why} (capc shows every finding until this is fixed)"));
    }
    analysis.checked = checked;
    analysis
}

/// The findings of `checked` as LSP diagnostics, file by file. A file whose text and findings
/// are those of the check before (its text's stamp the same, its findings equal) keeps the
/// diagnostics converted then (`DiskCache::converted`): an edit converts only the files whose
/// findings it changed.
fn convert(analysis: &mut Analysis, checked: &Checked, disk: &DiskCache) {
    use std::hash::{Hash, Hasher};
    let mut converted = disk.converted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // What the check before converted, sorted by a hash of the path: what this one keeps of it
    // goes to `now`, the rest (files without findings now) is dropped with `before`.
    let before = std::mem::take(&mut *converted);
    let all = &checked.diagnostics;
    // One entry a file with findings, each list made to its size.
    let files_with_findings = all.chunk_by(|a, b| a.path == b.path).count();
    let mut now = Vec::with_capacity(files_with_findings);
    let mut shows: Vec<(FileUrl, Shows)> = Vec::with_capacity(files_with_findings);
    // Files and findings are both sorted by path: one pass over each.
    let mut files = checked.files.iter().peekable();
    let mut start = 0;
    while start < all.len() {
        let path = all[start].path.as_str();
        let end = start + all[start..].iter().take_while(|d| d.path == path).count();
        let group = start..end;
        start = end;
        while files.next_if(|f| *f.path < *path).is_some() {}
        let file = files.peek().filter(|f| *f.path == *path);
        let at = path_hash(path);
        let was = before.binary_search_by_key(&at, |(key, _)| *key).ok().map(|i| &before[i].1);
        // What the positions are computed on: the text's stamp, else a hash of the text.
        let key = match file {
            Some(file) if file.stamp != 0 => file.stamp,
            file => {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                file.and_then(|f| f.text_in(&analysis.options.texts)).hash(&mut h);
                h.finish()
            }
        };
        let findings = &all[group.clone()];
        let hashed = findings_hash(findings);
        let kept = match was {
            Some(kept) if kept.stamp == key && kept.lsp.hash == hashed => kept.clone(),
            _ => {
                let Some(url) = analysis.url(path) else { continue };
                let url = FileUrl::from(url.as_str());
                // Read again for the positions (a check keeps no text of a clean file), and
                // dropped once they are computed.
                let text = file.and_then(|f| f.text_in(&analysis.options.texts));
                let lines = Lines::new(text.as_deref().unwrap_or(""));
                let shown: Vec<Shown> = findings
                    .iter()
                    .map(|d| Shown::of(d, d.span.map_or(Range::default(), |span| lines.range(span.start, span.end))))
                    .collect();
                Converted { stamp: key, url, lsp: Arc::new(FileFindings { hash: hashed, shown }) }
            }
        };
        shows.push((kept.url.clone(), Shows { findings: kept.lsp.clone(), first: 0, group }));
        now.push((at, kept));
    }
    now.sort_unstable_by_key(|(key, _)| *key);
    *converted = now;
    drop(converted);
    drop(before);
    // In the report's order, which is the URLs' order but where a path's characters are
    // escaped in its URL: sorted again (nearly sorted already, so in about one pass).
    shows.sort_by(|a, b| a.0.cmp(&b.0));
    // Two paths of one URL (a file shown under two scopes): the last one's, as a map keeps.
    shows.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            std::mem::swap(later, kept);
        }
        same
    });
    analysis.files = shows;
}

/// A hash of a path as the report shows it: what the converted findings are kept by (the
/// other keys of a kept conversion, its text's stamp and its findings, are hashes too).
fn path_hash(path: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    h.finish()
}

/// A hash of what [`shown`] and the positions read of a file's findings: equal for two
/// checks whose findings convert to the same diagnostics on the same text.
fn findings_hash(findings: &[capc_compiler::Diagnostic]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    findings.len().hash(&mut h);
    for d in findings {
        (d.rule, d.severity, d.span, &d.message, &d.help).hash(&mut h);
    }
    h.finish()
}

/// capc.toml that cannot be used: `capc check` stops with this error; the editor shows it on
/// the file and checks with the defaults meanwhile.
fn config_diagnostic(analysis: &mut Analysis, error: &ConfigError, file: Option<PathBuf>) {
    let file = file.or_else(|| capc_compiler::config::find(&analysis.options.root).ok().flatten());
    let Some(url) = file.and_then(|f| Url::from_file_path(f).ok()) else { return };
    // The message starts `path:line:column: `, when the error has a place.
    let mut parts = error.0.splitn(4, ':');
    let (_, line, column) = (parts.next(), parts.next(), parts.next());
    let at = match (line.and_then(|l| l.trim().parse::<u32>().ok()), column.and_then(|c| c.trim().parse::<u32>().ok()))
    {
        (Some(line), Some(column)) => Position::new(line.saturating_sub(1), column.saturating_sub(1)),
        _ => Position::default(),
    };
    let message = format!("{error} (capc checks with the default configuration until this is fixed)");
    error_at(analysis, url, at, message);
}

/// A baseline that cannot be read: `capc check --baseline` stops with this error; the editor
/// shows it on the file (or the workspace's top when it is missing) and shows every finding.
fn file_error(analysis: &mut Analysis, file: &std::path::Path, message: String) {
    let at = if file.is_file() { file.to_path_buf() } else { analysis.options.root.clone() };
    let Some(url) = Url::from_file_path(at).ok() else { return };
    error_at(analysis, url, Position::default(), message);
}

/// An error of capc's own setup, first in its file.
fn error_at(analysis: &mut Analysis, url: Url, at: Position, message: String) {
    // First in its file, before the findings there (which then start one place later).
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let at_file = match analysis.files.binary_search_by(|(key, _)| (**key).cmp(url.as_str())) {
        Ok(i) => i,
        Err(i) => {
            let shows = Shows { findings: Findings::default(), first: 0, group: 0..0 };
            analysis.files.insert(i, (FileUrl::from(url.as_str()), shows));
            i
        }
    };
    let shows = &mut analysis.files[at_file].1;
    let findings = Arc::make_mut(&mut shows.findings);
    (findings.hash, &message).hash(&mut h);
    findings.hash = h.finish();
    let diagnostic =
        Shown { range: Range::new(at, at), severity: DiagnosticSeverity::ERROR, rule: None, own: Some(message.into()) };
    findings.shown.insert(0, diagnostic);
    shows.first += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::text::Buffers;

    /// A check a newer change superseded is dropped unsent, and the conversions kept for the
    /// next check keep nothing of it; a check that stands keeps its files' findings converted.
    #[test]
    fn a_superseded_check_leaves_no_conversions_for_the_next() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(path, text).expect("write");
        };
        // A command and a skill of one name: a finding in each file.
        write(".claude/commands/deploy.md", "---\ndescription: Deploy it\n---\nhello\n");
        write(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy skill\n---\nhi\n");
        let run = |newest: u64| {
            let disk = Arc::new(DiskCache::default());
            let job =
                Job { generation: 1, buffers: Arc::new(Buffers::new()), newest: Arc::new(AtomicU64::new(newest)) };
            let analysis = analyse(dir.path(), &Scopes::default(), &disk, job);
            let kept = disk.converted.lock().map(|c| c.len()).unwrap_or_default();
            (analysis, kept)
        };
        let (standing, kept) = run(1);
        assert!(standing.checked.is_some(), "the check stands");
        assert!(!standing.files.is_empty() && kept > 0, "{} files shown, {kept} kept", standing.files.len());
        let (superseded, kept) = run(2);
        assert!(superseded.checked.is_none() && superseded.files.is_empty());
        assert_eq!(kept, 0, "conversions kept of a superseded check");
    }
}
