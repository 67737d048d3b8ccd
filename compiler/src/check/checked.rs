//! The results of a check ([`Checked`]: files, declarations, findings, resolution) and what
//! is asked of them, with [`Positions`] to turn their spans into lines and columns.

use super::placement::locate;
use super::{cache, path_under, Options, Outcome, ServerUse, SourceFile};
use crate::decl::{Counts, FileKind};
use crate::diagnostic::{Diagnostic, LineIndex, Severity};
use crate::model::Decl;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Checked {
    /// Declaration files read (including those that could not be used).
    pub files_checked: usize,
    /// Shared with the readings a cache keeps ([`Options::cache`](super::Options)).
    pub files: Vec<Arc<SourceFile>>,
    pub declarations: Counts,
    pub diagnostics: Vec<Diagnostic>,
    /// Every declaration, for the resolver (moved into the resolution by [`check`]).
    pub decls: Vec<Decl>,
    /// Every file read, with its content hash, sorted by path (empty with [`Options::skip_sources`]).
    pub sources: Vec<crate::model::Source>,
    /// Names and precedence resolved (set by [`check`]); shared with the cache that kept it.
    pub resolution: Option<Arc<crate::lock::resolve::Resolution>>,
    /// Suppression comments found in the files read.
    pub suppressions: Vec<crate::suppress::Suppression>,
    /// Findings suppressed by comments or `per-path-ignores`, by file.
    pub suppressed: BTreeMap<String, usize>,
    /// Files and folders the walk left out (ignore files, `exclude`).
    pub ignored: usize,
    /// Files a session started in the checked folder does not load, with why: a skill
    /// collection, a nested project, a marketplace no setting declares. Their errors do not
    /// block `capc lock`.
    pub not_loaded: BTreeMap<String, String>,
    /// Plugin folders a session here neither loads nor is asked to load, with why; errors
    /// inside them do not block `capc lock` either.
    pub unloaded_plugins: Vec<(String, String)>,
    /// Every plugin folder, with why it does not load (`None`: loaded or asked for).
    pub(super) plugin_roots: Vec<(String, Option<String>)>,
    /// Plugins the session is asked to load (`--plugin-dir`, `enabledPlugins`, …) that Claude
    /// Code refuses (a plugin.json or hooks file it rejects): `(name, why)`. The lock records
    /// them as not loaded and is written; `capc lock` then exits 1, as a build that fails.
    pub refused_asked: Vec<(String, String)>,
    /// Set when the findings were compared with a baseline or a revision (`capc check
    /// --baseline`, `--new-since`): `diagnostics` then holds only the new ones.
    pub baseline: Option<crate::compared::Applied>,
    /// Where each MCP server is declared: `(name, file)` to the span of its name, for findings
    /// about what the server offers (set by [`check`]).
    pub server_spans: BTreeMap<(String, String), crate::span::Span>,
    /// With a cache: what the cross-file stage reads of this root (see `cache`).
    pub(super) fingerprint: u64,
    /// When the read stage packs them (`read::Reading::pack`), the declarations of the files
    /// read, in their order, until the cross-file stage puts them in `decls`
    /// (`cross::settle_decls`): each file's skills and commands packed (see
    /// `cache::KeptDecls`), about half their size while the rest of the tree is read.
    pub(super) packed: Vec<cache::KeptDecls>,
    /// Kept readings whose declarations are not in `decls` (see [`Checked::absorb_kept`]).
    pub(super) kept: Vec<Arc<cache::Read>>,
    /// The instruction files a session started in the checked folder reads, in the order
    /// Claude Code sends them (the lock's `[[instruction]]`).
    pub instructions: Vec<crate::model::Instruction>,
    /// The length of the text each instruction file sends, in UTF-16 code units (as Claude
    /// Code measures it), by path: for `large-instructions`.
    pub(super) instruction_chars: std::collections::BTreeMap<String, usize>,
}

