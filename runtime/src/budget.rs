//! The Skill listing's budget, measured for a checked folder: what `capc check` reports as
//! `listing-budget` and `capc ls --budget` shows.
//!
//! The listing is the one a session's plain turn sends ([`crate::listing`], compared with
//! Claude Code's own requests by the oracle tests): the lock the check resolved
//! (project, user and add-dir skills, the plugins that load) and the bundled skills, in a
//! trusted folder (a team measures the sessions it runs in its own repository), with the
//! settings a session reads — `skillListingBudgetFraction`, `skillListingMaxDescChars`,
//! `skillOverrides`, `disableBundledSkills`, `disableSlashCommands`, and
//! `SLASH_COMMAND_TOOL_CHAR_BUDGET` or `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS` set in a settings
//! file's `env` (and, for [`crate::cost`], `ENABLE_TOOL_SEARCH`) — merged user, project,
//! local, then managed, as Claude Code merges them (`settings_schema::merge`). The process environment is not read, so a
//! check gives the same answer on every machine.
//! Nothing else of a turn (usage scores, MCP prompts) is known before a session starts.

use crate::context::TurnContext;
use crate::listing::Kept;
use crate::loaded::{Loaded, Roots};
use capc_compiler::builtins::bundled_skills;
use capc_compiler::check::{locate, Measure};
use capc_compiler::config::ContextWindow;
use capc_compiler::decl::settings_schema::merge;
use capc_compiler::diagnostic::report_at;
use capc_compiler::frontmatter::{self, Parsed, Spans, Split};
use capc_compiler::span::Span;
use capc_compiler::{rules, walk, Checked, Diagnostic, Options};
use serde_json::{Map, Value};

/// The settings files a session in the checked folder reads, weakest first.
const SETTINGS: [&str; 4] = [
    "~/.claude/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    "<managed>/managed-settings.json",
];
/// Settings keys that change the listing.
const KEYS: [&str; 5] = [
    "skillListingBudgetFraction",
    "skillListingMaxDescChars",
    "skillOverrides",
    "disableBundledSkills",
    "disableSlashCommands",
];
/// Variables a settings file's `env` may set that change the listing or the tool pool.
const ENV: [&str; 4] = [
    "SLASH_COMMAND_TOOL_CHAR_BUDGET",
    "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS",
    // Tool search, for what the MCP tools cost (`crate::cost`).
    "ENABLE_TOOL_SEARCH",
    "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS",
];

/// The `listing-budget` measurement `capc check` runs, for these windows.
#[derive(Debug, Clone)]
pub(crate) struct ListingBudget {
    pub windows: Vec<ContextWindow>,
}

/// One entry of the listing.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ListingRow {
    /// The name the listing shows.
    pub name: String,
    /// The declaring file (`None`: a bundled skill).
    pub path: Option<String>,
    /// Characters of the entry in full (`- name: description`, cut to `skillListingMaxDescChars`).
    pub full: usize,
    /// Characters of `- name`.
    pub short: usize,
    pub kept: Kept,
    /// Its description can be shortened or dropped (a bundled skill keeps its form).
    #[serde(skip)]
    pub(crate) shortenable: bool,
}

/// The listing for one context window.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Measured {
    pub tokens: u64,
    pub bytes_per_token: u64,
    /// The fraction applied (`skillListingBudgetFraction`, else 0.01).
    pub fraction: f64,
    /// `SLASH_COMMAND_TOOL_CHAR_BUDGET` decides the budget instead of the window.
    pub budget_override: bool,
    pub budget: usize,
    /// The listing's characters with every description (line breaks counted).
    pub full: usize,
    /// The listing's characters as sent.
    pub sent: usize,
    /// In listing order.
    pub entries: Vec<ListingRow>,
}

impl Measured {
    /// Characters over the budget with every description kept (0 when it fits).
    pub fn over(&self) -> usize {
        self.full.saturating_sub(self.budget)
    }
}

