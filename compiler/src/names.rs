//! How Claude Code names what it loads, and how a typed name finds its entry. Pure
//! functions shared by the resolver and the runtime. The minified function names of the
//! Claude Code bundle are given where a rule comes from, so the next version can be re-read.

/// The longest frontmatter `name` Claude Code uses; a longer one is ignored.
pub const MAX_NAME_CHARS: usize = 256;

/// How an MCP server's name, or a tool's, appears in a composed tool name
/// (`mcp__<server>__<tool>`): every UTF-16 code unit outside `[A-Za-z0-9_-]` becomes `_`,
/// so a character beyond the Basic Multilingual Plane (an emoji) becomes `__`. A claude.ai
/// connector's name (`claude.ai <name>`) also has its runs of `_` collapsed into one and `_`
/// trimmed from both ends.
pub fn normalize_server(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    if !name.starts_with("claude.ai ") {
        return out;
    }
    let mut collapsed = String::with_capacity(out.len());
    for c in out.chars() {
        if !(c == '_' && collapsed.ends_with('_')) {
            collapsed.push(c);
        }
    }
    collapsed.trim_matches('_').to_string()
}

/// The longest tool name the Messages API accepts (`^[a-zA-Z0-9_-]{1,64}$`): a request naming a
/// longer one is refused whole.
pub const MAX_TOOL_NAME: usize = 64;

/// Characters a server's tools should have for their own names after `mcp__<server>__`:
/// fewer is a warning (`mcp-tool-name-too-long`), since real tools' names run to 30 and more.
pub(crate) const MIN_TOOL_NAME_ROOM: usize = 24;

/// `mcp__<server>__<tool>`, from names already normalized.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// The name Claude Code gives a plugin's MCP server in its tools' names: `plugin:<plugin>:<server>`
/// normalized, `plugin_<plugin>_<server>`.
pub(crate) fn plugin_server(plugin: &str, server: &str) -> String {
    normalize_server(&format!("plugin_{plugin}_{server}"))
}

/// A folder name as a plugin skill's name: every character outside `[A-Za-z0-9_-]` becomes
/// `-`: `skills/my.skill` is `plugin:my-skill`.
pub(crate) fn sanitize(folder: &str) -> String {
    folder.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' }).collect()
}

/// The name of a skill in a plugin's skills folder: `<plugin>:<folder, sanitized>`; its
/// frontmatter `name` never changes it.
pub(crate) fn plugin_skill(plugin: &str, folder: &str) -> String {
    format!("{plugin}:{}", sanitize(folder))
}

/// The name of a plugin that is one root `SKILL.md`: its frontmatter `name` (without
/// a leading `<plugin>:`), else the plugin folder's name, sanitized.
pub(crate) fn plugin_root_skill(plugin: &str, frontmatter_name: Option<&str>, folder: &str) -> String {
    let own = frontmatter_name
        .map(str::trim)
        .map(|n| n.strip_prefix(&format!("{plugin}:")).unwrap_or(n))
        .filter(|n| !n.is_empty())
        .unwrap_or(folder);
    plugin_skill(plugin, own)
}

/// A frontmatter `name` as Claude Code takes it: any scalar, as text; over 256
/// characters it is ignored.
pub(crate) fn frontmatter_name(raw: Option<&str>) -> Option<&str> {
    raw.filter(|n| n.chars().count() <= MAX_NAME_CHARS && !n.is_empty())
}

/// Whether a name may be shown and looked up: not empty, at most 256
/// characters, no control, format, private-use or unassigned characters, no `<` or `>`, no
/// blank other than single inner spaces.
pub(crate) fn is_user_facing(name: &str) -> bool {
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS || name.starts_with(' ') || name.ends_with(' ') || name.contains("  ") {
        return false;
    }
    !name.chars().any(|c| {
        c.is_control()
            || c == '<'
            || c == '>'
            || (c.is_whitespace() && c != ' ')
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFFC}')
            || ('\u{E000}'..='\u{F8FF}').contains(&c)
    })
}

/// The names a plugin skill or command answers to besides its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PluginNames {
    /// The user-facing name: the frontmatter `name`, prefixed with the command's namespace
    /// (`plugin:` or `plugin:folder:`) unless it already starts with it.
    pub display_name: Option<String>,
    /// The frontmatter `name` as a bare alias, when it has no `:`.
    pub aliases: Vec<String>,
    /// What is kept from lookup because a name is not user-facing: the aliases and the
    /// display name (they still count for permission rules).
    pub(crate) shed: Vec<String>,
}