impl Checked {
    /// A check that has read nothing yet.
    pub(super) fn empty(diagnostics: Vec<Diagnostic>) -> Checked {
        Checked {
            files_checked: 0,
            files: Vec::new(),
            declarations: Counts::default(),
            diagnostics,
            decls: Vec::new(),
            sources: Vec::new(),
            resolution: None,
            suppressions: Vec::new(),
            suppressed: BTreeMap::new(),
            ignored: 0,
            not_loaded: BTreeMap::new(),
            unloaded_plugins: Vec::new(),
            plugin_roots: Vec::new(),
            refused_asked: Vec::new(),
            baseline: None,
            server_spans: BTreeMap::new(),
            fingerprint: 0,
            packed: Vec::new(),
            kept: Vec::new(),
            instructions: Vec::new(),
            instruction_chars: Default::default(),
        }
    }

    /// Adds a kept reading of one file as [`Checked::absorb`] adds an outcome, but for its
    /// declarations, which stay in the reading until the cross-file stage needs them.
    pub(super) fn absorb_kept(&mut self, read: Arc<cache::Read>) -> ServerUse {
        self.files_checked += 1;
        self.declarations += read.counts();
        self.files.extend(read.file.iter().cloned());
        // Most files have no findings, suppressions or servers: nothing to copy.
        let mut servers = ServerUse::default();
        if let Some(rare) = &read.rare {
            self.diagnostics.extend(rare.diagnostics.iter().cloned());
            self.suppressions.extend(rare.suppressions.iter().cloned());
            self.not_loaded.extend(rare.not_loaded.as_deref().cloned());
            servers = rare.servers.as_deref().cloned().unwrap_or_default();
        }
        self.kept.push(read);
        servers
    }

    /// Adds one file's outcome, its declarations packed in `packed` with `pack`; returns the
    /// MCP servers it declares and names, for the cross-file check.
    pub(super) fn absorb(&mut self, outcome: Outcome, pack: bool) -> ServerUse {
        self.files_checked += 1;
        self.declarations += outcome.counts;
        self.diagnostics.extend(outcome.diagnostics);
        if pack {
            if !outcome.decls.is_empty() {
                self.packed.push(cache::KeptDecls::keep(outcome.decls, None));
            }
        } else {
            self.decls.extend(outcome.decls);
        }
        self.files.extend(outcome.file.map(Arc::new));
        self.suppressions.extend(outcome.suppressions);
        self.not_loaded.extend(outcome.not_loaded.map(|n| *n));
        outcome.servers.map(|s| *s).unwrap_or_default()
    }

    /// Adds runs of files read side by side (each [`Checked::absorb`]ed into its own part, the
    /// parts in claim order) as if each file's outcome were absorbed here in turn. One list at
    /// a time, each part's list freed as soon as it is moved: at no point are all the parts'
    /// lists held beside their copies here.
    pub(super) fn absorb_parts(&mut self, mut parts: Vec<&mut Checked>) {
        fn move_all<T>(into: &mut Vec<T>, parts: &mut [&mut Checked], list: impl Fn(&mut Checked) -> &mut Vec<T>) {
            into.reserve(parts.iter_mut().map(|part| list(part).len()).sum());
            for part in parts.iter_mut() {
                into.extend(std::mem::take(list(part)));
            }
        }
        for part in parts.iter_mut() {
            self.files_checked += part.files_checked;
            self.declarations += part.declarations;
            self.not_loaded.append(&mut part.not_loaded);
        }
        move_all(&mut self.diagnostics, &mut parts, |p| &mut p.diagnostics);
        move_all(&mut self.files, &mut parts, |p| &mut p.files);
        move_all(&mut self.sources, &mut parts, |p| &mut p.sources);
        move_all(&mut self.decls, &mut parts, |p| &mut p.decls);
        move_all(&mut self.packed, &mut parts, |p| &mut p.packed);
        move_all(&mut self.suppressions, &mut parts, |p| &mut p.suppressions);
    }

