//! Plugin manifests (`.claude-plugin/plugin.json`) and marketplaces
//! (`.claude-plugin/marketplace.json`). Checks follow `claude plugin validate` 2.1.332,
//! measured: component paths start with `./`, `agents` name `.md` files and `hooks` a
//! `.json` file, named paths exist, recognised fields have their documented types.

use super::{join_rel, FileCx};
use crate::diagnostic::{did_you_mean, Edit, Severity, Sink};
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::schema::{check_fields, field, require, Field, Ty, Unknown};
use crate::span::Span;

pub const PLUGIN_FIELDS: &[Field] = &[
    field("name", Ty::String),
    field("$schema", Ty::String),
    field("displayName", Ty::String),
    field("version", Ty::String),
    field("description", Ty::String),
    field("author", Ty::Object),
    field("homepage", Ty::String),
    field("repository", Ty::String),
    field("license", Ty::String),
    field("keywords", Ty::StringArray),
    field("metadata", Ty::Any),
    field("defaultEnabled", Ty::Bool),
    field("skills", Ty::StringOrStringArray),
    field("commands", Ty::StringOrStringArray),
    field("agents", Ty::StringOrStringArray),
    field("workflows", Ty::StringOrStringArray),
    field("hooks", Ty::StringOrArrayOrObject),
    field("mcpServers", Ty::StringOrArrayOrObject),
    field("outputStyles", Ty::StringOrStringArray),
    field("lspServers", Ty::StringOrArrayOrObject),
    field("experimental", Ty::Any),
    field("themes", Ty::Any),
    field("monitors", Ty::Any),
    field("userConfig", Ty::Object),
    field("channels", Ty::Array),
    field("dependencies", Ty::Array),
    field("optionalDependencies", Ty::Any),
    field("engines", Ty::Any),
    field("network", Ty::Object),
    field("settings", Ty::Object),
    field("types", Ty::Any),
    field("binaries", Ty::Any),
];

/// Fields `claude plugin validate` 2.1.332 accepts in plugin.json without checking them
/// (listing metadata read by the plugin directory).
const LISTING_FIELDS: &[&str] = &[
    "icon",
    "screenshots",
    "classification",
    "privacyPolicyUrl",
    "privacy_policy",
    "privacyPolicy",
    "supportUrl",
    "support",
    "bugs",
    "termsOfServiceUrl",
    "terms_of_service",
    "documentationUrl",
    "docs",
];

/// Keys of `experimental` (2.1.332).
const EXPERIMENTAL_FIELDS: &[Field] = &[
    field("themes", Ty::StringOrStringArray),
    field("monitors", Ty::Any),
    field("outputStyles", Ty::StringOrStringArray),
    field("evals", Ty::Any),
    field("syntaxHighlighting", Ty::Any),
];

/// Fields that belong in a marketplace entry, not in plugin.json.
const ENTRY_ONLY: &[&str] = &["category", "source", "tags", "strict", "id", "relevance", "headers", "headersHelper"];

/// Fields of a marketplace entry on top of the plugin.json fields.
const ENTRY_EXTRA: &[Field] = &[
    field("source", Ty::Any),
    field("category", Ty::String),
    field("tags", Ty::StringArray),
    field("strict", Ty::Bool),
    field("relevance", Ty::Object),
    field("id", Ty::String),
    field("headers", Ty::Object),
    field("headersHelper", Ty::String),
];

pub const MARKETPLACE_FIELDS: &[Field] = &[
    field("name", Ty::String),
    field("owner", Ty::Object),
    field("plugins", Ty::Array),
    field("$schema", Ty::String),
    field("description", Ty::String),
    field("version", Ty::String),
    field("metadata", Ty::Object),
    field("allowCrossMarketplaceDependenciesOn", Ty::StringArray),
    field("renames", Ty::Object),
    field("forceRemoveDeletedPlugins", Ty::Bool),
];

const MARKETPLACE_METADATA_FIELDS: &[Field] =
    &[field("description", Ty::String), field("version", Ty::String), field("pluginRoot", Ty::String)];

const OWNER_FIELDS: &[Field] = &[field("name", Ty::String), field("email", Ty::String), field("url", Ty::String)];

/// Component fields: (field, what a file entry must end with, whether a folder is allowed,
/// whether setting it replaces the default folder).
const COMPONENTS: &[(&str, Option<&str>, bool, Option<&str>)] = &[
    ("skills", None, true, None),
    ("commands", None, true, Some("commands")),
    ("agents", Some(".md"), false, Some("agents")),
    ("workflows", None, true, Some("workflows")),
    ("outputStyles", None, true, Some("output-styles")),
    ("hooks", Some(".json"), false, None),
    ("mcpServers", Some(".json"), false, None),
    ("lspServers", Some(".json"), false, None),
];

/// What the rest of the check needs from a plugin.json.
#[derive(Debug, Clone, Default)]
pub struct PluginInfo {
    pub name: Option<String>,
    pub name_span: Option<Span>,
    pub version: Option<String>,
    /// Component paths, resolved against the plugin root, by field.
    pub paths: Vec<(&'static str, String)>,
    /// Inline `mcpServers` / `hooks` were present.
    pub inline_mcp: usize,
    pub inline_hooks: usize,
    pub declares_components: bool,
}

pub fn check_plugin(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) -> PluginInfo {
    let mut info = PluginInfo::default();
    if root.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            root.span,
            format!("plugin.json must be an object, found {}", root.type_name()),
        );
        return info;
    }
    let plugin_root = cx.plugin_root.unwrap_or("");
    check_manifest_fields(sink, root, PLUGIN_FIELDS, "plugin.json");
    if require(sink, root, "name", "plugin.json") {
        if let Some(name) = root.get("name") {
            if let Some(s) = name.as_str() {
                check_name(sink, name.span, s, "plugin");
                info.name = Some(s.to_string());
                info.name_span = Some(name.span);
            }
        }
    }
    info.version = root.get("version").and_then(Node::as_str).map(str::to_string);
    if let Some(version) = root.get("version") {
        check_semver(sink, version);
    }
    check_author(sink, root);
    check_components(sink, cx, root, plugin_root, &mut info);
    check_user_config(sink, root);
    for (name, expected) in [("engines", "an object"), ("optionalDependencies", "an array")] {
        if let Some(value) = root.get(name) {
            let ok = if name == "engines" { value.as_object().is_some() } else { value.as_array().is_some() };
            if !ok {
                sink.report(
                    &rules::wrong_field_type::RULE,
                    value.span,
                    format!("`{name}` in plugin.json must be {expected}, found {}", value.type_name()),
                )
                .severity(Severity::Warning)
                .help("Claude Code ignores it at load time");
            }
        }
    }
    check_channels(sink, root);
    check_dependencies(sink, root);
    check_engines(sink, root);
    check_experimental(sink, cx, root, plugin_root);
    if let Some(metadata) = root.get("metadata") {
        if metadata.as_object().is_none() {
            sink.report(
                &rules::wrong_field_type::RULE,
                metadata.span,
                format!("`metadata` in plugin.json must be an object, found {}", metadata.type_name()),
            )
            .severity(Severity::Warning)
            .help("Claude Code ignores a `metadata` that is not an object");
        }
    }
    for legacy in ["themes", "monitors"] {
        if let Some((key, _)) = root.get_entry(legacy) {
            sink.report(&rules::unknown_field::RULE, key.span, format!("top-level `{legacy}` is deprecated"))
                .help(format!("move it under `experimental.{legacy}`"));
        }
    }
    info
}