/// What a session in the checked folder is asked in, for the listing: trusted, with the
/// settings' listing keys.
pub fn context(checked: &Checked, options: &Options) -> TurnContext {
    let mut merged = Value::Object(Map::new());
    for shown in SETTINGS {
        if !checked.files.iter().any(|f| *f.path == *shown) {
            continue;
        }
        let walk::Content::Text(text) = options.texts.read(&locate(options, shown)) else { continue };
        // A file that does not parse is ignored by Claude Code (and reported by `invalid-json`).
        let Ok(settings @ Value::Object(_)) = serde_json::from_str::<Value>(&text) else { continue };
        merge(&mut merged, &settings);
    }
    let mut flags: Map<String, Value> = Map::new();
    for key in KEYS {
        if let Some(value) = merged.get(key) {
            flags.insert(key.to_string(), value.clone());
        }
    }
    if let Some(Value::Object(env)) = merged.get("env") {
        for key in ENV {
            if let Some(value) = env.get(key) {
                flags.insert(key.to_string(), value.clone());
            }
        }
    }
    TurnContext { trusted: true, flags: flags.into_iter().collect(), ..TurnContext::default() }
}

/// The session's view of a checked folder: its resolved lock (shared with the check, without
/// the sources, which no listing reads), loaded as `capc session` loads it.
pub fn loaded(checked: &Checked, options: &Options) -> Loaded {
    let roots = Roots {
        root: options.root.clone(),
        user_dir: options.user_dir.clone(),
        managed_dir: options.managed_dir.clone(),
        add_dirs: options.add_dirs.clone(),
        plugin_dirs: options.plugin_dirs.clone(),
        add_dir_instructions: options.add_dir_instructions,
    };
    Loaded::new(checked.shared_lock(), roots)
}

/// The listing of a plain turn with `base`'s settings in `window`; `None` when the turn has no
/// Skill listing (no Skill tool, `CLAUDE_CODE_SIMPLE`, or nothing listed).
pub fn measure(loaded: &Loaded, base: &TurnContext, window: ContextWindow) -> Option<Measured> {
    let cx = TurnContext {
        context_window: Some(window.tokens),
        bytes_per_token: Some(window.bytes_per_token),
        ..base.clone()
    };
    let view = crate::turn::compute(loaded, &crate::mcp::McpState::default(), &cx);
    if view.skill_listing.is_empty() {
        return None;
    }
    let listed = crate::listing::entries(loaded, &view.commands, &cx);
    let plan = crate::listing::plan(&listed.entries, listed.budget, listed.max_desc);
    let entries = listed
        .entries
        .iter()
        .zip(&listed.decls)
        .enumerate()
        .map(|(i, (e, decl))| ListingRow {
            name: e.name.to_string(),
            path: decl.map(|d| loaded.lock.commands[d].path.clone()),
            full: plan.full[i],
            short: plan.short[i],
            kept: plan.kept[i],
            shortenable: e.keep == crate::listing::Keep::Normal,
        })
        .collect();
    let fraction = cx
        .flag_number("skillListingBudgetFraction")
        .filter(|f| *f >= 0.0 && f.is_finite())
        .unwrap_or(crate::listing::DEFAULT_BUDGET_FRACTION);
    let budget_override = cx.flag_number("SLASH_COMMAND_TOOL_CHAR_BUDGET").is_some_and(|c| c > 0.0 && c.is_finite());
    Some(Measured {
        tokens: window.tokens,
        bytes_per_token: window.bytes_per_token,
        fraction,
        budget_override,
        budget: plan.budget,
        full: plan.full_size(),
        sent: plan.sent_size(),
        entries,
    })
}

/// The listing of a checked folder for each window, in the order given.
pub(crate) fn measure_all(checked: &Checked, options: &Options, windows: &[ContextWindow]) -> Vec<Measured> {
    let loaded = loaded(checked, options);
    let cx = context(checked, options);
    windows.iter().filter_map(|w| measure(&loaded, &cx, *w)).collect()
}

