//! Whether a plugin's version satisfies a dependency's version range, as Claude Code compares
//! them: npm's semver ranges (`^1.2`, `~1.2.3`, `>=1 <2`, `1.x`, `1.2 - 2`, `a || b`), a version
//! that is not semver coerced to its first `N[.N[.N]]`, and a pre-release version satisfying a
//! set only when one of its comparators names a pre-release of the same `major.minor.patch`.
//! A range that does not parse is satisfied by nothing.

use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Version {
    core: [u64; 3],
    pre: Vec<String>,
}

impl Version {
    fn new(core: [u64; 3]) -> Version {
        Version { core, pre: Vec::new() }
    }

    /// `core` with the lowest pre-release (`-0`), the bound npm writes as `<X.Y.Z-0`.
    fn floor(core: [u64; 3]) -> Version {
        Version { core, pre: vec!["0".to_string()] }
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.core.cmp(&other.core).then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => {
                for (a, b) in self.pre.iter().zip(&other.pre) {
                    let order = match (a.parse::<u64>(), b.parse::<u64>()) {
                        (Ok(x), Ok(y)) => x.cmp(&y),
                        (Ok(_), Err(_)) => Ordering::Less,
                        (Err(_), Ok(_)) => Ordering::Greater,
                        (Err(_), Err(_)) => a.cmp(b),
                    };
                    if order != Ordering::Equal {
                        return order;
                    }
                }
                self.pre.len().cmp(&other.pre.len())
            }
        })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
}

type Comparator = (Op, Version);

/// Whether `version` (a plugin's manifest `version`) satisfies `range`; `None` (no version)
/// satisfies nothing.
pub(super) fn satisfies(version: Option<&str>, range: &str) -> bool {
    let Some(version) = version.and_then(|v| strict(v).or_else(|| coerce(v))) else { return false };
    let Some(sets) = parse_range(range) else { return false };
    sets.iter().any(|set| {
        set.iter().all(|(op, bound)| match op {
            Op::Lt => version < *bound,
            Op::Le => version <= *bound,
            Op::Gt => version > *bound,
            Op::Ge => version >= *bound,
            Op::Eq => version == *bound,
        }) && (version.pre.is_empty()
            || set.iter().any(|(_, bound)| !bound.pre.is_empty() && bound.core == version.core))
    })
}

/// A full semver version (`1.2.3`, `v1.2.3-beta.1+build`), surrounding blanks allowed.
fn strict(text: &str) -> Option<Version> {
    let text = text.trim();
    let text = text.strip_prefix(['v', '=']).unwrap_or(text);
    let text = text.split_once('+').map_or(text, |(v, _)| v);
    let (core, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (text, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3 {
        return None;
    }
    let mut numbers = [0u64; 3];
    for (slot, part) in numbers.iter_mut().zip(&parts) {
        *slot = number(part)?;
    }
    let pre = match pre {
        None => Vec::new(),
        Some(pre) => {
            let ids: Vec<String> = pre.split('.').map(str::to_string).collect();
            let fine = |id: &String| {
                !id.is_empty()
                    && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !(id.len() > 1 && id.starts_with('0') && id.chars().all(|c| c.is_ascii_digit()))
            };
            if !ids.iter().all(fine) {
                return None;
            }
            ids
        }
    };
    Some(Version { core: numbers, pre })
}

/// A decimal number without a leading zero.
fn number(part: &str) -> Option<u64> {
    let fine = !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()) && (part == "0" || !part.starts_with('0'));
    fine.then(|| part.parse().ok()).flatten()
}

/// The first `N[.N[.N]]` of a text, the rest taken as 0 (npm's `coerce`).
fn coerce(text: &str) -> Option<Version> {
    let bytes = text.as_bytes();
    let start = bytes.iter().position(u8::is_ascii_digit)?;
    let mut core = [0u64; 3];
    let mut at = start;
    for (i, slot) in core.iter_mut().enumerate() {
        let end = at + bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        if end == at || end - at > 16 {
            if i == 0 {
                return None;
            }
            break;
        }
        *slot = text[at..end].parse().ok()?;
        if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) && i < 2 {
            at = end + 1;
        } else {
            break;
        }
    }
    Some(Version::new(core))
}

/// A partial version: up to three numbers or wildcards (`1`, `1.2`, `1.x`, `*`), then a
/// pre-release. The numbers given, and the pre-release.
fn partial(text: &str) -> Option<(Vec<u64>, Vec<String>)> {
    let text = text.strip_prefix(['v', '=']).unwrap_or(text);
    let text = text.split_once('+').map_or(text, |(v, _)| v);
    let (core, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, pre.split('.').map(str::to_string).collect()),
        None => (text, Vec::new()),
    };
    let mut numbers = Vec::new();
    for (i, part) in core.split('.').enumerate() {
        if i > 2 {
            return None;
        }
        if matches!(part, "x" | "X" | "*") {
            break;
        }
        if numbers.len() != i {
            return None;
        }
        numbers.push(number(part)?);
    }
    if numbers.len() < 3 && !pre.is_empty() {
        return None;
    }
    Some((numbers, pre))
}

fn full(numbers: &[u64], pre: Vec<String>) -> Version {
    Version { core: [numbers[0], numbers[1], numbers[2]], pre }
}

fn padded(numbers: &[u64]) -> [u64; 3] {
    [numbers.first().copied().unwrap_or(0), numbers.get(1).copied().unwrap_or(0), numbers.get(2).copied().unwrap_or(0)]
}

/// The version just past the last number given (`1.2` → `1.3.0`), for `len` of 1 or 2.
fn bump(numbers: &[u64]) -> [u64; 3] {
    match numbers {
        [major] => [major + 1, 0, 0],
        [major, minor, ..] => [*major, minor + 1, 0],
        [] => [0, 0, 0],
    }
}

