//! Rule `listing-budget`: the Skill listing is over its budget and this skill loses its
//! description.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "listing-budget",
    severity: Severity::Warning,
    summary: "the Skill listing is over its budget and a skill loses its description",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Builds the Skill listing a session in the folder sends, as Claude Code builds it: the project's, the user's and the loaded plugins' skills and commands, then the bundled skills, with the settings' `skillListingBudgetFraction`, `skillListingMaxDescChars` and `skillOverrides`. The budget is the context window × bytes per token × `skillListingBudgetFraction` (1% by default): 30,000 characters for the default model's 1,000,000-token window. When the listing is over it, Claude Code keeps the bundled skills whole (built-in prompt commands such as `/init` excepted) and lists every other skill as `- name` alone, then gives descriptions back in order of use while they fit. This rule flags, at its `description`, each skill that would be listed without one, and says how far over the listing is and what would make it fit: the characters to cut from descriptions, how many skills to list `name-only` in `skillOverrides`, or the `skillListingBudgetFraction` that holds everything. The windows measured are capc.toml's `[listing-budget] context-windows` (default: the default model's). Usage counts (`skillUsage` in each user's `~/.claude.json`) are not known to a check: a skill someone uses often may get its description back in their sessions. `capc ls --budget` shows the whole listing, every entry with its characters and what is kept of it.

### Why is this bad?
The model chooses skills by their descriptions. A skill listed by name alone is rarely chosen: it stops triggering, with nothing in Claude Code's output to say so.

### Severity
Warning: Claude Code loads the skill, with its description dropped from what the model reads, which its author certainly meant it to read. A listing over budget is fixed by a maintainer's choice (shorter descriptions, `name-only` overrides, a larger fraction), so it is worth their time; the rule is off with `listing-budget = "off"` in `[rules]` for a team that accepts the cut.

### Example
```json
{ "skillListingBudgetFraction": 0.0005 }
```
With 1,500 characters for the listing in `.claude/settings.json`, the bundled skills alone take most of it: every project skill is listed by name.

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/settings
"##;
