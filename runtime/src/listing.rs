//! The Skill tool's view of skills: which commands it lists (SEMANTICS §2.7), the listing text
//! within its character budget (§4.5, sent as the `skill_listing` attachment of §4.6), and its
//! permission decision (§4.3). Pure functions; no I/O.
//!
//! Readings of the spec chosen here (each checked against the v2.1.88 snapshot the spec digests):
//!
//! * **The 250 cap is on the description, not the whole line.** §4.5 says "entries longer than
//!   `MAX_LISTING_DESC_CHARS`"; in Claude Code the cap is applied when the description
//!   (`description` or `description - whenToUse`) is built, before `- name: ` is prepended. It is
//!   measured in JavaScript string length (UTF-16 code units), not display width, and the cut is a
//!   plain slice (not grapheme-safe). It applies to every entry, bundled included, and to the
//!   full, the truncated and (trivially) the names-only listing.
//! * **Newlines.** "Newlines are counted" means the `\n` that joins entries: `n − 1` for `n`
//!   entries in the fit test, one per bundled entry in `bundledChars`, `restCount − 1` in the name
//!   overhead. A newline *inside* a description is a control character and, as in Claude Code's
//!   `stringWidth`, measures 0.
//! * **`bundledChars`** = Σ over bundled entries of (width of the full `- name: desc` line + 1).
//! * **The Σ(nameWidth+4) and the `(n−1)` run over the non-bundled entries only**, `n` being their
//!   count: `maxDescLen = floor((budget − bundledChars − Σ_rest(nameWidth+4) − (restCount−1)) /
//!   restCount)`. The arithmetic saturates at 0; Claude Code goes negative instead, and both end
//!   in the names-only branch since the result is below 20.
//! * **Every entry bundled** (and over budget): emitted in full, as Claude Code does.
//! * **Missing description / whenToUse** (Claude Code always has a description string):
//!   `description` and `whenToUse` → `description - whenToUse`; only `description` → it; only
//!   `whenToUse` → it alone; neither → the line is `- name` with no colon. An empty `whenToUse`
//!   counts as unset (JavaScript truthiness); an empty `description` is kept literally
//!   (`- name: `), as Claude Code would emit it.
//! * **Display width** approximates Claude Code's `stringWidth` without a Unicode table: see
//!   [`display_width`].
use std::borrow::Cow;

/// Per-description hard cap, in UTF-16 code units (`MAX_LISTING_DESC_CHARS`).
pub const MAX_LISTING_DESC_CHARS: usize = 250;
/// Budget when neither an override nor a context window is known (1% of 200k tokens × 4).
pub const DEFAULT_CHAR_BUDGET: usize = 8_000;
/// Below this `maxDescLen`, non-bundled entries lose their descriptions entirely.
pub const MIN_DESC_LENGTH: usize = 20;
/// The truncation mark, U+2026.
const ELLIPSIS: char = '\u{2026}';

/// One skill as the listing sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingEntry<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub when_to_use: Option<&'a str>,
    /// `source === 'bundled'`: never truncated when the listing is over budget.
    pub bundled: bool,
}

/// Characters available to the listing.
///
/// `override_chars` is `SLASH_COMMAND_TOOL_CHAR_BUDGET` as parsed by the caller; like Claude
/// Code's truthiness check, `Some(0)` counts as unset. Otherwise `floor(tokens × 4 × 0.01)` when
/// the context window is known and non-zero (computed exactly as `tokens × 4 / 100`, which equals
/// the floating-point result for every window below 2^50 tokens), else 8000.
pub fn budget(context_window_tokens: Option<u64>, override_chars: Option<usize>) -> usize {
    if let Some(chars) = override_chars.filter(|&c| c > 0) {
        return chars;
    }
    match context_window_tokens {
        Some(tokens) if tokens > 0 => usize::try_from(tokens.saturating_mul(4) / 100).unwrap_or(usize::MAX),
        _ => DEFAULT_CHAR_BUDGET,
    }
}