/// A size the listing cannot exceed, from the lock alone: every command and bundled skill
/// listed in full. An entry's size never exceeds its text's bytes (no character is wider
/// than its UTF-8 bytes), and cutting a description adds at most its one-column `…`.
fn size_bound(lock: &capc_compiler::model::Lock) -> usize {
    let commands = lock.commands.iter().map(|c| {
        let description = c.description.as_deref().or(c.fallback_description.as_deref());
        2 + c.name.len()
            + c.display_name.as_ref().map_or(0, |d| 3 + d.len())
            + 2
            + description.map_or(0, |d| d.len())
            + c.when_to_use.as_ref().map_or(0, |w| 3 + w.len())
            + 1
    });
    let bundled = bundled_skills().iter().map(|b| {
        2 + b.name.len() + 2 + b.description.map_or(0, str::len) + b.when_to_use.map_or(0, |w| 3 + w.len()) + 1
    });
    let entries = lock.commands.len() + bundled_skills().len();
    commands.chain(bundled).sum::<usize>() + entries
}

/// The listing of a checked folder for each window, in the order given, with the windows that
/// have none (`None`): what `capc ls --budget` shows.
pub fn measure_each(
    checked: &Checked,
    options: &Options,
    windows: &[ContextWindow],
) -> Vec<(ContextWindow, Option<Measured>)> {
    let loaded = loaded(checked, options);
    let cx = context(checked, options);
    windows.iter().map(|w| (*w, measure(&loaded, &cx, *w))).collect()
}

/// The entries by what they cost (characters in full) descending, then by name and path.
pub(crate) fn by_cost(entries: &[ListingRow]) -> Vec<&ListingRow> {
    let mut rows: Vec<&ListingRow> = entries.iter().collect();
    rows.sort_by(|a, b| b.full.cmp(&a.full).then_with(|| a.name.cmp(&b.name)).then_with(|| a.path.cmp(&b.path)));
    rows
}

impl ListingRow {
    /// Characters of the entry as sent.
    pub fn sent(&self) -> usize {
        if self.kept == Kept::Full {
            self.full
        } else {
            self.short
        }
    }
}

/// What the listing keeps of an entry, in `capc ls --budget`'s words.
fn kept_word(kept: Kept) -> &'static str {
    match kept {
        Kept::Full => "kept",
        Kept::Dropped => "dropped",
        Kept::NameOnly => "name-only",
    }
}

/// `capc ls --budget`: for each window, the budget, the listing's size and every entry by
/// cost, with what Claude Code keeps of it. Repository text is escaped line by line.
pub fn to_text(measured: &[(ContextWindow, Option<Measured>)]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for (i, (window, m)) in measured.iter().enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        let Some(m) = m else {
            lines.push(format!(
                "Skill listing, a {}-token window: none (no Skill tool, or nothing to list)",
                window.tokens
            ));
            continue;
        };
        lines.push(format!(
            "Skill listing, {}: a budget of {} characters ({})",
            window_words(m),
            m.budget,
            budget_words(m)
        ));
        let state = if m.over() > 0 {
            format!("{} over the budget; {} characters as sent", m.over(), m.sent)
        } else {
            "within the budget".to_string()
        };
        lines.push(format!("  {} characters with every description, {state}", m.full));
        let count = |k: Kept| m.entries.iter().filter(|r| r.kept == k).count();
        let mut kinds = vec![format!("{} kept", count(Kept::Full))];
        if count(Kept::Dropped) > 0 {
            kinds.push(format!("{} dropped (listed as `- name`: over the budget)", count(Kept::Dropped)));
        }
        if count(Kept::NameOnly) > 0 {
            kinds.push(format!("{} name-only (`skillOverrides`)", count(Kept::NameOnly)));
        }
        lines.push(format!(
            "  {}, most characters first: {}",
            capc_compiler::plural::count(m.entries.len(), "entry"),
            kinds.join(", ")
        ));
        let rows = by_cost(&m.entries);
        let width = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(4).clamp(4, 64);
        lines.push(format!("  {:>6}  {:>6}  {:11}  {:width$}  {}", "chars", "sent", "description", "name", "path"));
        for r in rows {
            lines.push(format!(
                "  {:>6}  {:>6}  {:11}  {:width$}  {}",
                r.full,
                r.sent(),
                kept_word(r.kept),
                r.name,
                r.path.as_deref().unwrap_or("(bundled)")
            ));
        }
        if m.over() > 0 {
            lines.push(format!("  {}", fits(m)));
        }
    }
    let mut out = String::new();
    for line in lines {
        out.push_str(&capc_compiler::printable::escape(&line));
        out.push('\n');
    }
    out
}

