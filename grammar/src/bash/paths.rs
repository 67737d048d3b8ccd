//! Where a command reads and writes (Claude Code's path constraints): the working
//! directories, output and input redirections, the path arguments of commands that create,
//! change or remove files, or read them, and removals of a working directory.
//!
//! Every operand and target is turned into the paths it names by `super::resolve` (tilde forms,
//! `cd` destinations, globs), each judged as written and, when the caller supplies a
//! [`super::LinkResolver`], with its links followed: a path is inside only if it is inside both
//! as written and as it really is, and the message names the spelling that is outside.

use super::resolve::{is_glob, is_tilde_variant, Bases, GLOB_WRITE, SHELL_EXPANSION, TILDE_VARIANTS};
use super::{normalize, BashContext, PermissionMode};
use crate::{Behavior, Redirection, SimpleCommand, ToolCall};

/// What the path check says about one command or redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathVerdict {
    Fine,
    /// Every path written is approved by the mode (`acceptEdits`, inside) or an `Edit(…)` rule.
    Approved,
    /// An `Edit(…)` deny rule covers a written path.
    Deny(usize),
    /// A write inside the working directories: an allow rule for the command overrides it.
    AskInside(String),
    /// A write or read outside them: only the whole tool (`Bash`, `Bash(*)`) overrides it.
    AskOutside(String),
    /// Removing a working directory or a parent of one: nothing overrides it.
    Dangerous(String),
}

