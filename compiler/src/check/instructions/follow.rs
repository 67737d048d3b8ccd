//! Following an instruction file's `@` imports, depth first, each file once, as Claude Code
//! does: the files visited, their outcomes and the table's entries.

use super::scan::{glob_matcher, scan, tokens, unclosed_class, Import};
use super::{extension, Excludes, MAX_DEPTH, RULE_KEYS, TEXT_EXTENSIONS};
use crate::check::load::{hashed, load};
use crate::check::placement::Realm;
use crate::check::{Outcome, SourceFile};
use crate::decl::{file_name, join_rel, parent, Counts, FileKind, FileScope};
use crate::diagnostic::Sink;
use crate::model::{Instruction, Scope};
use crate::node::NodeKind;
use crate::rules;
use crate::span::Span;
use crate::walk::Tree;
use std::collections::BTreeSet;
use std::path::Path;

pub(super) struct Walk<'a> {
    pub(super) dir: &'a Path,
    pub(super) tree: &'a Tree,
    pub(super) realm: Realm,
    pub(super) hash: bool,
    pub(super) claimed: &'a dyn Fn(&str) -> bool,
    pub(super) excludes: Option<&'a Excludes>,
    /// See [`super::Loading::agents_md_off`].
    pub(super) agents_md_off: bool,
    /// The folder's absolute path, `/`-separated, for `claudeMdExcludes`.
    pub(super) absolute: String,
    /// The nested folder whose files are being read (`None`: the folder's own).
    pub(super) folder: Option<String>,
    pub(super) chars: std::collections::BTreeMap<String, usize>,
    /// Whether imports are followed: not in the managed folder and `--add-dir` folders, whose
    /// imports are outside the project (Claude Code reads them only once the user approves).
    pub(super) imports: bool,
    /// Every file visited (read or tried), as Claude Code's set of processed paths.
    pub(super) done: BTreeSet<String>,
    /// The files being read, outermost first: an import of one of them is a cycle.
    pub(super) chain: Vec<String>,
    pub(super) out: Vec<Outcome>,
    pub(super) entries: Vec<Instruction>,
}