/// The listing text: one `- name: desc` line per entry (`- name` when there is no
/// description), joined by `\n`, input order preserved. Empty input gives an empty string.
pub fn render(entries: &[ListingEntry<'_>], budget: usize) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let descs: Vec<Option<Cow<'_, str>>> = entries.iter().map(capped_description).collect();
    // A line's width, without building it: `- ` + name (+ `: ` + description).
    let widths: Vec<usize> = entries
        .iter()
        .zip(&descs)
        .map(|(e, d)| 2 + display_width(e.name) + d.as_deref().map_or(0, |d| 2 + display_width(d)))
        .collect();

    // 1. Everything fits: the lines plus the n−1 joining newlines.
    let full_total = widths.iter().copied().fold(entries.len() - 1, usize::saturating_add);
    let rest_count = entries.iter().filter(|e| !e.bundled).count();
    if full_total <= budget || rest_count == 0 {
        return write_lines(entries, &descs, None);
    }

    // 2. Bundled entries keep their full line; each also costs its newline.
    let bundled_chars = entries
        .iter()
        .zip(&widths)
        .filter(|(e, _)| e.bundled)
        .map(|(_, w)| w.saturating_add(1))
        .fold(0, usize::saturating_add);

    // 3. What is left, shared evenly among the non-bundled descriptions.
    let rest_name_overhead = entries
        .iter()
        .filter(|e| !e.bundled)
        .map(|e| display_width(e.name).saturating_add(4))
        .fold(rest_count - 1, usize::saturating_add);
    let available = budget.saturating_sub(bundled_chars).saturating_sub(rest_name_overhead);
    let max_desc_len = available / rest_count;

    write_lines(entries, &descs, Some(max_desc_len))
}

/// The listing's lines joined by `\n`. With `cut`, non-bundled descriptions are cut to that
/// many columns (step 5), or left out below [`MIN_DESC_LENGTH`] (step 4); bundled ones stay whole.
fn write_lines(entries: &[ListingEntry<'_>], descs: &[Option<Cow<'_, str>>], cut: Option<usize>) -> String {
    let mut out = String::with_capacity(4096);
    for (i, (e, desc)) in entries.iter().zip(descs).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("- ");
        out.push_str(e.name);
        let Some(desc) = desc.as_deref() else { continue };
        match cut {
            Some(max) if !e.bundled => {
                if max >= MIN_DESC_LENGTH {
                    out.push_str(": ");
                    push_truncated(&mut out, desc, max);
                }
            }
            _ => {
                out.push_str(": ");
                out.push_str(desc);
            }
        }
    }
    out
}

/// The entry's description with `whenToUse` joined and the 250-unit cap applied.
fn capped_description<'a>(e: &ListingEntry<'a>) -> Option<Cow<'a, str>> {
    let when = e.when_to_use.filter(|w| !w.is_empty());
    let desc: Cow<'a, str> = match (e.description, when) {
        (Some(d), Some(w)) => Cow::Owned(format!("{d} - {w}")),
        (Some(d), None) => Cow::Borrowed(d),
        (None, Some(w)) => Cow::Borrowed(w),
        (None, None) => return None,
    };
    Some(cap_utf16(desc))
}

/// Claude Code's `desc.length > 250 ? desc.slice(0, 249) + '…' : desc`, in UTF-16 code units.
/// Where JavaScript would cut a surrogate pair in half, the whole character is dropped instead.
fn cap_utf16(desc: Cow<'_, str>) -> Cow<'_, str> {
    // ASCII: one byte is one UTF-16 unit.
    if desc.is_ascii() {
        if desc.len() <= MAX_LISTING_DESC_CHARS {
            return desc;
        }
        return Cow::Owned(format!("{}{ELLIPSIS}", &desc[..MAX_LISTING_DESC_CHARS - 1]));
    }
    if desc.encode_utf16().count() <= MAX_LISTING_DESC_CHARS {
        return desc;
    }
    let mut units = 0;
    let mut out = String::new();
    for c in desc.chars() {
        units += c.len_utf16();
        if units > MAX_LISTING_DESC_CHARS - 1 {
            break;
        }
        out.push(c);
    }
    out.push(ELLIPSIS);
    Cow::Owned(out)
}

/// Appends `text` cut to at most `max_width` display columns, ending with `…` when anything
/// was cut. Cuts only between clusters (see [`clusters`]), never inside one.
fn push_truncated(out: &mut String, text: &str, max_width: usize) {
    if display_width(text) <= max_width {
        out.push_str(text);
    } else if max_width <= 1 {
        out.push(ELLIPSIS);
    } else if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        // Printable ASCII: one column per byte, and every byte boundary is a cluster boundary.
        out.push_str(&text[..max_width - 1]);
        out.push(ELLIPSIS);
    } else {
        let mut width = 0;
        for cluster in clusters(text) {
            let w = display_width(cluster);
            if width + w > max_width - 1 {
                break;
            }
            out.push_str(cluster);
            width += w;
        }
        out.push(ELLIPSIS);
    }
}

