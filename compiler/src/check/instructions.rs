//! Instruction files: what Claude Code reads into the "Codebase and user instructions"
//! reminder of a session started in the checked folder, in its order, with the files their `@`
//! imports bring in (measured; `tests/oracle/scenarios/instructions-*`).
//!
//! In a folder: `CLAUDE.md`, `.claude/CLAUDE.md`, the rules `.claude/rules/**/*.md` (a rule whose
//! frontmatter has non-empty `paths:` waits for a matching file), then `CLAUDE.local.md`; when
//! none of `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md` is there, `AGENTS.md` then
//! `.claude/AGENTS.md`. In the user's home (`--user-dir`): `~/.claude/CLAUDE.md` and
//! `~/.claude/rules/`, sent before the project's. Each file is followed at once by the files its
//! imports name, depth first, each file once, five files deep at most. A file whose text is empty
//! once its frontmatter and HTML comments are left out is not sent, and its imports are not
//! followed.

use super::placement::Realm;
use super::reading::load;
use super::{Outcome, SourceFile};
use crate::decl::{file_name, join_rel, parent, Counts, FileKind, FileScope};
use crate::diagnostic::Sink;
use crate::model::{Instruction, Scope};
use crate::node::NodeKind;
use crate::rules;
use crate::span::Span;
use crate::walk::Tree;
use std::collections::BTreeSet;
use std::path::Path;

/// How deep imports go: the file Claude Code reads by its name is at depth 0, and an import
/// that would be read at this depth is not.
pub const MAX_DEPTH: usize = 5;

/// The extensions an imported file may have (or none at all); Claude Code skips any other as a
/// non-text file (Claude Code's list).
const TEXT_EXTENSIONS: &[&str] = &[
    ".md",
    ".txt",
    ".text",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".xml",
    ".csv",
    ".html",
    ".htm",
    ".css",
    ".scss",
    ".sass",
    ".less",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".cts",
    ".py",
    ".pyi",
    ".pyw",
    ".rb",
    ".erb",
    ".rake",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".kts",
    ".scala",
    ".c",
    ".cpp",
    ".cc",
    ".cxx",
    ".h",
    ".hpp",
    ".hxx",
    ".cs",
    ".swift",
    ".sh",
    ".bash",
    ".zsh",
    ".fish",
    ".ps1",
    ".bat",
    ".cmd",
    ".env",
    ".ini",
    ".cfg",
    ".conf",
    ".config",
    ".properties",
    ".sql",
    ".graphql",
    ".gql",
    ".proto",
    ".vue",
    ".svelte",
    ".astro",
    ".ejs",
    ".hbs",
    ".pug",
    ".jade",
    ".php",
    ".pl",
    ".pm",
    ".lua",
    ".r",
    ".dart",
    ".ex",
    ".exs",
    ".erl",
    ".hrl",
    ".clj",
    ".cljs",
    ".cljc",
    ".edn",
    ".hs",
    ".lhs",
    ".elm",
    ".ml",
    ".mli",
    ".f",
    ".f90",
    ".f95",
    ".for",
    ".cmake",
    ".make",
    ".makefile",
    ".gradle",
    ".sbt",
    ".rst",
    ".adoc",
    ".asciidoc",
    ".org",
    ".tex",
    ".latex",
    ".lock",
    ".log",
    ".diff",
    ".patch",
];

/// The frontmatter keys Claude Code reads in a rule.
const RULE_KEYS: &[&str] = &["paths"];

/// What the instruction files of one checked folder (or home) gave: the files read (one outcome
/// each, but for files another reader read already) and the table, in order.
pub(super) struct Instructions {
    pub(super) outcomes: Vec<Outcome>,
    pub(super) entries: Vec<Instruction>,
    /// The length of each entry's text, in UTF-16 code units, by path.
    pub(super) chars: std::collections::BTreeMap<String, usize>,
}

/// `claudeMdExcludes`: globs (picomatch with `dot`, as Claude Code matches them) against a file's
/// absolute path, `/`-separated; they drop user, project and local files, never managed ones.
#[derive(Debug, Clone, Default)]
pub struct Excludes {
    patterns: Vec<(globset::GlobMatcher, bool)>,
}

impl Excludes {
    /// The patterns of every settings file given, in order (a pattern starting with `!`
    /// matches every path its rest does not, as picomatch reads it). A pattern that does not
    /// parse matches nothing.
    pub fn new(patterns: &[String]) -> Excludes {
        let patterns = patterns
            .iter()
            .map(|p| p.replace('\\', "/"))
            .filter(|p| !p.is_empty())
            .filter_map(|p| {
                let (negated, glob) = match p.strip_prefix('!') {
                    Some(rest) => (true, rest.to_string()),
                    None => (false, p),
                };
                let glob = globset::GlobBuilder::new(&glob).literal_separator(true).build().ok()?;
                Some((glob.compile_matcher(), negated))
            })
            .collect();
        Excludes { patterns }
    }

