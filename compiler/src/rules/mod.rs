//! The rule registry. Each rule lives in its own file with its docs; this list is
//! sorted by id and a test keeps it so. A rule id is public API: never rename one.

pub mod blanket_allow;
pub mod component_in_manifest_dir;
pub mod component_path_format;
pub mod conflicting_manifests;
pub mod download_and_run;
pub mod duplicate_declaration;
pub mod duplicate_key;
pub mod duplicate_plugin_entry;
pub mod external_import;
pub mod file_too_large;
pub mod frontmatter_closed_mid_line;
pub mod hooks_at_top_level;
pub mod ignored_default_folder;
pub mod ignored_field;
pub mod ignored_plugin_claude_md;
pub mod import_cycle;
pub mod import_too_deep;
pub mod insecure_mcp_url;
pub mod invalid_agent_name;
pub mod invalid_env_reference;
pub mod invalid_field_value;
pub mod invalid_frontmatter;
pub mod invalid_hook_handler;
pub mod invalid_json;
pub mod invalid_mcp_tool_name;
pub mod invalid_name;
pub mod invalid_permission_rule;
pub mod invalid_plugin_source;
pub mod large_instructions;
pub mod lenient_frontmatter;
pub mod listing_budget;
pub mod literal_secret;
pub mod loose_skill_file;
pub mod max_context_tokens;
pub mod mcp_server_name_clash;
pub mod mcp_server_without_transport;
pub mod mcp_servers_key_missing;
pub mod mcp_tool_name_too_long;
pub mod missing_component_path;
pub mod missing_frontmatter;
pub mod missing_hook_script;
pub mod missing_import;
pub mod missing_required_field;
pub mod name_not_kebab_case;
pub mod pre_empted_allow_rule;
pub mod required_env_variable;
pub mod reserved_name;
pub mod shadowed_declaration;
pub mod skill_description_too_long;
pub mod undeclared_argument;
pub mod unfollowed_symlink;
pub mod unknown_enabled_plugin;
pub mod unknown_field;
pub mod unknown_hook_event;
pub mod unknown_mcp_server_in_rule;
pub mod unknown_mcp_server_type;
pub mod unknown_selected_name;
pub mod unknown_tool_in_rule;
pub mod unloaded_plugin;
pub mod unmatched_rule_paths;
pub mod unpinned_mcp_package;
pub mod unpinned_package;
pub mod unpinned_plugin_source;
pub mod unquoted_plugin_variable;
pub mod unread_agents_md;
pub mod unreadable_file;
pub mod unsatisfied_dependency;
pub mod unused_suppression;
pub mod version_mismatch;
pub mod wrong_field_type;

pub use crate::diagnostic::Rule;

/// Every rule, sorted by id.
pub static RULES: &[&Rule] = &[
    &blanket_allow::RULE,
    &component_in_manifest_dir::RULE,
    &component_path_format::RULE,
    &conflicting_manifests::RULE,
    &download_and_run::RULE,
    &duplicate_declaration::RULE,
    &duplicate_key::RULE,
    &duplicate_plugin_entry::RULE,
    &external_import::RULE,
    &file_too_large::RULE,
    &frontmatter_closed_mid_line::RULE,
    &hooks_at_top_level::RULE,
    &ignored_default_folder::RULE,
    &ignored_field::RULE,
    &ignored_plugin_claude_md::RULE,
    &import_cycle::RULE,
    &import_too_deep::RULE,
    &insecure_mcp_url::RULE,
    &invalid_agent_name::RULE,
    &invalid_env_reference::RULE,
    &invalid_field_value::RULE,
    &invalid_frontmatter::RULE,
    &invalid_hook_handler::RULE,
    &invalid_json::RULE,
    &invalid_mcp_tool_name::RULE,
    &invalid_name::RULE,
    &invalid_permission_rule::RULE,
    &invalid_plugin_source::RULE,
    &large_instructions::RULE,
    &lenient_frontmatter::RULE,
    &listing_budget::RULE,
    &literal_secret::RULE,
    &loose_skill_file::RULE,
    &max_context_tokens::RULE,
    &mcp_server_name_clash::RULE,
    &mcp_server_without_transport::RULE,
    &mcp_servers_key_missing::RULE,
    &mcp_tool_name_too_long::RULE,
    &missing_component_path::RULE,
    &missing_frontmatter::RULE,
    &missing_hook_script::RULE,
    &missing_import::RULE,
    &missing_required_field::RULE,
    &name_not_kebab_case::RULE,
    &pre_empted_allow_rule::RULE,
    &required_env_variable::RULE,
    &reserved_name::RULE,
    &shadowed_declaration::RULE,
    &skill_description_too_long::RULE,
    &undeclared_argument::RULE,
    &unfollowed_symlink::RULE,
    &unknown_enabled_plugin::RULE,
    &unknown_field::RULE,
    &unknown_hook_event::RULE,
    &unknown_mcp_server_in_rule::RULE,
    &unknown_mcp_server_type::RULE,
    &unknown_selected_name::RULE,
    &unknown_tool_in_rule::RULE,
    &unloaded_plugin::RULE,
    &unmatched_rule_paths::RULE,
    &unpinned_mcp_package::RULE,
    &unpinned_package::RULE,
    &unpinned_plugin_source::RULE,
    &unquoted_plugin_variable::RULE,
    &unread_agents_md::RULE,
    &unreadable_file::RULE,
    &unsatisfied_dependency::RULE,
    &unused_suppression::RULE,
    &version_mismatch::RULE,
    &wrong_field_type::RULE,
];

pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}

/// Where a rule's documentation is published: its heading in `docs/rules.md` (generated from
/// `RULES`, checked by `cargo test`) in the repository's `main` branch. The scheme is stable:
/// `<repository>/blob/main/docs/rules.md#<rule id>`, and rule ids are never renamed.
pub fn docs_url(id: &str) -> String {
    format!("{}/blob/main/docs/rules.md#{id}", env!("CARGO_PKG_REPOSITORY"))
}

/// The text of one `### {name}` section of a rule's docs, trimmed (empty when absent).
pub fn section<'d>(docs: &'d str, name: &str) -> &'d str {
    let heading = format!("### {name}\n");
    let Some(at) = docs.find(&heading) else { return "" };
    let body = &docs[at + heading.len()..];
    body[..body.find("\n### ").unwrap_or(body.len())].trim()
}

/// The severity policy and its measurements: hand-written, placed before the rules in
/// `docs/rules.md`.
const POLICY: &str = include_str!("policy.md");

/// `docs/rules.md`: the severity policy, then every rule under its own heading (the anchor
/// [`docs_url`] links to), with its severity, summary and docs, in `RULES` order.
pub fn docs_markdown() -> String {
    let mut out = String::from(
        "# capc rules\n\n<!-- @generated from compiler/src/rules/ by `CAPC_BLESS=1 cargo test --test it -- formats::`; do not edit -->\n\n\
         Each rule has a stable id (never renamed). `capc rules ID` prints the same text. The severity \
         policy comes first (its text is `compiler/src/rules/policy.md`), then the rules in id order.\n",
    );
    out.push('\n');
    out.push_str(POLICY.trim_end());
    out.push('\n');
    for rule in RULES {
        // The docs' own `###` headings nest under the rule's `##` heading.
        out.push_str(&format!(
            "\n## {}\n\nDefault severity: **{}**. {}.\n\n{}\n",
            rule.id,
            rule.severity.as_str(),
            capitalize(rule.summary),
            rule.docs.trim_end()
        ));
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_sorted_unique_and_kebab_case() {
        for pair in RULES.windows(2) {
            assert!(
                pair[0].id < pair[1].id,
                "sort RULES in compiler/src/rules/mod.rs: `{}` before `{}`",
                pair[0].id,
                pair[1].id
            );
        }
        for rule in RULES {
            assert!(rule.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "`{}` is not kebab-case", rule.id);
        }
    }

    #[test]
    fn sections_are_found_by_name() {
        let docs = "### What it does\nFlags x.\n\n### Why is this bad?\nBecause.\n";
        assert_eq!(section(docs, "What it does"), "Flags x.");
        assert_eq!(section(docs, "Why is this bad?"), "Because.");
        assert_eq!(section(docs, "Example"), "");
    }

    #[test]
    fn docs_have_their_sections_in_order() {
        for rule in RULES {
            let mut at = 0;
            for section in ["### What it does", "### Why is this bad?", "### Severity", "### Example", "### Source"] {
                let found = rule.docs[at..]
                    .find(section)
                    .unwrap_or_else(|| panic!("`{}` docs lack `{section}` (in order)", rule.id));
                at += found + section.len();
            }
            assert!(!rule.summary.ends_with('.'), "`{}` summary ends with a period", rule.id);
        }
    }

    #[test]
    fn severities_follow_the_policy_and_say_why() {
        // docs/rules.md, "Severity policy": each rule's Severity section opens with its default
        // severity and the policy's reason.
        for rule in RULES {
            let section = &rule.docs[rule.docs.find("### Severity").unwrap_or(0)..];
            let body = section.lines().nth(1).unwrap_or_default();
            let expected = match rule.severity {
                crate::diagnostic::Severity::Error => "Error",
                crate::diagnostic::Severity::Warning => "Warning",
                crate::diagnostic::Severity::Info => "Info",
            };
            assert!(
                body.starts_with(expected),
                "`{}`: its Severity section must open with `{expected}`: {body}",
                rule.id
            );
        }
    }

    #[test]
    fn docs_cite_only_public_claude_code_docs_or_capc_itself() {
        for rule in RULES {
            for banned in ["FORMATS", "SEMANTICS", "PEERS", "§", "brief", "D:", "U:"] {
                assert!(!rule.docs.contains(banned), "`{}` docs cite `{banned}`", rule.id);
            }
            let source = &rule.docs[rule.docs.find("### Source").unwrap_or(0)..];
            for (i, _) in source.match_indices("http") {
                assert!(
                    source[i..].starts_with("https://code.claude.com/docs/"),
                    "`{}` cites a link outside the Claude Code docs: {}",
                    rule.id,
                    &source[i..]
                );
            }
        }
    }
}
