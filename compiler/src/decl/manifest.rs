//! What plugin.json and marketplace.json check alike: their fields against a table, and the
//! names Claude Code accepts for plugins and marketplaces. Checks follow `claude plugin
//! validate`, measured.

use super::fields::{Key, MARKETPLACE_ENTRY};
use crate::diagnostic::{Severity, Sink};
use crate::node::Node;
use crate::rules;
use crate::schema::{check_fields, field, Field, Ty, Unknown};
use crate::span::Span;

/// Fields `claude plugin validate` accepts in plugin.json without checking them
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

pub(super) const OWNER_FIELDS: &[Field] =
    &[field("name", Ty::String), field("email", Ty::String), field("url", Ty::String)];

/// `check_fields` plus the hint that marketplace-only fields do nothing in plugin.json.
pub(super) fn check_manifest_fields(sink: &mut Sink<'_>, root: &Node, fields: &[Key], what: &str) {
    // The fields that belong in a marketplace entry are known here, and reported below.
    let entry_keys = || MARKETPLACE_ENTRY.iter().map(|k| k.name);
    let mut known: Vec<Field> = fields.iter().map(|k| field(k.name, k.ty)).collect();
    for name in entry_keys().chain(LISTING_FIELDS.iter().copied()) {
        known.push(field(name, Ty::Any));
    }
    check_fields(sink, root, &known, what, Unknown::Warn);
    for entry_only in entry_keys() {
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

pub(super) fn check_author(sink: &mut Sink<'_>, root: &Node) {
    if let Some(author) = root.get("author").filter(|a| a.as_object().is_some()) {
        check_fields(sink, author, OWNER_FIELDS, "`author`", Unknown::Warn);
    }
}

pub(super) fn check_semver(sink: &mut Sink<'_>, version: &Node) {
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
/// `claude plugin validate`: a leading run of pieces spells `claude`, `anthropic(s)`
/// or `ccplugin`; the whole name spells one of the reserved names; or `official` stands
/// next to `claude` or `anthropic`.
pub(crate) fn is_reserved_plugin_name(name: &str) -> bool {
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
pub(crate) fn reads_as_anthropic(name: &str) -> bool {
    pieces(name).iter().any(|p| p == "claude" || p == "anthropic" || p == "anthropics")
}

/// Whether a marketplace name imitates an Anthropic marketplace, by the rule of
/// `claude plugin validate` (the exact reserved names are exempt: they are
/// Anthropic's own, accepted only from its GitHub organisation).
pub(crate) fn is_reserved_marketplace_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if crate::builtins::is_reserved_marketplace(&lower) {
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
/// part of every plugin id, `name@marketplace`). Anything else fails the load (measured).
pub(crate) fn is_loadable_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

pub(super) fn check_name(sink: &mut Sink<'_>, span: Span, name: &str, what: &str) {
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

pub(super) fn kebab_suggestion(name: &str) -> String {
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

pub(crate) fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_marketplace_names_follow_the_validator() {
        // Refused by `claude plugin validate` (and by the runtime where it checks).
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