    /// Whether `absolute` (a file of `scope`) is left out.
    pub fn excludes(&self, absolute: &str, scope: Scope) -> bool {
        matches!(scope, Scope::User | Scope::Project | Scope::Local)
            && self.patterns.iter().any(|(glob, negated)| glob.is_match(absolute) != *negated)
    }
}

/// What decides which instruction files load besides the folder's own files.
#[derive(Default)]
pub(super) struct Loading<'a> {
    pub(super) excludes: Option<&'a Excludes>,
    /// Whether an `--add-dir` folder's instruction files load
    /// (`CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD`).
    pub(super) add_dirs: bool,
}

/// The instruction files of `dir` (the checked folder, the home for [`Realm::User`], the
/// managed folder, an `--add-dir` folder). `claimed`: whether another reader reads the file
/// already (its outcome is that reader's).
pub(super) fn read_instructions(
    dir: &Path,
    tree: &Tree,
    realm: Realm,
    hash: bool,
    claimed: &dyn Fn(&str) -> bool,
    loading: &Loading<'_>,
) -> Instructions {
    let absolute = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()).to_string_lossy().replace('\\', "/");
    let mut walk = Walk {
        dir,
        tree,
        realm,
        hash,
        claimed,
        excludes: loading.excludes,
        absolute,
        folder: None,
        chars: Default::default(),
        imports: matches!(realm, Realm::Project | Realm::User),
        done: BTreeSet::new(),
        chain: Vec::new(),
        out: Vec::new(),
        entries: Vec::new(),
    };
    match realm {
        Realm::Project => {
            let memory = ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"];
            let agents = ["AGENTS.md", ".claude/AGENTS.md"];
            for rel in &memory[..2] {
                if tree.is_file(rel) {
                    walk.visit(rel, Scope::Project, 0, None, false);
                }
            }
            for rel in rules_of(tree, ".claude/rules") {
                walk.visit(&rel, Scope::Project, 0, None, true);
            }
            if tree.is_file(memory[2]) {
                walk.visit(memory[2], Scope::Local, 0, None, false);
            }
            let beside: Vec<&str> = memory.iter().copied().filter(|m| tree.is_file(m)).collect();
            for rel in agents.iter().filter(|a| tree.is_file(a)) {
                // Beside a memory file Claude Code does not read it; one that is that file (a link
                // to it) is no finding.
                let same = beside.iter().any(|memory| same_instructions(dir, tree, memory, rel));
                match beside.first() {
                    None => {
                        walk.visit(rel, Scope::Project, 0, None, false);
                    }
                    Some(_) if same => {}
                    Some(memory) => {
                        let shown = realm.display(rel);
                        let mut sink = Sink::new(&shown);
                        sink.report(
                            &rules::unread_agents_md::RULE,
                            None,
                            format!("Claude Code does not read {rel}: `{memory}` is here"),
                        )
                        .help(format!("Claude Code reads AGENTS.md only in a folder without CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md; to give it to Claude Code too, add `@{}` to `{memory}`", relative_to(memory, rel)));
                        walk.out.push(Outcome::new(sink, None, None, Counts::default(), None));
                    }
                }
            }
            // Nested folders: read when the session reads a file below them.
            for folder in nested_folders(tree, claimed) {
                walk.folder = Some(folder.clone());
                let file = |name: &str| format!("{folder}/{name}");
                for rel in [file("CLAUDE.md"), file(".claude/CLAUDE.md")] {
                    if tree.is_file(&rel) {
                        walk.visit(&rel, Scope::Project, 0, None, false);
                    }
                }
                if tree.is_file(&file("CLAUDE.local.md")) {
                    walk.visit(&file("CLAUDE.local.md"), Scope::Local, 0, None, false);
                }
                for rel in rules_of(tree, &file(".claude/rules")) {
                    walk.visit(&rel, Scope::Project, 0, None, true);
                }
            }
            walk.folder = None;
        }
        Realm::User => {
            if tree.is_file(".claude/CLAUDE.md") {
                walk.visit(".claude/CLAUDE.md", Scope::User, 0, None, false);
            }
            for rel in rules_of(tree, ".claude/rules") {
                walk.visit(&rel, Scope::User, 0, None, true);
            }
        }
        Realm::Managed => {
            // Its imports are outside the project: read only once the user approves them.
            if tree.is_file("CLAUDE.md") {
                walk.visit("CLAUDE.md", Scope::Managed, 0, None, false);
            }
            walk.managed_setting();
            for rel in rules_of(tree, ".claude/rules") {
                walk.visit(&rel, Scope::Managed, 0, None, true);
            }
        }
        Realm::AddDir(_) if loading.add_dirs => {
            // Its imports are outside the project: read only once the user approves them.
            for rel in ["CLAUDE.md", ".claude/CLAUDE.md"] {
                if tree.is_file(rel) {
                    walk.visit(rel, Scope::Project, 0, None, false);
                }
            }
            for rel in rules_of(tree, ".claude/rules") {
                walk.visit(&rel, Scope::Project, 0, None, true);
            }
            if tree.is_file("CLAUDE.local.md") {
                walk.visit("CLAUDE.local.md", Scope::Local, 0, None, false);
            }
        }
        _ => {}
    }
    let chars = walk.chars;
    Instructions { outcomes: walk.out, entries: walk.entries, chars }
}

