//! Plugin manifests (`.claude-plugin/plugin.json`) and marketplaces
//! (`.claude-plugin/marketplace.json`). Checks follow `claude plugin validate` 2.1.332,
//! measured: component paths start with `./`, `agents` name `.md` files and `hooks` a
//! `.json` file, named paths exist, recognised fields have their documented types.

use super::{join_rel, FileCx};
use crate::diagnostic::{did_you_mean, Severity, Sink};
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::schema::{check_fields, field, require, Field, Ty, Unknown};
use crate::span::Span;

const PLUGIN_FIELDS: &[Field] = &[
    field("name", Ty::String),
    field("$schema", Ty::String),
    field("displayName", Ty::String),
    field("version", Ty::String),
    field("description", Ty::String),
    field("author", Ty::Object),
    field("homepage", Ty::String),
    field("repository", Ty::String),
    field("license", Ty::String),
    field("icon", Ty::String),
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
];

/// Fields of a marketplace entry on top of the plugin.json fields.
const ENTRY_EXTRA: &[Field] = &[
    field("source", Ty::Any),
    field("category", Ty::String),
    field("tags", Ty::StringArray),
    field("strict", Ty::Bool),
    field("relevance", Ty::Object),
];

const MARKETPLACE_FIELDS: &[Field] = &[
    field("name", Ty::String),
    field("owner", Ty::Object),
    field("plugins", Ty::Array),
    field("$schema", Ty::String),
    field("description", Ty::String),
    field("version", Ty::String),
    field("metadata", Ty::Object),
    field("allowCrossMarketplaceDependenciesOn", Ty::StringArray),
    field("renames", Ty::Object),
];

const OWNER_FIELDS: &[Field] = &[field("name", Ty::String), field("email", Ty::String), field("url", Ty::String)];

/// Names third parties may not use for a plugin or marketplace (v2.1.240 docs).
const RESERVED_PLUGIN_NAMES: &[&str] = &["claude", "anthropic", "anthropics", "claude-code", "claude-mods"];
const RESERVED_PREFIXES: &[&str] = &["claude-", "anthropic-", "anthropics-", "cc-plugin-"];
pub const RESERVED_MARKETPLACES: &[&str] = &[
    "claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "claude-plugins-community",
    "claude-community", "anthropic-marketplace", "anthropic-plugins", "agent-skills", "anthropic-agent-skills",
    "knowledge-work-plugins", "life-sciences", "claude-for-legal", "claude-for-financial-services",
    "financial-services-plugins", "first-party-plugins", "healthcare",
];