/// `capc ls --budget --format json` (version 1): each window with its listing (`null`: none),
/// the entries by cost; then `more`'s keys (the tool surface, the totals).
pub fn to_json(measured: &[(ContextWindow, Option<Measured>)], more: Map<String, Value>) -> String {
    let windows: Vec<Value> = measured
        .iter()
        .map(|(window, m)| {
            let listing = m.as_ref().map(|m| {
                let entries: Vec<Value> = by_cost(&m.entries)
                    .into_iter()
                    .map(|r| {
                        serde_json::json!({"name": r.name, "path": r.path, "full": r.full, "short": r.short, "sent": r.sent(), "description": kept_word(r.kept)})
                    })
                    .collect();
                serde_json::json!({
                    "fraction": m.fraction,
                    "budget_override": m.budget_override,
                    "budget": m.budget,
                    "full": m.full,
                    "sent": m.sent,
                    "over": m.over(),
                    "entries": entries,
                })
            });
            serde_json::json!({"tokens": window.tokens, "bytes_per_token": window.bytes_per_token, "listing": listing})
        })
        .collect();
    let mut out = serde_json::json!({"version": 1, "windows": windows});
    if let Value::Object(map) = &mut out {
        map.extend(more);
    }
    let mut text =
        capc_compiler::printable::escape_json(&serde_json::to_string_pretty(&out).unwrap_or_default()).into_owned();
    text.push('\n');
    text
}

impl Measure for ListingBudget {
    fn findings(&self, checked: &Checked, options: &Options) -> Vec<Diagnostic> {
        // A listing within its budget drops nothing: when even the bound fits every window,
        // the lock is not loaded (a copy of it, its rules parsed) to be measured.
        if let Some(r) = &checked.resolution {
            let cx = context(checked, options);
            let bound = size_bound(&r.lock);
            let fits = |w: &ContextWindow| {
                bound
                    <= crate::listing::budget(
                        cx.flag_number("SLASH_COMMAND_TOOL_CHAR_BUDGET"),
                        w.tokens,
                        w.bytes_per_token,
                        cx.flag_number("skillListingBudgetFraction"),
                    )
            };
            if self.windows.iter().all(fits) {
                return Vec::new();
            }
        }
        let measured = measure_all(checked, options, &self.windows);
        // Each skill once, at the first window (in the order configured) that drops it. A
        // listing far over its budget drops thousands of skills: they are found by a map, and
        // the advice, the same for every skill a window drops, is made once per window and shared.
        let mut dropped: Vec<(&str, &str, usize, Vec<&Measured>)> = Vec::new();
        let mut seen: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
        for (w, m) in measured.iter().enumerate() {
            for row in m.entries.iter().filter(|r| r.kept == Kept::Dropped) {
                let Some(path) = row.path.as_deref() else { continue };
                match seen.get(&(path, row.name.as_str())) {
                    Some(&i) => dropped[i].3.push(m),
                    None => {
                        seen.insert((path, &row.name), dropped.len());
                        dropped.push((path, &row.name, w, Vec::new()));
                    }
                }
            }
        }
        let mut advice: Vec<Option<std::sync::Arc<str>>> = vec![None; measured.len()];
        let mut out = Vec::with_capacity(dropped.len());
        for (path, name, w, also) in dropped {
            let m = &measured[w];
            let also = if also.is_empty() {
                String::new()
            } else {
                let w: Vec<String> = also.iter().map(|m| window_words(m)).collect();
                format!("; also with {}", w.join(", "))
            };
            let message = format!(
                "Claude Code lists `{name}` as `- {name}`, without its description: the Skill listing takes {} characters \
                 with every description, {} over its budget of {} ({}){also}",
                m.full,
                m.over(),
                m.budget,
                budget_words(m),
            );
            let stamp = checked.source(path).map_or(0, |f| f.stamp);
            let span = match options.cache.as_deref().filter(|_| stamp != 0) {
                Some(cache) => {
                    cache.span_in(path, "description", stamp, &options.texts, || description_span(options, path))
                }
                None => description_span(options, path),
            };
            let help = advice[w].get_or_insert_with(|| fits(m).into()).clone();
            report_at(&mut out, path.to_string(), &rules::listing_budget::RULE, span, message).help(help);
        }
        out
    }
}

