//! Commands Claude Code runs without any rule because they only read: `echo`, `ls`,
//! `cat`, `grep`, `git status`, `git log`, … Its structure is followed here:
//!
//! 1. `command`, `builtin`, `noglob` and `timeout N` in front are looked through (`nice`, `env`,
//!    `nohup` are not: `env CMD` needs a rule).
//! 2. A few commands are decided by name ([`by_name`]): those read-only with any argument (`cat`,
//!    `head`, `wc`, …), `echo`, `ls`, `cd`, `find` without actions, `printf` without `-v` and
//!    with a format that cannot run code, exact lines such as `node --version`.
//! 3. The others must be in the flag table ([`super::flags::table`], extracted from the binary's
//!    own table): every option must be one the command lists, spelled in full (no
//!    abbreviations), a value-taking option must have a value of its kind, short options may
//!    be combined only when none of them takes a value, `xargs` may only start `echo`,
//!    `printf`, `wc`, `grep`, `egrep`, `fgrep`, `head` or `tail`; then a per-command check
//!    ([`dangerous`]) refuses what the flags alone allow (`git log --format` naming a signature
//!    check, `ps e`, `date` setting the clock, a `git branch` that creates one, …).
//!
//! Where Claude Code's check needs something capc does not model, the reading here is
//! stricter: the command needs a rule. Which arguments are paths, and whether they stay inside
//! the working directories, is `paths.rs`'s part.

use super::dangerous::{dangerous, docker_dangerous, is_digits, is_plain_operand, ARITHMETIC_TESTS};
use super::flags::table;
use super::spec::{FlagKind, FlagSpec};

/// Read-only with any arguments (which of them are paths is checked elsewhere).
const ANY_ARGUMENTS: &[&str] = &[
    "cal", "uptime", "cat", "head", "tail", "wc", "stat", "strings", "hexdump", "od", "nl", "id", "uname", "free",
    "df", "du", "locale", "groups", "nproc", "basename", "dirname", "realpath", "cut", "paste", "tr", "column", "tac",
    "rev", "fold", "expand", "unexpand", "fmt", "comm", "cmp", "numfmt", "readlink", "diff", "true", "false", "sleep",
    "type", "expr", "seq", "tsort", "pr",
];

/// Whole command lines that are read-only as they are.
const EXACT: &[&[&str]] = &[
    &["claude", "-h"],
    &["claude", "--help"],
    &["node", "-v"],
    &["node", "--version"],
    &["python", "--version"],
    &["python3", "--version"],
    &["ip", "addr"],
];

/// What `xargs` may start: the words it appends cannot change what these do.
const XARGS_TARGETS: &[&str] = &["echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail"];

/// The `find` actions that run commands, write files or read a list of names from a file.
pub(crate) const FIND_ACTIONS: &[&str] = &[
    "-delete",
    "-rm",
    "-exec",
    "-execdir",
    "-ok",
    "-okdir",
    "-fprint",
    "-fprint0",
    "-fls",
    "-fprintf",
    "-files0-from",
];

/// Is this command read-only? `words` are its words after quote removal, `text` its source text.
pub(crate) fn is_read_only(words: &[&str], text: &str) -> bool {
    let argv = look_through(words);
    let Some(&name) = argv.first() else { return false };
    if name == "cd" && !text.trim_start().starts_with(words[0]) {
        return false; // an assignment in front: stricter than Claude Code's reading
    }
    if let Some(verdict) = by_name(argv) {
        return verdict;
    }
    // A wrapper in front of a program named by a path or with odd characters hides what runs.
    if argv.len() != words.len() && !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b)) {
        return false;
    }
    if text.contains('`') || argv.iter().any(|word| word.contains('$')) {
        return false;
    }
    // Claude Code matches these against the line as written: an assignment in front fails.
    let bare = text.trim_start().starts_with(name) || argv.len() != words.len();
    in_flag_table(argv, text, bare) || (bare && by_pattern(argv))
}

/// `command [-p] [--] X`, `builtin [--] X`, `noglob X`, `timeout N X` → `X …`.
fn look_through<'w, 'a>(words: &'w [&'a str]) -> &'w [&'a str] {
    let mut argv = words;
    loop {
        match argv {
            ["command", rest @ ..] => {
                let mut at = rest
                    .iter()
                    .take_while(|w| !w.is_empty() && w.bytes().skip(1).all(|b| b == b'p') && w.starts_with("-p"))
                    .count();
                if rest.get(at) == Some(&"--") {
                    at += 1;
                }
                match rest.get(at) {
                    Some(next) if !next.starts_with('-') => argv = &rest[at..],
                    _ => return argv,
                }
            }
            ["builtin", "--", next, ..] | ["builtin", next, ..] if *next != "--" || argv.len() > 2 => {
                argv = &argv[if argv[1] == "--" { 2 } else { 1 }..];
            }
            ["noglob", _, ..] => argv = &argv[1..],
            ["timeout", duration, next, ..]
                if is_duration(duration) && !matches!(*next, "[[" | "alias" | "cd" | "help" | "history" | "type") =>
            {
                argv = &argv[2..]
            }
            _ => return argv,
        }
    }
}

