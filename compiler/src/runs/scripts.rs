//! The repository script a command line runs, for its hash in the lock.

/// The word of a command line that names the script it runs: the program, or an interpreter's
/// first argument (`bash ./x.sh`, `node server.js`), when it looks like a file.
pub(crate) fn script_word(line: &str) -> Option<String> {
    const INTERPRETERS: &[&str] =
        &["sh", "bash", "zsh", "dash", "python", "python3", "node", "deno", "bun", "ruby", "perl", "pwsh", "tsx", "uv"];
    let analysis = capc_grammar::analyse_shell(line);
    let first = analysis.commands.first()?;
    let words: Vec<String> = first.program_words().iter().map(|w| w.text.replace(['"', '\''], "")).collect();
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let word = if INTERPRETERS.contains(&name) {
        words.iter().skip(1).find(|w| !w.starts_with('-') && *w != "run")?
    } else {
        program
    };
    let looks_like_file = word.contains('/')
        || [".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1"].iter().any(|e| word.ends_with(e));
    looks_like_file.then(|| word.clone())
}

/// The folder-relative path a script word names: `${CLAUDE_PROJECT_DIR}/x` and a relative
/// path under `project` (where hooks and helpers run), `${CLAUDE_PLUGIN_ROOT}/x` under
/// `plugin`; `None` for an absolute path, a home path, another variable or one that leaves the
/// folder.
pub(crate) fn script_path(word: &str, project: Option<&str>, plugin: Option<&str>) -> Option<String> {
    let strip = |w: &'_ str, var: &str| -> Option<String> {
        w.strip_prefix(&format!("${{{var}}}")).or_else(|| w.strip_prefix(&format!("${var}"))).map(str::to_string)
    };
    let (base, rest) = if let Some(rest) = strip(word, "CLAUDE_PLUGIN_ROOT") {
        (plugin?, rest)
    } else if let Some(rest) = strip(word, "CLAUDE_PROJECT_DIR") {
        (project?, rest)
    } else if word.starts_with(['/', '~', '$', '\\']) || word.contains("://") {
        return None;
    } else {
        (project?, format!("/{word}"))
    };
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    let floor = parts.len();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.len() > floor => {
                parts.pop();
            }
            ".." => return None,
            p if p.contains(['$', '*', '?', '`']) => return None,
            p => parts.push(p),
        }
    }
    (parts.len() > floor).then(|| parts.join("/"))
}