/// The folders below the checked one that hold instruction files of their own (`CLAUDE.md`,
/// `.claude/CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/`), parents before their subfolders.
/// A file another reader claims (a plugin's CLAUDE.md) does not make its folder one.
fn nested_folders(tree: &Tree, claimed: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut folders: BTreeSet<Vec<String>> = BTreeSet::new();
    for rel in tree.files.iter() {
        if claimed(rel) {
            continue;
        }
        let folder = if let Some(i) = rel.find(".claude/rules/").filter(|i| *i == 0 || rel[..*i].ends_with('/')) {
            if !rel.ends_with(".md") {
                continue;
            }
            rel[..i].trim_end_matches('/').to_string()
        } else {
            let name = file_name(rel);
            if name != "CLAUDE.md" && name != "CLAUDE.local.md" {
                continue;
            }
            let mut folder = parent(rel);
            if name == "CLAUDE.md" && (folder == ".claude" || folder.ends_with("/.claude")) {
                folder = parent(folder);
            }
            folder.to_string()
        };
        if !folder.is_empty() {
            folders.insert(folder.split('/').map(str::to_string).collect());
        }
    }
    folders.into_iter().map(|f| f.join("/")).collect()
}

/// Whether two instruction files are one: the same text (a symbolic link between them, as
/// `ln -s CLAUDE.md AGENTS.md` makes), or one holding only the other's path (how git checks a
/// symbolic link out where it makes no links, `core.symlinks=false`).
fn same_instructions(dir: &Path, tree: &Tree, a: &str, b: &str) -> bool {
    let text = |rel: &str| match tree.texts.read(&dir.join(rel)) {
        crate::walk::Content::Text(text) => Some(text),
        _ => None,
    };
    let (Some(ta), Some(tb)) = (text(a), text(b)) else { return false };
    let names = |t: &str, other: &str, at: &str| {
        let t = t.trim();
        !t.contains('\n') && join_rel(parent(at), t).as_deref() == Some(other)
    };
    ta == tb || names(&ta, b, a) || names(&tb, a, b)
}

/// `to` as an import written in `from` (both relative to one folder).
fn relative_to(from: &str, to: &str) -> String {
    let depth = parent(from).split('/').filter(|s| !s.is_empty()).count();
    format!("{}{to}", "../".repeat(depth))
}

/// The Markdown files under `dir`, each folder's entries by name, a subfolder's files where its
/// name sorts. Claude Code takes them in the order the file system lists them, which is no
/// order at all on most file systems; capc sorts by name so a lock is the same on every machine.
fn rules_of(tree: &Tree, dir: &str) -> Vec<String> {
    if !tree.is_dir(dir) {
        return Vec::new();
    }
    let mut rules: Vec<String> = tree.files_under(dir).filter(|f| f.ends_with(".md")).cloned().collect();
    rules.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    rules
}

struct Walk<'a> {
    dir: &'a Path,
    tree: &'a Tree,
    realm: Realm,
    hash: bool,
    claimed: &'a dyn Fn(&str) -> bool,
    excludes: Option<&'a Excludes>,
    /// The folder's absolute path, `/`-separated, for `claudeMdExcludes`.
    absolute: String,
    /// The nested folder whose files are being read (`None`: the folder's own).
    folder: Option<String>,
    chars: std::collections::BTreeMap<String, usize>,
    /// Whether imports are followed: not in the managed folder and `--add-dir` folders, whose
    /// imports are outside the project (Claude Code reads them only once the user approves).
    imports: bool,
    /// Every file visited (read or tried), as Claude Code's set of processed paths.
    done: BTreeSet<String>,
    /// The files being read, outermost first: an import of one of them is a cycle.
    chain: Vec<String>,
    out: Vec<Outcome>,
    entries: Vec<Instruction>,
}

