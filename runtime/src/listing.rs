//! The Skill tool's view of skills: which commands it lists, the Skill listing as Claude Code
//! sends it (`tests/oracle/scenarios/turn-skills-*`), and the Skill tool's permission
//! decision. Pure functions; no I/O.
//!
//! The listing (after the header `The following skills are available for use with the Skill
//! tool:`) has one entry per skill, in the order of [`crate::loaded::Loaded::listing_order`] then
//! the bundled skills in registration order:
//!
//! * `- NAME: DESCRIPTION`, `- NAME (DISPLAY): DESCRIPTION`, or `- NAME` alone. `DISPLAY` (a
//!   skill's `name:`) shows only when it differs from `NAME`, `NAME` does not end in
//!   `:DISPLAY`, it is a valid command name, and looking it up finds this very skill.
//! * `DESCRIPTION` is the description (or, without one, the body's first line), its lines
//!   joined with single spaces, then ` - ` and `when_to_use` when there is one, with `<` and
//!   `>` written `&lt;` and `&gt;` (`tests/oracle/scenarios/turn-listing-escapes-angle-brackets`);
//!   cut to `skillListingMaxDescChars` (default 1,536) UTF-16 units as `slice(0, max − 1) +
//!   "…"`. Bundled descriptions keep their line breaks.
//! * **One entry a name**: the entries the model may invoke, the first of each name. A name's
//!   winner the listing leaves out (`disable-model-invocation`) lets the entry it hides be
//!   listed (`tests/oracle/scenarios/turn-listing-falls-back-past-unlisted-winner`); typed, the
//!   name still runs its winner.
//! * **Budget**: `SLASH_COMMAND_TOOL_CHAR_BUDGET` when set, else context window × bytes per
//!   token × `skillListingBudgetFraction` (default 0.01): 30,000 for the default model. The
//!   listing's size is the display width of every entry plus one per line break (inside an
//!   entry or between two).
//! * **Over budget**: bundled skills and name-only overrides keep their form; every other entry
//!   becomes `- NAME`; then, by decreasing usage score (`skillUsage`; ties keep listing order),
//!   each gets its description back if the listing still fits. Lines never move.
use crate::commands::CommandView;
use crate::context::{Override, TurnContext};
use crate::loaded::Loaded;
use crate::text::{describe, measured, size, Described};
use capc_compiler::builtins::{bundled_skills, BundledSource};
use std::borrow::Cow;

/// `skillListingMaxDescChars` when settings do not set it, in UTF-16 code units.
pub(crate) const MAX_LISTING_DESC_CHARS: usize = capc_compiler::listed::MAX_DESC_UNITS;
/// `skillListingBudgetFraction` when settings do not set it.
pub(crate) const DEFAULT_BUDGET_FRACTION: f64 = 0.01;
/// How an entry may be shortened when the listing is over budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Shortened to its name when over budget, unless its usage earns its description back.
    Normal,
    /// A bundled skill: always in full.
    Bundled,
    /// `skillOverrides: name-only`: always `- NAME`.
    NameOnly,
}

/// One skill as the listing sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingEntry<'a> {
    pub name: &'a str,
    /// The display name, when it is shown.
    pub display: Option<&'a str>,
    /// The description with `when_to_use` joined, before the cut; `None`: the entry is `- NAME`.
    pub description: Option<Described<'a>>,
    pub keep: Keep,
    /// Usage score (`skillUsage`): who gets a description back first when over budget.
    pub(crate) score: f64,
}

/// Characters available to the listing: `SLASH_COMMAND_TOOL_CHAR_BUDGET` (a positive number)
/// when set, else `max(1, floor(window × bytes per token × fraction))`.
pub fn budget(override_chars: Option<f64>, window: u64, bytes_per_token: u64, fraction: Option<f64>) -> usize {
    if let Some(chars) = override_chars.filter(|c| *c > 0.0 && c.is_finite()) {
        return chars as usize;
    }
    let fraction = fraction.filter(|f| *f >= 0.0 && f.is_finite()).unwrap_or(DEFAULT_BUDGET_FRACTION);
    ((window as f64 * bytes_per_token as f64 * fraction).floor() as usize).max(1)
}