impl PathVerdict {
    /// Keeps the stricter of two verdicts (the first one of a kind wins).
    fn or(self, other: PathVerdict) -> PathVerdict {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
    fn rank(&self) -> u8 {
        match self {
            PathVerdict::Fine => 0,
            PathVerdict::Approved => 1,
            PathVerdict::AskInside(_) => 2,
            PathVerdict::AskOutside(_) => 3,
            PathVerdict::Dangerous(_) => 4,
            PathVerdict::Deny(_) => 5,
        }
    }
}

/// Commands whose operands are written (created, changed or removed).
const WRITERS: &[&str] = &["touch", "mkdir", "rm", "rmdir", "mv", "cp", "tee", "ln", "truncate", "install"];

/// Commands whose operands are read, and the verb of Claude Code's message (measured for `cat`,
/// `ls` and `cd`; capc says "read files from" for the others).
const READERS: &[(&str, &str)] = &[
    ("cat", "concatenate files from"),
    ("cd", "change directories to"),
    ("ls", "list files in"),
    ("cmp", "read files from"),
    ("cut", "read files from"),
    ("diff", "read files from"),
    ("du", "read files from"),
    ("fd", "read files from"),
    ("fdfind", "read files from"),
    ("file", "read files from"),
    ("find", "search files in"),
    ("fold", "read files from"),
    ("fmt", "read files from"),
    ("expand", "read files from"),
    ("unexpand", "read files from"),
    ("comm", "read files from"),
    ("paste", "read files from"),
    ("column", "read files from"),
    ("base64", "read files from"),
    ("md5sum", "read files from"),
    ("sha1sum", "read files from"),
    ("sha256sum", "read files from"),
    ("pr", "read files from"),
    ("numfmt", "read files from"),
    ("tsort", "read files from"),
    ("realpath", "read files from"),
    ("readlink", "read files from"),
    ("git", "read files from"),
    ("grep", "read files from"),
    ("egrep", "read files from"),
    ("fgrep", "read files from"),
    ("head", "read files from"),
    ("hexdump", "read files from"),
    ("jq", "read files from"),
    ("less", "read files from"),
    ("more", "read files from"),
    ("nl", "read files from"),
    ("od", "read files from"),
    ("rev", "read files from"),
    ("rg", "read files from"),
    ("sed", "read files from"),
    ("sort", "read files from"),
    ("stat", "read files from"),
    ("strings", "read files from"),
    ("tac", "read files from"),
    ("tail", "read files from"),
    ("tree", "read files from"),
    ("uniq", "read files from"),
    ("wc", "read files from"),
];

/// The path constraints of one simple command's operands, each resolved from every folder in
/// `bases`. Wrappers are seen through: `timeout 5 rm -rf /` removes `/`.
pub(crate) fn command_paths(
    command: &SimpleCommand,
    cx: &BashContext<'_>,
    bases: &Bases,
    rules: &[crate::SourcedRule],
) -> PathVerdict {
    let words = command.program_words();
    let Some(name) = words.first().map(|w| w.text.as_str()) else { return PathVerdict::Fine };
    let operands = operands(words);
    let mut verdict = PathVerdict::Fine;
    let sed_in_place = name == "sed" && words.iter().any(|w| w.text == "-i" || w.text.starts_with("--in-place"));
    if WRITERS.contains(&name) || sed_in_place {
        // `cp`, `mv`, `ln` and `install` write their last operand, or the folder `-t DIR`
        // (`--target-directory=DIR`) names, and read the others; `sed -i` writes its files
        // (after the script). A value glued to an option counts as written.
        let (written, read): (Vec<&str>, Vec<&str>) = match name {
            "cp" | "mv" | "ln" | "install" => {
                let (sources, target) = copy_operands(name, words);
                let read = if name == "mv" { Vec::new() } else { sources.clone() };
                let mut written: Vec<&str> = target.into_iter().chain(option_values(words)).collect();
                if name == "mv" {
                    written.extend(sources);
                }
                (written, read)
            }
            "sed" => (operands.iter().skip(1).copied().collect(), Vec::new()),
            _ => (operands.iter().copied().chain(option_values(words)).collect(), Vec::new()),
        };
        verdict = read_verdict(name, "read files from", read, cx, bases, rules);
        if !matches!(verdict, PathVerdict::Fine) {
            return verdict;
        }
        for operand in written {
            if is_tilde_variant(operand) {
                verdict = verdict.or(PathVerdict::AskOutside(TILDE_VARIANTS.to_owned()));
                continue;
            }
            for base in &bases.dirs {
                let path = cx.joined(base, operand);
                if name == "rm" || name == "rmdir" {
                    if let Some(dangerous) = dangerous_removal(&normalize(&path), cx) {
                        return PathVerdict::Dangerous(dangerous);
                    }
                }
                if is_glob(operand) {
                    verdict = verdict.or(PathVerdict::AskOutside(GLOB_WRITE.to_owned()));
                    continue;
                }
                verdict = verdict.or(write_verdict(name, &path, cx, rules, false));
            }
        }
        return verdict;
    }
    if let Some((_, verb)) = READERS.iter().find(|(reader, _)| *reader == name) {
        let read: Vec<&str> = match name {
            // The first operand is a pattern, a script or a filter; `-f FILE` is read too.
            "grep" | "egrep" | "fgrep" | "rg" | "sed" | "jq" | "fd" | "fdfind" => {
                // `fd` searches the folders `--search-path` and `--base-directory` name too
                // (their value the next word: the operand reading would take it for the pattern).
                let searched = words.windows(2).filter(|pair| {
                    matches!(name, "fd" | "fdfind")
                        && matches!(pair[0].text.as_str(), "--search-path" | "--base-directory")
                });
                operands
                    .iter()
                    .skip(1)
                    .copied()
                    .chain(pattern_files(words))
                    .chain(searched.map(|pair| pair[1].text.as_str()))
                    .collect()
            }
            "git" => git_paths(words),
            "find" => find_paths(words),
            "cd" => cd_destinations(words),
            _ => operands,
        };
        // `--files0-from=FILE` reads the names of the files to read from FILE: paths no check
        // sees before the command runs (as `xargs`).
        if let Some(word) = words.iter().find(|w| w.text.starts_with("--files0-from")) {
            return PathVerdict::AskOutside(format!(
                "{name} names '{}', a list of files read when it runs, which cannot be checked against the working \
                 directories for this session: {}.",
                word.text,
                cx.listed_dirs()
            ));
        }
        // A value glued to an option (`--from-file=PATH`, `-X/PATH`) is read too.
        let read: Vec<&str> = read.into_iter().chain(option_values(words)).collect();
        let roots = if read.is_empty() { vec!["."] } else { read.clone() };
        let verdict = read_verdict(name, verb, read, cx, bases, rules);
        if verdict != PathVerdict::Fine || !follows_links_below(name, words) {
            return verdict;
        }
        return links_below_verdict(name, verb, &roots, cx, bases, rules);
    }
    verdict
}

/// The path check of the paths `read` that command `name` reads.
fn read_verdict(
    name: &str,
    verb: &str,
    read: Vec<&str>,
    cx: &BashContext<'_>,
    bases: &Bases,
    rules: &[crate::SourcedRule],
) -> PathVerdict {
    {
        let unchecked = |operand: &str, why: &str| {
            PathVerdict::AskOutside(format!(
                "{name} names '{operand}'{why}, which cannot be checked against the working directories for this \
                 session: {}.",
                cx.listed_dirs()
            ))
        };
        for operand in read {
            if is_tilde_variant(operand) {
                return PathVerdict::AskOutside(TILDE_VARIANTS.to_owned());
            }
            if name == "cd" && operand == "-" {
                return unchecked(operand, " (the previous directory, $OLDPWD)");
            }
            // A glob such as `.*` also matches `..`; a device is no file of the project.
            let computed = operand.starts_with('.') && operand.contains(['*', '?', '[']);
            if computed || (operand.starts_with("/dev/") && name != "git") {
                return unchecked(operand, "");
            }
            for base in &bases.dirs {
                // A glob outside as written is outside whatever it matches: it is named as written.
                let written = cx.joined(base, operand);
                let paths = if cx.outside_spelling_as_written(&written) {
                    Ok(vec![written])
                } else {
                    cx.expand(base, operand, bases)
                };
                let Ok(paths) = paths else {
                    return unchecked(operand, " (a glob too wide, or matching a name that is not UTF-8)");
                };
                for path in paths {
                    let Some(path) = cx.outside_spelling(&path).filter(|path| !is_device(path)) else { continue };
                    if !allowed_by(rules, "Read", &path, cx) {
                        return PathVerdict::AskOutside(format!(
                            "{name} in '{path}' was blocked. For security, Claude Code may only {verb} the allowed \
                             working directories for this session: {}.",
                            cx.listed_dirs()
                        ));
                    }
                }
            }
        }
    }
    PathVerdict::Fine
}

/// The folders `find` searches: after its own options (`-H`, `-L`, `-P`, `-O3`, `-D OPTS`),
/// before the first expression.
fn find_paths(words: &[crate::ShellWord]) -> Vec<&str> {
    let mut texts = words[1..].iter().map(|w| w.text.as_str()).peekable();
    while let Some(&word) = texts.peek() {
        match word {
            "-H" | "-L" | "-P" => {}
            "-D" => {
                texts.next();
            }
            _ if word.starts_with("-O") && word[2..].bytes().all(|b| b.is_ascii_digit()) => {}
            _ => break,
        }
        texts.next();
    }
    texts.take_while(|w| !w.starts_with('-') && *w != "(" && *w != "!").collect()
}

/// The command follows links it meets while it recurses, so a committed link below a folder it
/// reads leads it outside: `grep -R` (`--dereference-recursive`), `diff -r` (unless
/// `--no-dereference`), `find -L`/`-follow`, `rg`/`fd -L` (`--follow`), `ls -RL`, `du -L`,
/// `tree -l`. A short option is looked for in every cluster (`-rN`, `-aL`), which may take in a
/// value that happens to hold the letter: stricter, never looser.
fn follows_links_below(name: &str, words: &[crate::ShellWord]) -> bool {
    let texts: Vec<&str> = words.iter().skip(1).map(|w| w.text.as_str()).collect();
    let short = |letter: char| {
        texts.iter().any(|w| w.len() > 1 && w.starts_with('-') && !w.starts_with("--") && w[1..].contains(letter))
    };
    let long =
        |option: &str| texts.iter().any(|w| *w == option || w.strip_prefix(option).is_some_and(|r| r.starts_with('=')));
    match name {
        "grep" | "egrep" | "fgrep" => short('R') || long("--dereference-recursive"),
        "rg" | "fd" | "fdfind" => short('L') || long("--follow"),
        "find" => texts.iter().any(|w| *w == "-L" || *w == "-follow"),
        "ls" => (short('R') || long("--recursive")) && (short('L') || long("--dereference")),
        "du" => short('L') || long("--dereference"),
        "tree" => short('l'),
        "diff" => (short('r') || long("--recursive")) && !long("--no-dereference"),
        _ => false,
    }
}

/// The path check of a reader that follows links below its `roots` ([`follows_links_below`];
/// none is `.`): every link under each root, at any depth, must lead inside.
fn links_below_verdict(
    name: &str,
    verb: &str,
    roots: &[&str],
    cx: &BashContext<'_>,
    bases: &Bases,
    rules: &[crate::SourcedRule],
) -> PathVerdict {
    for root in roots {
        for base in &bases.dirs {
            let Ok(paths) = cx.expand(base, root, bases) else { continue };
            for path in paths {
                match cx.link_out_below(&path, bases) {
                    Ok(None) => {}
                    Ok(Some(outside)) if allowed_by(rules, "Read", &outside, cx) => {}
                    Ok(Some(outside)) => {
                        return PathVerdict::AskOutside(format!(
                            "{name} in '{outside}' was blocked. For security, Claude Code may only {verb} the \
                             allowed working directories for this session: {}.",
                            cx.listed_dirs()
                        ))
                    }
                    Err(_) => {
                        return PathVerdict::AskOutside(format!(
                            "{name} follows links below '{root}', a tree too wide to check (or with a name that is \
                             not UTF-8) against the working directories for this session: {}.",
                            cx.listed_dirs()
                        ))
                    }
                }
            }
        }
    }
    PathVerdict::Fine
}

/// The short options of `cp`, `mv`, `ln` and `install` that take a value, and their long forms
/// that may take it as the next word.
const COPY_VALUED_SHORT: &str = "tSmog";
const COPY_VALUED_LONG: &[&str] = &["--target-directory", "--suffix", "--mode", "--owner", "--group", "--backup"];

/// The sources of `cp`, `mv`, `ln` or `install` and the path written: the `-t DIR` folder
/// (`-tDIR`, `--target-directory[=]DIR`) when there is one, else the last operand.
fn copy_operands<'w>(name: &str, words: &'w [crate::ShellWord]) -> (Vec<&'w str>, Option<&'w str>) {
    let valued_short = if name == "install" { COPY_VALUED_SHORT } else { "tS" };
    let mut operands = Vec::new();
    let mut target = None;
    let mut options = true;
    let mut iter = words.iter().skip(1).map(|w| w.text.as_str());
    while let Some(word) = iter.next() {
        if options && word == "--" {
            options = false;
        } else if options && word.starts_with("--") {
            let (option, value) = word.split_once('=').map_or((word, None), |(o, v)| (o, Some(v)));
            // `--backup` takes its value only glued.
            let value = match value {
                Some(value) => Some(value),
                None if COPY_VALUED_LONG.contains(&option) && option != "--backup" => iter.next(),
                None => None,
            };
            if option == "--target-directory" {
                target = value;
            }
        } else if options && word.starts_with('-') && word != "-" {
            // A cluster of flags; the first that takes a value takes the rest, or the next word.
            if let Some(at) = word[1..].find(|c| valued_short.contains(c)).map(|at| at + 1) {
                let glued = &word[at + 1..];
                let value = if glued.is_empty() { iter.next() } else { Some(glued) };
                if word[at..].starts_with('t') {
                    target = value;
                }
            }
        } else {
            operands.push(word);
        }
    }
    match target {
        Some(target) => (operands, Some(target)),
        None => {
            let last = operands.pop();
            (operands, last)
        }
    }
}