/// Component fields: (field, what a file entry must end with, whether a folder is allowed,
/// whether setting it replaces the default folder).
const COMPONENTS: &[(&str, Option<&str>, bool, Option<&str>)] = &[
    ("skills", None, true, None),
    ("commands", None, true, Some("commands")),
    ("agents", Some(".md"), false, Some("agents")),
    ("workflows", None, true, Some("workflows")),
    ("outputStyles", None, true, Some("output-styles")),
    ("hooks", Some(".json"), false, None),
    ("mcpServers", None, false, None),
    ("lspServers", None, false, None),
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
        sink.report(&rules::wrong_field_type::RULE, root.span, format!("plugin.json must be an object, found {}", root.type_name()));
        return info;
    }
    let plugin_root = cx.plugin_root.unwrap_or("");
    check_manifest_fields(sink, root, PLUGIN_FIELDS, "plugin.json");
    if require(sink, root, "name", "plugin.json") {
        if let Some(name) = root.get("name") {
            if let Some(s) = name.as_str() {
                check_kebab(sink, name.span, s, "plugin");
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
    if let Some(metadata) = root.get("metadata") {
        if metadata.as_object().is_none() {
            sink.report(&rules::wrong_field_type::RULE, metadata.span, format!("`metadata` in plugin.json must be an object, found {}", metadata.type_name()))
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
    for entry_only in ["category", "tags", "strict", "source", "relevance"] {
        known.push(field(entry_only, Ty::Any));
    }
    check_fields(sink, root, &known, what, Unknown::Warn);
    for entry_only in ["category", "tags", "strict", "source", "relevance"] {
        if let Some((key, _)) = root.get_entry(entry_only) {
            sink.report(&rules::unknown_field::RULE, key.span, format!("`{entry_only}` belongs in the marketplace entry, not in plugin.json"))
                .help("Claude Code ignores it here; move it to the plugin's entry in marketplace.json");
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

/// Whether a plugin name passes as one of Anthropic's own (`claude plugin validate` 2.1.332).
pub fn is_reserved_plugin_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    RESERVED_PLUGIN_NAMES.contains(&lower.as_str())
        || RESERVED_PREFIXES.iter().any(|p| lower.starts_with(p))
        || (lower.contains("official") && (lower.contains("claude") || lower.contains("anthropic")))
}

/// Whether a marketplace name is, or imitates, one reserved for Anthropic.
pub fn is_reserved_marketplace_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    RESERVED_MARKETPLACES.contains(&lower.as_str())
        || RESERVED_MARKETPLACES.iter().any(|r| lower.starts_with(&format!("{r}-")))
        || (lower.contains("official") && (lower.contains("claude") || lower.contains("anthropic")))
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
                    "mcpServers" => info.inline_mcp = crate::decl::mcp::check_servers(sink, value, "inline `mcpServers`"),
                    "hooks" => info.inline_hooks = crate::decl::hooks::check_event_map(sink, cx, value, "inline `hooks`"),
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
            let Some(resolved) = check_component_path(sink, cx, path_node, path, name, suffix, folder_ok, plugin_root) else { continue };
            info.paths.push((name, resolved));
        }
        if let Some(default) = replaces {
            let default_dir = join_rel(plugin_root, default).unwrap_or_default();
            if cx.tree.is_dir(&default_dir) && !points_into_default {
                let key_span = root.get_entry(name).map_or(value.span, |(k, _)| k.span);
                sink.report(&rules::ignored_default_folder::RULE, key_span, format!("`{name}` replaces the default `{default}/` folder, so the files in it are not loaded"))
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
        sink.report(&rules::component_path_format::RULE, node.span, format!("`{field_name}` path `{path}` must start with `./`")).help(help);
        return None;
    }
    if let Some(suffix) = suffix {
        if !path.ends_with(suffix) {
            let mut message = format!("`{field_name}` path `{path}` must name a `{suffix}` file");
            if !folder_ok {
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
            sink.report(&rules::component_path_format::RULE, node.span, format!("`{field_name}` path `{path}` leaves the plugin folder"))
                .help("installed plugins are copied into a cache, so paths must stay inside the plugin root");
            return None;
        }
    };
    if !cx.tree.exists(&resolved) {
        sink.report(&rules::missing_component_path::RULE, node.span, format!("`{field_name}` path `{path}` does not exist"))
            .help(format!("Claude Code reports a load failure; create `{resolved}` or fix the path"));
        return None;
    }
    Some(resolved)
}

/// A plugin named by a marketplace entry, for the rest of the check.
#[derive(Debug, Clone)]
pub struct EntryInfo {
    pub name: String,
    /// The plugin folder, when `source` is local and exists.
    pub plugin_root: Option<String>,
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
    /// The marketplace name is one of Anthropic's reserved names.
    pub reserved: bool,
    pub entries: Vec<EntryInfo>,
}

/// `marketplace_root` is the folder that holds `.claude-plugin/`.
pub fn check_marketplace(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, marketplace_root: &str) -> MarketplaceInfo {
    let mut info = MarketplaceInfo::default();
    if root.as_object().is_none() {
        sink.report(&rules::wrong_field_type::RULE, root.span, format!("marketplace.json must be an object, found {}", root.type_name()));
        return info;
    }
    check_fields(sink, root, MARKETPLACE_FIELDS, "marketplace.json", Unknown::Warn);
    require(sink, root, "name", "marketplace.json");
    if let Some(name_node) = root.get("name") {
        if let Some(name) = name_node.as_str() {
            check_marketplace_name(sink, name_node.span, name);
            info.reserved = is_reserved_marketplace_name(name);
        }
    }
    if require(sink, root, "owner", "marketplace.json") {
        if let Some(owner) = root.get("owner").filter(|o| o.as_object().is_some()) {
            check_fields(sink, owner, OWNER_FIELDS, "`owner`", Unknown::Warn);
            require(sink, owner, "name", "`owner`");
        }
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
    let mut names: Vec<(String, usize)> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        if entry.as_object().is_none() {
            sink.report(&rules::wrong_field_type::RULE, entry.span, format!("a plugin entry must be an object, found {}", entry.type_name()));
            continue;
        }
        let mut fields = PLUGIN_FIELDS.to_vec();
        fields.extend_from_slice(ENTRY_EXTRA);
        check_fields(sink, entry, &fields, "a plugin entry", Unknown::Warn);
        let name = entry.get("name").and_then(Node::as_str).map(str::to_string);
        require(sink, entry, "name", "a plugin entry");
        if let (Some(name), Some(name_node)) = (&name, entry.get("name")) {
            if let Some((_, first)) = names.iter().find(|(n, _)| n == name) {
                sink.report(&rules::duplicate_plugin_entry::RULE, name_node.span, format!("plugin `{name}` is listed more than once"))
                    .help(format!("`plugins[{first}]` has the same name; Claude Code rejects the marketplace until one is removed or renamed"));
            } else {
                names.push((name.clone(), index));
            }
            if !is_kebab_case(name) {
                sink.report(&rules::name_not_kebab_case::RULE, name_node.span, format!("plugin name `{name}` is not kebab-case"))
                    .help("use lowercase letters, digits and single hyphens, such as `my-plugin`");
            }
        }
        if let Some(version) = entry.get("version") {
            check_semver(sink, version);
        }
        let strict = entry.get("strict").and_then(Node::as_bool).unwrap_or(true);
        let plugin_root = match entry.get("source") {
            Some(source) => check_source(sink, cx, source, marketplace_root, plugin_root_base.as_deref()),
            None => {
                require(sink, entry, "source", "a plugin entry");
                None
            }
        };
        let mut entry_info = EntryInfo {
            name: name.unwrap_or_default(),
            plugin_root: plugin_root.clone(),
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
        info.entries.push(entry_info);
    }
    info
}

fn check_marketplace_name(sink: &mut Sink<'_>, span: Span, name: &str) {
    let lower = name.to_ascii_lowercase();
    // Claude Code accepts a reserved name only from Anthropic's own repositories, which a
    // check of files cannot see: a warning, not an error.
    if is_reserved_marketplace_name(name) {
        sink.report(&rules::reserved_name::RULE, span, format!("marketplace name `{name}` is reserved for Anthropic"))
            .severity(Severity::Warning)
            .help("Claude Code refuses it unless the marketplace comes from Anthropic's own repository; choose another name");
    }
    if matches!(lower.as_str(), "org" | "org-provisioned" | "unknown") {
        sink.report(&rules::reserved_name::RULE, span, format!("Claude Desktop rejects the marketplace name `{name}`")).severity(Severity::Warning);
    }
    if !is_kebab_case(name) {
        sink.report(&rules::name_not_kebab_case::RULE, span, format!("marketplace name `{name}` is not kebab-case"))
            .help("use lowercase letters, digits and single hyphens");
    }
}

const SOURCE_KINDS: &[&str] = &["github", "url", "git-subdir", "npm", "archive", "command"];

/// Checks a plugin `source`; returns the local plugin folder when it is one that exists.
fn check_source(sink: &mut Sink<'_>, cx: &FileCx<'_>, source: &Node, marketplace_root: &str, plugin_root_base: Option<&str>) -> Option<String> {
    match &source.kind {
        NodeKind::String(path) => {
            let base = if path.starts_with("./") || path == "." { Some(marketplace_root) } else { plugin_root_base };
            let Some(base) = base else {
                sink.report(&rules::invalid_plugin_source::RULE, source.span, format!("relative source `{path}` must start with `./`"))
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
                sink.report(&rules::invalid_plugin_source::RULE, source.span, format!("source `{path}` is not a folder in this marketplace"))
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
                    let d = sink.report(&rules::invalid_plugin_source::RULE, kind_node.span, format!("unknown source kind `{kind}`"));
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
                    sink.report(&rules::invalid_plugin_source::RULE, kind_node.span, format!("`{kind}` source has no `{field_name}`"));
                }
            }
            if let Some(sha) = source.get("sha") {
                if sha.as_str().is_some_and(|s| s.len() != 40 || !s.chars().all(|c| c.is_ascii_hexdigit())) {
                    sink.report(&rules::invalid_plugin_source::RULE, sha.span, "`sha` must be a full 40-character commit hash");
                }
            }
            if kind == "archive" {
                if let Some(url) = source.get("url").and_then(|u| u.as_str().map(|s| (s, u.span))) {
                    if !url.0.starts_with("https://") {
                        sink.report(&rules::invalid_plugin_source::RULE, url.1, "an `archive` source must use an `https://` URL");
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
            sink.report(&rules::invalid_plugin_source::RULE, source.span, format!("`source` must be a path or an object, found {}", source.type_name()));
            None
        }
    }
}