/// Display width in terminal columns: a simple stand-in for Claude Code's `stringWidth`.
///
/// * 0: control characters (C0, DEL, C1 — so an embedded `\n` is 0), combining marks
///   (U+0300–U+036F, U+1AB0–U+1AFF, U+1DC0–U+1DFF, U+20D0–U+20FF, U+FE20–U+FE2F), zero-width
///   space/joiners (U+200B–U+200D, U+2060–U+2064, U+FEFF), variation selectors (U+FE00–U+FE0F)
///   and the soft hyphen.
/// * 2: East-Asian wide and emoji blocks (U+1100–U+115F, U+2E80–U+A4CF, U+AC00–U+D7A3,
///   U+F900–U+FAFF, U+FE30–U+FE4F, U+FF00–U+FF60, U+FFE0–U+FFE6, U+1F300–U+1F64F,
///   U+1F680–U+1F6FF, U+1F900–U+1F9FF, U+1FA70–U+1FAFF, U+20000–U+3FFFD).
/// * 1: everything else.
///
/// Unlike `stringWidth`, an emoji ZWJ sequence measures the sum of its parts.
pub fn display_width(s: &str) -> usize {
    // ASCII (nearly every description): one column per printable byte, no table lookups.
    if s.is_ascii() {
        return s.bytes().filter(|b| (0x20..0x7f).contains(b)).count();
    }
    s.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    if is_control(c) || is_zero_width(c) {
        0
    } else if is_wide(c) {
        2
    } else {
        1
    }
}

fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}')
}

/// Marks that render on the preceding character.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

const ZWJ: char = '\u{200D}';

fn is_zero_width(c: char) -> bool {
    is_combining(c)
        || matches!(
            c,
            '\u{AD}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2060}'..='\u{2064}'
                | '\u{FEFF}'
                | '\u{FE00}'..='\u{FE0F}'
        )
}

fn is_wide(c: char) -> bool {
    matches!(
        c,
        '\u{1100}'..='\u{115F}'
            | '\u{2E80}'..='\u{A4CF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FE30}'..='\u{FE4F}'
            | '\u{FF00}'..='\u{FF60}'
            | '\u{FFE0}'..='\u{FFE6}'
            | '\u{1F300}'..='\u{1F64F}'
            | '\u{1F680}'..='\u{1F6FF}'
            | '\u{1F900}'..='\u{1F9FF}'
            | '\u{1FA70}'..='\u{1FAFF}'
            | '\u{20000}'..='\u{3FFFD}'
    )
}

/// Splits `s` into approximate grapheme clusters: a character plus the combining marks,
/// variation selectors and ZWJs after it, and the character after a ZWJ. A control character is
/// a cluster of its own.
fn clusters(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let mut prev = first;
        let mut end = rest.len();
        for (i, c) in chars {
            let extends =
                !is_control(first) && (is_combining(c) || matches!(c, '\u{FE00}'..='\u{FE0F}' | ZWJ) || prev == ZWJ);
            if !extends {
                end = i;
                break;
            }
            prev = c;
        }
        let (cluster, tail) = rest.split_at(end);
        rest = tail;
        Some(cluster)
    })
}

/// Which commands the Skill tool lists (`getSkillToolCommands`, SEMANTICS §2.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Listable<'a> {
    /// `type === 'prompt'`.
    pub is_prompt: bool,
    pub disable_model_invocation: bool,
    /// `source === 'builtin'`.
    pub is_builtin_source: bool,
    /// `"bundled" | "skills" | "commands_DEPRECATED" | "plugin" | "mcp"`, or `None`.
    pub loaded_from: Option<&'a str>,
    /// `hasUserSpecifiedDescription`.
    pub has_user_description: bool,
    /// `whenToUse` is set and non-empty (JavaScript truthiness).
    pub has_when_to_use: bool,
}