/// `check_fields` plus the hint that marketplace-only fields do nothing in plugin.json.
fn check_manifest_fields(sink: &mut Sink<'_>, root: &Node, fields: &[Field], what: &str) {
    let mut known: Vec<Field> = fields.to_vec();
    for name in ENTRY_ONLY.iter().chain(LISTING_FIELDS) {
        known.push(field(name, Ty::Any));
    }
    check_fields(sink, root, &known, what, Unknown::Warn);
    for &entry_only in ENTRY_ONLY {
        if let Some((key, _)) = root.get_entry(entry_only) {
            sink.report(
                &rules::unknown_field::RULE,
                key.span,
                format!("`{entry_only}` belongs in the marketplace entry, not in plugin.json"),
            )
            .help("Claude Code ignores it here; move it to the plugin's entry in marketplace.json")
            // Listing metadata does nothing at run time wherever it is written; a behaviour
            // field (`strict`, `source`, `headers`) that does nothing is worth a warning.
            .severity(if matches!(entry_only, "category" | "tags") {
                Severity::Info
            } else {
                Severity::Warning
            });
        }
    }
}

fn check_author(sink: &mut Sink<'_>, root: &Node) {
    if let Some(author) = root.get("author").filter(|a| a.as_object().is_some()) {
        check_fields(sink, author, OWNER_FIELDS, "`author`", Unknown::Warn);
    }
}

fn check_semver(sink: &mut Sink<'_>, version: &Node) {
    let Some(v) = version.as_str() else { return };
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    let ok = parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    if !ok {
        sink.report(&rules::invalid_field_value::RULE, version.span, format!("version `{v}` is not semver"))
            .help("write `MAJOR.MINOR.PATCH`, such as `1.0.0`");
    }
}

/// The lower-cased alphanumeric pieces of a name: `Claude_Code-x` → `[claude, code, x]`.
fn pieces(name: &str) -> Vec<String> {
    name.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether a plugin name passes as one of Anthropic's own, by the rule of
/// `claude plugin validate` 2.1.332: a leading run of pieces spells `claude`, `anthropic(s)`
/// or `ccplugin`; the whole name spells one of the reserved names; or `official` stands
/// next to `claude` or `anthropic`.
pub fn is_reserved_plugin_name(name: &str) -> bool {
    let pieces = pieces(name);
    let mut joined = String::new();
    for piece in &pieces {
        joined.push_str(piece);
        if matches!(joined.as_str(), "claude" | "anthropic" | "anthropics" | "ccplugin") {
            return true;
        }
    }
    if matches!(joined.as_str(), "claude" | "anthropic" | "anthropics" | "claudecode" | "claudemods") {
        return true;
    }
    pieces.windows(2).any(|w| {
        let brand = |p: &str| p == "claude" || p == "anthropic";
        (w[0] == "official" && brand(&w[1])) || (brand(&w[0]) && w[1] == "official")
    })
}

/// A plugin name that mentions Claude or Anthropic without being reserved: it reads as
/// one of Anthropic's own (the validator warns).
pub fn reads_as_anthropic(name: &str) -> bool {
    pieces(name).iter().any(|p| p == "claude" || p == "anthropic" || p == "anthropics")
}

/// Whether a marketplace name imitates an Anthropic marketplace, by the rule of
/// `claude plugin validate` 2.1.332 (the exact reserved names are exempt: they are
/// Anthropic's own, accepted only from its GitHub organisation).
pub fn is_reserved_marketplace_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if crate::builtins::RESERVED_MARKETPLACES.contains(&lower.as_str()) {
        return false;
    }
    if !name.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        return true;
    }
    let trimmed = lower.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    if imitates(&lower) || imitates(trimmed) {
        return true;
    }
    let alnum: String = lower.chars().filter(char::is_ascii_alphanumeric).collect();
    if ["officialclaude", "claudeofficial", "officialanthropic", "anthropicofficial"].iter().any(|w| alnum.contains(w))
    {
        return true;
    }
    let mut joined = String::new();
    for piece in pieces(name) {
        joined.push_str(&piece);
        let bare = joined.strip_suffix('s').unwrap_or(&joined);
        for brand in ["anthropic", "claude"] {
            if let Some(rest) = joined.strip_prefix(brand).or_else(|| bare.strip_prefix(brand)) {
                if matches!(rest, "marketplace" | "plugins" | "official" | "directory" | "directories") {
                    return true;
                }
            }
        }
    }
    false
}

/// `official` and a brand separated only by non-alphanumerics, or a name that starts with a
/// brand followed by `marketplace`, `plugins`, `official` or `directory`.
fn imitates(lower: &str) -> bool {
    let brands = ["anthropic", "claude"];
    let gap_then =
        |text: &str, word: &str| text.trim_start_matches(|c: char| !c.is_ascii_alphanumeric()).starts_with(word);
    for (i, _) in lower.match_indices("official") {
        if brands.iter().any(|b| gap_then(&lower[i + "official".len()..], b)) {
            return true;
        }
    }
    for brand in brands {
        for (i, _) in lower.match_indices(brand) {
            let after = &lower[i + brand.len()..];
            if gap_then(after, "official") {
                return true;
            }
            if i == 0
                && ["marketplace", "plugins", "official", "directory", "directories"].iter().any(|w| gap_then(after, w))
            {
                return true;
            }
        }
    }
    false
}