impl Walk<'_> {
    /// Reads `rel` and, depth first, what its imports name. `Some(path)` when it is sent.
    fn visit(&mut self, rel: &str, scope: Scope, depth: usize, by: Option<&str>, rule: bool) -> Option<String> {
        if !self.done.insert(rel.to_string()) {
            return None;
        }
        if self.excludes.is_some_and(|e| e.excludes(&format!("{}/{rel}", self.absolute), scope)) {
            return None;
        }
        let path = self.realm.display(rel);
        let mut sink = Sink::new(&path);
        let text = load(self.dir, self.tree, rel, None, &mut sink);
        let Some(text) = text else {
            if !(self.claimed)(rel) {
                self.out.push(Outcome::new(sink, None, None, Counts::default(), None));
            }
            return None;
        };
        let (body_start, fields) = match crate::frontmatter::split(&text) {
            crate::frontmatter::Split::Found(block) => {
                let fields = match crate::frontmatter::parse(&text, &block) {
                    crate::frontmatter::Parsed::Fields { mut node, .. } => {
                        // A list of `paths` globs: each item's own span, for findings about one.
                        if rule && node.get("paths").is_some_and(|p| matches!(p.kind, NodeKind::Array(_))) {
                            crate::frontmatter::refine_spans(&text, &block, &mut node);
                        }
                        Some(node)
                    }
                    _ => None,
                };
                (block.body_start.min(text.len()), fields)
            }
            _ => (0, None),
        };
        let mut globs: Vec<String> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        if let Some(fields) = &fields {
            if let Some(node) = fields.get("paths") {
                let spanned: Vec<(String, Span)> = match &node.kind {
                    NodeKind::Array(items) => items
                        .iter()
                        .filter_map(|i| i.as_str().map(|s| (s.trim().to_string(), i.span)))
                        .filter(|(p, _)| !p.is_empty())
                        .collect(),
                    NodeKind::String(s) => s
                        .split(',')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(|p| (p.to_string(), node.span))
                        .collect(),
                    _ => Vec::new(),
                };
                (globs, spans) = spanned.into_iter().unzip();
            }
            if rule {
                let unknown: Vec<&crate::node::Key> = fields
                    .as_object()
                    .unwrap_or_default()
                    .iter()
                    .map(|(key, _)| key)
                    .filter(|key| !RULE_KEYS.contains(&key.name.as_str()))
                    .collect();
                let has_paths = fields.get("paths").is_some();
                // Another tool's condition (`globs`, `applyTo`) without `paths`: the author meant
                // the rule to wait for matching files, and Claude Code loads it in every session.
                let (conditions, metadata): (Vec<&crate::node::Key>, Vec<&crate::node::Key>) =
                    unknown.into_iter().partition(|key| {
                        !has_paths && matches!(key.name.as_str(), "path" | "glob" | "globs" | "files" | "applyTo")
                    });
                for key in conditions {
                    sink.report(
                        &rules::unknown_field::RULE,
                        Some(key.span),
                        format!("Claude Code reads `paths` in a rule's frontmatter, not `{}`", key.name),
                    )
                    .help("did you mean `paths`? Without it Claude Code loads the rule in every session");
                }
                if let Some(first) = metadata.first() {
                    let names: Vec<String> = metadata.iter().map(|k| format!("`{}`", k.name)).collect();
                    sink.report(
                        &rules::unknown_field::RULE,
                        Some(first.span),
                        format!(
                            "Claude Code reads only `paths` in a rule's frontmatter; it ignores {}",
                            names.join(", ")
                        ),
                    )
                    .severity(crate::diagnostic::Severity::Info)
                    .help("the frontmatter is not sent to the model; keep these as your own metadata, or remove them");
                }
            }
        }
        let scanned = scan(&text, body_start);
        let body = scanned.sent.trim();
        let conditional = rule && !globs.is_empty();
        if conditional && self.realm == Realm::Project {
            // Relative to the folder whose `.claude/rules/` holds the rule.
            let base = rel.find(".claude/rules/").map_or("", |i| rel[..i].trim_end_matches('/'));
            for (glob, span) in globs.iter().zip(&spans) {
                match glob_matcher(glob) {
                    Err(why) => {
                        sink.report(
                            &rules::unmatched_rule_paths::RULE,
                            Some(*span),
                            format!("`{glob}` in `paths` is not a pattern Claude Code can match ({why})"),
                        )
                        .help("write a gitignore-style glob, such as `src/**/*.rs`");
                    }
                    Ok(matcher) => {
                        let hit = self.tree.files.iter().any(|f| {
                            let inner =
                                if base.is_empty() { Some(f.as_str()) } else { f.strip_prefix(&format!("{base}/")) };
                            inner.is_some_and(|inner| {
                                matcher.matched_path_or_any_parents(Path::new("/").join(inner), false).is_ignore()
                            })
                        });
                        if !hit {
                            let from = if base.is_empty() { "the folder".to_string() } else { format!("`{base}/`") };
                            sink.report(
                                &rules::unmatched_rule_paths::RULE,
                                Some(*span),
                                format!("`{glob}` in `paths` matches no file here: the rule does not load until one exists"),
                            )
                            // A template's rules may wait for files to come: worth knowing.
                            .severity(crate::diagnostic::Severity::Info)
                            .help(format!("globs are relative to {from}, with `**/` for any folders (`src/**/*.rs`); fix the pattern or remove the rule"));
                        }
                    }
                }
            }
        }
        let mut sent = None;
        if !body.is_empty() {
            let order = u32::try_from(self.entries.len() + 1).unwrap_or(u32::MAX);
            self.entries.push(Instruction {
                path: path.clone(),
                scope,
                order,
                imported_by: by.map(str::to_string),
                imports: Vec::new(),
                paths: if conditional { globs.clone() } else { Vec::new() },
                folder: self.folder.clone(),
                key: None,
                sha256: if self.hash { crate::secrets::sha256_hex(text.as_bytes()) } else { String::new() },
                tokens: tokens(body),
            });
            sent = Some(self.entries.len() - 1);
            self.chars.insert(path.clone(), body.encode_utf16().count());
        }
        let mut imported = Vec::new();
        // A rule that waits for a matching file brings its imports in when it loads (not
        // followed here); an empty file brings in nothing.
        if sent.is_some() && !conditional && self.imports {
            self.chain.push(rel.to_string());
            let mut named: BTreeSet<String> = BTreeSet::new();
            for import in &scanned.imports {
                let Some(target) = self.resolve(rel, import, &mut sink) else { continue };
                if !named.insert(target.clone()) {
                    continue;
                }
                if self.chain.contains(&target) {
                    sink.report(
                        &rules::import_cycle::RULE,
                        Some(import.span),
                        format!(
                            "`@{}` imports `{}`, which is importing this file",
                            import.written,
                            self.realm.display(&target)
                        ),
                    )
                    .help("Claude Code sends each file once, so the import adds nothing; remove one of the two");
                    continue;
                }
                if self.done.contains(&target) {
                    continue;
                }
                if depth + 1 >= MAX_DEPTH {
                    sink.report(
                        &rules::import_too_deep::RULE,
                        Some(import.span),
                        format!(
                            "`@{}` is never read: Claude Code follows imports {} files deep at most",
                            import.written, MAX_DEPTH
                        ),
                    )
                    .help("import the file from a file nearer the top (CLAUDE.md itself)");
                    continue;
                }
                if let Some(path) = self.visit(&target, scope, depth + 1, Some(&path), false) {
                    imported.push(path);
                }
            }
            self.chain.pop();
        }
        if let Some(i) = sent {
            self.entries[i].imports = imported;
        }
        if !(self.claimed)(rel) {
            let kept = !sink.diagnostics.is_empty();
            let source = crate::model::Source {
                path: path.clone(),
                kind: FileKind::Instructions.as_str().to_string(),
                sha256: if self.hash { crate::secrets::sha256_hex(text.as_bytes()) } else { String::new() },
            };
            let scope = if scope == Scope::User { FileScope::User } else { FileScope::Project };
            let file = SourceFile {
                path: path.clone(),
                kind: FileKind::Instructions,
                scope,
                name: None,
                stamp: if kept { 0 } else { crate::walk::text_hash(&text) },
                text: kept.then(|| text.into()),
                reread: None,
            };
            self.out.push(Outcome::new(sink, Some(file), Some(source), Counts::default(), None));
        } else if !sink.diagnostics.is_empty() {
            self.out.push(Outcome::new(sink, None, None, Counts::default(), None));
        }
        sent.map(|i| self.entries[i].path.clone())
    }

    /// Managed settings' `claudeMd`: sent after the managed CLAUDE.md, as its own entry. The
    /// managed settings merge as Claude Code merges them: managed-settings.json, then the
    /// managed-settings.d/ files in name order, the last that sets `claudeMd` giving it (a
    /// string key: it replaces, never joins).
    fn managed_setting(&mut self) {
        let mut files: Vec<String> = vec!["managed-settings.json".to_string()];
        let mut drop_ins: Vec<String> = self
            .tree
            .files_under("managed-settings.d")
            .filter(|rel| rel.ends_with(".json") && parent(rel) == "managed-settings.d")
            .cloned()
            .collect();
        drop_ins.sort();
        files.extend(drop_ins);
        let mut found: Option<(String, String, String)> = None;
        for rel in files {
            if !self.tree.is_file(&rel) {
                continue;
            }
            let crate::walk::Content::Text(text) = self.tree.texts.read(&self.dir.join(&rel)) else { continue };
            let Ok(settings) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
            let Some(body) = settings.get("claudeMd").and_then(serde_json::Value::as_str) else { continue };
            found = Some((rel, text.to_string(), body.to_string()));
        }
        let Some((rel, text, body)) = found else { return };
        let (rel, body) = (rel.as_str(), body.as_str());
        if body.trim().is_empty() {
            return;
        }
        let order = u32::try_from(self.entries.len() + 1).unwrap_or(u32::MAX);
        self.entries.push(Instruction {
            path: self.realm.display(rel),
            scope: Scope::Managed,
            order,
            sha256: if self.hash { crate::secrets::sha256_hex(text.as_bytes()) } else { String::new() },
            tokens: tokens(body.trim()),
            key: Some("claudeMd".to_string()),
            ..Instruction::default()
        });
    }

    /// The file an import names, relative to the folder; `None` (with a finding) when Claude
    /// Code reads nothing there.
    fn resolve(&self, rel: &str, import: &Import, sink: &mut Sink<'_>) -> Option<String> {
        let written = import.written.as_str();
        let at = Some(import.span);
        let target = if let Some(home) = written.strip_prefix("~/") {
            if self.realm == Realm::User {
                join_rel("", home)
            } else {
                sink.report(&rules::external_import::RULE, at, format!("`@{written}` names a file in the home folder, outside the project"))
                    .help("Claude Code asks before it reads imports from outside the project, and reads none of them until the user approves; copy the text into the project, or import it from `~/.claude/CLAUDE.md`");
                return None;
            }
        } else if written.starts_with('/') {
            sink.report(&rules::external_import::RULE, at, format!("`@{written}` names a file by its absolute path"))
                .help("Claude Code asks before it reads imports from outside the project, and reads none of them until the user approves; capc does not read it: use a path relative to this file");
            return None;
        } else {
            join_rel(parent(rel), written)
        };
        let Some(target) = target else {
            sink.report(&rules::external_import::RULE, at, format!("`@{written}` names a file outside the folder"))
                .help("Claude Code asks before it reads imports from outside the project, and reads none of them until the user approves; copy the text into the project");
            return None;
        };
        // The walk leaves out hidden folders, `node_modules` and ignored files; Claude Code reads an
        // import there all the same. Such a target is looked up on the disk, and taken only when
        // its real path is a regular file inside the folder (it is then read as any other).
        let on_disk = !self.tree.is_file(&target) && !self.tree.is_dir(&target) && self.left_out_by_walk(&target);
        let extension = extension(file_name(&target)).to_ascii_lowercase();
        if !extension.is_empty() && !TEXT_EXTENSIONS.contains(&extension.as_str()) {
            // Reported when it is a file here, or names one but for the punctuation after it (an
            // `@name` of a person or an e-mail address is no import anyone meant).
            let trimmed = written.trim_end_matches(|c: char| ".,;:!?)]}'\"".contains(c));
            let meant = (trimmed != written && self.tree.is_file(&join_rel(parent(rel), trimmed).unwrap_or_default()))
                .then_some(trimmed);
            if meant.is_some() || self.tree.is_file(&target) || on_disk {
                let finding = sink.report(
                    &rules::missing_import::RULE,
                    at,
                    format!("`@{written}` names a `{extension}` file, which Claude Code skips as not text"),
                );
                match meant {
                    Some(trimmed) => finding.help(format!("the punctuation after it is read as part of the path; write `@{trimmed}` with a space or nothing after it")),
                    None => finding.help("import a text file (Markdown, code, configuration)"),
                };
            }
            return None;
        }
        if on_disk {
            return Some(target);
        }
        if self.tree.is_dir(&target) {
            sink.report(
                &rules::missing_import::RULE,
                at,
                format!("`@{written}` names a folder; Claude Code imports files only"),
            )
            .help("import the files of the folder one by one");
            return None;
        }
        if !self.tree.is_file(&target) {
            // Only what reads as a file path: an `@name` without an extension (a person, a
            // package scope, an annotation) is tried by Claude Code but meant as none.
            if !(written.starts_with("./") || written.starts_with("../") || !extension.is_empty()) {
                return None;
            }
            sink.report(
                &rules::missing_import::RULE,
                at,
                format!("`@{written}` names no file: `{}` does not exist", self.realm.display(&target)),
            )
            .help("Claude Code skips it without a word; fix the path (it is relative to this file)");
            return None;
        }
        Some(target)
    }
}

