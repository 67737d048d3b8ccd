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
//!
//! This file finds the files of a folder and reads them; `follow.rs` follows each file's
//! imports, depth first; `scan.rs` reads a file's text (what is sent, its `@` imports).

mod follow;
mod scan;

pub use scan::{attached, paths_match, scan, sent, tokens, Import, Scanned};

use follow::Walk;

use super::placement::Realm;
use super::Outcome;
use crate::decl::{file_name, join_rel, parent, Counts};
use crate::diagnostic::Sink;
use crate::model::{Instruction, Scope};
use crate::rules;
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
    pub(crate) fn excludes(&self, absolute: &str, scope: Scope) -> bool {
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
    /// Whether the built-in plugin behind the AGENTS.md fallback is switched off
    /// (`enabledPlugins` sets `agents-md@builtin` to `false`): no AGENTS.md is read then.
    pub(super) agents_md_off: bool,
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
        agents_md_off: loading.agents_md_off,
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
        Realm::Project => read_project(&mut walk),
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

/// The checked folder's instruction files: its own, the AGENTS.md fallback, then its nested
/// folders'.
fn read_project(walk: &mut Walk<'_>) {
    let (dir, tree, realm, claimed) = (walk.dir, walk.tree, walk.realm, walk.claimed);
    let agents_md_off = walk.agents_md_off;
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
            None if agents_md_off => {}
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
                walk.out.push(Outcome::new(sink, None, Counts::default(), None));
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

/// Node's `path.extname`: from the last `.` of the name, unless the name starts with it.
fn extension(name: &str) -> &str {
    match name.rfind('.') {
        Some(0) | None => "",
        Some(i) => &name[i..],
    }
}

#[cfg(test)]
mod tests;
