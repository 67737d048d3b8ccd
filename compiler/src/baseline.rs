//! Baselines: `capc check --write-baseline FILE` records today's findings, `capc check
//! --baseline FILE` reports only the findings not recorded, and `capc check --new-since REV`
//! compares with the findings of a git revision's tree the same way.
//!
//! A finding is known by a [`Key`]: its rule, its file and a fingerprint of the text its span
//! covers (whitespace runs folded, so re-indenting does not matter), or of its message when it
//! has no span. Line numbers are no part of it, so an edit above a finding keeps it baselined.
//! Identical findings in one file share a key and are counted: a baseline that recorded two
//! takes two, and a third is new. When a file holds more of one key than recorded, the last in
//! the file are the ones reported.
//!
//! The file is TOML (format `version = 1`): one `[[finding]]` table per key, sorted by path,
//! rule and fingerprint, with its count and the first occurrence's message for people
//! reviewing it; no time, no absolute path, so writing it twice changes nothing. Paths are
//! relative to the baseline file's folder, with `/`, so it reads the same from any folder.

use crate::check::Checked;
pub use crate::compared::{Applied, Gone};
use crate::diagnostic::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The format version this capc writes and reads.
pub const VERSION: u32 = 1;

/// A baseline file larger than this is refused (a finding takes about 200 bytes).
pub(crate) const MAX_BASELINE_BYTES: u64 = 64 * 1024 * 1024;

/// How a finding is recognised across edits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// Relative to the baseline's folder (or, for `--new-since`, the checked folder), `/`
    /// separated; `~/…` and `<…>/…` for the extra scopes, as reported.
    pub path: String,
    pub rule: String,
    pub fingerprint: String,
}

/// One recorded key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub count: usize,
    /// The message of the first occurrence, for review; not compared.
    pub message: String,
}

/// Recorded findings, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    pub entries: BTreeMap<Key, Recorded>,
}

/// The file as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    #[serde(default)]
    finding: Vec<FileEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    path: String,
    rule: String,
    fingerprint: String,
    count: usize,
    #[serde(default)]
    message: String,
}

/// The fingerprint of `diagnostic` in a file whose text is `text`: 16 hex digits of the
/// SHA-256 of the span's text with whitespace runs folded to one space, or of the message
/// when there is no span (or no text).
pub fn fingerprint(diagnostic: &Diagnostic, text: Option<&str>) -> String {
    let spanned = diagnostic.span.zip(text).and_then(|(span, text)| text.get(span.start..span.end));
    let input = match spanned {
        Some(covered) => format!("span\0{}", covered.split_whitespace().collect::<Vec<_>>().join(" ")),
        None => format!("message\0{}", diagnostic.message),
    };
    crate::secrets::sha256_hex(input.as_bytes())[..16].to_string()
}

/// The key of each of `checked`'s diagnostics, in order; `path_of` turns a reported path into
/// the key's. A text the check dropped is read again from `texts`, the check's
/// [`crate::Options::texts`].
pub fn keys(checked: &Checked, texts: &crate::walk::Texts, path_of: impl Fn(&str) -> String) -> Vec<Key> {
    let mut text: Option<(&str, Option<std::sync::Arc<str>>)> = None;
    checked
        .diagnostics
        .iter()
        .map(|d| {
            if text.as_ref().is_none_or(|(path, _)| *path != d.path) {
                text = Some((d.path.as_str(), checked.source(&d.path).and_then(|f| f.text_in(texts))));
            }
            Key {
                path: path_of(&d.path),
                rule: d.rule.to_string(),
                fingerprint: fingerprint(d, text.as_ref().and_then(|(_, t)| t.as_deref())),
            }
        })
        .collect()
}