/// `command` is the entry's name (`plugin:release`), `frontmatter_name` its `name`.
pub(crate) fn plugin_names(command: &str, frontmatter_name: Option<&str>) -> PluginNames {
    let Some(given) = self::frontmatter_name(frontmatter_name) else { return PluginNames::default() };
    let namespace = &command[..command.rfind(':').map_or(0, |i| i + 1)];
    let display = if given.starts_with(namespace) { given.to_string() } else { format!("{namespace}{given}") };
    let aliases: Vec<String> = if given.contains(':') { Vec::new() } else { vec![given.to_string()] };
    if !(is_user_facing(given) && is_user_facing(&display)) {
        let mut shed = aliases;
        shed.push(display);
        return PluginNames { display_name: None, aliases: Vec::new(), shed };
    }
    let display_name = (display != command).then_some(display);
    PluginNames { display_name, aliases, shed: Vec::new() }
}

/// The reserved namespace of Anthropic's own skills (`byt`): a non-plugin command named
/// `anthropic-skills` or `anthropic-skills:…` (case folded) is dropped; a plugin's is moved
/// after the built-ins and left out of the listing.
pub fn is_reserved_namespace(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    lower == "anthropic-skills" || lower.starts_with("anthropic-skills:")
}

/// Names a plugin alias may never take, beyond the table's own names and built-ins:
/// names holding `:` and MCP tool names.
pub(crate) fn alias_never_allowed(alias: &str) -> bool {
    alias.contains(':') || alias.starts_with("mcp__")
}

/// The primary weight of a character in the root collation Claude Code sorts names with
/// (`localeCompare`): punctuation before digits before letters, letters without case.
fn primary(c: char) -> (u8, u32) {
    // What names are mostly made of, first: ASCII letters and digits are neither space nor
    // punctuation, so they weigh here what `primary_of_any` gives them.
    match c {
        'a'..='z' => (3, c as u32),
        'A'..='Z' => (3, c.to_ascii_lowercase() as u32),
        '0'..='9' => (2, c as u32),
        _ => primary_of_any(c),
    }
}

fn primary_of_any(c: char) -> (u8, u32) {
    const PUNCTUATION: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
    if c.is_whitespace() {
        (0, c as u32)
    } else if let Some(i) = PUNCTUATION.find(c) {
        (1, i as u32)
    } else if c.is_ascii_digit() {
        (2, c as u32)
    } else if c.is_alphabetic() {
        let lower = c.to_lowercase().next().unwrap_or(c);
        (3, lower as u32)
    } else {
        (4, c as u32)
    }
}

/// `a.localeCompare(b)` as Claude Code's runtime (ICU, root locale) orders the names it sorts
/// (skills of a folder, agents, tools), for the characters names hold: punctuation (`_` before
/// `-`), then digits, then letters ignoring case; equal that far, lowercase before uppercase.
pub(crate) fn locale_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let primary_a = a.chars().map(primary);
    let primary_b = b.chars().map(primary);
    primary_a.cmp(primary_b).then_with(|| {
        let tertiary = |s: &str| s.chars().map(|c| c.is_uppercase()).collect::<Vec<_>>();
        tertiary(a).cmp(&tertiary(b))
    })
}

/// Something a typed name can be matched against.
pub trait Named {
    fn name(&self) -> &str;
    fn display_name(&self) -> Option<&str>;
    fn aliases(&self) -> &[String];
}

impl<T: Named> Named for &T {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn display_name(&self) -> Option<&str> {
        (**self).display_name()
    }
    fn aliases(&self) -> &[String] {
        (**self).aliases()
    }
}

/// [`Named`] for a struct that keeps the three as fields `name: String`,
/// `display_name: Option<String>` and `aliases: Vec<String>` (a lock's command, a resolved row).
macro_rules! named_by_fields {
    ($t:ty) => {
        impl $crate::names::Named for $t {
            fn name(&self) -> &str {
                &self.name
            }
            fn display_name(&self) -> Option<&str> {
                self.display_name.as_deref()
            }
            fn aliases(&self) -> &[String] {
                &self.aliases
            }
        }
    };
}
pub(crate) use named_by_fields;

named_by_fields!(crate::model::Command);

/// How a name reached its entry (`$s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    Name,
    DisplayName,
    Alias,
}

impl Reached {
    pub fn as_str(self) -> &'static str {
        match self {
            Reached::Name => "name",
            Reached::DisplayName => "display name",
            Reached::Alias => "alias",
        }
    }
}