/// A name Claude Code can load: `[A-Za-z0-9._-]`, starting with a letter or digit (it is
/// part of every plugin id, `name@marketplace`). Anything else fails the load (2.1.332).
pub fn is_loadable_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn check_name(sink: &mut Sink<'_>, span: Span, name: &str, what: &str) {
    // The plugin loader refuses spaces and characters outside `[A-Za-z0-9._-]`, but loads a
    // name that merely starts with `-`, `_` or `.` (the validator warns).
    let charset_ok =
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if charset_ok && !is_loadable_name(name) {
        sink.report(
            &rules::name_not_kebab_case::RULE,
            span,
            format!("{what} name `{name}` does not start with a letter or digit"),
        )
        .help(format!(
            "it cannot be listed in a marketplace as is; use kebab-case, such as `{}`",
            kebab_suggestion(name)
        ));
        return;
    }
    if !is_loadable_name(name) {
        let why = if name.chars().any(char::is_whitespace) {
            "contains spaces"
        } else {
            "holds characters other than letters, digits, `.`, `_` and `-`, or does not start with a letter or digit"
        };
        sink.report(&rules::invalid_name::RULE, span, format!("{what} name `{name}` {why}"))
            .help(format!("Claude Code cannot load it; use kebab-case, such as `{}`", kebab_suggestion(name)));
        return;
    }
    check_kebab(sink, span, name, what);
}

fn kebab_suggestion(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "my-plugin".to_string()
    } else {
        trimmed.to_string()
    }
}

fn check_kebab(sink: &mut Sink<'_>, span: Span, name: &str, what: &str) {
    if !is_kebab_case(name) {
        sink.report(&rules::name_not_kebab_case::RULE, span, format!("{what} name `{name}` is not kebab-case"))
            .help("use lowercase letters, digits and single hyphens, such as `my-plugin`");
    }
}

pub fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn check_components(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, plugin_root: &str, info: &mut PluginInfo) {
    for &(name, suffix, folder_ok, replaces) in COMPONENTS {
        let Some(value) = root.get(name) else { continue };
        info.declares_components = true;
        let paths: Vec<&Node> = match &value.kind {
            NodeKind::String(_) => vec![value],
            NodeKind::Array(items) => items.iter().filter(|i| i.as_str().is_some()).collect(),
            NodeKind::Object(entries) => {
                match name {
                    "mcpServers" => {
                        let name = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
                        let placement = Some(crate::model::Placement {
                            scope: crate::model::Scope::Plugin,
                            plugin: name,
                            dynamic: None,
                        });
                        let cx = FileCx { plugin_name: name, placement, ..*cx };
                        info.inline_mcp =
                            crate::decl::mcp::check_servers(sink, &cx, value, "inline `mcpServers`", false);
                    }
                    // Written in the file shape (`{"hooks": {…}}`), which Claude Code also loads.
                    "hooks" => {
                        let map = value.get("hooks").unwrap_or(value);
                        info.inline_hooks = if value.get("hooks").is_some() {
                            crate::decl::hooks::check_file(sink, cx, value)
                        } else {
                            crate::decl::hooks::check_event_map(sink, cx, value, "inline `hooks`")
                        };
                        let name = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
                        let at =
                            crate::model::Placement { scope: crate::model::Scope::Plugin, plugin: name, dynamic: None };
                        let path = sink.path().to_string();
                        let mut hooks = Vec::new();
                        crate::decl::declare::hooks(sink, map, at, &path, &mut hooks);
                        sink.decls.append(&mut hooks);
                    }
                    _ => {}
                }
                let _ = entries;
                continue;
            }
            _ => continue,
        };
        let mut points_into_default = false;
        for path_node in paths {
            let path = path_node.as_str().unwrap_or("");
            if let Some(default) = replaces {
                let named = join_rel(plugin_root, path).unwrap_or_default();
                let default_dir = join_rel(plugin_root, default).unwrap_or_default();
                if named == default_dir || named.starts_with(&format!("{default_dir}/")) {
                    points_into_default = true;
                }
            }
            let Some(resolved) = check_component_path(sink, cx, path_node, path, name, suffix, folder_ok, plugin_root)
            else {
                continue;
            };
            info.paths.push((name, resolved));
        }
        if let Some(default) = replaces {
            let default_dir = join_rel(plugin_root, default).unwrap_or_default();
            if cx.tree.is_dir(&default_dir) && !points_into_default {
                let key_span = root.get_entry(name).map_or(value.span, |(k, _)| k.span);
                sink.report(
                    &rules::ignored_default_folder::RULE,
                    key_span,
                    format!("`{name}` replaces the default `{default}/` folder, so the files in it are not loaded"),
                )
                .help(format!("add `\"./{default}/\"` to `{name}`, or move those files"));
            }
        }
    }
}

/// Checks one manifest path; returns it resolved against the checked root when it is
/// well-formed and inside the plugin.
#[allow(clippy::too_many_arguments)]
pub fn check_component_path(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    node: &Node,
    path: &str,
    field_name: &str,
    suffix: Option<&str>,
    folder_ok: bool,
    plugin_root: &str,
) -> Option<String> {
    let dot_ok = field_name == "skills" && (path == "." || path == "./");
    if !path.starts_with("./") && !dot_ok {
        let help = if path.starts_with('/') || path.contains(":\\") {
            "absolute paths break once the plugin is installed; write a path relative to the plugin root, starting with `./`".to_string()
        } else {
            format!("write `./{}`", path.trim_start_matches("./"))
        };
        let fix = prefix_fix(cx, node, path, field_name, suffix, folder_ok, plugin_root);
        let diagnostic = sink
            .report(
                &rules::component_path_format::RULE,
                node.span,
                format!("`{field_name}` path `{path}` must start with `./`"),
            )
            .help(help);
        if let Some(edits) = fix {
            diagnostic.with_fix(edits);
        }
        return None;
    }
    if let Some(suffix) = suffix {
        if !path.ends_with(suffix) {
            let mut message = format!("`{field_name}` path `{path}` must name a `{suffix}` file");
            let looks_like_folder = path.ends_with('/') || !super::file_name(path).contains('.');
            if !folder_ok && looks_like_folder {
                message.push_str(", not a folder");
            }
            sink.report(&rules::component_path_format::RULE, node.span, message)
                .help(format!("list each `{suffix}` file, or remove the field to use the default location"));
            return None;
        }
    }
    let resolved = match join_rel(plugin_root, path) {
        Some(r) if plugin_root.is_empty() || r == plugin_root || r.starts_with(&format!("{plugin_root}/")) => r,
        _ => {
            sink.report(
                &rules::component_path_format::RULE,
                node.span,
                format!("`{field_name}` path `{path}` leaves the plugin folder"),
            )
            .help("installed plugins are copied into a cache, so paths must stay inside the plugin root");
            return None;
        }
    };
    if !cx.tree.exists(&resolved) {
        let consequence = if field_name == "mcpServers" {
            "Claude Code skips a missing MCP file without a word, so none of its servers load"
        } else {
            "Claude Code reports a load failure"
        };
        sink.report(
            &rules::missing_component_path::RULE,
            node.span,
            format!("`{field_name}` path `{path}` does not exist"),
        )
        .help(format!("{consequence}; create `{resolved}` or fix the path"));
        return None;
    }
    if field_name == "skills" && cx.tree.is_file(&resolved) {
        let parent_dir = super::parent(path);
        sink.report(
            &rules::component_path_format::RULE,
            node.span,
            format!("`skills` path `{path}` is a file; skills entries are folders"),
        )
        .help(format!("point to the folder that holds SKILL.md: `{parent_dir}`"));
        return None;
    }
    if field_name == "commands" && cx.tree.is_file(&resolved) && !resolved.ends_with(".md") {
        sink.report(
            &rules::component_path_format::RULE,
            node.span,
            format!("`commands` path `{path}` is not a `.md` file"),
        )
        .severity(Severity::Warning)
        .help("Claude Code loads no command from it; list `.md` files or folders");
        return None;
    }
    Some(resolved)
}

