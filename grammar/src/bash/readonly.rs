//! Commands Claude Code 2.1.332 runs without any rule because they only read: `echo`, `ls`,
//! `cat`, `grep`, `git status`, `git log`, … (its read-only table; measured cases in
//! `tests/data/bash-2.1.332.json`, the rest as its documentation and the notes describe it).
//!
//! Each entry says which arguments keep a command read-only (`sort` but not `sort -o f`, `sed -n`
//! but not `sed -i`, `git branch` but not `git branch -D x`). Where a detail was not measured the
//! table is the stricter reading: a command it does not know needs a rule.

/// Commands that are read-only with any arguments, as long as no argument holds a shell
/// metacharacter (`<>()$`|{}&;` or a backslash).
const PLAIN: &[&str] = &[
    "basename",
    "cal",
    "cat",
    "cksum",
    "cmp",
    "column",
    "comm",
    "cut",
    "df",
    "diff",
    "dirname",
    "du",
    "expand",
    "expr",
    "false",
    "fmt",
    "fold",
    "free",
    "groups",
    "head",
    "hexdump",
    "id",
    "locale",
    "md5sum",
    "nl",
    "nproc",
    "numfmt",
    "od",
    "paste",
    "pr",
    "readlink",
    "realpath",
    "rev",
    "b2sum",
    "seq",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shasum",
    "sleep",
    "stat",
    "strings",
    "tac",
    "tail",
    "tr",
    "true",
    "tsort",
    "type",
    "uname",
    "unexpand",
    "uptime",
    "wc",
    "whereis",
    "which",
];

/// `git` subcommands that only read (with [`git_flags_read_only`]).
const GIT_READERS: &[&str] = &[
    "blame",
    "cat-file",
    "check-ignore",
    "count-objects",
    "describe",
    "diff",
    "diff-tree",
    "for-each-ref",
    "grep",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "merge-base",
    "name-rev",
    "rev-list",
    "rev-parse",
    "shortlog",
    "show",
    "show-ref",
    "status",
    "var",
    "whatchanged",
];

/// `gh` commands that only read.
const GH_READERS: &[(&str, &[&str])] = &[
    ("issue", &["list", "status", "view"]),
    ("pr", &["checks", "diff", "list", "status", "view"]),
    ("release", &["list", "view"]),
    ("repo", &["list", "view"]),
    ("run", &["list", "view"]),
    ("search", &["code", "commits", "issues", "prs", "repos"]),
    ("workflow", &["list", "view"]),
];

/// Is this command (its words after quote removal) read-only?
pub(crate) fn is_read_only(words: &[&str]) -> bool {
    let Some((&name, args)) = words.split_first() else { return false };
    if PLAIN.contains(&name) {
        return args.iter().all(|arg| !arg.contains(['<', '>', '(', ')', '$', '`', '|', '{', '}', '&', ';', '\\']));
    }
    let has = |flags: &[&str]| {
        args.iter().any(|arg| flags.iter().any(|flag| arg == flag || arg.starts_with(&format!("{flag}="))))
    };
    match name {
        "echo" | "pwd" | "whoami" | "arch" | "cd" | "ls" | "printenv" | "tty" | "hostid" | "logname" => true,
        "printf" => !has(&["-v"]),
        "find" => !args.iter().any(|arg| FIND_ACTIONS.contains(arg)),
        "grep" | "egrep" | "fgrep" => true,
        // `file -C` compiles a magic file into the working directory.
        "file" => !has(&["-C", "--compile"]),
        "rg" => !has(&["--pre", "--pre-glob"]),
        "jq" => true,
        "uniq" => args.iter().filter(|arg| !arg.starts_with('-')).count() <= 1,
        "sort" => !has(&["-o", "--output", "--compress-program"]) && !args.iter().any(|a| a.starts_with("-o")),
        "sed" => sed_read_only(args),
        "tree" => !has(&["-o", "-R"]),
        "fd" | "fdfind" => !has(&["-x", "--exec", "-X", "--exec-batch"]),
        "date" => args.iter().all(|arg| {
            arg.starts_with('+')
                || (arg.starts_with('-') && !matches!(*arg, "-s" | "--set") && !arg.starts_with("--set="))
        }),
        "hostname" => args.iter().all(|arg| matches!(*arg, "-f" | "-s" | "-i" | "-I" | "-d" | "--fqdn" | "--short")),
        "lsof" | "pgrep" | "ps" => true,
        "history" => args.iter().all(|arg| arg.bytes().all(|b| b.is_ascii_digit())),
        "alias" => args.iter().all(|arg| !arg.contains('=')),
        "xargs" => xargs_read_only(args),
        "git" => git_read_only(args),
        "gh" => match args {
            [group, action, ..] => GH_READERS.iter().any(|(g, actions)| g == group && actions.contains(action)),
            _ => false,
        },
        "docker" => matches!(args.first(), Some(&"ps" | &"images")),
        "node" | "python" | "python3" | "ruby" | "go" | "cargo" | "rustc" | "npm" | "java" | "deno" | "bun" => {
            matches!(args, [flag] if *flag == "--version" || *flag == "-V" && name != "node")
        }
        _ => false,
    }
}