impl Baseline {
    /// The baseline of these findings (key and message each).
    pub fn of<'a>(findings: impl IntoIterator<Item = (Key, &'a str)>) -> Baseline {
        let mut entries: BTreeMap<Key, Recorded> = BTreeMap::new();
        for (key, message) in findings {
            entries
                .entry(key)
                .or_insert_with(|| Recorded { count: 0, message: crate::secrets::mask_words(message).into_owned() })
                .count += 1;
        }
        Baseline { entries }
    }

    /// How many findings it records.
    pub fn findings(&self) -> usize {
        self.entries.values().map(|e| e.count).sum()
    }

    /// The file's text.
    pub fn encode(&self) -> String {
        let file = File {
            version: VERSION,
            finding: self
                .entries
                .iter()
                .map(|(k, e)| FileEntry {
                    path: k.path.clone(),
                    rule: k.rule.clone(),
                    fingerprint: k.fingerprint.clone(),
                    count: e.count,
                    message: e.message.clone(),
                })
                .collect(),
        };
        let body = toml::to_string(&file).unwrap_or_default();
        format!(
            "# capc baseline: findings `capc check --baseline` does not report (docs/adoption.md).\n\
             # Written by `capc check --write-baseline`; each finding is its file (relative to this\n\
             # file's folder), its rule and a fingerprint of the text it points at, not its line.\n\n{body}"
        )
    }

    /// Reads a baseline's text, refusing another format version.
    pub fn decode(text: &str) -> Result<Baseline, String> {
        if let Some(line) = crate::lock::write::too_deep(text) {
            return Err(format!("brackets nested too deep at line {line}"));
        }
        let file: File = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
            format!("{at}{}", e.message().trim().replace('\n', " "))
        })?;
        if file.version != VERSION {
            return Err(format!(
                "baseline format version {} is not supported (this capc reads version {VERSION}); write it again with `capc check --write-baseline`",
                file.version
            ));
        }
        let mut entries = BTreeMap::new();
        for e in file.finding {
            let key = Key { path: e.path, rule: e.rule, fingerprint: e.fingerprint };
            let entry = entries.entry(key).or_insert(Recorded { count: 0, message: e.message });
            entry.count += e.count;
        }
        Ok(Baseline { entries })
    }

    /// Reads the baseline at `path`: a regular file (not a link), at most
    /// [`MAX_BASELINE_BYTES`].
    pub fn read(path: &Path) -> Result<Baseline, String> {
        let shown = crate::printable::escape(&path.display().to_string()).into_owned();
        let bytes = crate::walk::read_regular(path, MAX_BASELINE_BYTES, crate::walk::Links::Refuse)
            .map_err(|e| format!("cannot read the baseline {shown}: {e}"))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("the baseline {shown} is not UTF-8 text"))?;
        Baseline::decode(&text).map_err(|e| format!("the baseline {shown} is not one capc reads: {e}"))
    }
}

/// What is left of a baseline while findings are matched against it.
#[derive(Debug, Clone, Default)]
pub struct Remaining {
    left: BTreeMap<Key, Recorded>,
    /// How many findings were matched.
    pub matched: usize,
}

impl Remaining {
    pub fn new(baseline: Baseline) -> Remaining {
        Remaining { left: baseline.entries, matched: 0 }
    }

    /// Whether a finding of `key` is in the baseline (and takes it).
    pub fn take(&mut self, key: &Key) -> bool {
        match self.left.get_mut(key) {
            Some(entry) if entry.count > 0 => {
                entry.count -= 1;
                self.matched += 1;
                true
            }
            _ => false,
        }
    }

    /// Removes from `checked` the diagnostics whose key (`keys[i]` for `diagnostics[i]`) the
    /// baseline holds, the first in order first.
    pub fn apply(&mut self, checked: &mut Checked, keys: &[Key]) {
        let mut at = 0;
        checked.diagnostics.retain(|_| {
            let baselined = keys.get(at).is_some_and(|k| self.take(k));
            at += 1;
            !baselined
        });
    }

    /// The recorded findings no finding took, for the paths `covered` says were checked;
    /// each path shown by `shown`.
    pub fn gone(&self, covered: impl Fn(&str) -> bool, shown: impl Fn(&str) -> String) -> Vec<Gone> {
        self.left
            .iter()
            .filter(|(k, e)| e.count > 0 && covered(&k.path))
            .map(|(k, e)| Gone {
                path: shown(&k.path),
                rule: k.rule.clone(),
                fingerprint: k.fingerprint.clone(),
                count: e.count,
                message: e.message.clone(),
            })
            .collect()
    }
}