fn push_head(out: &mut String, e: &ListingEntry<'_>) {
    out.push_str("- ");
    out.push_str(e.name);
    if let Some(display) = e.display {
        out.push_str(" (");
        out.push_str(display);
        out.push(')');
    }
}

/// What the listing keeps of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kept {
    /// `- NAME: DESCRIPTION` (or `- NAME` for an entry that has no description).
    Full,
    /// `- NAME` by a `skillOverrides: name-only`.
    NameOnly,
    /// `- NAME`: the listing was over budget and the description did not fit back.
    Dropped,
}

/// How the listing is laid out: each entry's width as `- NAME` and in full, and which entries
/// keep their description (the module docs' budget rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingLayout {
    /// Width of each entry as `- NAME`.
    pub short: Vec<usize>,
    /// Width of each entry in full (cut to `max_desc`); a name-only override's is its short one.
    pub full: Vec<usize>,
    pub kept: Vec<Kept>,
    /// The characters available.
    pub budget: usize,
}

impl ListingLayout {
    /// The listing's size with every entry in full (line breaks counted).
    pub(crate) fn full_size(&self) -> usize {
        self.full.iter().sum::<usize>() + self.full.len().saturating_sub(1)
    }
    /// The listing's size as sent.
    pub(crate) fn sent_size(&self) -> usize {
        let widths =
            self.kept.iter().enumerate().map(|(i, k)| if *k == Kept::Full { self.full[i] } else { self.short[i] });
        widths.sum::<usize>() + self.full.len().saturating_sub(1)
    }
}

/// The layout of `entries` within `budget` (see the module docs); [`render`] writes it.
pub fn plan(entries: &[ListingEntry<'_>], budget: usize, max_desc: usize) -> ListingLayout {
    // Widths of each entry as `- NAME` and in full.
    let short: Vec<usize> = entries.iter().map(|e| 2 + size(e.name)).collect();
    let full: Vec<usize> = entries
        .iter()
        .zip(&short)
        .map(|(e, s)| match e.keep {
            Keep::NameOnly => *s,
            _ => s + e.display.map_or(0, |d| 3 + size(d)) + e.description.as_ref().map_or(0, |d| 2 + d.cut(max_desc).1),
        })
        .collect();
    let newlines = entries.len().saturating_sub(1);
    let mut whole: Vec<bool> = vec![true; entries.len()];
    if full.iter().sum::<usize>() + newlines > budget {
        for (i, e) in entries.iter().enumerate() {
            whole[i] = e.keep != Keep::Normal;
        }
        let mut total: usize =
            (0..entries.len()).map(|i| if whole[i] { full[i] } else { short[i] }).sum::<usize>() + newlines;
        let mut order: Vec<usize> = (0..entries.len()).filter(|&i| !whole[i]).collect();
        order.sort_by(|&a, &b| entries[b].score.total_cmp(&entries[a].score).then(a.cmp(&b)));
        for i in order {
            let grown = total - short[i] + full[i];
            if grown <= budget {
                whole[i] = true;
                total = grown;
            }
        }
    }
    let kept = entries
        .iter()
        .zip(&whole)
        .map(|(e, whole)| match (e.keep, whole) {
            (Keep::NameOnly, _) => Kept::NameOnly,
            (_, true) => Kept::Full,
            (_, false) => Kept::Dropped,
        })
        .collect();
    ListingLayout { short, full, kept, budget }
}

/// The listing text: entries joined by `\n`, each cut to `max_desc` and the whole kept within
/// `budget` as the module docs say.
pub fn render(entries: &[ListingEntry<'_>], budget: usize, max_desc: usize) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let plan = plan(entries, budget, max_desc);
    let mut out = String::with_capacity(plan.full_size() + 64);
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if plan.kept[i] != Kept::Full {
            out.push_str("- ");
            out.push_str(e.name);
            continue;
        }
        push_head(&mut out, e);
        if let Some(d) = &e.description {
            out.push_str(": ");
            out.push_str(&d.cut(max_desc).0);
        }
    }
    out
}

/// The listing's entries for a turn, each with the lock command it comes from (`None`: a
/// bundled skill), and the budget and description cap the turn applies.
pub struct Entries<'l> {
    pub entries: Vec<ListingEntry<'l>>,
    pub decls: Vec<Option<usize>>,
    pub budget: usize,
    pub max_desc: usize,
}