impl Walk<'_> {
    /// Whether `rel` is a regular file inside the folder that the walk did not list.
    fn left_out_by_walk(&self, rel: &str) -> bool {
        let (Ok(root), Ok(real)) = (self.dir.canonicalize(), self.dir.join(rel).canonicalize()) else { return false };
        real.starts_with(&root) && real.is_file()
    }
}

/// Node's `path.extname`: from the last `.` of the name, unless the name starts with it.
fn extension(name: &str) -> &str {
    match name.rfind('.') {
        Some(0) | None => "",
        Some(i) => &name[i..],
    }
}

/// The text Claude Code sends of an instruction file: its body after the frontmatter, HTML
/// comment blocks left out, trimmed. The session reads the file again and sends this.
pub fn sent(text: &str) -> String {
    let body_start = match crate::frontmatter::split(text) {
        crate::frontmatter::Split::Found(block) => block.body_start.min(text.len()),
        _ => 0,
    };
    scan(text, body_start).sent.trim().to_string()
}

/// One `paths` glob as a gitignore pattern rooted at `/`, or why it is none.
fn glob_matcher(glob: &str) -> Result<ignore::gitignore::Gitignore, String> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new("/");
    builder.add_line(None, glob).map_err(|e| e.to_string())?;
    builder.build().map_err(|e| e.to_string())
}