/// Values glued to options that may name a path: `--name=VALUE`, and the rest of a short
/// option cluster from its first `/`, `~`, `.` or `$` (`-X/etc/f`, `-t~/d`), which any
/// value-taking short option could take. Options are read before `--`.
fn option_values(words: &[crate::ShellWord]) -> Vec<&str> {
    let mut out = Vec::new();
    for word in words.iter().skip(1).map(|w| w.text.as_str()) {
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            if let Some((_, value)) = long.split_once('=') {
                if !value.is_empty() {
                    out.push(value);
                }
            }
        } else if let Some(short) = word.strip_prefix('-') {
            if let Some(at) = short.find(['/', '~', '.', '$']) {
                // A lone `/` or `.` is a separator (`cut -d/`, `sort -t.`), not a path.
                if at > 0 && short.len() - at > 1 {
                    out.push(&short[at..]);
                }
            }
        }
    }
    out
}

/// Where `cd` goes: its operands (`-` is `$OLDPWD`), or with none (`cd`, `cd --`, `cd -P`) the
/// home folder.
pub(crate) fn cd_destinations(words: &[crate::ShellWord]) -> Vec<&str> {
    let destinations = operands(words);
    if destinations.is_empty() {
        vec!["~"]
    } else {
        destinations
    }
}