/// The Skill listing of a turn (see the module docs).
pub fn skill_listing(loaded: &Loaded, table: &[CommandView], cx: &TurnContext) -> String {
    let e = entries(loaded, table, cx);
    render(&e.entries, e.budget, e.max_desc)
}

/// The entries of a turn's Skill listing, in listing order, with the budget (see the module docs).
pub fn entries<'l>(loaded: &'l Loaded, table: &[CommandView], cx: &TurnContext) -> Entries<'l> {
    let mut entries: Vec<(ListingEntry<'_>, Option<usize>)> =
        Vec::with_capacity(loaded.listing_order.len() + bundled_skills().len());
    // Lock commands that take a bundled skill's name (the first of a name wins).
    let taken = push_declared(&mut entries, loaded, table, cx);
    push_bundled(&mut entries, &taken, cx);
    // A plugin's `anthropic-skills:…` entries sit after the built-ins, as Claude Code lists them.
    let (mut entries, reserved): (Vec<_>, Vec<_>) =
        entries.into_iter().partition(|(e, _)| !capc_compiler::names::is_reserved_namespace(e.name));
    entries.extend(reserved);
    let budget = budget(
        cx.flag_number("SLASH_COMMAND_TOOL_CHAR_BUDGET"),
        cx.context_window(),
        cx.bytes_per_token(),
        cx.flag_number("skillListingBudgetFraction"),
    );
    let max_desc =
        cx.flag_number("skillListingMaxDescChars").filter(|m| *m >= 1.0).map_or(MAX_LISTING_DESC_CHARS, |m| m as usize);
    let (entries, decls) = entries.into_iter().unzip();
    Entries { entries, decls, budget, max_desc }
}

/// Whether the listing may show lock command `c` (the model may invoke it, no override hides it).
fn listable(c: &capc_compiler::model::Command, cx: &TurnContext) -> bool {
    skill_tool_lists(&Listable {
        is_prompt: true,
        disable_model_invocation: c.disable_model_invocation,
        is_builtin_source: false,
        loaded_from: crate::commands::loaded_from(c),
        has_user_description: c.description.is_some(),
        has_when_to_use: c.when_to_use.is_some(),
    }) && !matches!(cx.skill_override(&c.name), Override::Off | Override::UserInvocableOnly)
}

/// The lock command that took command `i`'s name, when one did.
fn winner(commands: &[capc_compiler::model::Command], i: usize) -> Option<usize> {
    let by = commands[i].shadowed_by.as_ref()?;
    let path = by.path.as_deref()?;
    commands.iter().position(|w| w.path == path && w.name == commands[i].name)
}

/// Pushes the entries of the lock's commands in `table`, in listing order, and returns the
/// names of those that take a bundled skill's name.
fn push_declared<'l>(
    entries: &mut Vec<(ListingEntry<'l>, Option<usize>)>,
    loaded: &'l Loaded,
    table: &[CommandView],
    cx: &TurnContext,
) -> Vec<&'l str> {
    let commands = &loaded.lock.commands;
    let mut in_table = vec![false; commands.len()];
    for row in table {
        if let Some(i) = row.decl {
            in_table[i] = true;
        }
    }
    let mut taken: Vec<&str> = Vec::new();
    // The listing holds the entries the model may invoke, a name once (Claude Code filters, then
    // keeps the first of each name): an entry hidden by a winner the listing leaves out is listed
    // in its place. One hidden by a built-in stays out.
    let mut listed_names: Vec<&str> = Vec::new();
    for &i in &loaded.listing_order {
        let c = &commands[i];
        if !in_table[i] {
            continue;
        }
        if c.shadowed_by.is_some() {
            match winner(commands, i) {
                Some(w) if !listable(&commands[w], cx) && !listed_names.contains(&&*loaded.names[i].0) => {}
                _ => continue,
            }
        }
        if loaded.bundled_named[i] {
            taken.push(&c.name);
        }
        let level = cx.skill_override(&c.name);
        if !listable(c, cx) {
            continue;
        }
        listed_names.push(&loaded.names[i].0);
        entries.push((
            ListingEntry {
                name: &loaded.names[i].0,
                display: shown_display(loaded, table, i),
                description: loaded.description(i),
                keep: if level == Override::NameOnly { Keep::NameOnly } else { Keep::Normal },
                score: cx.usage_score(&c.name),
            },
            Some(i),
        ));
    }
    taken
}