/// `a 1000000-token window`.
fn window_words(m: &Measured) -> String {
    format!("a {}-token window", m.tokens)
}

/// How the budget is made: `a 1000000-token window × 3 bytes per token × 0.01`.
fn budget_words(m: &Measured) -> String {
    if m.budget_override {
        return "`SLASH_COMMAND_TOOL_CHAR_BUDGET` in settings".to_string();
    }
    format!("{} × {} bytes per token × {}", window_words(m), m.bytes_per_token, m.fraction)
}

/// What would make the listing fit: shorter descriptions, name-only overrides, a larger
/// fraction (or character budget).
pub fn fits(m: &Measured) -> String {
    let over = m.over();
    let mut ways = Vec::new();
    let mut savings: Vec<(usize, &str)> =
        m.entries.iter().filter(|r| r.shortenable).map(|r| (r.full - r.short, r.name.as_str())).collect();
    let shortenable: usize = savings.iter().map(|(s, _)| s).sum();
    if over <= shortenable {
        ways.push(format!("shorten the listed descriptions by {over} characters in all"));
    }
    savings.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let (mut saved, mut k) = (0, 0);
    while saved < over && k < savings.len() {
        saved += savings[k].0;
        k += 1;
    }
    if saved >= over && k > 0 {
        let longest: Vec<String> = savings[..k.min(3)].iter().map(|(_, n)| format!("`{n}`")).collect();
        let more = if k > 3 { ", …" } else { "" };
        ways.push(format!(
            "list {} name-only in `skillOverrides` ({}{more})",
            capc_compiler::plural::count(k, "skill"),
            longest.join(", ")
        ));
    }
    if m.budget_override {
        ways.push(format!("raise `SLASH_COMMAND_TOOL_CHAR_BUDGET` to {}", m.full));
    } else if let Some(f) = fraction_that_fits(m) {
        ways.push(format!("set `skillListingBudgetFraction` to {f} in settings"));
    }
    if ways.is_empty() {
        return "the bundled skills alone fill the budget; nothing in the folder can make it fit".to_string();
    }
    format!("to fit: {}", ways.join(", or "))
}

/// The smallest fraction of four decimals whose budget holds the whole listing (at most 1).
fn fraction_that_fits(m: &Measured) -> Option<f64> {
    let chars = (m.tokens * m.bytes_per_token) as f64;
    let mut step = (m.full as f64 / chars * 10_000.0).ceil() as u64;
    loop {
        let f = step as f64 / 10_000.0;
        if f > 1.0 {
            return None;
        }
        if (chars * f).floor() as usize >= m.full {
            return Some(f);
        }
        step += 1;
    }
}

/// Where a listed file's `description` (else `when_to_use`) is written.
pub(crate) fn description_span(options: &Options, path: &str) -> Option<Span> {
    let walk::Content::Text(text) = options.texts.read(&locate(options, path)) else { return None };
    let Split::Found(block) = frontmatter::split(&text) else { return None };
    let Parsed::Fields { mut node, spans, .. } = frontmatter::parse(&text, &block) else { return None };
    if spans == Spans::Refinable {
        frontmatter::refine_spans(&text, &block, &mut node);
    }
    node.get("description").or(node.get("when_to_use")).map(|n| n.span)
}
