//! The claim stage's folders: the files of a `.claude/` folder, a skills folder, a tree of
//! commands or agents, and an `--add-dir` folder.

use super::super::placement::Realm;
use super::super::{Claims, Owner};
use crate::decl::{file_name, join_rel, parent, FileKind, FileScope};
use crate::diagnostic::{report_at, Diagnostic};
use crate::rules;
use crate::walk::Tree;
use std::sync::Arc;

/// An `--add-dir` folder: Claude Code reads the skills, commands and agents of its `.claude/`.
pub(super) fn claim_added_dir(tree: &Tree, claims: &mut Claims, diagnostics: &mut Vec<Diagnostic>, realm: Realm) {
    // Claude Code reads an added folder's skills, legacy commands and agents.
    let owner = Owner::project(FileScope::Project, "");
    if tree.is_dir(".claude/skills") {
        claim_skills_dir(tree, claims, ".claude/skills", &owner, diagnostics, realm);
    }
    if tree.is_dir(".claude/commands") {
        claim_markdown_tree(tree, claims, ".claude/commands", FileKind::Command, &owner);
    }
    if tree.is_dir(".claude/agents") {
        claim_markdown_tree(tree, claims, ".claude/agents", FileKind::Agent, &owner);
    }
}

pub(super) fn claim_project(
    tree: &Tree,
    claims: &mut Claims,
    root: &str,
    is_plugin: bool,
    realm: Realm,
    out: &mut Vec<Diagnostic>,
) {
    let scope = match realm {
        Realm::Project => FileScope::Project,
        Realm::User => FileScope::User,
        Realm::Managed => FileScope::Managed,
        Realm::AddDir(_) | Realm::PluginDir(_) => FileScope::Project,
    };
    let at = |p: &str| join_rel(root, p).unwrap_or_default();
    let owner = Owner::project(scope, root);
    claim_claude_dir(tree, claims, &at(".claude"), &owner, out, realm);
    if !is_plugin && tree.is_file(&at(".mcp.json")) {
        claims.add(&at(".mcp.json"), FileKind::ProjectMcp, &owner, None);
    }
}

/// The contents of a `.claude` folder (`""` when the checked folder is one).
pub(super) fn claim_claude_dir(
    tree: &Tree,
    claims: &mut Claims,
    claude: &str,
    owner: &Owner,
    out: &mut Vec<Diagnostic>,
    realm: Realm,
) {
    let at = |p: &str| join_rel(claude, p).unwrap_or_default();
    if tree.is_dir(&at("skills")) {
        claim_skills_dir(tree, claims, &at("skills"), owner, out, realm);
    }
    if tree.is_dir(&at("commands")) {
        claim_markdown_tree(tree, claims, &at("commands"), FileKind::Command, owner);
    }
    if tree.is_dir(&at("agents")) {
        claim_markdown_tree(tree, claims, &at("agents"), FileKind::Agent, owner);
    }
    for settings in ["settings.json", "settings.local.json"] {
        if tree.is_file(&at(settings)) {
            claims.add(&at(settings), FileKind::Settings, owner, None);
        }
    }
    let styles = at("output-styles");
    let files: Vec<&String> = tree.files_under(&styles).filter(|f| f.ends_with(".md")).collect();
    for file in files {
        claims.add(file, FileKind::OutputStyle, owner, None);
    }
}

pub(super) fn claim_markdown_tree(tree: &Tree, claims: &mut Claims, dir: &str, kind: FileKind, owner: &Owner) {
    // A folder inside `commands/` that holds a SKILL.md (any case) is one skill; the other
    // Markdown files beside and below it are not commands.
    let skill_dirs: Vec<String> = if kind == FileKind::Command {
        tree.files_under(dir)
            .filter(|f| file_name(f).eq_ignore_ascii_case("skill.md"))
            .map(|f| parent(f).to_string())
            .collect()
    } else {
        Vec::new()
    };
    let base: Arc<str> = dir.into();
    for rel in tree.files_under(dir) {
        if !rel.ends_with(".md") {
            continue;
        }
        let below = |d: &&String| rel.strip_prefix(d.as_str()).is_some_and(|rest| rest.starts_with('/'));
        if let Some(skill_dir) = skill_dirs.iter().find(below) {
            if parent(rel) == skill_dir && file_name(rel).eq_ignore_ascii_case("skill.md") {
                claims.add(rel, FileKind::Skill, owner, Some(&base));
            }
            continue;
        }
        claims.add(rel, kind, owner, Some(&base));
    }
}

pub(super) fn claim_skills_dir(
    tree: &Tree,
    claims: &mut Claims,
    dir: &str,
    owner: &Owner,
    out: &mut Vec<Diagnostic>,
    realm: Realm,
) {
    let direct = join_rel(dir, "SKILL.md").unwrap_or_default();
    if tree.is_file(&direct) {
        claims.add(&direct, FileKind::Skill, owner, None);
        return;
    }
    for child in tree.child_dirs(dir) {
        let skill = format!("{child}/SKILL.md");
        if tree.is_file(&skill) {
            claims.add(&skill, FileKind::Skill, owner, None);
        }
    }
    for rel in tree.files_under(dir).filter(|f| parent(f) == dir && f.ends_with(".md")) {
        let stem = file_name(rel).trim_end_matches(".md");
        report_at(
            out,
            realm.display(rel),
            &rules::loose_skill_file::RULE,
            None,
            "a loose Markdown file in a skills folder is not a skill",
        )
        .help(format!("move it to `{dir}/{stem}/SKILL.md`"));
    }
}