/// Pushes the entries of the bundled skills this turn lists, but for those whose names a lock
/// command took (`taken`).
fn push_bundled(entries: &mut Vec<(ListingEntry<'_>, Option<usize>)>, taken: &[&str], cx: &TurnContext) {
    for (b, described) in bundled_skills().iter().zip(bundled_descriptions()) {
        if !(b.listed && b.model_invocable && crate::commands::bundled_exists(b, cx)) || taken.contains(&b.name) {
            continue;
        }
        let level = cx.skill_override(b.name);
        if matches!(level, Override::Off | Override::UserInvocableOnly) {
            continue;
        }
        entries.push((
            ListingEntry {
                name: b.name,
                display: None,
                description: described.as_ref().map(Described::new_measured),
                keep: match (level, b.source) {
                    (Override::NameOnly, _) => Keep::NameOnly,
                    (_, BundledSource::Builtin) => Keep::Normal,
                    _ => Keep::Bundled,
                },
                score: cx.usage_score(b.name),
            },
            None,
        ));
    }
}

/// The bundled skills' descriptions (with `when_to_use`) measured, once per process.
fn bundled_descriptions() -> &'static [Option<(String, usize, usize)>] {
    static DESCRIBED: std::sync::OnceLock<Vec<Option<(String, usize, usize)>>> = std::sync::OnceLock::new();
    DESCRIBED.get_or_init(|| {
        bundled_skills()
            .iter()
            .map(|b| describe(b.description.map(Cow::Borrowed), b.when_to_use).map(|d| measured(&d)))
            .collect()
    })
}

/// A name Claude Code accepts as a command name: `[A-Za-z0-9:_-]`, not empty.
pub(crate) fn valid_command_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'_' | b'-'))
}

/// A command's display name, when the listing shows it (see the module docs).
pub(crate) fn shown_display<'l>(loaded: &'l Loaded, table: &[CommandView], i: usize) -> Option<&'l str> {
    let display = loaded.displays[i].as_deref()?;
    let name = loaded.lock.commands[i].name.as_str();
    let shown = display != name
        && !name.ends_with(&format!(":{display}"))
        && valid_command_name(display)
        && crate::commands::find(table, display).is_some_and(|row| row.decl == Some(i));
    shown.then_some(display)
}

/// Which commands the Skill tool lists (`getSkillToolCommands`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Listable<'a> {
    /// `type === 'prompt'`.
    pub(crate) is_prompt: bool,
    pub disable_model_invocation: bool,
    /// `source === 'builtin'`.
    pub(crate) is_builtin_source: bool,
    /// `"bundled" | "skills" | "commands_DEPRECATED" | "plugin" | "mcp"`, or `None`.
    pub(crate) loaded_from: Option<&'a str>,
    /// `hasUserSpecifiedDescription`.
    pub(crate) has_user_description: bool,
    /// `whenToUse` is set and non-empty (JavaScript truthiness).
    pub(crate) has_when_to_use: bool,
}

/// Whether the command appears in the Skill tool's listing: a prompt command the model may
/// invoke, not built in, and either from a skills/bundled/legacy-commands loader (which always
/// derive a description) or with an explicit description or `whenToUse` (plugin and MCP ones).
pub(crate) fn skill_tool_lists(c: &Listable<'_>) -> bool {
    c.is_prompt
        && !c.disable_model_invocation
        && !c.is_builtin_source
        && (matches!(c.loaded_from, Some("bundled" | "skills" | "commands_DEPRECATED"))
            || c.has_user_description
            || c.has_when_to_use)
}

/// The Skill tool's own permission decision (`checkPermissions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SkillDecision {
    /// A deny rule matched; `rule` is its content as given (before the `/` is stripped).
    /// Claude Code's message: "Skill execution blocked by permission rules".
    Deny { rule: String },
    /// An allow rule matched (`Some(content)`, as given), or the command has only safe
    /// properties (`None`: allowed with no reason).
    Allow { rule: Option<String> },
    /// Ask the user with [`ask_message`]; `suggestions` are the two allow rules offered for
    /// `localSettings`: `Skill(X)` and `Skill(X:*)`.
    Ask { suggestions: Vec<String> },
}

