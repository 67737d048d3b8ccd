//! The git checks of a Bash line: git in a folder with bare-repository indicators, a `cd`
//! before git, and a line that writes where git keeps its structure (`HEAD`, `objects/`, …).

use super::*;

/// Claude Code's reason when git would run in a folder with bare-repository indicators.
pub(super) const BARE_REPOSITORY: &str =
    "The current directory has bare-repo indicators (HEAD/objects/refs outside a .git/ \
                                   directory). Git may treat it as a git dir and run config/hooks from here, so git \
                                   commands need approval.";

/// The command runs `git` (past its wrappers), or `xargs` that starts it.
pub(super) fn is_git(command: &SimpleCommand) -> bool {
    let words = command.program_words();
    match words.first().map(|w| w.text.as_str()) {
        Some("git") => true,
        Some("xargs") => words.iter().any(|w| w.text == "git"),
        _ => false,
    }
}
/// Claude Code's reason for a line that changes directory and runs git, wherever each stands
/// in it: the folder it goes to may hold a repository's configuration or hooks.
pub(super) const CD_GIT: &str =
    "This command changes directory before running a version-control command, which can pick up \
untrusted hooks or repository configuration from the target directory. Approve only if you trust it.";

/// The command changes directory (past its wrappers: `command cd`, `builtin cd`).
fn is_cd(command: &SimpleCommand) -> bool {
    command.program_words().first().is_some_and(|w| matches!(w.text.as_str(), "cd" | "pushd" | "popd" | "chdir"))
}

/// The line changes directory and runs git, in any of its commands (pipeline segments and
/// quoted substitutions included): Claude Code asks, whatever allows each command, unless the
/// line's one `cd` is a plain `cd DIR` to the working directory itself (`cd . && git status`).
/// A line Claude Code cannot check at all keeps that reason.
pub(super) fn changes_directory_for_git(text: &str, cx: &BashContext<'_>) -> bool {
    let analysis = analyse_shell(text);
    if analysis.refusal.is_some() {
        return false;
    }
    let cds: Vec<&SimpleCommand> = analysis.commands.iter().filter(|c| is_cd(c)).collect();
    if cds.is_empty() || !analysis.commands.iter().any(is_git) {
        return false;
    }
    let stays_here = |command: &SimpleCommand| {
        let [cd, destination] = command.words.as_slice() else { return false };
        let plain = destination.text.bytes().all(|b| !b"$`*?[\\~".contains(&b))
            && !destination.text.is_empty()
            && !destination.text.starts_with('-')
            && !destination.text.split('/').any(|part| part == "..");
        let joined = cx.joined(cx.cwd, &destination.text);
        let same = match cx.links {
            Some(links) => {
                links.real_path(&joined).map(|p| normalize(&p)) == links.real_path(cx.cwd).map(|p| normalize(&p))
            }
            None => normalize(&joined) == normalize(cx.cwd),
        };
        cd.text == "cd" && command.assignments.is_empty() && !destination.dynamic && plain && same
    };
    !(cds.len() == 1 && stays_here(cds[0]))
}

/// Claude Code's reason for a line that writes git repository files and runs git.
pub(super) const GIT_STRUCTURE: &str =
    "This command creates git repository structure files (HEAD/objects/refs/hooks) and then runs \
git, which can execute hooks/fsmonitor from the created files.";

/// A path git reads as a repository's own file where it stands: `HEAD`, `objects/…`, `refs/…`,
/// `hooks/…` (relative, case folded, as Claude Code compares them).
fn is_git_structure(path: &str) -> bool {
    let path = normalize(path.trim_start_matches("./"));
    let path = path.trim_start_matches('/').to_lowercase();
    path == "head"
        || ["objects", "refs", "hooks"].iter().any(|dir| path == *dir || path.starts_with(&format!("{dir}/")))
}

/// The line runs git and creates or writes a file git would read as its repository's own
/// (`touch HEAD`, `mkdir -p objects refs`, `cp x HEAD`, `> HEAD`, `cp -r hooks .`): Claude
/// Code asks, whatever allows each command.
pub(super) fn writes_git_structure(text: &str) -> bool {
    let analysis = analyse_shell(text);
    if analysis.refusal.is_some() || !analysis.commands.iter().any(is_git) {
        return false;
    }
    let writes = analysis.commands.iter().any(|command| {
        let words = command.program_words();
        let Some(name) = words.first().map(|w| w.text.as_str()) else { return false };
        if !matches!(name, "touch" | "mkdir" | "mv" | "cp" | "tee" | "ln" | "truncate" | "install") {
            return false;
        }
        let operands: Vec<&str> =
            words[1..].iter().map(|w| w.text.as_str()).filter(|w| !w.starts_with('-') || *w == "-").collect();
        let into_here = matches!(name, "cp" | "mv")
            && operands.last().is_some_and(|last| {
                matches!(*last, "." | "./" | "") || last.split('/').filter(|s| !s.is_empty()).all(|s| s == "..")
            });
        operands.iter().any(|operand| {
            is_git_structure(operand)
                || (into_here && is_git_structure(operand.trim_end_matches('/').rsplit('/').next().unwrap_or("")))
        })
    });
    writes || analysis.redirections.iter().any(|r| r.writes_file() && is_git_structure(&r.target))
}