/// The path constraints of redirections: writes to files, and reads from outside, each target
/// resolved from every folder in `bases`.
pub(crate) fn redirection_paths(
    redirections: &[&Redirection],
    cx: &BashContext<'_>,
    bases: &Bases,
    rules: &[crate::SourcedRule],
) -> PathVerdict {
    let mut verdict = PathVerdict::Fine;
    for redirection in redirections {
        let target = redirection.target.as_str();
        if redirection.writes_file() {
            if target.starts_with('~') || is_glob(target) {
                verdict = verdict.or(PathVerdict::AskOutside(SHELL_EXPANSION.to_owned()));
                continue;
            }
            for base in &bases.dirs {
                verdict = verdict.or(write_verdict("Output redirection", &cx.joined(base, target), cx, rules, true));
            }
        } else if redirection.reads_file() {
            if is_tilde_variant(target) {
                verdict = verdict.or(PathVerdict::AskOutside(TILDE_VARIANTS.to_owned()));
                continue;
            }
            let relative = !target.starts_with('/') && !target.starts_with('~') && !target.starts_with("$HOME");
            if is_glob(target) || (bases.cd && relative) {
                verdict = verdict.or(PathVerdict::AskOutside(format!(
                    "Input redirection from '{target}' requires manual approval: the file it names depends on glob \
                     expansion or a directory change in the same command."
                )));
                continue;
            }
            for base in &bases.dirs {
                let path = cx.joined(base, target);
                let Some(path) = cx.outside_spelling(&path).filter(|path| !is_device(path)) else { continue };
                if !allowed_by(rules, "Read", &path, cx) {
                    verdict = verdict.or(PathVerdict::AskOutside(format!(
                        "Input redirection from '{path}' was blocked. For security, Claude Code may only read files \
                         in the allowed working directories for this session: {}.",
                        cx.listed_dirs()
                    )));
                }
            }
        }
    }
    verdict
}