/// The keys of a prompt command that never require permission (`SAFE_SKILL_PROPERTIES`): the
/// PromptCommand keys, then the CommandBase keys. Any other key with a meaningful value (not
/// undefined/null/`[]`/`{}`) — notably `allowedTools`, `hooks`, `kind`, `availability`,
/// `isSensitive`, `shell` — makes the Skill tool ask.
#[cfg(test)]
pub(crate) const SAFE_SKILL_PROPERTIES: &[&str] = &[
    "type",
    "progressMessage",
    "contentLength",
    "argNames",
    "model",
    "effort",
    "source",
    "pluginInfo",
    "disableNonInteractive",
    "skillRoot",
    "context",
    "agent",
    "getPromptForCommand",
    "frontmatterKeys",
    "name",
    "description",
    "hasUserSpecifiedDescription",
    "isEnabled",
    "isHidden",
    "aliases",
    "isMcp",
    "argumentHint",
    "whenToUse",
    "paths",
    "version",
    "disableModelInvocation",
    "userInvocable",
    "loadedFrom",
    "immediate",
    "userFacingName",
];

/// The skill name as the Skill tool sees it: JavaScript `trim()`, then one leading `/` removed.
pub(crate) fn normalize_skill_name(name: &str) -> &str {
    let trimmed = name.trim_matches(is_js_whitespace);
    trimmed.strip_prefix('/').unwrap_or(trimmed)
}

/// The prompt shown when the decision is [`SkillDecision::Ask`]: `Execute skill: X`.
#[cfg(test)]
pub(crate) fn ask_message(name: &str) -> String {
    format!("Execute skill: {}", normalize_skill_name(name))
}

/// JavaScript's `String.prototype.trim` set: Unicode `White_Space` minus U+0085, plus U+FEFF.
fn is_js_whitespace(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{FEFF}'
}

/// A `Skill(<content>)` rule against a normalized name: one leading `/` of the content is
/// ignored; exact equality, or `prefix:*` with a plain string prefix (no word boundary).
fn rule_matches(content: &str, name: &str) -> bool {
    let rule = content.strip_prefix('/').unwrap_or(content);
    if rule == name {
        return true;
    }
    match rule.strip_suffix(":*") {
        Some(prefix) => name.starts_with(prefix),
        None => false,
    }
}

