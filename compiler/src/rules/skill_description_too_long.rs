//! Rule `skill-description-too-long`: a skill's description is cut in the listing.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "skill-description-too-long",
    severity: Severity::Warning,
    summary: "a skill's description is cut in the listing",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags skills whose description, as the Skill listing sends it, is longer than 1,536 characters (`skillListingMaxDescChars`'s default): `description` (its lines joined by spaces), ` - ` and `when_to_use`, with `<` and `>` written `&lt;` and `&gt;`, counted in UTF-16 units as Claude Code counts a string's length (an emoji counts two).

### Why is this bad?
The model sees only the first 1,536 characters when it decides which skill to use; the rest is dropped. The rule measures the very text `capc session` lists, so a description the listing cuts never passes.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The skill loads; the description is cut in the listing the model reads.

### Example
```markdown
---
description: (2,000 characters)
---
```

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/settings
"##;