/// The edit that writes `./` before a component path, when that is its only problem: the
/// prefixed path passes every other check of [`check_component_path`] (inside the plugin,
/// the right kind of file, present). JSON strings only; an absolute path is never fixed.
#[allow(clippy::too_many_arguments)]
fn prefix_fix(
    cx: &FileCx<'_>,
    node: &Node,
    path: &str,
    field_name: &str,
    suffix: Option<&str>,
    folder_ok: bool,
    plugin_root: &str,
) -> Option<Vec<Edit>> {
    let literal = cx.json_source?.get(node.span.start..node.span.end)?;
    if !literal.starts_with('"') || path.is_empty() || path.starts_with(['/', '~']) || path.contains(":\\") {
        return None;
    }
    let fixed = format!("./{path}");
    let mut scratch = Sink::new(cx.rel);
    let fine =
        check_component_path(&mut scratch, cx, node, &fixed, field_name, suffix, folder_ok, plugin_root).is_some();
    (fine && scratch.diagnostics.is_empty()).then(|| vec![Edit::insert(node.span.start + 1, "./")])
}

/// A plugin named by a marketplace entry, for the rest of the check.
#[derive(Debug, Clone)]
pub struct EntryInfo {
    pub name: String,
    /// The plugin folder, when `source` is local and exists.
    pub plugin_root: Option<String>,
    /// The `source` in a few words (`source_text`).
    pub source: String,
    pub version: Option<(String, Span)>,
    pub strict: bool,
    /// Where `"strict": false` is written.
    pub strict_span: Option<Span>,
    /// Component paths the entry itself declares (resolved), by field.
    pub paths: Vec<(&'static str, String)>,
    pub declares_components: bool,
}

#[derive(Debug, Clone, Default)]
pub struct MarketplaceInfo {
    pub name: Option<String>,
    /// The marketplace has one of Anthropic's exact reserved names.
    pub reserved: bool,
    pub entries: Vec<EntryInfo>,
}

/// `marketplace_root` is the folder that holds `.claude-plugin/`.
pub fn check_marketplace(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, marketplace_root: &str) -> MarketplaceInfo {
    let mut info = MarketplaceInfo::default();
    if root.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            root.span,
            format!("marketplace.json must be an object, found {}", root.type_name()),
        );
        return info;
    }
    check_fields(sink, root, MARKETPLACE_FIELDS, "marketplace.json", Unknown::Warn);
    require(sink, root, "name", "marketplace.json");
    if let Some(name_node) = root.get("name") {
        if let Some(name) = name_node.as_str() {
            info.name = Some(name.to_string());
            check_marketplace_name(sink, name_node.span, name);
            // One of Anthropic's own marketplaces: the plugins it lists may use reserved names.
            info.reserved = crate::builtins::RESERVED_MARKETPLACES.contains(&name.to_ascii_lowercase().as_str());
        }
    }
    if require(sink, root, "owner", "marketplace.json") {
        if let Some(owner) = root.get("owner").filter(|o| o.as_object().is_some()) {
            check_fields(sink, owner, OWNER_FIELDS, "`owner`", Unknown::Warn);
            require(sink, owner, "name", "`owner`");
        }
    }
    if let Some(metadata) = root.get("metadata").filter(|m| m.as_object().is_some()) {
        check_fields(sink, metadata, MARKETPLACE_METADATA_FIELDS, "`metadata`", Unknown::Warn);
    }
    let plugin_root_base = root
        .get("metadata")
        .and_then(|m| m.get("pluginRoot"))
        .and_then(Node::as_str)
        .and_then(|p| join_rel(marketplace_root, p));
    if !require(sink, root, "plugins", "marketplace.json") {
        return info;
    }
    let Some(entries) = root.get("plugins").and_then(Node::as_array) else { return info };
    // The first entry of each name (a map: marketplaces list hundreds of plugins).
    let mut names: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (index, entry) in entries.iter().enumerate() {
        if let Some(name) = entry.as_object().and(entry.get("name")).and_then(Node::as_str) {
            names.entry(name).or_insert(index);
        }
    }
    // Entries are checked side by side, each into a sink of its own; the sinks are then taken
    // in entry order, so the findings come out as a check one by one would give them.
    let mut fields = PLUGIN_FIELDS.to_vec();
    fields.extend_from_slice(ENTRY_EXTRA);
    let shared = Entries {
        names,
        fields,
        marketplace_name: info.name.as_deref().unwrap_or_default(),
        marketplace_root,
        plugin_root_base: plugin_root_base.as_deref(),
    };
    let checked: Vec<(Sink<'_>, Option<EntryInfo>)> = {
        use rayon::prelude::*;
        entries
            .par_iter()
            .enumerate()
            .map(|(index, entry)| {
                let mut entry_sink = Sink::new(sink.path());
                let info = check_entry(&mut entry_sink, cx, &shared, entry, index);
                (entry_sink, info)
            })
            .collect()
    };
    for (entry_sink, entry_info) in checked {
        sink.absorb(entry_sink);
        info.entries.extend(entry_info);
    }
    info
}

/// What every entry of one marketplace is checked against.
struct Entries<'a> {
    /// The index of the first entry of each name.
    names: std::collections::HashMap<&'a str, usize>,
    /// The fields an entry may have.
    fields: Vec<Field>,
    marketplace_name: &'a str,
    marketplace_root: &'a str,
    /// `metadata.pluginRoot`, joined to the marketplace's root.
    plugin_root_base: Option<&'a str>,
}