/// Whether a rule's `paths` globs (gitignore syntax, relative to the project folder) match the
/// file at `rel` (relative to it, `/`-separated), as Claude Code matches them when a turn reads
/// a file.
pub fn paths_match(globs: &[String], rel: &str) -> bool {
    let mut builder = ignore::gitignore::GitignoreBuilder::new("/");
    for glob in globs {
        if builder.add_line(None, glob).is_err() {
            return false;
        }
    }
    match builder.build() {
        Ok(matcher) => matcher.matched_path_or_any_parents(Path::new("/").join(rel), false).is_ignore(),
        Err(_) => false,
    }
}

/// The body of a rule as Claude Code attaches it when a turn reads a matching file: after the
/// frontmatter, HTML comment blocks left out, not trimmed.
pub fn attached(text: &str) -> String {
    let body_start = match crate::frontmatter::split(text) {
        crate::frontmatter::Split::Found(block) => block.body_start.min(text.len()),
        _ => 0,
    };
    scan(text, body_start).sent
}

/// `Math.round(length / 4)` in UTF-16 code units, Claude Code's estimate where it has no tokenizer.
pub fn tokens(text: &str) -> u64 {
    let units = text.encode_utf16().count() as u64;
    (units + 2) / 4
}

/// An `@` import as written, with its span in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub written: String,
    pub span: Span,
}