/// Whether the command appears in the Skill tool's listing: a prompt command the model may
/// invoke, not built in, and either from a skills/bundled/legacy-commands loader (which always
/// derive a description) or with an explicit description or `whenToUse` (plugin and MCP ones).
pub fn skill_tool_lists(c: &Listable<'_>) -> bool {
    c.is_prompt
        && !c.disable_model_invocation
        && !c.is_builtin_source
        && (matches!(c.loaded_from, Some("bundled" | "skills" | "commands_DEPRECATED"))
            || c.has_user_description
            || c.has_when_to_use)
}

/// The Skill tool's own permission decision (`checkPermissions`, SEMANTICS §4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillDecision {
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
pub const SAFE_SKILL_PROPERTIES: &[&str] = &[
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
pub fn normalize_skill_name(name: &str) -> &str {
    let trimmed = name.trim_matches(is_js_whitespace);
    trimmed.strip_prefix('/').unwrap_or(trimmed)
}

/// The prompt shown when the decision is [`SkillDecision::Ask`]: `Execute skill: X`.
pub fn ask_message(name: &str) -> String {
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
pub fn decide_skill(name: &str, deny_rules: &[&str], allow_rules: &[&str], safe: bool) -> SkillDecision {
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

    fn entry<'a>(name: &'a str, description: &'a str) -> ListingEntry<'a> {
        ListingEntry { name, description: Some(description), when_to_use: None, bundled: false }
    }

    fn bundled<'a>(name: &'a str, description: &'a str) -> ListingEntry<'a> {
        ListingEntry { bundled: true, ..entry(name, description) }
    }

    /// The description of a lone non-bundled entry `n` rendered when maxDescLen = `max`:
    /// budget = (1 + 4) + 0 newlines + max, so maxDescLen = floor(max / 1) = max.
    fn cut(description: &str, max: usize) -> String {
        let out = render(&[entry("n", description)], 5 + max);
        out.strip_prefix("- n: ").unwrap_or(&out).to_owned()
    }

    // ---- budget ----

    #[test]
    fn budget_sources_in_order() {
        assert_eq!(budget(None, None), 8000);
        assert_eq!(budget(Some(200_000), None), 8000);
        assert_eq!(budget(Some(1_000_000), None), 40_000);
        // 199 × 4 × 0.01 = 7.96 → 7.
        assert_eq!(budget(Some(199), None), 7);
        assert_eq!(budget(Some(0), None), 8000);
        assert_eq!(budget(Some(200_000), Some(500)), 500);
        assert_eq!(budget(None, Some(123)), 123);
        // `Number("0")` is falsy: an override of 0 falls through.
        assert_eq!(budget(Some(1_000_000), Some(0)), 40_000);
        assert_eq!(budget(None, Some(0)), 8000);
        assert_eq!(budget(Some(u64::MAX), None), usize::try_from(u64::MAX / 100).unwrap_or(usize::MAX));
    }

    // ---- rendering ----

    #[test]
    fn empty_listing_is_empty() {
        assert_eq!(render(&[], 8000), "");
        assert_eq!(render(&[], 0), "");
    }

    #[test]
    fn everything_fits_in_full() {
        let entries = [
            entry("commit", "Create a git commit"),
            ListingEntry {
                when_to_use: Some("when a PR number is given"),
                ..entry("review-pr", "Review a pull request")
            },
            bundled("init", "Set up the project"),
        ];
        assert_eq!(
            render(&entries, 8000),
            "- commit: Create a git commit\n\
             - review-pr: Review a pull request - when a PR number is given\n\
             - init: Set up the project"
        );
    }

    #[test]
    fn fit_test_counts_joining_newlines() {
        // "- a: x" and "- b: y" are 6 wide each; with the joining newline, 13.
        let entries = [entry("a", "x"), entry("b", "y")];
        assert_eq!(render(&entries, 13), "- a: x\n- b: y");
        // 12: maxDescLen = floor((12 − 0 − (5 + 5) − 1) / 2) = 0 < 20 → names only.
        assert_eq!(render(&entries, 12), "- a\n- b");
    }

    #[test]
    fn newline_inside_a_description_measures_zero() {
        // "- n: line one\nline two": 5 + 8 + 0 + 8 = 21 columns.
        let entries = [entry("n", "line one\nline two")];
        assert_eq!(render(&entries, 21), "- n: line one\nline two");
        assert_eq!(display_width("line one\nline two"), 16);
    }

    /// One bundled entry and two 40-character non-bundled ones.
    fn three() -> [ListingEntry<'static>; 3] {
        [
            bundled("init", "Set up the project"),
            entry("alpha", "Review pull requests and leave comments."),
            entry("beta", "Deploy the current branch to staging now"),
        ]
    }

    #[test]
    fn overflow_truncates_non_bundled_to_max_desc_len() {
        // Full lines: "- init: Set up the project" = 26, "- alpha: <40>" = 49,
        // "- beta: <40>" = 48; total 26 + 49 + 48 + 2 newlines = 125 > 95.
        // bundledChars = 26 + 1 = 27.
        // Name overhead (non-bundled only) = (5 + 4) + (4 + 4) + (2 − 1) = 18.
        // maxDescLen = floor((95 − 27 − 18) / 2) = floor(50 / 2) = 25
        // → each description keeps 24 columns and gains "…".
        let expected = "- init: Set up the project\n\
                        - alpha: Review pull requests and…\n\
                        - beta: Deploy the current branc…";
        assert_eq!(render(&three(), 95), expected);
        // 96: floor(51 / 2) = 25 as well.
        assert_eq!(render(&three(), 96), expected);
        // The result does fit: 26 + 1 + 34 + 1 + 33 = 95.
        assert_eq!(display_width(expected) + 2, 95);
    }

    #[test]
    fn max_desc_len_of_exactly_20_still_truncates() {
        // floor((85 − 27 − 18) / 2) = 20 → 19 columns + "…".
        assert_eq!(
            render(&three(), 85),
            "- init: Set up the project\n\
             - alpha: Review pull request…\n\
             - beta: Deploy the current …"
        );
    }

    #[test]
    fn below_20_non_bundled_become_names_only() {
        // floor((84 − 27 − 18) / 2) = 19 < 20.
        let expected = "- init: Set up the project\n- alpha\n- beta";
        assert_eq!(render(&three(), 84), expected);
        // floor((80 − 45) / 2) = 17.
        assert_eq!(render(&three(), 80), expected);
        // A budget smaller than the bundled part alone saturates to 0.
        assert_eq!(render(&three(), 10), expected);
        assert_eq!(render(&three(), 0), expected);
    }

    #[test]
    fn bundled_are_never_truncated_and_order_is_kept() {
        let long = "B".repeat(200);
        let entries = [
            entry("z-first", "Short one"),
            bundled("big", &long),
            entry("a-last", "Another description that is rather long indeed"),
        ];
        // bundledChars = (2 + 3 + 2 + 200) + 1 = 208; overhead = (7+4) + (6+4) + 1 = 22;
        // Full: 20 + 207 + 56 + 2 newlines = 285 > 280.
        // budget 280 → floor((280 − 208 − 22) / 2) = 25: "Short one" fits, the other is cut.
        assert_eq!(
            render(&entries, 280),
            format!(
                "- z-first: Short one\n- big: {long}\n\
                 - a-last: Another description that…"
            )
        );
    }

    #[test]
    fn all_bundled_over_budget_stay_in_full() {
        let entries = [bundled("a", "first bundled"), bundled("b", "second bundled")];
        assert_eq!(render(&entries, 5), "- a: first bundled\n- b: second bundled");
    }

    #[test]
    fn when_to_use_joining() {
        let both = ListingEntry { when_to_use: Some("after edits"), ..entry("fmt", "Format code") };
        let only_when = ListingEntry { description: None, ..both };
        let neither = ListingEntry { when_to_use: None, ..only_when };
        let empty_when = ListingEntry { when_to_use: Some(""), ..both };
        let empty_desc = ListingEntry { description: Some(""), ..both };
        assert_eq!(render(&[both], 8000), "- fmt: Format code - after edits");
        assert_eq!(render(&[only_when], 8000), "- fmt: after edits");
        assert_eq!(render(&[neither], 8000), "- fmt");
        assert_eq!(render(&[empty_when], 8000), "- fmt: Format code");
        assert_eq!(render(&[empty_desc], 8000), "- fmt:  - after edits");
        // No description survives truncation as a bare name:
        // overhead = (3 + 4) + (1 + 4) + 1 = 13; floor((59 − 13) / 2) = 23.
        assert_eq!(render(&[neither, entry("x", &"d".repeat(100))], 59), format!("- fmt\n- x: {}…", "d".repeat(22)));
    }

    #[test]
    fn cap_of_250_applies_to_the_description_of_every_entry() {
        let long = "x".repeat(300);
        let capped = format!("{}…", "x".repeat(249));
        assert_eq!(render(&[entry("n", &long)], 100_000), format!("- n: {capped}"));
        assert_eq!(render(&[bundled("n", &long)], 100_000), format!("- n: {capped}"));
        // Exactly 250 is kept whole.
        let exact = "y".repeat(250);
        assert_eq!(render(&[entry("n", &exact)], 100_000), format!("- n: {exact}"));
    }

    #[test]
    fn cap_applies_after_joining_when_to_use() {
        let desc = "a".repeat(200);
        let when = "b".repeat(100);
        let e = ListingEntry { when_to_use: Some(&when), ..entry("n", &desc) };
        // 200 + 3 + 100 = 303 > 250 → 200 a's, " - ", 46 b's, "…".
        assert_eq!(render(&[e], 100_000), format!("- n: {} - {}…", "a".repeat(200), "b".repeat(46)));
    }

    #[test]
    fn cap_counts_utf16_units() {
        // 125 emoji = 250 UTF-16 units: not over the cap.
        let fits = "😀".repeat(125);
        assert_eq!(render(&[entry("n", &fits)], 100_000), format!("- n: {fits}"));
        // 126 emoji = 252 units: cut to ≤ 249 units = 124 emoji (248 units), then "…".
        let over = "😀".repeat(126);
        assert_eq!(render(&[entry("n", &over)], 100_000), format!("- n: {}…", "😀".repeat(124)));
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

    #[test]
    fn truncation_counts_wide_chars_as_two() {
        let cjk = "漢".repeat(30); // 60 columns
                                   // maxDescLen 21 → at most 20 columns before "…" → 10 characters.
        assert_eq!(cut(&cjk, 21), format!("{}…", "漢".repeat(10)));
        // maxDescLen 22 → at most 21 columns: the 11th character would make 22 → still 10.
        assert_eq!(cut(&cjk, 22), format!("{}…", "漢".repeat(10)));
        // Fits exactly: kept whole.
        let twenty = "漢".repeat(10);
        assert_eq!(cut(&twenty, 20), twenty);
    }

    #[test]
    fn truncation_keeps_combining_marks_with_their_base() {
        // "ab" + 30 × (e + U+0301): 32 columns. maxDescLen 20 → 19 columns: "ab" + 17 é.
        let text = format!("ab{}", "e\u{301}".repeat(30));
        let out = cut(&text, 20);
        assert_eq!(out, format!("ab{}…", "e\u{301}".repeat(17)));
        assert_eq!(display_width(&out), 20);
    }

    #[test]
    fn truncation_does_not_split_a_zwj_sequence() {
        // 17 x, then 👨‍👩 (4 columns here), then 10 y: 31 columns. maxDescLen 20 → 19: the
        // sequence would end at 21, so it is dropped whole rather than cut after 👨.
        let text = format!("{}👨\u{200D}👩{}", "x".repeat(17), "y".repeat(10));
        assert_eq!(cut(&text, 20), format!("{}…", "x".repeat(17)));
        // With room, the whole sequence is kept.
        assert_eq!(cut(&text, 23), format!("{}👨\u{200D}👩y…", "x".repeat(17)));
    }

    #[test]
    fn short_descriptions_survive_truncation_unchanged() {
        let long = "long description ".repeat(5);
        let entries = [entry("a", "tiny"), entry("b", &long)];
        // overhead = (1+4)*2 + 1 = 11; budget 61 → floor(50 / 2) = 25.
        assert_eq!(render(&entries, 61), "- a: tiny\n- b: long description long de…");
    }

    #[test]
    fn clusters_split_as_documented() {
        let parts: Vec<&str> = clusters("ae\u{301}\n\u{301}👨\u{200D}👩x").collect();
        assert_eq!(parts, ["a", "e\u{301}", "\n", "\u{301}", "👨\u{200D}👩", "x"]);
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