/// The entry at `index` of a marketplace's `plugins`: what is wrong with it, and what it says
/// when it is an object.
fn check_entry(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    shared: &Entries<'_>,
    entry: &Node,
    index: usize,
) -> Option<EntryInfo> {
    if entry.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            entry.span,
            format!("a plugin entry must be an object, found {}", entry.type_name()),
        );
        return None;
    }
    check_fields(sink, entry, &shared.fields, "a plugin entry", Unknown::Warn);
    if let Some(relevance) = entry.get("relevance").filter(|r| r.as_object().is_some()) {
        match relevance.get("signals") {
            Some(signals) if signals.as_object().is_some_and(|s| s.is_empty()) => {
                sink.report(
                    &rules::missing_required_field::RULE,
                    signals.span,
                    "`relevance.signals` declares no signal",
                )
                .severity(Severity::Warning)
                .help("declare at least one signal, or remove `relevance`");
            }
            Some(signals) if signals.as_object().is_some() => {}
            Some(signals) => {
                sink.report(
                    &rules::wrong_field_type::RULE,
                    signals.span,
                    format!("`relevance.signals` must be an object, found {}", signals.type_name()),
                );
            }
            None => {
                sink.report(&rules::missing_required_field::RULE, relevance.span, "`relevance` has no `signals`")
                    .help("Claude Code refuses the marketplace entry; add `\"signals\": { … }` or remove `relevance`");
            }
        }
    }
    let name = entry.get("name").and_then(Node::as_str).map(str::to_string);
    require(sink, entry, "name", "a plugin entry");
    if let (Some(name), Some(name_node)) = (&name, entry.get("name")) {
        let first = shared.names.get(name.as_str()).copied();
        if let Some(first) = first.filter(|&first| first != index) {
            sink.report(&rules::duplicate_plugin_entry::RULE, name_node.span, format!("plugin `{name}` is listed more than once"))
                .help(format!("`plugins[{first}]` has the same name; Claude Code rejects the marketplace until one is removed or renamed"));
        }
        if !is_loadable_name(name) {
            sink.report(
                &rules::invalid_name::RULE,
                name_node.span,
                format!("plugin name `{name}` contains characters Claude Code cannot use in a plugin id"),
            )
            .help(format!("Claude Code drops this entry; use kebab-case, such as `{}`", kebab_suggestion(name)));
        } else if !is_kebab_case(name) {
            sink.report(
                &rules::name_not_kebab_case::RULE,
                name_node.span,
                format!("plugin name `{name}` is not kebab-case"),
            )
            .help("use lowercase letters, digits and single hyphens, such as `my-plugin`");
        }
    }
    if let Some(version) = entry.get("version") {
        check_semver(sink, version);
    }
    let strict = entry.get("strict").and_then(Node::as_bool).unwrap_or(true);
    if let (Some(source), Some(plugin)) = (entry.get("source"), &name) {
        source_pin(sink, source, plugin, shared.marketplace_name);
    }
    let plugin_root = match entry.get("source") {
        Some(source) => check_source(sink, cx, source, shared.marketplace_root, shared.plugin_root_base),
        None => {
            require(sink, entry, "source", "a plugin entry");
            None
        }
    };
    let mut entry_info = EntryInfo {
        name: name.unwrap_or_default(),
        plugin_root: plugin_root.clone(),
        source: entry.get("source").map(source_text).unwrap_or_default(),
        version: entry.get("version").and_then(|v| v.as_str().map(|s| (s.to_string(), v.span))),
        strict,
        strict_span: entry.get("strict").map(|n| n.span),
        paths: Vec::new(),
        declares_components: false,
    };
    if let Some(plugin_root) = &plugin_root {
        let mut components = PluginInfo::default();
        check_components(sink, cx, entry, plugin_root, &mut components);
        entry_info.paths = components.paths;
        entry_info.declares_components = components.declares_components;
    }
    Some(entry_info)
}

fn check_marketplace_name(sink: &mut Sink<'_>, span: Span, name: &str) {
    let lower = name.to_ascii_lowercase();
    // An exact reserved name is accepted only from Anthropic's own GitHub organisation,
    // which a check of files cannot see: a warning. A name that imitates one is refused
    // wherever it comes from (`claude plugin validate` 2.1.332).
    if crate::builtins::RESERVED_MARKETPLACES.contains(&lower.as_str()) {
        sink.report(&rules::reserved_name::RULE, span, format!("marketplace name `{name}` is reserved for Anthropic"))
            .severity(Severity::Warning)
            .help("Claude Code accepts it only from Anthropic's own GitHub repositories; anyone else must choose another name");
    } else if is_reserved_marketplace_name(name) {
        sink.report(
            &rules::reserved_name::RULE,
            span,
            format!("marketplace name `{name}` imitates an official Anthropic marketplace"),
        )
        .help("Claude Code refuses to add it; choose a name without `official` next to `claude` or `anthropic`");
    }
    if !is_loadable_name(name) {
        sink.report(
            &rules::invalid_name::RULE,
            span,
            format!("marketplace name `{name}` contains characters Claude Code cannot use in a plugin id"),
        )
        .help(format!("use kebab-case, such as `{}`", kebab_suggestion(name)));
        return;
    }
    if matches!(lower.as_str(), "org" | "org-provisioned" | "unknown") {
        sink.report(&rules::reserved_name::RULE, span, format!("Claude Desktop rejects the marketplace name `{name}`"))
            .severity(Severity::Warning);
    }
    if !is_kebab_case(name) {
        sink.report(&rules::name_not_kebab_case::RULE, span, format!("marketplace name `{name}` is not kebab-case"))
            .help("use lowercase letters, digits and single hyphens");
    }
}

/// A plugin source outside the marketplace, recorded as a pin of the lock; reported when no
/// commit, exact version or checksum pins it (`unpinned-plugin-source`).
/// A marketplace entry's `source` in a few words, for the lock: a folder as written, or a
/// remote source's kind and place (`github acme/lint`, `git-subdir https://…#plugins/lint`,
/// `npm @acme/lint`); `[[pin]]` says what pins it. Credentials in it are hidden by the
/// resolver, as in pins.
pub fn source_text(source: &Node) -> String {
    if let Some(path) = source.as_str() {
        return path.to_string();
    }
    let text = |key: &str| source.get(key).and_then(Node::as_str);
    let kind = text("source").unwrap_or("(no kind)");
    let place = match kind {
        "github" => text("repo"),
        "npm" => text("package"),
        "command" => text("command"),
        _ => text("url"),
    }
    .unwrap_or("(no place)");
    match text("path") {
        Some(path) if kind != "command" => format!("{kind} {place}#{path}"),
        _ => format!("{kind} {place}"),
    }
}

