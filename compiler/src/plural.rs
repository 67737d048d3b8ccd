//! Counted nouns in human messages: `1 agent`, `2 agents`, `1 entry`, `3 entries`. Every
//! message for people that counts something says it through here, so none writes `agent(s)`
//! or `1 agents`. JSON output counts with numbers and needs none of this.

/// `n` and the noun, singular for exactly one: `count(1, "MCP server")` is `1 MCP server`,
/// `count(0, "file")` is `0 files`.
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {}", noun_for(n, noun))
}

/// The noun alone, as `count` would write it after `n` (for a verb or pronoun that agrees with
/// it: `1 file has`, `2 files have`).
pub(crate) fn noun_for(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        plural(noun)
    }
}

/// The plural of an English noun phrase: its last word inflected (`permission rule` →
/// `permission rules`, `entry` → `entries`, `match` → `matches`). Words the rules get wrong
/// are listed.
fn plural(noun: &str) -> String {
    let (head, last) = match noun.rfind(' ') {
        Some(i) => noun.split_at(i + 1),
        None => ("", noun),
    };
    let last = match last {
        // Counted as they stand: `2 infos` reads as ruff and cargo count them.
        "info" => "infos".to_string(),
        w if w.ends_with('y') && !w.ends_with("ay") && !w.ends_with("ey") && !w.ends_with("oy") => {
            format!("{}ies", &w[..w.len() - 1])
        }
        w if w.ends_with('s') || w.ends_with('x') || w.ends_with("sh") || w.ends_with("ch") => format!("{w}es"),
        w => format!("{w}s"),
    };
    format!("{head}{last}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(0, "agent"), "0 agents");
        assert_eq!(count(1, "agent"), "1 agent");
        assert_eq!(count(2, "agent"), "2 agents");
        assert_eq!(count(1, "MCP server"), "1 MCP server");
        assert_eq!(count(5, "permission rule"), "5 permission rules");
        assert_eq!(count(2, "entry"), "2 entries");
        assert_eq!(count(2, "key"), "2 keys");
        assert_eq!(count(2, "match"), "2 matches");
        assert_eq!(count(2, "info"), "2 infos");
        assert_eq!(count(2, "skill or command name"), "2 skill or command names");
        assert_eq!(noun_for(1, "file"), "file");
        assert_eq!(noun_for(3, "file"), "files");
    }
}