/// `5`, `1.5`, `10s`, `2m`.
fn is_duration(text: &str) -> bool {
    let number = text.strip_suffix(['s', 'm', 'h', 'd']).unwrap_or(text);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, "0"));
    !whole.is_empty() && !fraction.is_empty() && whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
}

/// The commands decided by their name; `None` for the rest.
fn by_name(argv: &[&str]) -> Option<bool> {
    let (&name, args) = argv.split_first()?;
    if matches!(name, "pwd" | "whoami") {
        return Some(args.is_empty());
    }
    // `alias` defines shell code; `xargs` names paths only known when it runs, which the check
    // of reads outside the working directories cannot see (Claude Code asks for each).
    if matches!(name, "alias" | "xargs") {
        return Some(false);
    }
    if EXACT.contains(&argv) || ANY_ARGUMENTS.contains(&name) {
        return Some(true);
    }
    if let ["docker", "ps" | "images", rest @ ..] = argv {
        return Some(!docker_dangerous(rest));
    }
    Some(match name {
        "echo" | "ls" => true,
        // Where it goes is checked with the paths (`cd /tmp` asks).
        "cd" => args.len() <= 1 && args.iter().all(|arg| !arg.starts_with('-')),
        "printf" => printf_read_only(args),
        "[[" => double_bracket_read_only(args),
        // `[ … ]` is `test`: read-only unless it evaluates a subscript (`-v 'x[$(cmd)]'`).
        "[" => args.split_last().is_some_and(|(last, inner)| *last == "]" && double_bracket_read_only(inner)),
        "find" => !args.iter().any(|arg| FIND_ACTIONS.contains(arg)),
        "history" => matches!(args, [] | [_]) && args.iter().all(|arg| is_digits(arg)),
        "arch" => matches!(args, [] | ["-h" | "--help"]),
        "ifconfig" => {
            matches!(args, [] | [_]) && args.iter().all(|arg| arg.starts_with(|c: char| c.is_ascii_alphabetic()))
        }
        // `jq` can read the environment (`env`, `$ENV`) and files (`-f`, `--rawfile`, `import`).
        "jq" if args.iter().any(|arg| jq_reaches_out(arg)) => false,
        _ => return None,
    })
}

/// An argument of `jq` that reads the environment or a file, or runs a test suite:
/// `-f`/`-L` (also combined, `-nf`), `--rawfile`, `--slurpfile`, `env`, `$ENV`, `import`,
/// `include`, `system(`.
fn jq_reaches_out(arg: &str) -> bool {
    if let Some(letters) = arg.strip_prefix('-').filter(|rest| !rest.starts_with('-')) {
        let letters: String = letters.chars().take_while(char::is_ascii_alphabetic).collect();
        if letters.contains(['f', 'L']) {
            return true;
        }
    }
    if ["--from-file", "--rawfile", "--slurpfile", "--argfile", "--run-tests", "--library-path"]
        .iter()
        .any(|flag| arg.starts_with(flag))
    {
        return true;
    }
    let word = |w: &str| {
        arg.match_indices(w).any(|(at, _)| {
            let before = arg[..at].chars().next_back();
            let after = arg[at + w.len()..].chars().next();
            let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            boundary(before) && boundary(after)
        })
    };
    word("env")
        || word("include")
        || word("import")
        || arg.contains("system(")
        || arg.contains("system (")
        || arg.contains("$ENV")
        || arg.contains("$__loc__")
        || arg.contains('$')
}

/// `printf FORMAT [ARG…]`: no option (`-v VAR` sets a variable), a format without `\u`
/// escapes or octal/hex escapes after a conversion flag, and, when the format converts numbers,
/// plain numbers as arguments (bash evaluates `a[$(cmd)]` in a numeric argument).
fn printf_read_only(args: &[&str]) -> bool {
    if args.first().is_some_and(|first| first.starts_with('-') && *first != "--") {
        return false;
    }
    let start = usize::from(args.first() == Some(&"--"));
    let format = args.get(start).copied().unwrap_or("");
    if format.contains('$') || format.contains("\\u") || format.contains("\\U") {
        return false;
    }
    let plain = format.replace("%%", "");
    if has_escaped_conversion(&plain) {
        return false;
    }
    if !converts_numbers(&plain) && !has_unknown_conversion(&plain) {
        return true;
    }
    args[start + 1..].iter().all(|arg| is_plain_number(arg))
}