/// The entry a typed name runs (`$s`): an exact name anywhere in the table first; otherwise
/// the first entry, in table order, whose display name is it or whose aliases hold it.
pub fn lookup<T: Named>(table: &[T], typed: &str) -> Option<(usize, Reached)> {
    if let Some(i) = table.iter().position(|e| e.name() == typed) {
        return Some((i, Reached::Name));
    }
    table.iter().enumerate().find_map(|(i, e)| {
        if e.display_name() == Some(typed) {
            Some((i, Reached::DisplayName))
        } else if e.aliases().iter().any(|a| a == typed) {
            Some((i, Reached::Alias))
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn normalize_server_counts_utf16_units_and_tidies_claude_ai_connectors() {
        assert_eq!(super::normalize_server("my server.v2"), "my_server_v2");
        assert_eq!(super::normalize_server("café"), "caf_");
        assert_eq!(super::normalize_server("db🚀"), "db__");
        assert_eq!(super::normalize_server("claude.ai Google  Drive!"), "claude_ai_Google_Drive");
        assert_eq!(super::normalize_server("plain__name_"), "plain__name_");
        assert_eq!(super::plugin_server("acme", "db"), "plugin_acme_db");
    }

    use super::*;

    #[test]
    fn ascii_letters_and_digits_weigh_what_the_general_rule_gives() {
        for c in ('a'..='z').chain('A'..='Z').chain('0'..='9') {
            assert_eq!(primary(c), primary_of_any(c), "{c:?}");
        }
    }

    #[test]
    fn folder_names_are_sanitized() {
        assert_eq!(plugin_skill("acme", "my.skill"), "acme:my-skill");
        assert_eq!(plugin_skill("acme", "two words"), "acme:two-words");
        assert_eq!(plugin_skill("hookify", "writing-rules"), "hookify:writing-rules");
        assert_eq!(plugin_root_skill("solo", Some("Helper Tool"), "solo"), "solo:Helper-Tool");
        assert_eq!(plugin_root_skill("bare", None, "bare.kit"), "bare:bare-kit");
        assert_eq!(plugin_root_skill("pref", Some("pref:main"), "pref"), "pref:main");
    }

    #[test]
    fn display_names_and_aliases() {
        let n = plugin_names("compound-engineering:ce-plan", Some("ce-plan"));
        assert_eq!(n.display_name, None, "the display name equals the name");
        assert_eq!(n.aliases, ["ce-plan"]);
        let n = plugin_names("acme:ops:release", Some("ship"));
        assert_eq!(n.display_name.as_deref(), Some("acme:ops:ship"));
        assert_eq!(n.aliases, ["ship"]);
        let n = plugin_names("acme:x", Some("a:b"));
        assert_eq!(n.display_name.as_deref(), Some("acme:a:b"));
        assert!(n.aliases.is_empty());
        let n = plugin_names("acme:x", Some("acme:prefixed"));
        assert_eq!(n.display_name.as_deref(), Some("acme:prefixed"));
        assert!(n.aliases.is_empty());
        let n = plugin_names("acme:x", Some("bad<name>"));
        assert_eq!((n.display_name, n.aliases.len(), n.shed.len()), (None, 0, 2));
        assert_eq!(plugin_names("acme:x", None), PluginNames::default());
    }

    struct E(&'static str, Option<&'static str>, Vec<String>);
    impl Named for E {
        fn name(&self) -> &str {
            self.0
        }
        fn display_name(&self) -> Option<&str> {
            self.1
        }
        fn aliases(&self) -> &[String] {
            &self.2
        }
    }

    #[test]
    fn lookup_takes_an_exact_name_anywhere_first() {
        let table = [
            E("alpha", Some("beta"), vec![]),
            E("beta", None, vec![]),
            E("gamma", Some("shared"), vec![]),
            E("acme:x", None, vec!["shared".into()]),
        ];
        assert_eq!(lookup(&table, "beta"), Some((1, Reached::Name)));
        assert_eq!(lookup(&table, "shared"), Some((2, Reached::DisplayName)));
        assert_eq!(lookup(&table, "nope"), None);
    }

    #[test]
    fn names_sort_as_claude_code_sorts_them() {
        let mut names = vec![
            "Upper", "two", "alpha", "b_x", "b-x", "B_y", "bx", "bX", "Bx", "e10", "e2", "_under", "Z", "zeta", "b1",
        ];
        names.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(
            names,
            ["_under", "alpha", "b_x", "B_y", "b-x", "b1", "bx", "bX", "Bx", "e10", "e2", "two", "Upper", "Z", "zeta"]
        );
    }

    #[test]
    fn reserved_namespace() {
        assert!(is_reserved_namespace("anthropic-skills"));
        assert!(is_reserved_namespace("Anthropic-Skills:pdf"));
        assert!(!is_reserved_namespace("Anthropic-Skills-x"));
    }
}