impl Walk<'_> {
    /// Reads `rel` and, depth first, what its imports name. `Some(path)` when it is sent.
    pub(super) fn visit(
        &mut self,
        rel: &str,
        scope: Scope,
        depth: usize,
        by: Option<&str>,
        rule: bool,
    ) -> Option<String> {
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
                self.out.push(Outcome::new(sink, None, Counts::default(), None));
            }
            return None;
        };
        let (body_start, fields) = split_frontmatter(&text, rule);
        let (globs, spans) = rule_paths(&mut sink, fields.as_ref(), rule);
        let scanned = scan(&text, body_start);
        let body = scanned.sent.trim();
        let conditional = rule && !globs.is_empty();
        if conditional && self.realm == Realm::Project {
            self.check_globs(&mut sink, rel, &globs, &spans);
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
                external_imports: Vec::new(),
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
        let mut outside: Vec<String> = Vec::new();
        // A rule that waits for a matching file brings its imports in when it loads (not
        // followed here); an empty file brings in nothing.
        if sent.is_some() && !conditional && self.imports {
            (imported, outside) = self.follow(rel, &scanned.imports, (scope, depth), &path, &mut sink);
        }
        if let Some(i) = sent {
            self.entries[i].imports = imported;
            self.entries[i].external_imports = outside;
        }
        self.keep(rel, sink, &text, &path, scope);
        sent.map(|i| self.entries[i].path.clone())
    }

    /// `unmatched-rule-paths`: each glob of a rule's `paths` that is no pattern, or matches no
    /// file of the folder.
    fn check_globs(&self, sink: &mut Sink<'_>, rel: &str, globs: &[String], spans: &[Span]) {
        // Relative to the folder whose `.claude/rules/` holds the rule.
        let base = rel.find(".claude/rules/").map_or("", |i| rel[..i].trim_end_matches('/'));
        for (glob, span) in globs.iter().zip(spans) {
            if unclosed_class(glob) {
                let effect = if globs.iter().all(|g| unclosed_class(g)) {
                    "the rule never loads, neither at the start nor when a file is read"
                } else {
                    "the rule loads only through its other globs"
                };
                sink.report(
                    &rules::unmatched_rule_paths::RULE,
                    Some(*span),
                    format!("`{glob}` in `paths` does not parse (a `[` that is never closed): Claude Code matches no file with it, so {effect}"),
                )
                .help("close the character class (`src/[ab]*.rs`), or remove the glob");
                continue;
            }
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

    /// Follows a sent file's imports, depth first; the paths of the files they bring in, and the
    /// imports that name a file outside the folder.
    fn follow(
        &mut self,
        rel: &str,
        imports: &[Import],
        (scope, depth): (Scope, usize),
        path: &str,
        sink: &mut Sink<'_>,
    ) -> (Vec<String>, Vec<String>) {
        let mut imported = Vec::new();
        // Imports naming a file outside the folder, as written (never read).
        let mut outside: Vec<String> = Vec::new();
        self.chain.push(rel.to_string());
        let mut named: BTreeSet<String> = BTreeSet::new();
        for import in imports {
            let Some(target) = self.resolve(rel, import, sink) else {
                let written = import.written.as_str();
                let external = (written.starts_with("~/") && self.realm != Realm::User)
                    || written.starts_with('/')
                    || join_rel(parent(rel), written).is_none();
                if external && !outside.iter().any(|o| o == written) {
                    outside.push(written.to_string());
                }
                continue;
            };
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
            if let Some(path) = self.visit(&target, scope, depth + 1, Some(path), false) {
                imported.push(path);
            }
        }
        self.chain.pop();
        (imported, outside)
    }

    /// The outcome of an instruction file no other reader claimed (or its findings, for one
    /// another reader claimed).
    fn keep(&mut self, rel: &str, sink: Sink<'_>, text: &str, path: &str, scope: Scope) {
        if !(self.claimed)(rel) {
            let kept = !sink.diagnostics.is_empty();
            let scope = if scope == Scope::User { FileScope::User } else { FileScope::Project };
            let file = SourceFile {
                path: path.into(),
                kind: FileKind::Instructions,
                scope,
                name: None,
                sha256: hashed(text, self.hash),
                unlisted: false,
                stamp: if kept { 0 } else { crate::walk::text_hash(text) },
                text: kept.then(|| text.into()),
                reread: Default::default(),
            };
            self.out.push(Outcome::new(sink, Some(file), Counts::default(), None));
        } else if !sink.diagnostics.is_empty() {
            self.out.push(Outcome::new(sink, None, Counts::default(), None));
        }
    }

    /// Managed settings' `claudeMd`: sent after the managed CLAUDE.md, as its own entry. The
    /// managed settings merge as Claude Code merges them: managed-settings.json, then the
    /// managed-settings.d/ files in name order, the last that sets `claudeMd` giving it (a
    /// string key: it replaces, never joins).
    pub(super) fn managed_setting(&mut self) {
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

/// Where a file's body starts, and its frontmatter's fields (for a rule with a list of
/// `paths`, with each item's own span).
fn split_frontmatter(text: &str, rule: bool) -> (usize, Option<crate::node::Node>) {
    match crate::frontmatter::split(text) {
        crate::frontmatter::Split::Found(block) => {
            let fields = match crate::frontmatter::parse(text, &block) {
                crate::frontmatter::Parsed::Fields { mut node, .. } => {
                    // A list of `paths` globs: each item's own span, for findings about one.
                    if rule && node.get("paths").is_some_and(|p| matches!(p.kind, NodeKind::Array(_))) {
                        crate::frontmatter::refine_spans(text, &block, &mut node);
                    }
                    Some(node)
                }
                _ => None,
            };
            (block.body_start.min(text.len()), fields)
        }
        _ => (0, None),
    }
}

/// A rule's `paths` globs with their spans; with `rule`, the findings about the other keys of
/// its frontmatter.
fn rule_paths(sink: &mut Sink<'_>, fields: Option<&crate::node::Node>, rule: bool) -> (Vec<String>, Vec<Span>) {
    let mut globs: Vec<String> = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    if let Some(fields) = fields {
        if let Some(node) = fields.get("paths") {
            let spanned: Vec<(String, Span)> = match &node.kind {
                NodeKind::Array(items) => items
                    .iter()
                    .filter_map(|i| i.as_str().map(|s| (s.trim().to_string(), i.span)))
                    .filter(|(p, _)| !p.is_empty())
                    .collect(),
                NodeKind::String(s) => {
                    s.split(',').map(str::trim).filter(|p| !p.is_empty()).map(|p| (p.to_string(), node.span)).collect()
                }
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
                    format!("Claude Code reads only `paths` in a rule's frontmatter; it ignores {}", names.join(", ")),
                )
                .severity(crate::diagnostic::Severity::Info)
                .help("the frontmatter is not sent to the model; keep these as your own metadata, or remove them");
            }
        }
    }
    (globs, spans)
}