/// A file's text as Claude Code sends it (from `body_start`, HTML comment blocks left out; not
/// trimmed yet) and its imports in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scanned {
    pub sent: String,
    pub imports: Vec<Import>,
}

/// Reads the body of `text` from `body_start`: what is sent, and the `@` imports. An import is an
/// `@` at the start of a line or after whitespace, outside fenced and indented code blocks and
/// code spans; its path runs to the next whitespace (`\ ` is a space) and stops at `#`.
pub fn scan(text: &str, body_start: usize) -> Scanned {
    let mut out = Scanned::default();
    let body = &text[body_start.min(text.len())..];
    let lines: Vec<(usize, &str)> = {
        let mut at = body_start;
        body.split_inclusive('\n')
            .map(|l| {
                let start = at;
                at += l.len();
                (start, l)
            })
            .collect()
    };
    let mut fence: Option<(char, usize)> = None;
    let mut blank_before = true;
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = content.len() - content.trim_start_matches(' ').len();
        let trimmed = content.trim_start_matches(' ');
        if let Some((ch, n)) = fence {
            out.sent.push_str(line);
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if indent <= 3 && run >= n && trimmed[run * ch.len_utf8()..].trim().is_empty() {
                fence = None;
            }
            i += 1;
            continue;
        }
        if content.trim().is_empty() {
            out.sent.push_str(line);
            blank_before = true;
            i += 1;
            continue;
        }
        if indent <= 3 {
            if let Some(ch) = ['`', '~'].into_iter().find(|c| trimmed.starts_with(&c.to_string().repeat(3))) {
                let n = trimmed.chars().take_while(|c| *c == ch).count();
                fence = Some((ch, n));
                out.sent.push_str(line);
                blank_before = false;
                i += 1;
                continue;
            }
            if trimmed.starts_with("<!--") {
                // An HTML block that opens with a comment: it runs to the end of the line where
                // the comment closes. Comments are left out; what else it holds is kept.
                let mut end = i;
                let mut block = String::new();
                loop {
                    block.push_str(lines[end].1);
                    if block.contains("-->") || end + 1 == lines.len() {
                        break;
                    }
                    end += 1;
                }
                // The block takes the empty lines right after it (markdown's HTML token runs
                // over them), so a block that is only comments leaves no blank line behind.
                let mut trailing = String::new();
                while end + 1 < lines.len() && matches!(lines[end + 1].1, "\n" | "\r\n") {
                    end += 1;
                    trailing.push_str(lines[end].1);
                }
                let kept = strip_comments(&block);
                if !kept.trim().is_empty() {
                    out.sent.push_str(&kept);
                    out.sent.push_str(&trailing);
                    find_imports(&kept, start, false, &mut out.imports);
                }
                blank_before = !trailing.is_empty();
                i = end + 1;
                continue;
            }
        }
        if indent >= 4 && blank_before {
            // An indented code block, up to the next line that is not indented.
            while i < lines.len() {
                let l = lines[i].1.trim_end_matches(['\n', '\r']);
                if !l.trim().is_empty() && l.len() - l.trim_start_matches(' ').len() < 4 {
                    break;
                }
                out.sent.push_str(lines[i].1);
                i += 1;
            }
            blank_before = false;
            continue;
        }
        out.sent.push_str(line);
        find_imports(content, start, true, &mut out.imports);
        blank_before = false;
        i += 1;
    }
    out
}