/// `%…\0`, `%…\x`: an escape right after a conversion's flags.
fn has_escaped_conversion(format: &str) -> bool {
    format.match_indices('%').any(|(at, _)| {
        let rest = &format[at + 1..];
        let flags = rest.find(|c: char| c == '%' || c.is_ascii_alphabetic()).unwrap_or(rest.len());
        let tail = &rest[..flags];
        tail.find('\\').is_some_and(|slash| tail[slash + 1..].starts_with(|c: char| matches!(c, '0'..='7' | 'x' | 'X')))
    })
}

/// A numeric conversion (`%d`, `%x`, `%f`, `%*s`, …).
fn converts_numbers(format: &str) -> bool {
    conversions(format)
        .any(|conversion| conversion.contains('*') || conversion.ends_with(|c: char| "diouxXeEfFgGaAn".contains(c)))
}

/// A `%` that is not `%s`, `%b`, `%c`, `%q` (with flags and width) or a numeric conversion.
fn has_unknown_conversion(format: &str) -> bool {
    conversions(format).any(|conversion| !conversion.ends_with(|c: char| "bscqdiouxXeEfFgGaAn".contains(c)))
}

/// The conversions of a format, from `%` to their letter (or to the end).
fn conversions(format: &str) -> impl Iterator<Item = &str> {
    format.match_indices('%').map(move |(at, _)| {
        let rest = &format[at + 1..];
        let end = rest.find(|c: char| c.is_ascii_alphabetic()).map_or(rest.len(), |i| i + 1);
        &rest[..end]
    })
}

/// `12`, `-3`, `0x1f`, `1.5e3`, `.5`, `16#ff`.
fn is_plain_number(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if let Some((base, digits)) = body.split_once('#') {
        return is_digits(base) && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_alphanumeric());
    }
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent.strip_prefix(['-', '+']).unwrap_or(exponent))),
        None => (body, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or(("", mantissa));
    (whole.is_empty() || is_digits(whole)) && is_digits(fraction) && exponent.is_none_or(is_digits)
}

/// `[[ … ]]` (and `[ … ]`) whose tests cannot evaluate an array subscript: no `[` inside,
/// `-v`/`-R` not on a value known only when it runs, `-t` and arithmetic comparisons only on
/// plain numbers.
fn double_bracket_read_only(args: &[&str]) -> bool {
    let inner = args.strip_suffix(&["]]"]).unwrap_or(args);
    for (at, arg) in inner.iter().enumerate() {
        if arg.contains('[') {
            return false;
        }
        let next = inner.get(at + 1);
        // `-v NAME`, `-R NAME`: a name is looked up, a subscript evaluated (`[` refused above),
        // a value known only when it runs may be either.
        if matches!(*arg, "-v" | "-R") && next.is_some_and(|next| next.contains(['$', '`'])) {
            return false;
        }
        if *arg == "-t" && next.is_some_and(|next| !is_plain_operand(next)) {
            return false;
        }
        if ARITHMETIC_TESTS.contains(arg)
            && [at.checked_sub(1).and_then(|i| inner.get(i)), next]
                .into_iter()
                .flatten()
                .any(|side| !is_plain_operand(side))
        {
            return false;
        }
    }
    true
}

/// The commands read-only by the shape of their whole line: `uniq` with flags and at most one
/// file (a second operand is written), `jq` with flags and a filter.
fn by_pattern(argv: &[&str]) -> bool {
    match argv {
        ["uniq", args @ ..] => {
            let mut files = 0;
            let mut iter = args.iter();
            while let Some(arg) = iter.next() {
                if matches!(*arg, "-f" | "-s" | "-w") {
                    if !iter.next().is_some_and(|value| is_digits(value)) {
                        return false;
                    }
                } else if let Some(long) = arg.strip_prefix("--") {
                    if !long
                        .split('=')
                        .next()
                        .is_some_and(|name| name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-'))
                    {
                        return false;
                    }
                } else if let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) {
                    if !letters.bytes().all(|b| b.is_ascii_alphabetic()) {
                        return false;
                    }
                } else {
                    files += 1;
                }
            }
            files == 0
        }
        ["jq", args @ ..] => {
            let flags = args.iter().take_while(|arg| arg.starts_with('-')).count();
            let flags_ok = args[..flags].iter().all(|arg| {
                let (name, _) = arg.split_once('=').unwrap_or((arg, ""));
                name.len() > 1 && name.bytes().skip(1).all(|b| b.is_ascii_alphabetic() || b == b'-')
            });
            flags_ok && flags < args.len() && args[flags..].iter().all(|arg| !arg.starts_with('-'))
        }
        _ => false,
    }
}