    /// The lock of this check (its sources and resolution).
    pub fn lock(&self) -> crate::model::Lock {
        let mut lock = match &self.resolution {
            Some(r) => crate::model::Lock::clone(&r.lock),
            None => crate::lock::resolve::empty_lock(),
        };
        lock.sources = self.sources.clone();
        lock.instructions = self.instructions.clone();
        lock
    }

    /// The resolved lock, shared with the resolution (no copy): without the sources, which
    /// [`Checked::lock`] adds.
    pub fn shared_lock(&self) -> Arc<crate::model::Lock> {
        match &self.resolution {
            Some(r) => r.lock.clone(),
            None => Arc::new(crate::lock::resolve::empty_lock()),
        }
    }

    /// The lock of this check, moved out of it (no copy unless a cache shares the resolution;
    /// `resolution` keeps the rest: the table, the graph).
    pub fn take_lock(&mut self) -> crate::model::Lock {
        let mut lock = match self.resolution.as_mut() {
            Some(r) => match Arc::get_mut(r) {
                Some(r) => {
                    Arc::unwrap_or_clone(std::mem::replace(&mut r.lock, Arc::new(crate::lock::resolve::empty_lock())))
                }
                None => crate::model::Lock::clone(&r.lock),
            },
            None => crate::lock::resolve::empty_lock(),
        };
        lock.sources = std::mem::take(&mut self.sources);
        lock.instructions = std::mem::take(&mut self.instructions);
        lock
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == severity).count()
    }
    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// Why a session started in the checked folder does not load the file (or folder) at
    /// `path`, or `None` when it does or may.
    pub fn why_not_loaded(&self, path: &str) -> Option<&str> {
        if let Some(why) = self.not_loaded.get(path) {
            return Some(why);
        }
        // The deepest plugin folder holding the path decides.
        self.plugin_roots
            .iter()
            .filter(|(root, _)| crate::lock::plugins::inside(path, root) || path == root)
            .max_by_key(|(root, _)| root.len())
            .and_then(|(_, why)| why.as_deref())
    }

    /// The errors that stop `capc lock`: those in files a session here loads. Errors in a
    /// plugin nothing loads or asks for, a skill collection, a nested project or an undeclared
    /// marketplace leave the session sound (the lock names those files), and so do errors
    /// Claude Code's loader survives ([`Checked::loaded_anyway`]).
    pub fn blocking_errors(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.loaded_errors().filter(|d| !d.loads_anyway)
    }

    /// The errors in what a session here loads that do not block `capc lock`: Claude Code's
    /// loader loads those files as they are (only its official validator rejects them).
    pub fn loaded_anyway(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.loaded_errors().filter(|d| d.loads_anyway)
    }

    /// The errors in files a session here loads.
    fn loaded_errors(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error && self.why_not_loaded(&d.path).is_none())
    }

    /// The files with errors that do not block `capc lock`, each with why a session here does
    /// not load it; sorted by path.
    pub fn left_out(&self) -> BTreeMap<&str, &str> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter_map(|d| Some((d.path.as_str(), self.why_not_loaded(&d.path)?)))
            .collect()
    }
    /// How many findings suppression comments and `per-path-ignores` hid.
    pub(crate) fn suppressed_count(&self) -> usize {
        self.suppressed.values().sum()
    }

    /// The files of `paths` (as shown) that no reader read and no finding names: files that
    /// are no declaration where they are (a `.txt`, a Markdown file outside every folder
    /// Claude Code reads). For `capc check FILE…` and `capc lock FILE…`, which refuse them.
    pub fn not_read<'p>(&self, paths: &'p std::collections::BTreeSet<String>) -> Vec<&'p str> {
        let read = self.read_paths();
        paths.iter().map(String::as_str).filter(|p| !read.contains(p)).collect()
    }

    /// The shown paths of the files a reader read or a finding names.
    fn read_paths(&self) -> std::collections::BTreeSet<&str> {
        self.files.iter().map(|f| &*f.path).chain(self.diagnostics.iter().map(|d| d.path.as_str())).collect()
    }

    /// Keeps only what concerns the files at `paths` (shown paths): their findings, and only
    /// them counted as checked. For `capc check FILE…`.
    pub fn keep_only(&mut self, paths: &std::collections::BTreeSet<String>) {
        let read = self.read_paths();
        let checked = paths.iter().filter(|p| read.contains(p.as_str())).count();
        self.files_checked = checked;
        self.diagnostics.retain(|d| paths.contains(&d.path));
        self.files.retain(|f| paths.contains(&*f.path));
        self.suppressed.retain(|p, _| paths.contains(p));
    }

    /// Shows the checked folder's paths under `prefix/` (the paths of the other scopes, `~/…`
    /// and `<…>/…`, stay as they are). For reports of several folders; the lock and the session
    /// questions (`why_not_loaded`) keep the folder's own paths.
    pub fn show_under(&mut self, prefix: &str) {
        let prefix = prefix.trim_end_matches('/');
        if prefix.is_empty() {
            return;
        }
        let under = |path: &mut String| *path = path_under(prefix, path);
        self.diagnostics.iter_mut().for_each(|d| under(&mut d.path));
        for file in &mut self.files {
            let path = path_under(prefix, &file.path);
            Arc::make_mut(file).path = path.into();
        }
        self.suppressed = std::mem::take(&mut self.suppressed)
            .into_iter()
            .map(|(mut p, n)| {
                under(&mut p);
                (p, n)
            })
            .collect();
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        sort_diagnostics(&mut self.diagnostics);
    }

    /// Shows the paths of `--plugin-dir` folders outside the checked folder, which the lock
    /// writes as `<plugin-dir N>/…`, as the files' real paths, for reports a terminal, an
    /// editor and GitHub resolve: relative to `cwd` when below it, else absolute (always
    /// absolute with `absolute`). The lock and the baseline keep the placeholders.
    pub fn show_plugin_dirs(&mut self, options: &Options, cwd: &Path, absolute: bool) {
        if options.plugin_dirs.is_empty() {
            return;
        }
        let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
        // The path shown instead of `path`, when it is in a `--plugin-dir` folder.
        let real = |path: &str| {
            if !path.starts_with("<plugin-dir ") {
                return None;
            }
            let located = locate(options, path);
            let located = std::path::absolute(&located).unwrap_or(located);
            // The plugin's folder resolved (a `..` in the flag, a link), then the file in it.
            let file = match (located.parent().and_then(|p| p.canonicalize().ok()), located.file_name()) {
                (Some(dir), Some(name)) => dir.join(name),
                _ => located,
            };
            let shown = match file.strip_prefix(&cwd) {
                Ok(rel) if !absolute && !rel.as_os_str().is_empty() => rel.to_path_buf(),
                _ => file,
            };
            Some(shown.to_string_lossy().replace('\\', "/"))
        };
        for d in &mut self.diagnostics {
            if let Some(path) = real(&d.path) {
                d.path = path;
            }
        }
        for file in &mut self.files {
            if let Some(path) = real(&file.path) {
                Arc::make_mut(file).path = path.into();
            }
        }
        self.suppressed =
            std::mem::take(&mut self.suppressed).into_iter().map(|(p, n)| (real(&p).unwrap_or(p), n)).collect();
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        sort_diagnostics(&mut self.diagnostics);
    }

    /// One report of several checks (their paths already told apart with [`Checked::show_under`]).
    pub fn merge(parts: Vec<Checked>) -> Checked {
        let mut all = Checked::empty(Vec::new());
        for part in parts {
            all.files_checked += part.files_checked;
            all.files.extend(part.files);
            all.declarations += part.declarations;
            all.diagnostics.extend(part.diagnostics);
            all.ignored += part.ignored;
            for (path, n) in part.suppressed {
                *all.suppressed.entry(path).or_default() += n;
            }
        }
        all.files.sort_by(|a, b| a.path.cmp(&b.path));
        all.files.dedup_by(|a, b| a.path == b.path);
        sort_diagnostics(&mut all.diagnostics);
        all
    }

    /// Reads now the texts a report would read again ([`SourceFile::reread`]): for a check
    /// whose folder goes away before its findings are compared (`--new-since`'s extracted
    /// revision).
    pub fn read_texts_now(&mut self) {
        for file in self.files.iter_mut().filter(|f| f.text.is_none() && f.reread.get().is_some()) {
            let text = file.text();
            let file = Arc::make_mut(file);
            file.text = text;
            file.reread = Default::default();
        }
    }

    pub fn files_of(&self, kind: FileKind) -> usize {
        self.files.iter().filter(|f| f.kind == kind).count()
    }
    pub fn source(&self, path: &str) -> Option<&SourceFile> {
        self.files.binary_search_by(|f| (*f.path).cmp(path)).ok().map(|i| &*self.files[i])
    }
}