fn source_pin(sink: &mut Sink<'_>, source: &Node, plugin: &str, marketplace: &str) {
    report_source_secrets(sink, source, &format!("plugin `{plugin}`"));
    let Some(kind) = source.get("source").and_then(Node::as_str) else { return };
    let text = |key: &str| source.get(key).and_then(Node::as_str).map(str::to_string);
    let (package, exact, requested, fix) = match kind {
        "github" | "url" | "git-subdir" => {
            let place = if kind == "github" { text("repo") } else { text("url") };
            let package = match (place, text("path")) {
                (Some(place), Some(path)) => format!("{place}#{path}"),
                (Some(place), None) => place,
                (None, _) => return,
            };
            let sha = text("sha").filter(|s| crate::provenance::is_commit_sha(s));
            (
                package,
                sha,
                text("ref"),
                "add `\"sha\": \"<the 40-character commit you reviewed>\"`; a `ref` names a branch or tag, which moves",
            )
        }
        "npm" => {
            let Some(package) = text("package") else { return };
            let version = text("version");
            let exact = version.clone().filter(|v| crate::provenance::is_exact_semver(v));
            let requested = if exact.is_some() { None } else { version };
            (package, exact, requested, "set `\"version\"` to the exact release you reviewed, such as `\"1.2.3\"`")
        }
        "archive" => {
            let Some(url) = text("url") else { return };
            let sum = text("sha256").filter(|s| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()));
            (url, sum.map(|s| format!("sha256:{s}")), None, "add `\"sha256\"` with the archive's checksum")
        }
        "command" => {
            let Some(command) = text("command") else { return };
            (command, None, None, "")
        }
        _ => return,
    };
    if exact.is_none() && kind != "command" {
        let asked = match (kind, &requested) {
            (_, Some(r)) => format!("follows `{r}`"),
            ("npm", None) => "follows the latest release".to_string(),
            ("archive", None) => "has no `sha256`".to_string(),
            _ => "follows the default branch".to_string(),
        };
        sink.report(
            &rules::unpinned_plugin_source::RULE,
            source.span,
            format!(
                "plugin `{plugin}` comes from `{package}` ({kind}) and {asked}: each install may fetch different code"
            ),
        )
        .help(fix);
    }
    let pin = crate::model::Pin {
        of: crate::model::PinOf::Plugin,
        name: format!("{plugin}@{marketplace}"),
        path: sink.path().to_string(),
        via: kind.to_string(),
        package,
        exact,
        requested,
    };
    let path = sink.path().to_string();
    sink.decls.push(crate::model::Decl { path, span: Some(source.span), item: crate::model::Item::Pin(pin) });
}

/// A credential written into a plugin's or marketplace's `source` (`https://user:TOKEN@host/…`,
/// `?token=…`): reported as a literal secret; the lock's pin keeps it hashed
/// (`lock::resolve`), as every other secret.
pub(crate) fn report_source_secrets(sink: &mut Sink<'_>, source: &Node, owner: &str) {
    for key in ["url", "repo", "package", "command", "path", "ref"] {
        let Some(node) = source.get(key) else { continue };
        if node.as_str().is_some_and(|text| crate::secrets::looks_secret(None, text)) {
            sink.report(
                &rules::literal_secret::RULE,
                node.span,
                format!("{owner}: `source.{key}` holds what looks like a literal secret"),
            )
            .secret()
            .help("a source is committed with the repository and copied into capabilities.lock; let git's credential helper or the environment supply the credential");
        }
    }
}

const SOURCE_KINDS: &[&str] = &["github", "url", "git-subdir", "npm", "archive", "command"];

/// Checks a plugin `source`; returns the local plugin folder when it is one that exists.
fn check_source(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    source: &Node,
    marketplace_root: &str,
    plugin_root_base: Option<&str>,
) -> Option<String> {
    match &source.kind {
        NodeKind::String(path) => {
            let base = if path.starts_with("./") || path == "." { Some(marketplace_root) } else { plugin_root_base };
            let Some(base) = base else {
                sink.report(
                    &rules::invalid_plugin_source::RULE,
                    source.span,
                    format!("relative source `{path}` must start with `./`"),
                )
                .help(format!("write `./{path}` (a bare name works only with `metadata.pluginRoot`)"));
                return None;
            };
            if path.split('/').any(|p| p == "..") {
                sink.report(&rules::invalid_plugin_source::RULE, source.span, format!("source `{path}` contains `..`"))
                    .help("plugin sources must stay inside the marketplace folder");
                return None;
            }
            let resolved = join_rel(base, path)?;
            if !cx.tree.is_dir(&resolved) {
                sink.report(
                    &rules::invalid_plugin_source::RULE,
                    source.span,
                    format!("source `{path}` is not a folder in this marketplace"),
                )
                .help(format!("create `{resolved}/` or fix the path"));
                return None;
            }
            Some(resolved)
        }
        NodeKind::Object(_) => {
            let Some(kind_node) = source.get("source") else {
                sink.report(&rules::invalid_plugin_source::RULE, source.span, "source object has no `source` kind")
                    .help("set `\"source\"` to `github`, `url`, `git-subdir`, `npm`, `archive` or `command`");
                return None;
            };
            let kind = kind_node.as_str().unwrap_or("");
            let required: &[&str] = match kind {
                "github" => &["repo"],
                "url" => &["url"],
                "git-subdir" => &["url", "path"],
                "npm" => &["package"],
                "archive" => &["url"],
                "command" => &["command"],
                _ => {
                    let d = sink.report(
                        &rules::invalid_plugin_source::RULE,
                        kind_node.span,
                        format!("unknown source kind `{kind}`"),
                    );
                    match did_you_mean(kind, SOURCE_KINDS.iter().copied()) {
                        Some(s) => d.help(format!("did you mean `{s}`?")),
                        None => d.help("use `github`, `url`, `git-subdir`, `npm`, `archive` or `command`"),
                    };
                    return None;
                }
            };
            let known: &[&str] = match kind {
                "github" => &["source", "repo", "ref", "sha", "path"],
                "url" => &["source", "url", "ref", "sha", "path"],
                "git-subdir" => &["source", "url", "path", "ref", "sha"],
                "npm" => &["source", "package", "version", "registry"],
                "archive" => &["source", "url", "sha256"],
                _ => &["source", "command", "timeout", "mode"],
            };
            let fields: Vec<Field> = known.iter().map(|k| field(k, Ty::Any)).collect();
            check_fields(sink, source, &fields, &format!("a `{kind}` source"), Unknown::Warn);
            for field_name in required {
                if source.get(field_name).is_none() {
                    sink.report(
                        &rules::invalid_plugin_source::RULE,
                        kind_node.span,
                        format!("`{kind}` source has no `{field_name}`"),
                    );
                }
            }
            if let Some(sha) = source.get("sha") {
                if sha.as_str().is_some_and(|s| {
                    s.len() != 40 || !s.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
                }) {
                    sink.report(
                        &rules::invalid_plugin_source::RULE,
                        sha.span,
                        "`sha` must be a full 40-character lowercase commit hash",
                    )
                    .help("copy the whole hash from `git rev-parse HEAD`");
                }
            }
            if kind == "archive" {
                if let Some(url) = source.get("url").and_then(|u| u.as_str().map(|s| (s, u.span))) {
                    if !url.0.starts_with("https://") {
                        sink.report(
                            &rules::invalid_plugin_source::RULE,
                            url.1,
                            "an `archive` source must use an `https://` URL",
                        );
                    }
                }
                if let Some(sum) = source.get("sha256") {
                    if sum.as_str().is_some_and(|s| s.len() != 64 || !s.chars().all(|c| c.is_ascii_hexdigit())) {
                        sink.report(&rules::invalid_plugin_source::RULE, sum.span, "`sha256` must be 64 hex digits");
                    }
                }
            }
            None
        }
        _ => {
            sink.report(
                &rules::invalid_plugin_source::RULE,
                source.span,
                format!("`source` must be a path or an object, found {}", source.type_name()),
            );
            None
        }
    }
}

