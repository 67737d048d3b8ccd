//! `@` file mentions, as Claude Code attaches them to a user turn: the files and folders
//! a typed line (or, for a prompt command, its expanded prompt) names with `@path`, each read
//! before the turn as a pair of system reminders — `Called the Read tool with the following
//! input: {"file_path":…}` and its result (a folder: `Called the Bash tool …` with `ls DIR`).
//!
//! Measured on Claude Code:
//! - quoted mentions `@"my file.txt"` (after the start, whitespace or `。、？！`, not ending
//!   ` (agent)`) come first, then each other `@` after the start, whitespace or `。、？！`: the
//!   text up to whitespace, with its trailing characters outside `[0-9A-Za-z_]` stripped
//!   (`@docs/` is `docs`, `@café` is `caf`); deduplicated by their text; at most 100;
//! - `path#L2-3` (or `path#3`) reads lines 2 to 3 (offset 2, limit 2), `#3` line 3 alone;
//! - a missing path gives nothing; a file's lines are `N\tTEXT`, split on `\n` (a `\r` before
//!   it dropped; a trailing `\n` gives an empty last line); an empty file a warning;
//! - the first reminder is a user message of its own; the others are joined into the next one,
//!   and Claude Code's message merge ends each joined block but the last with `\n`; the last
//!   too when no reminder follows it in its message (settings that leave both attribution
//!   lines empty, in a folder outside git), since the prompt's message is merged after it.
//!
//! capc's own policy: it reads nothing outside the folder, the `--add-dir` folders and the
//! loaded plugins' roots (a symlink that leads out counts as outside). Such a mention, and one
//! capc does not reproduce (a file over [`MAX_BYTES`], one that is not UTF-8 text), is left out
//! with a note. Text holding `@[` goes through Claude Code's `claude-ref` links first;
//! that is not reproduced.

use std::path::{Component, Path, PathBuf};

/// The most mentions one turn reads.
pub(crate) const MAX_MENTIONS: usize = 100;

/// The largest file capc reads for a mention; Claude Code's Read has a token limit of its own
/// above which it answers differently, which capc does not reproduce.
pub(crate) const MAX_BYTES: u64 = 100_000;

/// Characters besides whitespace a mention may follow.
const BEFORE: [char; 4] = ['\u{3002}', '\u{3001}', '\u{FF1F}', '\u{FF01}'];