fn strip_comments(block: &str) -> String {
    let mut out = String::new();
    let mut rest = block;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        match rest[open + 4..].find("-->") {
            Some(close) => rest = &rest[open + 4 + close + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The imports of one line (`spans`: whether `line` is the file's text at `start`, so spans
/// point at each import; otherwise they point at the line's start).
fn find_imports(line: &str, start: usize, spans: bool, out: &mut Vec<Import>) {
    // Code spans are blanked: a run of N backticks up to the next run of exactly N.
    let mut masked: Vec<u8> = line.as_bytes().to_vec();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = bytes[i..].iter().take_while(|b| **b == b'`').count();
        let mut j = i + n;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let m = bytes[j..].iter().take_while(|b| **b == b'`').count();
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                masked[i..end].iter_mut().for_each(|b| *b = b' ');
                i = end;
            }
            None => i += n,
        }
    }
    let masked = String::from_utf8_lossy(&masked).into_owned();
    let chars: Vec<(usize, char)> = masked.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        if c != '@' || (k > 0 && !chars[k - 1].1.is_whitespace()) {
            continue;
        }
        let mut path = String::new();
        let mut m = k + 1;
        while m < chars.len() {
            let ch = chars[m].1;
            if ch == '\\' && chars.get(m + 1).is_some_and(|n| n.1 == ' ') {
                path.push(' ');
                m += 2;
            } else if ch.is_whitespace() || ch == '\\' {
                break;
            } else {
                path.push(ch);
                m += 1;
            }
        }
        let end = chars.get(m).map_or(masked.len(), |c| c.0);
        if let Some(hash) = path.find('#') {
            path.truncate(hash);
        }
        if path.is_empty() || !is_import(&path) {
            continue;
        }
        let span = if spans { Span::new(start + at, start + end) } else { Span::new(start, start) };
        out.push(Import { written: path, span });
    }
}

/// Whether a word after `@` is taken as a path (Claude Code's test).
fn is_import(path: &str) -> bool {
    if path.starts_with("./") || path.starts_with("~/") || (path.starts_with('/') && path != "/") {
        return true;
    }
    let first = path.chars().next().unwrap_or(' ');
    !path.starts_with('@') && !"#%^&*()".contains(first) && (first.is_ascii_alphanumeric() || "._-".contains(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> Vec<String> {
        scan(text, 0).imports.into_iter().map(|i| i.written).collect()
    }

    #[test]
    fn imports_are_at_line_starts_or_after_whitespace_outside_code() {
        let text = "Start @a.md here; `@span.md` no.\nword@glued.md (@paren.md)\n- @list.md\n\n```\n@block.md\n```\n@x\\ y.md#frag @./dot.md @~/h.md @/abs.md @@no @#no\n";
        assert_eq!(written(text), ["a.md", "list.md", "x y.md", "./dot.md", "~/h.md", "/abs.md"]);
    }

    #[test]
    fn comment_blocks_are_left_out_with_their_imports() {
        let s = scan("# T\n<!-- note @hid.md -->\nSee @a.md\n", 0);
        assert_eq!(s.sent, "# T\nSee @a.md\n");
        assert_eq!(s.imports.len(), 1);
    }

    #[test]
    fn indented_code_after_a_blank_line_is_code() {
        assert_eq!(written("Text\n\n    @code.md\nback @b.md\n"), ["b.md"]);
    }

    #[test]
    fn rule_paths_match_as_gitignore_globs() {
        let globs = vec!["src/**/*.rs".to_string()];
        assert!(paths_match(&globs, "src/main.rs"));
        assert!(paths_match(&globs, "src/a/b.rs"));
        assert!(!paths_match(&globs, "lib/main.rs"));
        assert!(paths_match(&["*.md".to_string()], "docs/x.md"));
    }

    #[test]
    fn tokens_round_a_quarter_of_utf16_units() {
        assert_eq!(tokens("abcdef"), 2);
        assert_eq!(tokens("abcde"), 1);
        assert_eq!(tokens("😀"), 1);
    }

    #[test]
    fn extensions_as_node_gives_them() {
        assert_eq!(extension("a.md."), ".");
        assert_eq!(extension(".bashrc"), "");
        assert_eq!(extension("Makefile"), "");
        assert_eq!(extension("x.PNG"), ".PNG");
    }
}