fn write_verdict(
    what: &str,
    path: &str,
    cx: &BashContext<'_>,
    rules: &[crate::SourcedRule],
    redirection: bool,
) -> PathVerdict {
    // `Edit(…)` rules judge the path as written and, through a link, where it leads: a deny of
    // either denies, an allow must cover both.
    let written = normalize(path);
    let spellings: Vec<String> =
        std::iter::once(written.clone()).chain(cx.real_spelling(path).filter(|real| *real != written)).collect();
    if let Some(index) =
        spellings.iter().find_map(|spelling| matching_rule(rules, Behavior::Deny, "Edit", spelling, cx))
    {
        return PathVerdict::Deny(index);
    }
    if spellings.iter().all(|spelling| allowed_by(rules, "Edit", spelling, cx)) {
        return PathVerdict::Approved;
    }
    let outside = cx.outside_spelling(path);
    let path = outside.as_deref().unwrap_or(&written);
    let subject = if redirection { format!("{what} to '{path}'") } else { format!("{what} in '{path}'") };
    if outside.is_none() {
        if cx.mode == PermissionMode::AcceptEdits {
            return PathVerdict::Approved;
        }
        PathVerdict::AskInside(format!(
            "{subject} needs approval. The path is inside the working directories for this session ({}), and Claude \
             Code asks before a shell command creates, changes or removes files there.",
            cx.listed_dirs()
        ))
    } else {
        PathVerdict::AskOutside(format!(
            "{subject} needs approval. The path is outside the working directories for this session ({}). Allowing \
             runs the command as written.",
            cx.listed_dirs()
        ))
    }
}