/// The command through the flag table: the first entry whose words begin it decides.
fn in_flag_table(argv: &[&str], text: &str, bare: bool) -> bool {
    let Some(spec) = table().iter().find(|spec| {
        let prefix: Vec<&str> = spec.command.split(' ').collect();
        argv.len() >= prefix.len() && argv[..prefix.len()] == prefix[..]
    }) else {
        return false;
    };
    let start = spec.command.split(' ').count();
    let args = &argv[start..];
    if args.iter().any(|arg| arg.contains('{') && (arg.contains(',') || arg.contains(".."))) {
        return false;
    }
    if spec.command == "git ls-remote"
        && args.iter().any(|arg| {
            !arg.starts_with('-') || *arg == "-" || arg.starts_with("-o") || arg.starts_with("--server-option")
        })
    {
        return false;
    }
    if matches!(argv[0], "grep" | "egrep" | "fgrep" | "rg") && text.contains(['\n', '\r']) {
        return false;
    }
    if spec.command == "hostname" && !(bare && args.iter().all(|arg| is_letter_flag(arg))) {
        return false;
    }
    flags_allowed(argv, start, spec) && !dangerous(spec.command, args)
}

/// `-f` or `--fqdn`: the only words `hostname` may have.
fn is_letter_flag(arg: &str) -> bool {
    match arg.strip_prefix("--") {
        Some(long) => !long.is_empty() && long.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-'),
        None => arg.len() == 2 && arg.starts_with('-') && arg.as_bytes()[1].is_ascii_alphabetic(),
    }
}

/// Every option is one the command lists, with a value of its kind; see the module docs.
fn flags_allowed(argv: &[&str], start: usize, spec: &FlagSpec) -> bool {
    let name = argv[0];
    let mut at = start;
    while let Some(&arg) = argv.get(at) {
        if arg.is_empty() {
            at += 1;
            continue;
        }
        if name == "xargs" && (!arg.starts_with('-') || arg == "--") {
            let target = if arg == "--" { argv.get(at + 1).copied() } else { Some(arg) };
            return target.is_some_and(|target| XARGS_TARGETS.contains(&target));
        }
        if arg == "--" {
            at += 1;
            if spec.respects_double_dash {
                break;
            }
            continue;
        }
        if !(arg.starts_with('-') && arg.len() > 1) {
            at += 1;
            continue;
        }
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (arg, None),
        };
        if flag.is_empty() {
            return false;
        }
        let Some(kind) = spec.kind(flag) else {
            if name == "git" && flag.len() > 1 && is_digits(&flag[1..]) {
                at += 1;
                continue;
            }
            let short = flag.starts_with('-') && !flag.starts_with("--") && flag.len() > 2;
            if short && matches!(name, "grep" | "egrep" | "fgrep" | "rg") {
                // `-A3`: a short flag with its number attached.
                if let Some(kind @ (FlagKind::Number | FlagKind::String)) = spec.kind(&flag[..2]) {
                    if is_digits(&flag[2..]) {
                        if !value_fits(&flag[2..], kind) {
                            return false;
                        }
                        at += 1;
                        continue;
                    }
                }
            }
            // Combined short flags: each one listed, none taking a value.
            if short && value.is_none() {
                let all_plain = flag[1..].chars().all(|c| spec.kind(&format!("-{c}")) == Some(FlagKind::None));
                if !all_plain {
                    return false;
                }
                at += 1;
                continue;
            }
            return false;
        };
        if kind == FlagKind::None {
            if value.is_some() {
                return false;
            }
            at += 1;
            continue;
        }
        let value = match value {
            Some(value) => {
                at += 1;
                value
            }
            None => {
                let Some(&next) = argv.get(at + 1) else { return false };
                if next.starts_with('-') && next.len() > 1 {
                    return false;
                }
                at += 2;
                next
            }
        };
        let sort_key = flag == "--sort"
            && name == "git"
            && value.starts_with('-')
            && value[1..].starts_with(|c: char| c.is_ascii_alphabetic());
        if kind == FlagKind::String && value.starts_with('-') && !sort_key {
            return false;
        }
        if !value_fits(value, kind) {
            return false;
        }
    }
    true
}

fn value_fits(value: &str, kind: FlagKind) -> bool {
    match kind {
        FlagKind::None => false,
        FlagKind::Number => is_digits(value),
        FlagKind::String => true,
        FlagKind::Char => value.encode_utf16().count() == 1,
        FlagKind::Braces => value == "{}",
        FlagKind::Eof => value == "EOF",
    }
}
