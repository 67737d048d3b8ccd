//! Marketplaces (`.claude-plugin/marketplace.json`): their fields, each plugin entry (the
//! plugin.json fields it may carry, its source and its pin) and the marketplace's name.

use super::fields::{self, Key};
use super::manifest::{
    check_semver, is_kebab_case, is_loadable_name, is_reserved_marketplace_name, kebab_suggestion, OWNER_FIELDS,
};
use super::plugin::{check_components, PluginInfo};
use super::{join_rel, FileCx};
use crate::diagnostic::{did_you_mean, Severity, Sink};
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::schema::{check_fields, field, require, Field, Ty, Unknown};
use crate::span::Span;

const MARKETPLACE_METADATA_FIELDS: &[Field] =
    &[field("description", Ty::String), field("version", Ty::String), field("pluginRoot", Ty::String)];

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
    pub(crate) strict_span: Option<Span>,
    /// Component paths the entry itself declares (resolved), by field.
    pub paths: Vec<(&'static str, String)>,
    pub(crate) declares_components: bool,
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
    check_fields(sink, root, fields::MARKETPLACE, "marketplace.json", Unknown::Warn);
    require(sink, root, "name", "marketplace.json");
    if let Some(name_node) = root.get("name") {
        if let Some(name) = name_node.as_str() {
            info.name = Some(name.to_string());
            check_marketplace_name(sink, name_node.span, name);
            // One of Anthropic's own marketplaces: the plugins it lists may use reserved names.
            info.reserved = crate::builtins::is_reserved_marketplace(&name.to_ascii_lowercase());
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
    let mut fields = fields::PLUGIN.to_vec();
    fields.extend_from_slice(fields::MARKETPLACE_ENTRY);
    let shared = EntryChecks {
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
struct EntryChecks<'a> {
    /// The index of the first entry of each name.
    names: std::collections::HashMap<&'a str, usize>,
    /// The fields an entry may have.
    fields: Vec<Key>,
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
    shared: &EntryChecks<'_>,
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
    // wherever it comes from (`claude plugin validate`).
    if crate::builtins::is_reserved_marketplace(&lower) {
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
pub(crate) fn source_text(source: &Node) -> String {
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
    sink.decls.push(crate::model::Decl { path, span: Some(source.span), item: crate::model::Item::Pin(Box::new(pin)) });
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
        NodeKind::String(path) => check_local_source(sink, cx, source, path, marketplace_root, plugin_root_base),
        NodeKind::Object(_) => {
            check_remote_source(sink, source);
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

/// Checks a path `source` (`./plugins/x`, or a bare name under `metadata.pluginRoot`); the
/// plugin folder it names when that is a folder of the marketplace.
fn check_local_source(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    source: &Node,
    path: &str,
    marketplace_root: &str,
    plugin_root_base: Option<&str>,
) -> Option<String> {
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

/// Checks an object `source`: its kind, the keys that kind requires and knows, and its pins.
fn check_remote_source(sink: &mut Sink<'_>, source: &Node) {
    let Some(kind_node) = source.get("source") else {
        sink.report(&rules::invalid_plugin_source::RULE, source.span, "source object has no `source` kind")
            .help("set `\"source\"` to `github`, `url`, `git-subdir`, `npm`, `archive` or `command`");
        return;
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
            return;
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
    check_source_pins(sink, source, kind);
}

/// Checks what pins a remote source: a commit `sha` in full; an `archive`'s `https://` URL and
/// `sha256`.
fn check_source_pins(sink: &mut Sink<'_>, source: &Node, kind: &str) {
    if let Some(sha) = source.get("sha") {
        if sha
            .as_str()
            .is_some_and(|s| s.len() != 40 || !s.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)))
        {
            sink.report(
                &rules::invalid_plugin_source::RULE,
                sha.span,
                "`sha` must be a full 40-character lowercase commit hash",
            )
            .help("copy the whole hash from `git rev-parse HEAD`");
        }
    }
    if kind != "archive" {
        return;
    }
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