/// `to` relative to `from` (both absolute and with links resolved), `/`-separated, with `..`
/// where `to` is outside `from`.
pub fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_string(), from.len() - common).collect();
    parts.extend(to[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

/// The key path of `path` (as a check of `root` reports it) in a baseline whose folder is
/// `dir`; `root` and `dir` absolute with links resolved. Paths of the extra scopes stay.
pub fn path_in(dir: &Path, root: &Path, path: &str) -> String {
    if path.starts_with("~/") || path.starts_with('<') {
        return path.to_string();
    }
    let mut full = PathBuf::from(root);
    full.extend(path.split('/').filter(|p| !p.is_empty()));
    relative(dir, &full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::span::Span;

    fn finding(rule: &'static str, path: &str, span: Option<(usize, usize)>, message: &str) -> Diagnostic {
        Diagnostic {
            rule,
            severity: Severity::Warning,
            path: path.to_string(),
            span: span.map(|(s, e)| Span::new(s, e)),
            message: message.into(),
            help: None,
            secret: false,
            fix: None,
            loads_anyway: false,
        }
    }

    #[test]
    fn fingerprints_follow_the_text_not_the_place() {
        let text = "{\n  \"author\": 1,\n  \"tags\": []\n}\n";
        let moved = "\n\n{\n  \"author\": 1,\n    \"tags\": []\n}\n";
        let at = |t: &str, what: &str| t.find(what).map(|s| (s, s + what.len()));
        let a = fingerprint(&finding("unknown-field", "p.json", at(text, "\"author\""), "x"), Some(text));
        let b = fingerprint(&finding("unknown-field", "p.json", at(moved, "\"author\""), "y"), Some(moved));
        assert_eq!(a, b, "lines above and the message do not matter when there is a span");
        let c = fingerprint(&finding("unknown-field", "p.json", at(text, "\"tags\""), "x"), Some(text));
        assert_ne!(a, c);
        // Whitespace inside the span is folded.
        let one = "a:  b\n";
        let two = "a: \n b\n";
        assert_eq!(
            fingerprint(&finding("r", "f", Some((0, one.len())), ""), Some(one)),
            fingerprint(&finding("r", "f", Some((0, two.len())), ""), Some(two))
        );
        // Without a span, the message tells findings apart.
        let d = fingerprint(&finding("shadowed-declaration", "m.json", None, "both answer to `/a`"), None);
        let e = fingerprint(&finding("shadowed-declaration", "m.json", None, "both answer to `/b`"), None);
        assert_ne!(d, e);
        assert_eq!(d.len(), 16);
    }

    #[test]
    fn identical_findings_are_counted() {
        let key = |fp: &str| Key { path: "a.md".into(), rule: "unknown-field".into(), fingerprint: fp.into() };
        let baseline = Baseline::of([(key("1"), "m"), (key("1"), "m"), (key("2"), "n")]);
        assert_eq!(baseline.findings(), 3);
        assert_eq!(baseline.entries[&key("1")].count, 2);
        let mut left = Remaining::new(baseline);
        assert!(left.take(&key("1")));
        assert!(left.take(&key("1")));
        assert!(!left.take(&key("1")), "a third identical finding is new");
        let gone = left.gone(|_| true, str::to_string);
        assert_eq!(gone.len(), 1);
        assert_eq!((gone[0].fingerprint.as_str(), gone[0].count), ("2", 1));
        assert!(left.gone(|p| p != "a.md", str::to_string).is_empty(), "only checked paths are gone");
    }

    #[test]
    fn the_file_is_deterministic_and_reads_back() {
        let key = |p: &str, fp: &str| Key { path: p.into(), rule: "unknown-field".into(), fingerprint: fp.into() };
        let a = Baseline::of([(key("b/x.json", "2"), "m \"q\"\n"), (key("a.md", "1"), "m"), (key("a.md", "1"), "m")]);
        let b = Baseline::of([(key("a.md", "1"), "m"), (key("a.md", "1"), "m"), (key("b/x.json", "2"), "m \"q\"\n")]);
        let text = a.encode();
        assert_eq!(text, b.encode(), "the order findings come in does not matter");
        assert!(text.contains("version = 1\n"), "{text}");
        assert!(text.find("a.md").unwrap_or(usize::MAX) < text.find("b/x.json").unwrap_or(0), "{text}");
        assert_eq!(Baseline::decode(&text), Ok(a));
        let e = Baseline::decode("version = 2\n").expect_err("another version");
        assert!(e.contains("version 2 is not supported"), "{e}");
        let e = Baseline::decode("version = 1\n[[finding]]\npath = \"a\"\n").expect_err("fields missing");
        assert!(e.contains("missing field `rule`"), "{e}");
        assert!(Baseline::decode(&format!("version = 1\nx = {}", "[".repeat(10_000))).is_err());
    }

    #[test]
    fn paths_are_relative_to_the_baseline_folder() {
        let root = Path::new("/r/repo/sub");
        assert_eq!(path_in(Path::new("/r/repo"), root, "a/b.md"), "sub/a/b.md");
        assert_eq!(path_in(Path::new("/r/repo/sub"), root, "a/b.md"), "a/b.md");
        assert_eq!(path_in(Path::new("/r/repo/sub"), root, ""), "");
        assert_eq!(path_in(Path::new("/r/other"), root, "a.md"), "../repo/sub/a.md");
        assert_eq!(path_in(Path::new("/r/repo"), root, "~/.claude/settings.json"), "~/.claude/settings.json");
    }
}
