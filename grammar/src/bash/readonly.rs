//! Commands Claude Code runs without any rule because they only read: `echo`, `ls`,
//! `cat`, `grep`, `git status`, `git log`, … Its structure is followed here:
//!
//! 1. `command`, `builtin`, `noglob` and `timeout N` in front are looked through (`nice`, `env`,
//!    `nohup` are not: `env CMD` needs a rule).
//! 2. A few commands are decided by name ([`by_name`]): those read-only with any argument (`cat`,
//!    `head`, `wc`, …), `echo`, `ls`, `cd`, `find` without actions, `printf` without `-v` and
//!    with a format that cannot run code, exact lines such as `node --version`.
//! 3. The others must be in the flag table ([`super::flags::TABLE`], generated from the binary's
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

use super::flags::TABLE;
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

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
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

/// `[[ … ]]` whose tests cannot evaluate an array subscript: no `[` inside, `-v`/`-R`/`-t`
/// only on plain names, arithmetic comparisons only between plain numbers or names.
fn double_bracket_read_only(args: &[&str]) -> bool {
    let inner = args.strip_suffix(&["]]"]).unwrap_or(args);
    for (at, arg) in inner.iter().enumerate() {
        if arg.contains('[') {
            return false;
        }
        let next = inner.get(at + 1);
        if matches!(*arg, "-v" | "-R" | "-t") && next.is_some_and(|next| !is_plain_operand(next)) {
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

const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// A plain (possibly negative) integer: names would be evaluated as arithmetic.
fn is_plain_operand(text: &str) -> bool {
    is_digits(text.strip_prefix('-').unwrap_or(text))
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
    let Some(spec) = TABLE.iter().find(|spec| {
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

/// The per-command checks after the flags: what an allowed flag or operand can still do.
/// `args` are the words after the table entry's own (`git log` → what follows `log`).
fn dangerous(command: &str, args: &[&str]) -> bool {
    match command {
        "git diff" => git_diff_submodules(args),
        "git log" | "git show" | "git shortlog" | "git rev-list" | "git for-each-ref" => git_format_dangerous(args),
        "git reflog" => {
            let first_is_other =
                args.first().is_some_and(|first| !first.starts_with('-') && !matches!(*first, "show" | "list"));
            first_is_other || args.iter().any(|arg| matches!(*arg, "expire" | "delete" | "exists" | "drop" | "write"))
        }
        "git ls-remote" => git_format_dangerous(args),
        "git remote show" => git_remote_show_dangerous(args),
        "git remote" => args.iter().any(|arg| !matches!(*arg, "-v" | "--verbose")),
        "git tag" => git_format_dangerous(args) || git_tag_creates(args),
        "git branch" => git_format_dangerous(args) || git_branch_changes(args),
        "docker logs" | "docker inspect" => docker_dangerous(args),
        "sed" => !sed_read_only(args),
        "man" => man_dangerous(args),
        "help" => args.iter().any(|arg| arg.contains(['/', '\\', '~'])),
        "ps" => ps_prints_environment(args),
        "date" => date_sets_clock(args),
        "which" => {
            let mut operands = false;
            args.iter().any(|arg| {
                if operands {
                    return false;
                }
                if *arg == "--" {
                    operands = true;
                    return false;
                }
                arg.starts_with('-') && !is_letters_flag(arg)
            })
        }
        // Network names, `+m` (writes a mount supplement file), and anything unusual: stricter
        // than Claude Code, which resolves fewer of them.
        "lsof" => args.iter().any(|arg| {
            arg.starts_with('+')
                || arg.contains(['@', '~'])
                || (arg.starts_with('-') && *arg != "--" && !arg[1..].bytes().all(|b| b.is_ascii_alphabetic()))
        }),
        "tput" => tput_dangerous(args),
        // Filters name hosts and ports; capc accepts flags only.
        "ss" => ss_has_filter(args),
        "test" => test_dangerous(args),
        _ => false,
    }
}

/// `-a` or `--all` (letters and dashes only).
fn is_letters_flag(arg: &str) -> bool {
    match arg.strip_prefix("--") {
        Some(long) => !long.is_empty() && long.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
        None => arg.len() > 1 && arg[1..].bytes().all(|b| b.is_ascii_alphabetic()),
    }
}

/// `--submodule` other than `short`, `--ignore-submodules` other than `all` (or `dirty`
/// together with `--submodule=short`): these run a diff in each submodule's configuration.
fn git_diff_submodules(args: &[&str]) -> bool {
    let options = args.iter().position(|arg| *arg == "--").map_or(args, |end| &args[..end]);
    let short = options.contains(&"--submodule=short");
    args.iter().any(|arg| {
        let name = arg.split('=').next().unwrap_or(arg);
        (name == "--submodule" && *arg != "--submodule=short")
            || (name == "--ignore-submodules"
                && *arg != "--ignore-submodules=all"
                && !(*arg == "--ignore-submodules=dirty" && short))
    })
}

/// A format that checks signatures (runs gpg), a named format (an alias from the repository's
/// configuration), or a `~` expansion in a format, sort or group key.
fn git_format_dangerous(args: &[&str]) -> bool {
    let signature = |text: &str| {
        text.contains("signature")
            || text.match_indices('%').any(|(at, _)| {
                let rest = &text[at + 1..];
                let rest = rest.strip_prefix(['-', '+', ' ']).unwrap_or(rest);
                rest.starts_with('G') || rest.starts_with("(signature") || rest.starts_with("(*signature")
            })
    };
    let tilde = |text: &str| {
        text.match_indices('~').any(|(at, _)| at == 0 || matches!(text.as_bytes()[at - 1], b'=' | b':'))
            || (text.contains('~') && text.contains('{'))
    };
    for (at, arg) in args.iter().enumerate() {
        if signature(arg) {
            return true;
        }
        for flag in ["--format", "--pretty", "--sort", "--group"] {
            let value = if *arg == flag {
                args.get(at + 1).copied()
            } else {
                arg.strip_prefix(flag).and_then(|rest| rest.strip_prefix('='))
            };
            let Some(value) = value else { continue };
            if tilde(value) || signature(value) {
                return true;
            }
            let named = !value.is_empty()
                && !value.contains('%')
                && !value.starts_with("format:")
                && !value.starts_with("tformat:")
                && !matches!(value, "oneline" | "short" | "medium" | "full" | "fuller" | "email" | "raw");
            if matches!(flag, "--format" | "--pretty") && named {
                return true;
            }
        }
    }
    false
}

/// `git remote show -n NAME` only (without `-n` it contacts the remote).
fn git_remote_show_dangerous(args: &[&str]) -> bool {
    let (options, rest) = match args.iter().position(|arg| *arg == "--") {
        Some(end) => (&args[..end], &args[end + 1..]),
        None => (args, &[][..]),
    };
    let names: Vec<&str> = options.iter().filter(|arg| **arg != "-n").chain(rest).copied().collect();
    let [name] = names.as_slice() else { return true };
    !options.contains(&"-n")
        || !name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `--list`, `-l`, or a group of short flags holding `l` (`-al`): `git tag` and `git branch` list
/// instead of creating.
fn is_list_flag(arg: &str) -> bool {
    arg == "--list"
        || arg == "-l"
        || (!arg.starts_with("--") && arg.len() > 2 && !arg.contains('=') && arg[1..].contains('l'))
}

/// `git tag NAME` without `-l`/`--list` creates a tag.
fn git_tag_creates(args: &[&str]) -> bool {
    let valued = ["--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "-n"];
    let (mut at, mut listing, mut operands) = (0, false, false);
    while let Some(&arg) = args.get(at) {
        if arg.is_empty() {
            at += 1;
        } else if arg == "--" && !operands {
            operands = true;
            at += 1;
        } else if !operands && arg.starts_with('-') {
            listing |= is_list_flag(arg);
            at += if arg.contains('=') || !valued.contains(&arg) { 1 } else { 2 };
        } else if !listing {
            return true;
        } else {
            at += 1;
        }
    }
    false
}

/// `git branch NAME` creates a branch unless listing (`-l`, `--list`) or after `--merged`.
fn git_branch_changes(args: &[&str]) -> bool {
    let valued = ["--contains", "--no-contains", "--points-at", "--sort"];
    let (mut at, mut last, mut listing, mut operands) = (0, "", false, false);
    while let Some(&arg) = args.get(at) {
        if arg.is_empty() {
            at += 1;
        } else if arg == "--" && !operands {
            operands = true;
            last = "";
            at += 1;
        } else if !operands && arg.starts_with('-') {
            listing |= is_list_flag(arg);
            if let Some((name, _)) = arg.split_once('=') {
                last = name;
                at += 1;
            } else {
                last = arg;
                at += if valued.contains(&arg) { 2 } else { 1 };
            }
        } else {
            if !listing && !matches!(last, "--merged" | "--no-merged") {
                return true;
            }
            at += 1;
        }
    }
    false
}

/// Options that point docker at another daemon or configuration, and `~` expansions.
fn docker_dangerous(args: &[&str]) -> bool {
    const REMOTE: &[&str] = &[
        "-H",
        "-c",
        "-r",
        "--host",
        "--context",
        "--config",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
        "--url",
        "--connection",
        "--identity",
        "--remote",
        "--module",
        "--out",
    ];
    args.iter().any(|arg| {
        let remote = REMOTE.iter().any(|flag| {
            arg == flag
                || arg
                    .strip_prefix(flag)
                    .is_some_and(|rest| rest.starts_with('=') || (flag.len() == 2 && !rest.is_empty()))
        });
        let combined = arg
            .strip_prefix('-')
            .map(|rest| rest.chars().take_while(char::is_ascii_alphabetic).collect::<String>())
            .is_some_and(|letters| letters.len() >= 2 && letters.contains(['H', 'c', 'r']));
        remote || combined || arg.contains('~')
    })
}

/// `ps e`, `ps eww`, `ps -e…` with an `e` meaning "show the environment" (BSD syntax, or in a
/// combination other than the plain listing flags).
fn ps_prints_environment(args: &[&str]) -> bool {
    let bsd_e = args.iter().any(|arg| !is_table_flag(arg) && arg.contains(['e', 'E']));
    let dash_e = args.iter().any(|arg| {
        arg.strip_prefix('-').is_some_and(|rest| rest.chars().take_while(char::is_ascii_alphabetic).any(|c| c == 'e'))
    });
    let listing = args.iter().all(|arg| {
        *arg == "--forest"
            || arg
                .strip_prefix('-')
                .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| "AacdeFfjlwHLTm".contains(c)))
    });
    let modifiers: usize = args
        .iter()
        .map(|arg| if *arg == "--forest" { 1 } else { arg.chars().filter(|c| "HLTm".contains(*c)).count() })
        .sum();
    bsd_e || (dash_e && !(listing && modifiers <= 1))
}

/// An argument the flag parser treats as a flag: `-` then a letter, digit, `_` or `-`.
fn is_table_flag(arg: &str) -> bool {
    arg.len() > 1
        && arg.starts_with('-')
        && arg[1..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `date` with an operand other than `+FORMAT` sets the clock.
fn date_sets_clock(args: &[&str]) -> bool {
    let valued = ["-d", "--date", "-r", "--reference", "--rfc-3339"];
    let mut at = 0;
    while let Some(&arg) = args.get(at) {
        if arg.starts_with("--") && arg.contains('=') {
            at += 1;
        } else if arg.starts_with('-') {
            at += if valued.contains(&arg) { 2 } else { 1 };
        } else if !arg.starts_with('+') {
            return true;
        } else {
            at += 1;
        }
    }
    false
}

/// `tput` capabilities that reset or reprogram the terminal, and `-S` (reads them from stdin).
fn tput_dangerous(args: &[&str]) -> bool {
    const WRITES: &[&str] = &[
        "init", "reset", "rs1", "rs2", "rs3", "is1", "is2", "is3", "iprog", "if", "rf", "clear", "flash", "mc0", "mc4",
        "mc5", "mc5i", "mc5p", "pfkey", "pfloc", "pfx", "pfxl", "smcup", "rmcup",
    ];
    let (mut at, mut operands) = (0, false);
    while let Some(&arg) = args.get(at) {
        if arg == "--" {
            operands = true;
            at += 1;
        } else if !operands && arg.starts_with('-') {
            if arg == "-S" || (!arg.starts_with("--") && arg.len() > 2 && arg.contains('S')) {
                return true;
            }
            at += if arg == "-T" { 2 } else { 1 };
        } else {
            if WRITES.contains(&arg) {
                return true;
            }
            at += 1;
        }
    }
    false
}

/// Any `ss` operand (a filter expression).
fn ss_has_filter(args: &[&str]) -> bool {
    let valued = ["-f", "--family", "-A", "--query", "--socket"];
    let (mut at, mut operands) = (0, false);
    while let Some(&arg) = args.get(at) {
        if !operands && arg == "--" {
            operands = true;
        } else if !operands && arg.starts_with('-') {
            if valued.contains(&arg) {
                at += 1;
            }
        } else {
            return true;
        }
        at += 1;
    }
    false
}

/// `test` with `-v`/`-R` (array subscripts are evaluated), `-a`/`-o`, a `[`, or arithmetic
/// comparisons and `-t` on anything but plain numbers and names.
fn test_dangerous(args: &[&str]) -> bool {
    if args.iter().any(|arg| matches!(*arg, "-v" | "-R" | "-a" | "-o") || arg.contains('[')) {
        return true;
    }
    args.iter().enumerate().any(|(at, arg)| {
        let neighbours = [at.checked_sub(1).and_then(|i| args.get(i)), args.get(at + 1)];
        (ARITHMETIC_TESTS.contains(arg) && neighbours.into_iter().flatten().any(|side| !is_plain_operand(side)))
            || (*arg == "-t" && args.get(at + 1).is_some_and(|next| !is_plain_operand(next)))
    })
}

/// `man` reading a file (a path, `-l`), with a pager or browser (`-P`, `-H`), or with a
/// section list that is not plain (`-S 1:8`).
fn man_dangerous(args: &[&str]) -> bool {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(*arg, "-S" | "-s") {
            let sections = iter.next().copied().unwrap_or("");
            if !sections.bytes().all(|b| b.is_ascii_alphanumeric() || b == b':' || b == b',') {
                return true;
            }
            continue;
        }
        if arg.contains(['/', '\\', '~'])
            || ["-P", "--pager", "-H", "--html", "-l", "--local-file", "-S", "-s"]
                .iter()
                .any(|flag| arg.starts_with(flag))
        {
            return true;
        }
    }
    false
}

/// `sed -n` printing lines by number only (`1p`, `2,5p`, `$p`): one script, no `-e`/`-f`, no
/// in-place edit. Stricter than Claude Code, which also runs some substitutions.
fn sed_read_only(args: &[&str]) -> bool {
    let mut quiet = false;
    let mut positional = Vec::new();
    for arg in args {
        match *arg {
            "--quiet" | "--silent" => quiet = true,
            "--regexp-extended" | "--null-data" | "--zero-terminated" | "--posix" => {}
            flag if flag.starts_with("--") => return false,
            flag if flag.starts_with('-') && flag.len() > 1 => {
                if !flag[1..].chars().all(|c| "nErz".contains(c)) {
                    return false;
                }
                quiet |= flag.contains('n');
            }
            operand => positional.push(operand),
        }
    }
    quiet && positional.first().is_some_and(|script| printing_script(script))
}

/// `[line[,line]]p`, a line being digits or `$`.
fn printing_script(script: &str) -> bool {
    let line = |text: &str| text == "$" || is_digits(text);
    let Some(range) = script.strip_suffix('p') else { return false };
    range.is_empty() || range.split_once(',').map_or(line(range), |(from, to)| line(from) && line(to))
}