/// Sorted by (path, offset, rule, message); exact repeats are dropped.
pub(super) fn sort_diagnostics(diagnostics: &mut Vec<Diagnostic>) {
    fn key(d: &Diagnostic) -> (&str, usize, &str, &str) {
        (&d.path, d.span.map_or(0, |s| s.start), d.rule, &d.message)
    }
    // The places are sorted, not the findings: a stable sort's buffer is half the list it
    // sorts, 8 bytes a finding here instead of a finding's 160 (a large tree has tens of
    // thousands). The same order as sorting the findings themselves.
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by(|&a, &b| key(&diagnostics[a]).cmp(&key(&diagnostics[b])));
    permute(diagnostics, &mut order);
    diagnostics.dedup_by(|a, b| key(a) == key(b));
}

/// Puts `list[order[i]]` at `i` for every `i`, in place: each cycle of the permutation is
/// followed once, by swaps; `order` is used up.
fn permute<T>(list: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            // Done: this place holds its own already.
            order[at] = at;
            if from == start || from == at {
                break;
            }
            list.swap(at, from);
            at = from;
        }
    }
}

/// Turns diagnostics' spans into 1-based (line, column) pairs. Diagnostics come sorted by
/// path, so the line index of a file is built once and reused for all of its findings.
pub struct Positions<'a> {
    checked: &'a Checked,
    current: Option<(&'a str, Arc<str>, LineIndex)>,
}