/// The Skill tool's decision for invoking `name`: the first matching deny rule, else the first
/// matching allow rule, else allow when `safe`, else ask.
///
/// `deny_rules`/`allow_rules` are the contents of `Skill(<content>)` rules from all sources, in
/// order. Ask rules with content are never consulted by the Skill tool (a bare `Skill` ask rule
/// acts through the generic pipeline instead). `safe` must be false when the command is unknown
/// or not a prompt command, as well as when it has a meaningful non-safe property.
pub(crate) fn decide_skill(name: &str, deny_rules: &[&str], allow_rules: &[&str], safe: bool) -> SkillDecision {
    let name = normalize_skill_name(name);
    if let Some(rule) = deny_rules.iter().find(|r| rule_matches(r, name)) {
        return SkillDecision::Deny { rule: (*rule).to_owned() };
    }
    if let Some(rule) = allow_rules.iter().find(|r| rule_matches(r, name)) {
        return SkillDecision::Allow { rule: Some((*rule).to_owned()) };
    }
    if safe {
        return SkillDecision::Allow { rule: None };
    }
    SkillDecision::Ask { suggestions: vec![format!("Skill({name})"), format!("Skill({name}:*)")] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{cut, display_width, one_line};

    fn entry<'a>(name: &'a str, description: &'a str) -> ListingEntry<'a> {
        ListingEntry {
            name,
            display: None,
            description: Some(Described::new(description)),
            keep: Keep::Normal,
            score: 0.0,
        }
    }

    fn bundled<'a>(name: &'a str, description: &'a str) -> ListingEntry<'a> {
        ListingEntry { keep: Keep::Bundled, ..entry(name, description) }
    }

    #[test]
    fn budget_sources_in_order() {
        // Claude Code's default model: 1,000,000 tokens × 3 bytes × 1%.
        assert_eq!(budget(None, 1_000_000, 3, None), 30_000);
        assert_eq!(budget(None, 1_000_000, 3, Some(0.0001)), 300);
        assert_eq!(budget(Some(2000.0), 1_000_000, 3, None), 2000);
        // `Number("0")` is falsy: an override of 0 falls through.
        assert_eq!(budget(Some(0.0), 200_000, 4, None), 8000);
        assert_eq!(budget(None, 10, 3, Some(0.0)), 1);
    }

    #[test]
    fn lines_and_display_names() {
        let mut one = entry("one", "One with a valid name field");
        one.display = Some("one-display");
        let bare = ListingEntry { description: None, ..entry("plain", "") };
        assert_eq!(
            render(&[one, bare], 30_000, MAX_LISTING_DESC_CHARS),
            "- one (one-display): One with a valid name field\n- plain"
        );
        assert_eq!(describe(Some(Cow::Borrowed("D")), Some("W")).as_deref(), Some("D - W"));
        assert_eq!(describe(None, Some("W")).as_deref(), Some("W"));
        assert_eq!(describe(Some(Cow::Borrowed("D")), Some("")).as_deref(), Some("D"));
        assert_eq!(one_line("First line.\nSecond line.\n"), "First line. Second line.");
    }

    #[test]
    fn descriptions_are_cut_in_utf16_units() {
        assert_eq!(cut(Cow::Borrowed(&"x".repeat(1536)), 1536).len(), 1536);
        assert_eq!(cut(Cow::Owned("x".repeat(1537)), 1536), format!("{}…", "x".repeat(1535)));
        // 126 emoji = 252 units: cut to ≤ 249 units = 124 emoji (248 units), then "…".
        assert_eq!(cut(Cow::Owned("😀".repeat(126)), 250), format!("{}…", "😀".repeat(124)));
        assert_eq!(cut(Cow::Borrowed("漢字"), 40), "漢字");
    }

    #[test]
    fn over_budget_keeps_bundled_and_gives_descriptions_back_in_usage_order() {
        // "- a: xxxx" (9), "- b: yyyy" (9), "- c: zz" bundled (7); full: 25 + 2 newlines.
        let a = entry("a", "xxxx");
        let b = ListingEntry { score: 1.0, ..entry("b", "yyyy") };
        let c = bundled("c", "zz");
        let entries = [a, b, c];
        assert_eq!(render(&entries, 27, 1536), "- a: xxxx\n- b: yyyy\n- c: zz");
        // 26: "- a" "- b" "- c: zz" = 13 + 2; b (used) gets its description back first (+6 = 21);
        // then a would make 27.
        assert_eq!(render(&entries, 26, 1536), "- a\n- b: yyyy\n- c: zz");
        // A line break inside a description counts one.
        let multi = bundled("m", "one\ntwo");
        assert_eq!(size("- m: one\ntwo"), 12);
        assert_eq!(render(&[multi, entry("z", "q")], 13, 1536), "- m: one\ntwo\n- z");
    }

    #[test]
    fn widths() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("日本語"), 6);
        assert_eq!(display_width("한국어"), 6);
        assert_eq!(display_width("ｆｕｌｌ"), 8);
        assert_eq!(display_width("e\u{301}"), 1);
        assert_eq!(display_width("😀"), 2);
        assert_eq!(display_width("\t\n"), 0);
        assert_eq!(display_width("a\u{200B}b"), 2);
    }

    // ---- listing filter ----

    #[test]
    fn skill_tool_listing_filter() {
        let skill = Listable { is_prompt: true, loaded_from: Some("skills"), ..Listable::default() };
        assert!(skill_tool_lists(&skill));
        for from in ["bundled", "commands_DEPRECATED"] {
            assert!(skill_tool_lists(&Listable { loaded_from: Some(from), ..skill }));
        }
        assert!(!skill_tool_lists(&Listable { is_prompt: false, ..skill }));
        assert!(!skill_tool_lists(&Listable { disable_model_invocation: true, ..skill }));
        assert!(!skill_tool_lists(&Listable { is_builtin_source: true, ..skill }));
        // Plugin, MCP and loader-less commands need a description or whenToUse.
        for from in [Some("plugin"), Some("mcp"), None] {
            let bare = Listable { loaded_from: from, ..skill };
            assert!(!skill_tool_lists(&bare));
            assert!(skill_tool_lists(&Listable { has_user_description: true, ..bare }));
            assert!(skill_tool_lists(&Listable { has_when_to_use: true, ..bare }));
        }
        // disableModelInvocation wins over a description.
        assert!(!skill_tool_lists(&Listable { disable_model_invocation: true, has_user_description: true, ..skill }));
    }

    // ---- permission decision ----

    #[test]
    fn deny_beats_allow() {
        assert_eq!(
            decide_skill("deploy", &["deploy"], &["deploy"], true),
            SkillDecision::Deny { rule: "deploy".into() }
        );
        assert_eq!(
            decide_skill("deploy", &["other", "dep:*"], &["deploy"], false),
            SkillDecision::Deny { rule: "dep:*".into() }
        );
    }

    #[test]
    fn prefix_rule_is_a_plain_prefix() {
        let allow = |name| decide_skill(name, &[], &["review:*"], false);
        let allowed = SkillDecision::Allow { rule: Some("review:*".into()) };
        assert_eq!(allow("review-pr"), allowed);
        assert_eq!(allow("review"), allowed);
        assert_eq!(allow("review:security"), allowed);
        assert_eq!(allow("reviewer"), allowed);
        assert!(matches!(allow("re"), SkillDecision::Ask { .. }));
        assert!(matches!(allow("pr-review"), SkillDecision::Ask { .. }));
        // Without ":*" only exact names match.
        assert!(matches!(decide_skill("review-pr", &[], &["review"], false), SkillDecision::Ask { .. }));
        // A bare "*" is not a wildcard; ":*" is an empty prefix and matches everything.
        assert!(matches!(decide_skill("x", &[], &["*"], false), SkillDecision::Ask { .. }));
        assert_eq!(decide_skill("x", &[":*"], &[], true), SkillDecision::Deny { rule: ":*".into() });
    }

    #[test]
    fn leading_slashes_and_whitespace() {
        let allowed = |rule: &str| SkillDecision::Allow { rule: Some(rule.into()) };
        assert_eq!(decide_skill("  /deploy\n", &[], &["deploy"], false), allowed("deploy"));
        assert_eq!(decide_skill("deploy", &[], &["/deploy"], false), allowed("/deploy"));
        assert_eq!(decide_skill("/deploy", &[], &["/deploy:*"], false), allowed("/deploy:*"));
        // Only one slash is stripped on each side.
        assert!(matches!(decide_skill("//deploy", &[], &["deploy"], false), SkillDecision::Ask { .. }));
        assert_eq!(decide_skill("//deploy", &[], &["//deploy"], false), allowed("//deploy"));
        assert_eq!(normalize_skill_name("\u{FEFF} /x \u{A0}"), "x");
        assert_eq!(normalize_skill_name("\u{85}x"), "\u{85}x");
    }

    #[test]
    fn safe_properties_auto_allow_after_rules() {
        assert_eq!(decide_skill("fmt", &[], &[], true), SkillDecision::Allow { rule: None });
        assert_eq!(decide_skill("fmt", &["fmt"], &[], true), SkillDecision::Deny { rule: "fmt".into() });
        assert_eq!(decide_skill("fmt", &[], &["fmt"], true), SkillDecision::Allow { rule: Some("fmt".into()) });
    }

    #[test]
    fn ask_with_suggestions() {
        assert_eq!(
            decide_skill(" /my-plugin:deploy ", &["other"], &["deploy"], false),
            SkillDecision::Ask {
                suggestions: vec!["Skill(my-plugin:deploy)".into(), "Skill(my-plugin:deploy:*)".into()]
            }
        );
        assert_eq!(ask_message(" /my-plugin:deploy "), "Execute skill: my-plugin:deploy");
    }

    #[test]
    fn safe_skill_properties_match_the_spec() {
        assert_eq!(SAFE_SKILL_PROPERTIES.len(), 30);
        for key in ["type", "model", "frontmatterKeys", "paths", "userFacingName"] {
            assert!(SAFE_SKILL_PROPERTIES.contains(&key), "{key}");
        }
        for key in ["allowedTools", "hooks", "kind", "availability", "isSensitive", "shell"] {
            assert!(!SAFE_SKILL_PROPERTIES.contains(&key), "{key}");
        }
    }
}
