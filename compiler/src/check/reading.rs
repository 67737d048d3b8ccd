//! Reading one claimed file: its text, its parse, its checks, its declarations and the names
//! Claude Code gives them.

use super::placement::{not_loaded_because, placement, Realm};
use super::{Claim, Outcome, SourceFile};
use crate::decl::markdown::MarkdownKind;
use crate::decl::{file_name, markdown, parent, Counts, FileCx, FileKind, FileScope};
use crate::diagnostic::{Severity, Sink};
use crate::model::Item;
use crate::node::Node;
use crate::walk::{Content, Tree};
use crate::{decl, rules, walk};
use std::path::Path;

/// Reads a file's text (`content`, when it was read already), reporting why it cannot be
/// used; `None` when there is no text.
pub(super) fn load(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    content: Option<Content>,
    sink: &mut Sink<'_>,
) -> Option<String> {
    match content.unwrap_or_else(|| tree.texts.read(&dir.join(rel))) {
        Content::Text(text) => Some(text),
        Content::TooLarge { bytes } => {
            sink.report(&rules::file_too_large::RULE, None, format!("file is {} MiB; capc reads declaration files up to {} MiB", bytes / (1024 * 1024), walk::MAX_FILE_BYTES / (1024 * 1024)))
                .help("a declaration this large is almost certainly a mistake; Claude Code would put it all into the model's context");
            None
        }
        Content::NotText { offset, reason, .. } => {
            sink.report(
                &rules::unreadable_file::RULE,
                None,
                format!("file {reason} (first bad byte at offset {offset})"),
            )
            .help(
                "declarations must be UTF-8 text; re-save the file as UTF-8, or remove it if it is not a declaration",
            );
            None
        }
        Content::Error(e) => {
            sink.report(&rules::unreadable_file::RULE, None, format!("cannot read file: {e}"));
            None
        }
    }
}

pub(super) fn read_json<T>(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    realm: Realm,
    kind: FileKind,
    hash: bool,
    f: impl FnOnce(&mut Sink<'_>, &FileCx<'_>, &Node) -> T,
) -> (Outcome, Option<T>) {
    let path = realm.display(rel);
    let mut sink = Sink::new(&path);
    let Some(text) = load(dir, tree, rel, None, &mut sink) else {
        return (Outcome::new(sink, None, None, Counts::default(), None), None);
    };
    let cx = FileCx {
        tree,
        rel,
        scope: FileScope::Plugin,
        plugin_root: None,
        project_root: None,
        json_source: Some(&text),
        plugin_name: None,
        placement: None,
    };
    let result = parse_json(&mut sink, &text, kind).map(|node| f(&mut sink, &cx, &node));
    // Manifests stay: cross-file checks may report into them later.
    let source = hashed(&path, kind, &text, hash);
    let file = SourceFile {
        path: path.clone(),
        kind,
        scope: FileScope::Plugin,
        name: None,
        text: Some(text.into()),
        stamp: 0,
        reread: None,
    };
    (Outcome::new(sink, Some(file), Some(source), Counts::default(), None), result)
}

/// The JSON of a declaration file, or `invalid-json` with what the failure costs.
fn parse_json(sink: &mut Sink<'_>, text: &str, kind: FileKind) -> Option<Node> {
    match crate::json::parse(text) {
        Ok(node) => Some(node),
        Err(e) => {
            sink.report(&rules::invalid_json::RULE, e.span, e.message).help(json_help(kind));
            None
        }
    }
}