impl<'a> Positions<'a> {
    pub fn new(checked: &'a Checked) -> Positions<'a> {
        Positions { checked, current: None }
    }

    /// Start and end of `diagnostic`; a finding without a span (or a file without text) is
    /// placed at 1:1.
    pub fn of(&mut self, diagnostic: &Diagnostic) -> ((usize, usize), (usize, usize)) {
        let Some(span) = diagnostic.span else { return ((1, 1), (1, 1)) };
        if self.current.as_ref().is_none_or(|(path, _, _)| *path != diagnostic.path) {
            let checked = self.checked;
            self.current = checked
                .source(&diagnostic.path)
                .and_then(|f| f.text().map(|text| (&*f.path, text.clone(), LineIndex::new(&text))));
        }
        match &self.current {
            Some((path, text, index)) if *path == diagnostic.path => {
                (index.position(text, span.start), index.position(text, span.end))
            }
            _ => ((1, 1), (1, 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    /// Sorting the places then moving the findings gives the order a stable sort of the
    /// findings gives, repeats dropped the same way: on findings with equal keys but other
    /// fields told apart (`help`), in every order of a few and many shuffled ones.
    #[test]
    fn sorting_by_places_keeps_the_order_a_stable_sort_gives() {
        use crate::diagnostic::{Diagnostic, Severity};
        fn finding(path: &str, start: usize, message: &str, n: usize) -> Diagnostic {
            Diagnostic {
                rule: "unknown-field",
                severity: Severity::Warning,
                path: path.to_string(),
                span: Some(crate::span::Span { start, end: start + 1 }),
                message: message.into(),
                help: Some(format!("#{n}").into()),
                secret: false,
                fix: None,
                loads_anyway: false,
            }
        }
        fn stable(mut list: Vec<Diagnostic>) -> Vec<Diagnostic> {
            let key = |d: &Diagnostic| (d.path.clone(), d.span.map_or(0, |s| s.start), d.rule, d.message.clone());
            list.sort_by_key(key);
            list.dedup_by(|a, b| key(a) == key(b));
            list
        }
        let shown = |list: &[Diagnostic]| {
            list.iter().map(|d| format!("{}:{:?}:{:?}", d.path, d.span, d.help)).collect::<Vec<_>>()
        };
        // Many, in a scrambled order (a fixed linear congruential sequence), with repeats.
        let mut state: u64 = 7;
        let mut many = Vec::new();
        for n in 0..2_000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let r = (state >> 33) as usize;
            many.push(finding(["a.md", "b.md", "c/d.md"][r % 3], r % 17, ["x", "y"][r % 2], n));
        }
        let mut sorted = many.clone();
        super::sort_diagnostics(&mut sorted);
        assert_eq!(shown(&sorted), shown(&stable(many)));
        // Every order of four findings, two with the same key.
        let four = [
            finding("b.md", 1, "x", 0),
            finding("a.md", 2, "x", 1),
            finding("a.md", 2, "x", 2),
            finding("a.md", 1, "y", 3),
        ];
        for p in 0..24usize {
            let mut rest: Vec<Diagnostic> = four.to_vec();
            let mut list = Vec::new();
            let mut k = p;
            for left in (1..=4).rev() {
                list.push(rest.remove(k % left));
                k /= left;
            }
            let mut sorted = list.clone();
            super::sort_diagnostics(&mut sorted);
            assert_eq!(shown(&sorted), shown(&stable(list)), "order {p}");
        }
    }

    /// A clean file a cross-file finding points into is read again for the report: a file put
    /// in its place since the check (here a link to a file outside the folder) shows nothing,
    /// never the other file's lines.
    #[cfg(unix)]
    #[test]
    fn a_text_read_again_is_taken_only_when_it_is_the_one_checked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("repo");
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(path, text).expect("write");
        };
        write(".claude/commands/deploy.md", "---\ndescription: Deploy it\n---\nhello\n");
        write(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy skill\n---\nhi\n");
        let outside = dir.path().join("secret.txt");
        std::fs::write(&outside, "---\nOUTSIDE-SECRET line two\n---\nhello\n").expect("write");
        let checked =
            crate::check::check(&crate::check::Options { root: root.clone(), ..Default::default() }).expect("check");
        let file = checked.source(".claude/commands/deploy.md").expect("the command's file");
        assert!(
            checked.diagnostics.iter().any(|d| *d.path == *file.path && d.span.is_some()),
            "{:?}",
            checked.diagnostics
        );
        assert!(file.text().is_some_and(|t| t.contains("Deploy it")), "the unchanged file is read again");
        let command = root.join(".claude/commands/deploy.md");
        std::fs::remove_file(&command).expect("remove");
        std::os::unix::fs::symlink(&outside, &command).expect("link");
        assert_eq!(file.text(), None, "another file's text was taken for the checked one");
        std::fs::remove_file(&command).expect("remove");
        std::fs::write(&command, "---\ndescription: Changed\n---\nhello\n").expect("write");
        assert_eq!(file.text(), None, "a file changed since the check was taken for the checked one");
    }
}
