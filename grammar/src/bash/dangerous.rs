//! The per-command checks after the flag table: what an allowed flag or operand can still do
//! (`git log --format` naming a signature check, `ps e`, `date` setting the clock, a `git
//! branch` that creates one, …). A command these refuse needs a rule.

/// The per-command checks after the flags: what an allowed flag or operand can still do.
/// `args` are the words after the table entry's own (`git log` → what follows `log`).
pub(super) fn dangerous(command: &str, args: &[&str]) -> bool {
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
pub(super) fn docker_dangerous(args: &[&str]) -> bool {
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

pub(super) const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// A plain (possibly negative) integer: names would be evaluated as arithmetic.
pub(super) fn is_plain_operand(text: &str) -> bool {
    is_digits(text.strip_prefix('-').unwrap_or(text))
}

pub(super) fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}