/// The range as its `||` sets of comparators.
fn parse_range(range: &str) -> Option<Vec<Vec<Comparator>>> {
    range.split("||").map(|set| parse_set(set.trim())).collect()
}

fn parse_set(set: &str) -> Option<Vec<Comparator>> {
    // A hyphen range: `A - B`.
    let words: Vec<&str> = set.split_whitespace().collect();
    if let [low, "-", high] = words.as_slice() {
        let (low, low_pre) = partial(low)?;
        let (high, high_pre) = partial(high)?;
        let mut out = Vec::new();
        if !low.is_empty() {
            out.push((Op::Ge, Version { core: padded(&low), pre: low_pre }));
        }
        match high.len() {
            0 => {}
            3 => out.push((Op::Le, full(&high, high_pre))),
            _ => out.push((Op::Lt, Version::floor(bump(&high)))),
        }
        return Some(out);
    }
    // Comparators; an operator may stand apart from its version (`>= 1.2`).
    let mut joined: Vec<String> = Vec::new();
    let mut pending = String::new();
    for word in words {
        if matches!(word, "<" | "<=" | ">" | ">=" | "=" | "~" | "~>" | "^") {
            pending.push_str(word);
            continue;
        }
        joined.push(format!("{pending}{word}"));
        pending.clear();
    }
    if !pending.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for word in &joined {
        comparators(word, &mut out)?;
    }
    Some(out)
}

fn comparators(word: &str, out: &mut Vec<Comparator>) -> Option<()> {
    let (op, rest) = ["<=", ">=", "~>", "<", ">", "=", "~", "^"]
        .iter()
        .find_map(|op| word.strip_prefix(op).map(|rest| (*op, rest)))
        .unwrap_or(("", word));
    let (numbers, pre) = partial(rest)?;
    let n = numbers.len();
    match op {
        "^" => {
            if n == 0 {
                return Some(());
            }
            let low = Version { core: padded(&numbers), pre };
            let high = match (n, numbers[0], numbers.get(1).copied().unwrap_or(0)) {
                (_, major, _) if major > 0 => [major + 1, 0, 0],
                (1, 0, _) => [1, 0, 0],
                (2, 0, minor) => [0, minor + 1, 0],
                (_, 0, minor) if minor > 0 => [0, minor + 1, 0],
                _ => [0, 0, numbers[2] + 1],
            };
            out.push((Op::Ge, low));
            out.push((Op::Lt, Version::floor(high)));
        }
        "~" | "~>" => {
            if n == 0 {
                return Some(());
            }
            out.push((Op::Ge, Version { core: padded(&numbers), pre }));
            let high = if n == 1 { [numbers[0] + 1, 0, 0] } else { [numbers[0], numbers[1] + 1, 0] };
            out.push((Op::Lt, Version::floor(high)));
        }
        "" | "=" => match n {
            0 => {}
            3 => out.push((Op::Eq, full(&numbers, pre))),
            _ => {
                out.push((Op::Ge, Version::new(padded(&numbers))));
                out.push((Op::Lt, Version::floor(bump(&numbers))));
            }
        },
        ">" => match n {
            0 => out.push((Op::Lt, Version::floor([0, 0, 0]))),
            3 => out.push((Op::Gt, full(&numbers, pre))),
            _ => out.push((Op::Ge, Version::new(bump(&numbers)))),
        },
        ">=" => match n {
            0 => {}
            _ => out.push((Op::Ge, Version { core: padded(&numbers), pre })),
        },
        "<" => match n {
            0 => out.push((Op::Lt, Version::floor([0, 0, 0]))),
            3 => out.push((Op::Lt, full(&numbers, pre))),
            _ => out.push((Op::Lt, Version::floor(padded(&numbers)))),
        },
        "<=" => match n {
            0 => {}
            3 => out.push((Op::Le, full(&numbers, pre))),
            _ => out.push((Op::Lt, Version::floor(bump(&numbers)))),
        },
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::satisfies;

    #[test]
    fn npm_ranges() {
        let yes = [
            ("1.2.0", "1.2"),
            ("1.2.9", "~1.2.0"),
            ("1.9.0", "^1.2.0"),
            ("0.2.5", "^0.2.3"),
            ("1.2.0", ">=1.0.0 <1.2.1 || >=3"),
            ("3.0.0", ">=1.0.0 <1.2.0 || >=3"),
            ("2.3.4", "1.2.3 - 2.3.4"),
            ("2.9.9", "1.2 - 2"),
            ("1.0.0", "*"),
            ("1.0.0", ""),
            ("1.5.0", "1.x"),
            ("v1.2.3", "=1.2.3"),
            ("1.2", "^1.2.0"),
            ("1.3.0-beta.2", ">=1.3.0-beta.1 <2"),
            ("1.2.0", ">= 1.2"),
        ];
        for (version, range) in yes {
            assert!(satisfies(Some(version), range), "{version} satisfies {range}");
        }
        let no = [
            ("1.2.0", "^2.0.0"),
            ("1.3.0", "~1.2.0"),
            ("0.3.0", "^0.2.3"),
            ("0.0.4", "^0.0.3"),
            ("1.2.0", ">=1.0.0 <1.2.0 || >=3"),
            ("2.4.0", "1.2.3 - 2.3.4"),
            ("2.0.0-rc.1", "^1.0.0"),
            ("2.0.0-rc.1", "*"),
            ("1.0.0", "not a range"),
            ("1.0.0", ">"),
        ];
        for (version, range) in no {
            assert!(!satisfies(Some(version), range), "{version} does not satisfy {range}");
        }
        assert!(!satisfies(None, "*"), "no version satisfies nothing");
    }
}