/// The `find` actions that run commands or change files.
pub(crate) const FIND_ACTIONS: &[&str] =
    &["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"];

/// `sed -n` printing by line numbers or patterns only: `5p`, `1,5p`, `$p`, `/x/p`, `/a/,/b/p`,
/// `/x/!p` (no other command, so no `w` file and no `e` command can hide in it).
fn sed_read_only(args: &[&str]) -> bool {
    if !args.contains(&"-n") || args.iter().any(|arg| arg.starts_with("-i") || arg.starts_with("--in-place")) {
        return false;
    }
    let mut scripts: Vec<&str> = Vec::new();
    let mut iter = args.iter();
    let mut positional = Vec::new();
    while let Some(arg) = iter.next() {
        match *arg {
            "-e" | "--expression" => scripts.extend(iter.next()),
            "-n" | "-E" | "-r" | "-s" | "-u" | "-z" | "--quiet" | "--silent" | "--posix" => {}
            other if other.starts_with('-') => return false,
            other => positional.push(other),
        }
    }
    if scripts.is_empty() {
        scripts.extend(positional.first());
    }
    !scripts.is_empty() && scripts.iter().all(|script| printing_script(script))
}

/// `[address[,address]][!]p`, an address being digits, `$` or `/regex/` without `/` inside.
fn printing_script(script: &str) -> bool {
    fn address(text: &str) -> Option<&str> {
        if let Some(rest) = text.strip_prefix('/') {
            let close = rest.find('/')?;
            return Some(&rest[close + 1..]);
        }
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            return Some(&text[digits..]);
        }
        text.strip_prefix('$')
    }
    let mut rest = script.trim();
    if let Some(after) = address(rest) {
        rest = after;
        if let Some(second) = rest.strip_prefix(',') {
            match address(second) {
                Some(after) => rest = after,
                None => return false,
            }
        }
    }
    rest = rest.strip_prefix('!').unwrap_or(rest);
    rest == "p"
}

/// `xargs [options] <read-only command>`.
fn xargs_read_only(args: &[&str]) -> bool {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        match *arg {
            "-0" | "-r" | "-t" | "--null" | "--no-run-if-empty" | "--verbose" => index += 1,
            "-n" | "-I" | "-P" | "-L" | "-d" | "-s" => index += 2,
            other if other.starts_with('-') && other.len() > 2 && matches!(&other[..2], "-n" | "-P" | "-L" | "-I") => {
                index += 1
            }
            _ => break,
        }
    }
    match args.get(index..) {
        Some(rest) if !rest.is_empty() => rest[0] != "xargs" && is_read_only(rest),
        _ => true, // bare `xargs` runs `echo`
    }
}

fn git_read_only(args: &[&str]) -> bool {
    let Some((&sub, rest)) = args.split_first() else { return false };
    let has = |flags: &[&str]| {
        rest.iter().any(|arg| flags.iter().any(|flag| arg == flag || arg.starts_with(&format!("{flag}="))))
    };
    // Options that write a file or run a program from any reading command.
    if has(&["--output", "--ext-diff", "--textconv", "--exec", "--open-files-in-pager", "-O"]) {
        return false;
    }
    match sub {
        _ if GIT_READERS.contains(&sub) => true,
        "branch" => branch_or_tag_listing(
            rest,
            &[
                "-a",
                "-r",
                "-l",
                "-v",
                "-vv",
                "--all",
                "--remotes",
                "--list",
                "--verbose",
                "--show-current",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--sort",
                "--format",
                "--points-at",
                "--column",
                "--no-column",
                "--color",
                "--no-color",
                "-i",
                "--ignore-case",
            ],
        ),
        "tag" => branch_or_tag_listing(
            rest,
            &[
                "-l",
                "--list",
                "-n",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--sort",
                "--format",
                "--points-at",
                "--column",
                "--no-column",
                "-i",
                "--ignore-case",
            ],
        ),
        "remote" => matches!(rest, [] | ["-v"] | ["--verbose"]) || matches!(rest.first(), Some(&"show" | &"get-url")),
        "config" => rest.iter().any(|arg| matches!(*arg, "--get" | "--get-all" | "--get-regexp" | "--list" | "-l")),
        "stash" => matches!(rest.first(), Some(&"list" | &"show")),
        "worktree" => rest.first() == Some(&"list"),
        "reflog" => matches!(rest.first(), None | Some(&"show")),
        "help" | "version" | "--version" => true,
        _ => false,
    }
}

/// `git branch`/`git tag` that lists: known listing flags; names only as patterns after `--list`.
fn branch_or_tag_listing(args: &[&str], listing: &[&str]) -> bool {
    let listing_mode = args.iter().any(|arg| matches!(*arg, "-l" | "--list"));
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let flag = arg.split('=').next().unwrap_or(arg);
        if arg.starts_with('-') {
            let known = listing.contains(&flag) || (flag.starts_with("-n") && listing.contains(&"-n"));
            if !known {
                return false;
            }
            if matches!(
                *arg,
                "--contains" | "--no-contains" | "--merged" | "--no-merged" | "--points-at" | "--sort" | "--format"
            ) {
                iter.next();
            }
        } else if !listing_mode {
            return false;
        }
    }
    true
}