fn json_help(kind: FileKind) -> &'static str {
    match kind {
        FileKind::PluginManifest => "Claude Code cannot load this plugin until plugin.json parses",
        FileKind::Marketplace => "Claude Code cannot add this marketplace until marketplace.json parses",
        FileKind::ProjectMcp | FileKind::PluginMcp => "Claude Code reads none of these servers until the file parses",
        FileKind::Hooks => "Claude Code fails the plugin's hooks until the file parses",
        FileKind::Settings => "Claude Code ignores this settings file until it parses",
        FileKind::Monitors => "Claude Code loads none of these monitors until the file parses",
        FileKind::LspConfig => "Claude Code starts none of these LSP servers until the file parses",
        FileKind::Theme => "Claude Code skips this theme until the file parses",
        FileKind::PluginSettings => {
            "Claude Code applies none of it (it warns, and falls back on plugin.json's `settings`)"
        }
        _ => "fix the JSON syntax",
    }
}

/// `content` is the file's text when it was read already.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_claim(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    claim: &Claim,
    realm: Realm,
    hash: bool,
    project_keys: &[String],
    content: Option<Content>,
) -> Outcome {
    let path = realm.display(rel);
    let mut sink = Sink::new(&path);
    let mut counts = Counts::default();
    let mut not_loaded = not_loaded_because(realm, rel, claim).map(|why| (path.clone(), why));
    let mut skips_plugin = None;
    match claim.kind {
        FileKind::Skill => counts.skills = 1,
        FileKind::Command => counts.commands = 1,
        FileKind::Agent => counts.agents = 1,
        FileKind::Settings => counts.settings = 1,
        _ => {}
    }
    if claim.kind == FileKind::PluginBin {
        return read_bin(dir, tree, rel, claim, realm, sink);
    }
    let Some(text) = load(dir, tree, rel, content, &mut sink) else {
        let mut outcome = Outcome::new(sink, None, None, counts, claim.owner.plugin_name.as_deref());
        outcome.not_loaded = not_loaded;
        return outcome;
    };
    // Claude Code's plugin agent loader skips agent files over 1 MiB (measured).
    if claim.kind == FileKind::Agent && claim.owner.scope == FileScope::Plugin && text.len() > PLUGIN_AGENT_MAX_BYTES {
        sink.report(
            &rules::file_too_large::RULE,
            None,
            format!("agent file is {} KiB; Claude Code skips plugin agents over 1 MiB", text.len() / 1024),
        )
        .severity(Severity::Warning)
        .help("move reference material out of the agent's prompt, into files it reads when needed");
    }
    let is_json = !matches!(
        claim.kind,
        FileKind::Skill | FileKind::Command | FileKind::Agent | FileKind::OutputStyle | FileKind::Workflow
    );
    let cx = FileCx {
        tree,
        rel,
        scope: claim.owner.scope,
        plugin_root: claim.owner.plugin_root.as_deref(),
        project_root: claim.owner.project_root.as_deref(),
        json_source: is_json.then_some(text.as_str()),
        plugin_name: claim.owner.plugin_name.as_deref(),
        placement: placement(realm, rel, claim),
    };
    let mut name = None;
    let mut decls = Vec::new();
    // What runs while an agent or skill runs: its frontmatter, its owner's name, whether an agent.
    let mut own_runs: Option<(Node, String, bool)> = None;
    match claim.kind {
        FileKind::Skill | FileKind::Command => {
            let kind = if claim.kind == FileKind::Skill { MarkdownKind::Skill } else { MarkdownKind::Command };
            let fields = markdown::check(&mut sink, &cx, &text, kind);
            let own = match kind {
                MarkdownKind::Skill => skill_name(rel, claim, fields.as_ref()),
                _ => command_name(rel, claim),
            };
            // A `synced` skill folder is skipped (`reserved-name`): nothing of it is declared.
            let skipped = kind == MarkdownKind::Skill && markdown::is_synced_folder(&cx);
            if let (Some(at), false) = (cx.placement, skipped) {
                // What was loaded from a commands folder (a file or a SKILL.md folder) sits with
                // the commands in the table; a skills folder's with the skills.
                let form = if claim.base.is_some() { MarkdownKind::Command } else { MarkdownKind::Skill };
                let mut decl =
                    crate::decl::declare::command(&mut sink, own.clone(), form, fields.as_ref(), &text, at, &path);
                if let Item::Command(command) = &mut decl.item {
                    other_names(command, claim, kind, fields.as_ref());
                    own_runs = fields.clone().map(|f| (f, format!("/{}", command.name), false));
                }
                decls.push(decl);
            }
            name = Some(own);
        }
        FileKind::Agent => {
            let fields = markdown::check(&mut sink, &cx, &text, MarkdownKind::Agent);
            // An agent's own servers start when it runs: their packages are weighed as
            // `.mcp.json`'s (Claude Code ignores them in a plugin's agent).
            if let Some(f) = fields.as_ref().filter(|f| f.get("mcpServers").is_some()) {
                if claim.owner.scope != FileScope::Plugin {
                    let f = exact_spans(f, &text);
                    for entry in f.get("mcpServers").and_then(Node::as_array).unwrap_or_default() {
                        if let Some([(name, config)]) = entry.as_object() {
                            decl::mcp::check_provenance(&mut sink, &cx, &name.name, config);
                        }
                    }
                }
            }
            let own = agent_name(rel, claim, fields.as_ref());
            if let Some(at) = cx.placement {
                let agent = crate::decl::declare::agent(&mut sink, own.clone(), fields.as_ref(), at, &path);
                if agent.is_some() {
                    own_runs = fields.map(|f| (f, format!("agent {own}"), true));
                }
                decls.extend(agent);
            }
            name = Some(own);
        }
        FileKind::OutputStyle => decl::components::check_output_style(&mut sink, &cx, &text),
        FileKind::Workflow => decl::components::check_workflow(&mut sink, &cx, &text),
        kind => {
            let parsed = parse_json(&mut sink, &text, kind);
            if matches!(kind, FileKind::Theme | FileKind::PluginSettings) && parsed.is_none() {
                // Claude Code skips a theme it cannot parse, with a warning.
                for d in sink.diagnostics.iter_mut().filter(|d| d.rule == rules::invalid_json::RULE.id) {
                    d.severity(Severity::Warning);
                }
            }
            if kind == FileKind::Settings && parsed.is_none() && text.trim().is_empty() {
                // Claude Code reads an empty settings file as no settings, without a word.
                for d in sink.diagnostics.iter_mut().filter(|d| d.rule == rules::invalid_json::RULE.id) {
                    d.severity(crate::diagnostic::Severity::Warning)
                        .help("Claude Code reads an empty settings file as no settings; write `{}` or delete it");
                }
            }
            // A settings file Claude Code refuses whole (not JSON, not an object) declares
            // nothing, and its errors do not stop `capc lock`: the lock records it as not
            // loaded, with the words of Claude Code's notice.
            let refused = (kind == FileKind::Settings && cx.placement.is_some())
                .then(|| decl::settings::refused_whole(&text, parsed.as_ref()))
                .flatten();
            if let Some(message) = refused {
                let why = format!("Claude Code refuses this settings file: {message}");
                not_loaded.get_or_insert_with(|| (path.clone(), why));
                decls.push(crate::model::Decl {
                    path: path.clone(),
                    span: None,
                    item: crate::model::Item::SettingsNotLoaded(crate::model::SettingsNotLoaded {
                        path: path.clone(),
                        key: String::new(),
                        message: message.to_string(),
                    }),
                });
            }
            if let Some(node) = parsed {
                match kind {
                    FileKind::ProjectMcp => counts.mcp_servers = decl::mcp::check_file(&mut sink, &cx, &node, true),
                    FileKind::PluginMcp => counts.mcp_servers = decl::mcp::check_file(&mut sink, &cx, &node, false),
                    FileKind::UserConfig => {
                        if let Some(servers) = node.get("mcpServers") {
                            counts.mcp_servers =
                                decl::mcp::check_servers(&mut sink, &cx, servers, "`mcpServers`", false);
                        }
                        // Local scope: this project's own servers (`claude mcp add`'s default).
                        let projects = node.get("projects");
                        let project = project_keys.iter().find_map(|k| projects?.get(k));
                        if let (Some(project), Some(_)) = (project, cx.placement) {
                            use crate::model::Scope as L;
                            crate::decl::declare::mcp_approval(project, L::Local, &path, &mut decls);
                            crate::decl::declare::mcp_toggles(project, &path, &mut decls);
                        }
                        if let Some(servers) = project.and_then(|p| p.get("mcpServers")) {
                            let placement = cx
                                .placement
                                .map(|at| crate::model::Placement { scope: crate::model::Scope::Local, ..at });
                            let local_cx = FileCx { placement, ..cx };
                            counts.mcp_servers += decl::mcp::check_servers(
                                &mut sink,
                                &local_cx,
                                servers,
                                "`projects[…].mcpServers`",
                                false,
                            );
                        }
                    }
                    FileKind::Hooks => {
                        counts.hooks = decl::hooks::check_file(&mut sink, &cx, &node);
                        if let (Some(root), Some(why)) = (&claim.owner.plugin_root, decl::hooks::skips_plugin(&node)) {
                            skips_plugin = Some((realm.display(root), why));
                        }
                    }
                    FileKind::Settings => counts.hooks = decl::settings::check(&mut sink, &cx, &node),
                    FileKind::Monitors => {
                        decl::components::check_monitors(&mut sink, &cx, &node);
                    }
                    FileKind::LspConfig => {
                        decl::components::check_lsp(&mut sink, &cx, &node);
                    }
                    FileKind::Theme => decl::components::check_theme(&mut sink, &cx, &node),
                    FileKind::PluginSettings => decl::components::check_plugin_settings(&mut sink, &cx, &node),
                    _ => {}
                }
                if let Some(at) = cx.placement {
                    match kind {
                        FileKind::Hooks => {
                            if let Some(map) = node.get("hooks") {
                                crate::decl::declare::hooks(&mut sink, map, at, &path, &mut decls);
                            }
                            decl::components::declare_module(&mut sink, &cx, &node);
                        }
                        // Refused whole by Claude Code: it declares nothing, and its errors
                        // do not stop `capc lock` (a session here does not load the file).
                        FileKind::Settings if decl::settings::refused(&node).is_some() => {
                            let (key, message) = decl::settings::refused(&node).unwrap_or_default();
                            let why = format!("Claude Code refuses this settings file: `{key}`: {message}");
                            not_loaded.get_or_insert_with(|| (path.clone(), why));
                            decls.push(crate::model::Decl {
                                path: path.clone(),
                                span: None,
                                item: crate::model::Item::SettingsNotLoaded(crate::model::SettingsNotLoaded {
                                    path: path.clone(),
                                    key,
                                    message,
                                }),
                            });
                        }
                        FileKind::Settings => {
                            if let Some(map) = node.get("hooks") {
                                crate::decl::declare::hooks(&mut sink, map, at, &path, &mut decls);
                            }
                            if let Some(permissions) = node.get("permissions") {
                                crate::decl::declare::rules(&mut sink, permissions, at.scope, &path, &mut decls);
                            }
                            crate::decl::declare::settings(&node, at.scope, &path, &mut decls);
                            let lines = crate::diagnostic::LineIndex::new(&text);
                            let here = crate::runs::At {
                                text: &text,
                                lines: &lines,
                                path: &path,
                                scope: at.scope,
                                plugin: at.plugin,
                            };
                            crate::runs::settings(&node, &here, &mut decls);

                            for key in ["outputStyle", "agent"] {
                                if let Some(value) = node.get(key).filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
                                {
                                    decls.push(crate::model::Decl {
                                        path: path.clone(),
                                        span: Some(value.span),
                                        item: Item::Selects {
                                            key,
                                            value: value.as_str().unwrap_or_default().to_string(),
                                        },
                                    });
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    sink.decls.append(&mut decls);
    if let Some(at) = cx.placement {
        let rows = runs_of(&sink.decls, own_runs.as_ref(), &text, &path, at);
        let scripts = Scripts { dir, tree, realm, project: cx.project_root, plugin: cx.plugin_root };
        for d in &mut sink.decls {
            match &mut d.item {
                Item::Run(row) => scripts.hash(row),
                // A monitor's or LSP server's script inside the folder, hashed as a row's.
                Item::Monitor(m) => {
                    let mut row = crate::model::Run { run: m.command.clone(), ..crate::model::Run::default() };
                    scripts.hash(&mut row);
                    (m.script, m.script_sha256) = (row.script, row.script_sha256);
                }
                Item::LspServer(l) => {
                    let mut row = crate::model::Run { run: l.command.clone(), ..crate::model::Run::default() };
                    scripts.hash(&mut row);
                    (l.script, l.script_sha256) = (row.script, row.script_sha256);
                }
                _ => {}
            }
        }
        for mut row in rows {
            scripts.hash(&mut row);
            sink.decls.push(crate::model::Decl { path: path.clone(), span: None, item: Item::Run(Box::new(row)) });
        }
    }
    let source = hashed(&path, claim.kind, &text, hash);
    let mut suppressions = if is_json { Vec::new() } else { crate::suppress::parse(&text) };
    for s in &mut suppressions {
        s.path = path.clone();
    }
    // Cross-file checks report only into files with MCP server references; suppressions may
    // be reported themselves.
    let keep = !sink.diagnostics.is_empty() || !sink.server_refs.is_empty() || !suppressions.is_empty();
    let file = SourceFile {
        path: path.clone(),
        kind: claim.kind,
        scope: claim.owner.scope,
        name,
        // A dropped text's hash: read again for a report, the file must still hold it.
        stamp: if keep { 0 } else { walk::text_hash(&text) },
        text: keep.then(|| text.into()),
        reread: None,
    };
    let mut outcome = Outcome::new(sink, Some(file), Some(source), counts, claim.owner.plugin_name.as_deref());
    outcome.suppressions = suppressions;
    outcome.not_loaded = not_loaded;
    outcome.skips_plugin = skips_plugin;
    outcome
}

/// The `[[run]]` rows of one file: the line of each hook, server and `!` injection it declares,
/// and what its agent's or skill's own frontmatter runs.
fn runs_of(
    decls: &[crate::model::Decl],
    own: Option<&(Node, String, bool)>,
    text: &str,
    path: &str,
    at: crate::model::Placement<'_>,
) -> Vec<crate::model::Run> {
    let runs_something = |d: &crate::model::Decl| match &d.item {
        Item::Hook(_) => true,
        Item::Server(s) => s.command.is_some(),
        Item::Command(c) => !c.shell_injections.is_empty(),
        _ => false,
    };
    let owns = own.is_some_and(|(f, _, agent)| f.get("hooks").is_some() || (*agent && f.get("mcpServers").is_some()));
    if !owns && !decls.iter().any(runs_something) {
        return Vec::new();
    }
    let lines = crate::diagnostic::LineIndex::new(text);
    let here = crate::runs::At { text, lines: &lines, path, scope: at.scope, plugin: at.plugin };
    let mut rows = crate::runs::declared(decls, &here);
    if let Some((fields, owner, agent)) = own.filter(|_| owns) {
        // Exact spans, so a row's line does not depend on whether the file has findings.
        let fields = exact_spans(fields, text);
        crate::runs::frontmatter(&fields, owner, *agent, &decl::hooks::EVENTS, &here, &mut rows);
    }
    rows
}

/// Frontmatter `fields` with the exact span of every nested value (a check computes them only
/// for a file with findings).
fn exact_spans(fields: &Node, text: &str) -> Node {
    let mut fields = fields.clone();
    if let crate::frontmatter::Split::Found(block) = crate::frontmatter::split(text) {
        crate::frontmatter::refine_spans(text, &block, &mut fields);
    }
    fields
}

/// Where the scripts a file's rows run are found, to hash them.
struct Scripts<'a> {
    dir: &'a Path,
    tree: &'a Tree,
    realm: Realm,
    project: Option<&'a str>,
    plugin: Option<&'a str>,
}

impl Scripts<'_> {
    /// Records the script inside the folder that `row` runs, with the SHA-256 of its bytes (a
    /// regular file, never through a link, at most `walk::MAX_FILE_BYTES`), when it has one.
    fn hash(&self, row: &mut crate::model::Run) {
        let Some(word) = crate::runs::script_word(&row.run) else { return };
        let Some(target) = crate::runs::script_path(&word, self.project, self.plugin) else { return };
        if !self.tree.exists(&target) {
            return;
        }
        if let Ok(bytes) = walk::read_regular(&self.dir.join(&target), walk::MAX_FILE_BYTES, walk::Links::Refuse) {
            row.script = Some(self.realm.display(&target));
            row.script_sha256 = Some(crate::secrets::sha256_hex(&bytes));
        }
    }
}

/// A file of a plugin's `bin/`: any bytes, hashed (up to the declaration cap) and recorded
/// with whether it may run; never parsed.
fn read_bin(dir: &Path, tree: &Tree, rel: &str, claim: &Claim, realm: Realm, mut sink: Sink<'_>) -> Outcome {
    let _ = tree;
    let path = sink.path().to_string();
    let (sha256, executable) = match walk::read_program(&dir.join(rel), walk::MAX_FILE_BYTES) {
        Ok((bytes, executable)) => (crate::secrets::sha256_hex(&bytes), executable),
        Err(e) => {
            sink.report(&rules::unreadable_file::RULE, None, format!("cannot read file: {e}"))
                .severity(Severity::Warning)
                .help("capc records it unhashed; Claude Code still puts it on the PATH");
            (String::new(), false)
        }
    };
    if let (Some(at), Some(plugin)) = (placement(realm, rel, claim), claim.owner.plugin_name.as_deref()) {
        let _ = at;
        sink.decls.push(crate::model::Decl {
            path: path.clone(),
            span: None,
            item: Item::PluginBin(crate::model::PluginBin {
                name: file_name(rel).to_string(),
                plugin: plugin.to_string(),
                path: path.clone(),
                sha256: sha256.clone(),
                executable,
            }),
        });
    }
    let source = crate::model::Source { path: path.clone(), kind: FileKind::PluginBin.as_str().to_string(), sha256 };
    let file = SourceFile {
        path,
        kind: FileKind::PluginBin,
        scope: claim.owner.scope,
        name: None,
        text: None,
        stamp: 0,
        reread: None,
    };
    Outcome::new(sink, Some(file), Some(source), crate::decl::Counts::default(), claim.owner.plugin_name.as_deref())
}

/// A file's entry in the lock's list of sources.
fn hashed(path: &str, kind: FileKind, text: &str, hash: bool) -> crate::model::Source {
    crate::model::Source {
        path: path.to_string(),
        kind: kind.as_str().to_string(),
        sha256: if hash { crate::secrets::sha256_hex(text.as_bytes()) } else { String::new() },
    }
}

/// `plugin:` in front of a plugin component's name.
fn namespaced(claim: &Claim, name: &str) -> String {
    match &claim.owner.plugin_name {
        Some(plugin) => format!("{plugin}:{name}"),
        None => name.to_string(),
    }
}

/// The path of `rel` below `base`, without `.md`, its folders joined with `:`.
fn relative_name(base: &str, rel: &str) -> String {
    let below = rel.strip_prefix(base).unwrap_or(rel).trim_start_matches('/');
    below.strip_suffix(".md").unwrap_or(below).replace('/', ":")
}

fn frontmatter_name(fields: Option<&Node>) -> Option<&str> {
    fields?.get("name")?.as_str().map(str::trim).filter(|n| !n.is_empty())
}

/// A skill is named after its folder, as Claude Code names it: in a plugin, `<plugin>:<folder>`
/// with every character outside `[A-Za-z0-9_-]` made `-`; a plugin that is one root
/// `SKILL.md` takes its frontmatter `name`, else the plugin folder's name, sanitized alike; a
/// `SKILL.md` inside a commands folder takes the folder's path (`a:b`). The frontmatter `name`
/// of any other skill is its display name, not its name (see `other_names`).
fn skill_name(rel: &str, claim: &Claim, fields: Option<&Node>) -> String {
    let dir = parent(rel);
    if let Some(base) = &claim.base {
        return namespaced(claim, &relative_name(base, dir));
    }
    match (&claim.owner.plugin_name, &claim.owner.plugin_root) {
        (Some(plugin), Some(root)) if &**root == dir => {
            let folder = if dir.is_empty() { &**plugin } else { file_name(dir) };
            crate::names::plugin_root_skill(plugin, frontmatter_name(fields), folder)
        }
        (Some(plugin), _) => crate::names::plugin_skill(plugin, file_name(dir)),
        (None, _) => file_name(dir).to_string(),
    }
}

/// The display name and aliases Claude Code gives a skill or command besides its name:
/// a plugin's skills and commands take their frontmatter `name` as display name and, without
/// a `:`, as a bare alias; a skills folder's skill takes it as display name only;
/// legacy `.claude/commands` files ignore it.
fn other_names(command: &mut crate::model::Command, claim: &Claim, kind: MarkdownKind, fields: Option<&Node>) {
    let given = fields.and_then(|f| f.get("name")).and_then(scalar_text);
    if claim.owner.plugin_name.is_some() {
        let names = crate::names::plugin_names(&command.name, given.as_deref().map(str::trim));
        command.display_name = names.display_name;
        command.aliases = names.aliases;
        command.shed_aliases = names.shed;
    } else if kind == MarkdownKind::Skill && claim.base.is_none() {
        command.display_name = crate::names::frontmatter_name(given.as_deref().map(str::trim))
            .filter(|n| *n != command.name)
            .map(str::to_string);
    }
}

/// A scalar frontmatter value as text (Claude Code reads `name: 42` as `"42"`).
fn scalar_text(node: &Node) -> Option<String> {
    use crate::node::NodeKind;
    match &node.kind {
        NodeKind::String(s) => Some(s.clone()),
        NodeKind::Number(n) => Some(n.clone()),
        NodeKind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A command is named after its path below the commands folder: `frontend/component.md`
/// is `frontend:component` (the loader's rule since Claude Code 1.0.45; the docs still say
/// the subfolder does not count).
fn command_name(rel: &str, claim: &Claim) -> String {
    namespaced(claim, &relative_name(claim.base.as_deref().unwrap_or(parent(rel)), rel))
}

/// An agent is named by its frontmatter `name`, else its file name; a plugin's agents add
/// their subfolders (`review:security`).
fn agent_name(rel: &str, claim: &Claim, fields: Option<&Node>) -> String {
    let stem = file_name(rel).strip_suffix(".md").unwrap_or(file_name(rel));
    let own = frontmatter_name(fields).unwrap_or(stem);
    if claim.owner.plugin_name.is_none() {
        return own.to_string();
    }
    let folders = claim.base.as_deref().map(|base| relative_name(base, parent(rel))).unwrap_or_default();
    if folders.is_empty() {
        namespaced(claim, own)
    } else {
        namespaced(claim, &format!("{folders}:{own}"))
    }
}

/// The largest plugin agent file Claude Code loads.
const PLUGIN_AGENT_MAX_BYTES: usize = 1_048_576;