fn identifier(key: &str) -> bool {
    key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const OPTION_FIELDS: &[Field] = &[
    field("type", Ty::String),
    field("title", Ty::String),
    field("description", Ty::String),
    field("sensitive", Ty::Bool),
    field("required", Ty::Bool),
    field("default", Ty::Any),
    field("multiple", Ty::Bool),
    field("min", Ty::Number),
    field("max", Ty::Number),
];

const OPTION_TYPES: &[&str] = &["string", "number", "boolean", "directory", "file"];

/// `userConfig`: identifier keys, each option `{type, title, description, …}` with no other
/// key; 2.1.332 refuses the manifest otherwise.
fn check_user_config(sink: &mut Sink<'_>, root: &Node) {
    let Some(options) = root.get("userConfig").and_then(Node::as_object) else { return };
    for (key, option) in options {
        if !identifier(&key.name) {
            sink.report(
                &rules::invalid_field_value::RULE,
                key.span,
                format!("`userConfig` key `{}` is not an identifier", key.name),
            )
            .severity(Severity::Error)
            .help("Claude Code refuses the manifest; use letters, digits and `_`, starting with a letter");
        }
        if option.as_object().is_none() {
            sink.report(
                &rules::wrong_field_type::RULE,
                option.span,
                format!("`userConfig.{}` must be an object, found {}", key.name, option.type_name()),
            );
            continue;
        }
        strict_fields(sink, option, OPTION_FIELDS, &format!("`userConfig.{}`", key.name));
        for required in ["type", "title", "description"] {
            if option.get(required).is_none() {
                sink.report(
                    &rules::missing_required_field::RULE,
                    key.span,
                    format!("`userConfig.{}` has no `{required}`", key.name),
                )
                .help(
                    "each option needs `type`, `title` and `description`; Claude Code refuses the manifest otherwise",
                );
            }
        }
        if let Some(kind) = option.get("type") {
            if let Some(value) = kind.as_str().filter(|v| !OPTION_TYPES.contains(v)) {
                sink.report(&rules::invalid_field_value::RULE, kind.span, format!("`userConfig.{}.type` is `{value}`, not one of `string`, `number`, `boolean`, `directory`, `file`", key.name))
                    .severity(Severity::Error)
                    .help("Claude Code refuses the manifest");
            }
        }
    }
}

/// Like `check_fields`, but unknown keys are errors: the schema is strict there.
fn strict_fields(sink: &mut Sink<'_>, object: &Node, fields: &[Field], what: &str) {
    let before = sink.diagnostics.len();
    check_fields(sink, object, fields, what, Unknown::Warn);
    for d in &mut sink.diagnostics[before..] {
        if d.rule == rules::unknown_field::RULE.id {
            d.severity = Severity::Error;
            d.help = Some(format!(
                "{}; here Claude Code refuses the whole manifest",
                d.help.as_deref().unwrap_or("remove it")
            ));
        }
    }
}

/// `channels`: `[{server, userConfig?}]`, `server` naming one of this plugin's MCP servers.
fn check_channels(sink: &mut Sink<'_>, root: &Node) {
    let Some(channels) = root.get("channels").and_then(Node::as_array) else { return };
    let servers: Option<Vec<&str>> =
        root.get("mcpServers").and_then(Node::as_object).map(|m| m.iter().map(|(k, _)| k.name.as_str()).collect());
    for channel in channels {
        if channel.as_object().is_none() {
            sink.report(
                &rules::wrong_field_type::RULE,
                channel.span,
                format!("a channel must be an object, found {}", channel.type_name()),
            );
            continue;
        }
        strict_fields(sink, channel, &[field("server", Ty::String), field("userConfig", Ty::Object)], "a channel");
        match channel.get("server") {
            None => {
                sink.report(&rules::missing_required_field::RULE, channel.span, "a channel has no `server`")
                    .help("name one of the plugin's MCP servers; Claude Code refuses the manifest otherwise");
            }
            Some(server) => {
                if let (Some(name), Some(servers)) = (server.as_str(), &servers) {
                    if !servers.contains(&name) {
                        sink.report(
                            &rules::invalid_field_value::RULE,
                            server.span,
                            format!("channel server `{name}` is not one of this plugin's `mcpServers`"),
                        )
                        .severity(Severity::Error);
                    }
                }
            }
        }
    }
}

/// `dependencies`: each entry a plugin name or `{name, version?, marketplace?}`.
fn check_dependencies(sink: &mut Sink<'_>, root: &Node) {
    for field_name in ["dependencies", "optionalDependencies"] {
        // A bad `optionalDependencies` is ignored at load time; a bad `dependencies` fails it.
        let optional = field_name == "optionalDependencies";
        let Some(entries) = root.get(field_name).and_then(Node::as_array) else { continue };
        for entry in entries {
            match &entry.kind {
                NodeKind::String(text) => dependency_name(sink, entry, text, field_name, optional),
                NodeKind::Object(_) => {
                    check_fields(
                        sink,
                        entry,
                        &[field("name", Ty::String), field("version", Ty::String), field("marketplace", Ty::String)],
                        &format!("a `{field_name}` entry"),
                        Unknown::Warn,
                    );
                    match entry.get("name") {
                        None => {
                            sink.report(
                                &rules::missing_required_field::RULE,
                                entry.span,
                                format!("a `{field_name}` entry has no `name`"),
                            );
                        }
                        Some(name) => {
                            if let Some(text) = name.as_str() {
                                dependency_name(sink, name, text, field_name, optional);
                            }
                        }
                    }
                    if let Some(marketplace) = entry.get("marketplace") {
                        if marketplace.as_str().is_some_and(|m| !is_loadable_name(m)) {
                            sink.report(
                                &rules::invalid_field_value::RULE,
                                marketplace.span,
                                format!("`{field_name}` marketplace is not a marketplace name"),
                            )
                            .severity(if optional {
                                Severity::Warning
                            } else {
                                Severity::Error
                            });
                        }
                    }
                }
                _ => {
                    sink.report(
                        &rules::wrong_field_type::RULE,
                        entry.span,
                        format!(
                            "a `{field_name}` entry must be a plugin name or an object, found {}",
                            entry.type_name()
                        ),
                    )
                    .severity(if optional { Severity::Warning } else { Severity::Error });
                }
            }
        }
    }
}

const DEPENDENCY_NAME_HELP: &str = "a dependency is `plugin`, `plugin@marketplace`, or `plugin@^1.2` (letters, digits, `.`, `_`, `-`, starting with a letter or digit)";

/// A dependency as a string: `name`, `name@marketplace`, optionally `@^range`.
fn dependency_name(sink: &mut Sink<'_>, node: &Node, text: &str, field_name: &str, optional: bool) {
    let valid_name = |s: &str| is_loadable_name(s);
    let mut parts = text.splitn(3, '@');
    let name = parts.next().unwrap_or("");
    let second = parts.next();
    let third = parts.next();
    let ok = valid_name(name)
        && match (second, third) {
            (None, _) => true,
            (Some(m), None) => valid_name(m) || m.starts_with('^'),
            (Some(m), Some(range)) => valid_name(m) && range.starts_with('^'),
        };
    if !ok {
        sink.report(
            &rules::invalid_field_value::RULE,
            node.span,
            format!("`{field_name}` entry `{text}` is not a plugin reference"),
        )
        .severity(if optional { Severity::Warning } else { Severity::Error })
        .help(if optional {
            "Claude Code ignores it".to_string()
        } else {
            format!("Claude Code refuses the manifest; {DEPENDENCY_NAME_HELP}")
        });
    }
}

/// `engines`: `{"claude-code": ">=2.1.0"}`.
fn check_engines(sink: &mut Sink<'_>, root: &Node) {
    let Some(engines) = root.get("engines").and_then(Node::as_object) else { return };

    for (key, value) in engines {
        if key.name == "claude-code" {
            check_version_range(sink, value, "`engines.claude-code`");
        }
    }
}

fn check_version_range(sink: &mut Sink<'_>, node: &Node, what: &str) {
    let Some(range) = node.as_str() else {
        sink.report(
            &rules::wrong_field_type::RULE,
            node.span,
            format!("{what} must be a string, found {}", node.type_name()),
        );
        return;
    };
    if !is_version_range(range) {
        sink.report(&rules::invalid_field_value::RULE, node.span, format!("{what} `{range}` is not a version range"))
            .severity(Severity::Error)
            .help("write a range such as `>=2.1.0`, `^2.1` or `2.x`; Claude Code refuses the manifest otherwise");
    }
}

/// An npm-style semver range: comparators (`>=1.2.3`, `^1.2`, `~1`, `1.x`, `*`) joined by
/// spaces, ` - ` or `||`.
pub fn is_version_range(range: &str) -> bool {
    let range = range.trim();
    if range.is_empty() {
        return false;
    }
    range.split("||").all(|alternative| {
        let words: Vec<&str> = alternative.split_whitespace().filter(|w| *w != "-").collect();
        !words.is_empty() && words.iter().all(|w| is_comparator(w))
    })
}

fn is_comparator(word: &str) -> bool {
    let version = word.trim_start_matches(['>', '<', '=', '^', '~', 'v']);
    if version == "*" || version.eq_ignore_ascii_case("x") {
        return true;
    }
    let core = version.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    !core.is_empty()
        && parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && (p.chars().all(|c| c.is_ascii_digit()) || *p == "x" || *p == "X" || *p == "*"))
}