/// The files `-f FILE`, `--file=FILE` (and `-fFILE`, a cluster ending in `f` such as `-if
/// FILE`) name: patterns read from a file; and the lists `--exclude-from`, `--include-from` and
/// `--ignore-file` read, their value glued or the next word (as Claude Code reads them).
fn pattern_files(words: &[crate::ShellWord]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut iter = words.iter().skip(1).map(|w| w.text.as_str());
    let cluster_ending_in_f =
        |word: &str| word.len() > 2 && word.ends_with('f') && word[1..].bytes().all(|b| b.is_ascii_alphabetic());
    while let Some(word) = iter.next() {
        if word == "--" {
            break;
        }
        if matches!(word, "-f" | "--file" | "--from-file" | "--exclude-from" | "--include-from" | "--ignore-file")
            || (word.starts_with('-') && !word.starts_with("--") && cluster_ending_in_f(word))
        {
            out.extend(iter.next());
        } else if let Some(file) = word.strip_prefix("--file=").or_else(|| word.strip_prefix("--from-file=")) {
            out.push(file);
        } else if let Some(file) = word.strip_prefix("-f").filter(|file| !file.is_empty() && !word.starts_with("--")) {
            out.push(file);
        }
    }
    out
}

/// The paths `git diff` (every operand: `--no-index` compares any two files) and `git grep`
/// (its operands after the pattern) read; other subcommands read from the repository.
fn git_paths(words: &[crate::ShellWord]) -> Vec<&str> {
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    let Some(at) = texts.iter().skip(1).position(|w| !w.starts_with('-')).map(|i| i + 1) else { return Vec::new() };
    let after: Vec<&str> = texts[at + 1..].iter().copied().filter(|w| *w != "--" && !w.starts_with('-')).collect();
    match texts[at] {
        "diff" => after,
        "grep" => after.into_iter().skip(1).chain(pattern_files(&words[at..])).collect(),
        // `-X FILE` reads exclude patterns from FILE (`--exclude-from=FILE` is a glued value).
        "ls-files" => texts[at + 1..].windows(2).filter(|pair| pair[0] == "-X").map(|pair| pair[1]).collect(),
        _ => Vec::new(),
    }
}

/// `/dev/null` and the standard streams, which every command may read.
fn is_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdin" | "/dev/stdout" | "/dev/stderr" | "/dev/tty")
}

/// `rm` of `/`, home, a working directory or a parent of one.
fn dangerous_removal(path: &str, cx: &BashContext<'_>) -> Option<String> {
    let is_parent_or_same = |dir: &str| dir == path || path == "/" || dir.starts_with(&format!("{path}/"));
    let dangerous = path == "/" || path == cx.home || cx.working_dirs().any(is_parent_or_same);
    dangerous.then(|| {
        format!(
            "Dangerous rm operation detected: '{path}'\n\nThis command would remove a workspace directory (the working \
             directory, an additional working directory, or one of their parent directories). This requires explicit \
             approval and cannot be auto-allowed by permission rules."
        )
    })
}

/// The operands of a command: its words after the name that are not options (`--` ends options).
fn operands(words: &[crate::ShellWord]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut options = true;
    for word in words.iter().skip(1) {
        let text = word.text.as_str();
        if options && text == "--" {
            options = false;
            continue;
        }
        if options && text.starts_with('-') && text != "-" {
            continue;
        }
        out.push(text);
    }
    out
}

/// A read of `path` (absolute, `..` kept) passes the path check: inside, or allowed by a `Read(…)` rule.
pub(crate) fn read_allowed(path: &str, cx: &BashContext<'_>, rules: &[crate::SourcedRule]) -> bool {
    cx.outside_spelling(path).is_none_or(|outside| allowed_by(rules, "Read", &outside, cx))
}

fn allowed_by(rules: &[crate::SourcedRule], tool: &str, path: &str, cx: &BashContext<'_>) -> bool {
    matching_rule(rules, Behavior::Allow, tool, path, cx).is_some()
}

/// The first path rule (`Edit(…)`, `Read(…)`) of `behavior` covering `path` for `tool`.
fn matching_rule(
    rules: &[crate::SourcedRule],
    behavior: Behavior,
    tool: &str,
    path: &str,
    cx: &BashContext<'_>,
) -> Option<usize> {
    let call = ToolCall::new(tool).with_primary(path);
    rules.iter().position(|rule| {
        rule.behavior == behavior
            && rule.rule.content.is_some()
            && rule.rule.matches(
                behavior,
                &call,
                &crate::MatchContext { cwd: cx.cwd, home: cx.home, settings_dir: rule.settings_dir.as_deref() },
            )
    })
}