fn may_precede(c: Option<char>) -> bool {
    c.is_none_or(|c| c.is_whitespace() || BEFORE.contains(&c))
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The mentions of `text`, in the order Claude Code reads them.
pub(crate) fn extract(text: &str) -> Vec<String> {
    // Claude Code rewrites `@[…](claude-ref:…)` links first; capc reads the text as it is.
    let mut out: Vec<String> = Vec::new();
    let push = |m: String, out: &mut Vec<String>| {
        if !out.contains(&m) {
            out.push(m);
        }
    };
    // Quoted: `(?:^|[\s。、？！])@"([^"]+)"`, matches not overlapping.
    let mut quoted = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("@\"").map(|i| i + at) {
        let before = text[..i].chars().next_back();
        if may_precede(before) {
            let rest = &text[i + 2..];
            if let Some(end) = rest.find('"').filter(|&e| e > 0) {
                quoted.push(rest[..end].to_string());
                at = i + 2 + end + 1;
                continue;
            }
        }
        at = i + 1;
    }
    for q in quoted.into_iter().filter(|q| !q.ends_with(" (agent)")) {
        push(q, &mut out);
    }
    // Unquoted: each `@` after the start, whitespace or `。、？！`, up to whitespace.
    let mut at = 0;
    while let Some(i) = text[at..].find('@').map(|i| i + at) {
        if !may_precede(text[..i].chars().next_back()) {
            at = i + 1;
            continue;
        }
        let token_end = text[i..].find(char::is_whitespace).map_or(text.len(), |e| e + i);
        let token = &text[i + 1..token_end];
        at = token_end.max(i + 1);
        let kept = token.trim_end_matches(|c: char| !is_word(c));
        if !kept.is_empty() && !kept.starts_with('"') {
            push(kept.to_string(), &mut out);
        }
    }
    out.truncate(MAX_MENTIONS);
    out
}

/// A mention's path and line range (the pattern Claude Code matches,
/// `^([^#]+)(?:#(L|(?![^#]*#))(\d+)(?:-(\d+))?)?(?:#[^#]*)?$`): `(path, Some((offset, limit)))`.
pub(crate) fn parse_range(mention: &str) -> (&str, Option<(u64, u64)>) {
    let Some(hash) = mention.find('#') else { return (mention, None) };
    let (path, rest) = (&mention[..hash], &mention[hash + 1..]);
    if path.is_empty() {
        return (mention, None);
    }
    let lines = |spec: &str| -> Option<(u64, u64)> {
        let (start, end) = match spec.split_once('-') {
            Some((s, e)) => (s, Some(e)),
            None => (spec, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(start) || end.is_some_and(|e| !digits(e)) {
            return None;
        }
        let start: u64 = start.parse().ok()?;
        let limit = match end {
            Some(e) => e.parse::<u64>().ok()?.saturating_sub(start) + 1,
            None => 1,
        };
        Some((start, limit))
    };
    // `#L…` may be followed by one more `#fragment`; a bare `#3` only when no `#` follows.
    let range = match rest.strip_prefix('L') {
        Some(spec) => lines(spec.split_once('#').map_or(spec, |(s, _)| s)).filter(|_| rest.matches('#').count() <= 1),
        None => None,
    }
    .or_else(|| (!rest.contains('#')).then(|| lines(rest)).flatten());
    match range {
        Some(r) => (path, Some(r)),
        None if !rest.contains('#') => (path, None),
        None => (mention, None),
    }
}

/// What reading one mention gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MentionRead {
    /// The two reminders of the call and its result, without the joining `\n`.
    Blocks([String; 2]),
    /// Nothing (a missing path).
    Nothing,
    /// Left out, with the note saying why.
    Note(String),
}

/// The absolute path a mention names from `cwd`, `.` and `..` resolved as written (`~/` is
/// the user's home, when there is one).
pub(crate) fn resolve(cwd: &Path, home: Option<&Path>, path: &str) -> Option<PathBuf> {
    let joined = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        (Some(_), None) => return None,
        _ if path == "~" => home?.to_path_buf(),
        _ => cwd.join(path),
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

fn reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// `JSON.stringify` of a string, with `</system-reminder` kept from closing the reminder.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default().replace("</system-reminder", "&lt;/system-reminder")
}

/// Reads one mention: `mention` as written, `path` where it resolves, `inside` whether capc may
/// read there.
pub(crate) fn read(
    mention: &str,
    path: &Path,
    range: Option<(u64, u64)>,
    inside: impl Fn(&Path) -> bool,
) -> MentionRead {
    let Ok(meta) = std::fs::metadata(path) else { return MentionRead::Nothing };
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if !inside(&canonical) {
        return MentionRead::Note(format!(
            "`@{mention}` names {}, outside the folder and the plugins' roots: capc does not read it (Claude Code does)",
            path.display()
        ));
    }
    let shown = path.to_string_lossy();
    if meta.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return MentionRead::Nothing };
        // Directory (readdir) order, as `ls` in Claude Code's stand-in gives it.
        let names: Vec<String> =
            entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        let call = format!(
            "Called the Bash tool with the following input: {{\"command\":{},\"description\":{}}}",
            json_string(&format!("ls {shown}")),
            json_string(&format!("Lists files in {shown}"))
        );
        return MentionRead::Blocks([
            reminder(&call),
            reminder(&format!("Result of calling the Bash tool:\n{}", names.join("\n"))),
        ]);
    }
    if meta.len() > MAX_BYTES {
        return MentionRead::Note(format!(
            "`@{mention}`: a file over {MAX_BYTES} bytes; Claude Code's Read limits are not reproduced, so capc leaves it out"
        ));
    }
    // Only a regular file is read, opened without blocking: a named pipe (or a device) under the
    // mentioned name would otherwise hang the turn.
    let bytes = match capc_compiler::walk::read_regular(path, MAX_BYTES, capc_compiler::walk::Links::Follow) {
        Ok(bytes) => bytes,
        Err(capc_compiler::walk::ReadError::NotRegular(kind)) => {
            return MentionRead::Note(format!("`@{mention}` names {kind}, not a regular file: capc does not read it"));
        }
        Err(_) => return MentionRead::Nothing,
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return MentionRead::Note(format!(
            "`@{mention}`: not UTF-8 text (an image, a PDF, a binary); capc does not reproduce its read"
        ));
    };
    let mut input = format!("{{\"file_path\":{}", json_string(&shown));
    if let Some((offset, limit)) = range {
        input.push_str(&format!(",\"offset\":{offset},\"limit\":{limit}"));
    }
    input.push('}');
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len() as u64;
    let (first, count) = range.unwrap_or((1, total));
    let content = if text.is_empty() {
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>".to_string()
    } else if first.max(1) > total {
        format!("<system-reminder>Warning: the file exists but is shorter than the provided offset ({first}). The file has {total} lines.</system-reminder>")
    } else {
        let start = first.max(1);
        let shown_lines = lines.iter().enumerate().skip(start as usize - 1).take(count as usize);
        shown_lines
            .map(|(i, line)| format!("{}\t{}", i + 1, line.strip_suffix('\r').unwrap_or(line)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    MentionRead::Blocks([
        reminder(&format!("Called the Read tool with the following input: {input}")),
        reminder(&format!("Result of calling the Read tool:\n{content}")),
    ])
}

/// The blocks of every read, joined as Claude Code's message merge joins them: the first
/// alone, each later one but the last ended with `\n`. The last is ended too when it `closes`
/// its message, that is when no reminder joins the message after it (Claude Code sends the
/// instructions reminder, the attribution reminder and a repository's git context there); the
/// merge with the prompt's message then ends it with `\n` as well.
#[cfg(test)] // only the tests join whole reads; the session joins blocks (`join_blocks`)
pub(crate) fn join(reads: Vec<[String; 2]>, closes: bool) -> Vec<String> {
    join_blocks(reads.into_iter().flatten().collect(), closes)
}

/// A run of attachment blocks as the user turn carries them: each but the first ends with
/// `\n`, the last only when it `closes` its message (see [`join`]).
pub(crate) fn join_blocks(mut blocks: Vec<String>, closes: bool) -> Vec<String> {
    let n = blocks.len();
    for (i, b) in blocks.iter_mut().enumerate() {
        if i > 0 && (i + 1 < n || closes) {
            b.push('\n');
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_as_measured() {
        let body = r#"Look at @notes.txt and @"my file.txt", then @docs and @missing.txt, also @notes.txt#L2-3. Args: see @notes.txt"#;
        assert_eq!(extract(body), ["my file.txt", "notes.txt", "docs", "missing.txt", "notes.txt#L2-3"]);
        assert_eq!(extract("@café @docs/ x@five.txt (@five.txt#L4)"), ["caf", "docs"]);
        assert_eq!(extract("@./five.txt @/tmp/at/five.txt"), ["./five.txt", "/tmp/at/five.txt"]);
        assert_eq!(extract("说明。@a.md 、@b.md"), ["a.md", "b.md"]);
        // The token runs to whitespace, so a second `@` inside it is not another mention.
        assert_eq!(extract("说明。@a.md、@b.md"), ["a.md、@b.md"]);
        assert_eq!(extract(r#"@"Explore (agent)" @ @. @"x""#), ["x"]);
        assert!(extract("mail me at a@b.c").is_empty());
        let many: String = (0..120).map(|i| format!("@f{i} ")).collect();
        assert_eq!(extract(&many).len(), MAX_MENTIONS);
    }

    #[test]
    fn ranges_as_measured() {
        assert_eq!(parse_range("notes.txt#L2-3"), ("notes.txt", Some((2, 2))));
        assert_eq!(parse_range("five.txt#3"), ("five.txt", Some((3, 1))));
        assert_eq!(parse_range("five.txt#L2-9"), ("five.txt", Some((2, 8))));
        assert_eq!(parse_range("five.txt#L4#frag"), ("five.txt", Some((4, 1))));
        assert_eq!(parse_range("five.txt#intro"), ("five.txt", None));
        assert_eq!(parse_range("five.txt"), ("five.txt", None));
        assert_eq!(parse_range("a#b#c"), ("a#b#c", None));
        assert_eq!(parse_range("#L3"), ("#L3", None));
    }

    #[test]
    fn reads_files_folders_ranges() {
        let dir = std::env::temp_dir().join(format!("capc-mentions-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs")).expect("dir");
        std::fs::write(dir.join("notes.txt"), "line one\n\tline two\r\n\nline four\n").expect("write");
        std::fs::write(dir.join("docs/a.txt"), "a").expect("write");
        std::fs::write(dir.join("empty.txt"), "").expect("write");
        let everywhere = |_: &Path| true;
        let MentionRead::Blocks([call, result]) = read("notes.txt", &dir.join("notes.txt"), None, everywhere) else {
            panic!("notes.txt reads")
        };
        assert_eq!(
            call,
            format!(
                "<system-reminder>\nCalled the Read tool with the following input: {{\"file_path\":\"{}\"}}\n</system-reminder>",
                dir.join("notes.txt").display()
            )
        );
        assert_eq!(
            result,
            "<system-reminder>\nResult of calling the Read tool:\n1\tline one\n2\t\tline two\n3\t\n4\tline four\n5\t\n</system-reminder>"
        );
        let MentionRead::Blocks([call, result]) =
            read("notes.txt#L2-3", &dir.join("notes.txt"), Some((2, 2)), everywhere)
        else {
            panic!("range reads")
        };
        assert!(call.ends_with(".txt\",\"offset\":2,\"limit\":2}\n</system-reminder>"), "{call}");
        assert!(result.ends_with(":\n2\t\tline two\n3\t\n</system-reminder>"), "{result}");
        let MentionRead::Blocks([call, result]) = read("docs", &dir.join("docs"), None, everywhere) else {
            panic!("docs lists")
        };
        assert!(call.contains("{\"command\":\"ls "), "{call}");
        assert_eq!(result, "<system-reminder>\nResult of calling the Bash tool:\na.txt\n</system-reminder>");
        let MentionRead::Blocks([_, result]) = read("empty.txt", &dir.join("empty.txt"), None, everywhere) else {
            panic!("empty reads")
        };
        assert!(result.contains("Warning: the file exists but the contents are empty."));
        assert_eq!(read("missing.txt", &dir.join("missing.txt"), None, everywhere), MentionRead::Nothing);
        let outside = read("notes.txt", &dir.join("notes.txt"), None, |_: &Path| false);
        assert!(matches!(outside, MentionRead::Note(n) if n.contains("outside the folder")));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn joining() {
        let pair = |a: &str| [a.to_string(), format!("{a}!")];
        assert_eq!(join(vec![pair("a")], false), ["a", "a!"]);
        assert_eq!(join(vec![pair("a"), pair("b")], false), ["a", "a!\n", "b\n", "b!"]);
        // Nothing joins the last read's message after it: it is ended too.
        assert_eq!(join(vec![pair("a")], true), ["a", "a!\n"]);
        assert_eq!(join(vec![pair("a"), pair("b")], true), ["a", "a!\n", "b\n", "b!\n"]);
        assert_eq!(resolve(Path::new("/t"), None, "./x/../y.txt"), Some(PathBuf::from("/t/y.txt")));
        assert_eq!(resolve(Path::new("/t"), Some(Path::new("/h")), "~/y"), Some(PathBuf::from("/h/y")));
    }
}