/// `experimental`: an object of known keys; its `themes` and `monitors` paths must exist.
fn check_experimental(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, plugin_root: &str) {
    let Some(experimental) = root.get("experimental") else { return };
    if experimental.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            experimental.span,
            format!("`experimental` must be an object, found {}", experimental.type_name()),
        )
        .severity(Severity::Warning)
        .help("Claude Code ignores it");
        return;
    }
    check_fields(sink, experimental, EXPERIMENTAL_FIELDS, "`experimental`", Unknown::Warn);
    for name in ["themes", "monitors"] {
        let Some(value) = experimental.get(name) else { continue };
        let paths: Vec<&Node> = match &value.kind {
            NodeKind::String(_) => vec![value],
            NodeKind::Array(items) => items.iter().filter(|i| i.as_str().is_some()).collect(),
            _ => continue,
        };
        for path in paths {
            let text = path.as_str().unwrap_or("");
            check_component_path(sink, cx, path, text, &format!("experimental.{name}"), None, true, plugin_root);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_marketplace_names_follow_the_validator() {
        // Refused by `claude plugin validate` 2.1.332 (and by the runtime where it checks).
        for name in [
            "official-claude-plugins",
            "anthropic-plugins-v2",
            "my-claude-official",
            "claude-marketplace",
            "claude-marketplaces",
            "claude-plugins",
            "claude_marketplace",
            "Claude-Plugins",
            "claudeplugins",
            "anthropic-directory-x",
            "claude-plugins-extra",
        ] {
            assert!(is_reserved_marketplace_name(name), "{name} should be refused");
        }
        // Accepted: exact reserved names (Anthropic's own) and names that merely mention a brand.
        for name in [
            "claude-plugins-official",
            "agent-skills",
            "healthcare",
            "claude-tag-plugins",
            "anthropics-official-plugins",
            "claudecode-official",
            "claude-tools-official",
            "agent-skills-foo",
            "healthcare-x",
            "claude-code-plugins-extra",
            "acme-tools",
        ] {
            assert!(!is_reserved_marketplace_name(name), "{name} should be accepted");
        }
    }

    #[test]
    fn reserved_plugin_names_follow_the_validator() {
        for name in [
            "claude",
            "claude-helper",
            "claude_x",
            "claude.tools",
            "claudecode",
            "cc_plugin-x",
            "anthropic-kit",
            "official-claude",
        ] {
            assert!(is_reserved_plugin_name(name), "{name} should be reserved");
        }
        for name in ["my-claude-tools-official", "lint-kit", "claudeish"] {
            assert!(!is_reserved_plugin_name(name), "{name} should not be reserved");
        }
        assert!(reads_as_anthropic("my-claude-kit"));
        assert!(!reads_as_anthropic("lint-kit"));
    }
}
