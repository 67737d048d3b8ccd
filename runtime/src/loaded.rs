//! A lock, loaded: the runtime's only view of the declarations. Prompt bodies are read
//! lazily, by path, and refused when their bytes no longer match the lock's SHA-256.
//!
//! A lock comes with a repository and may have been edited by anyone: it is read only from a
//! regular file, every path in it must stay inside its folder or a scope folder the session
//! was given (`lock::paths`), and a file is read by such a path only when it is a regular
//! file whose real path (links resolved) is still inside that folder.

use capc_compiler::lock::{paths, write};
use capc_compiler::model::{Command, Lock};
use capc_compiler::secrets::sha256_hex;
use capc_compiler::Options;
use capc_compiler::{printable, walk};
use capc_grammar::{parse_permission_rule, Behavior, PermissionRule, SourcedRule};
use std::path::{Path, PathBuf};

/// Why a lock cannot be used.
#[derive(Debug)]
pub enum LoadError {
    Unreadable(PathBuf, String),
    Invalid(PathBuf, String),
    /// A path in the lock points outside its folder or at a scope the session was not given.
    Refused(PathBuf, String),
    /// `--verify`: a source changed (or vanished, or appeared) since the lock was written.
    Stale {
        path: String,
        why: String,
    },
    /// `--verify`: the sources no longer check cleanly (the first error, and how many).
    Unchecked {
        first: String,
        errors: usize,
    },
    /// `--verify`: the sources are the locked ones, but the lock says something else: it was
    /// edited. The diff from the lock to what `capc lock` writes.
    Edited {
        diff: String,
    },
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Unreadable(p, e) => write!(f, "cannot read `{}`: {e}", p.display()),
            LoadError::Invalid(p, e) => write!(f, "`{}` is not a capabilities.lock: {e}", p.display()),
            LoadError::Refused(p, e) => write!(f, "refusing `{}`: {e}", p.display()),
            LoadError::Stale { path, why } => {
                write!(f, "the lock is stale: `{}` {why}; run `capc lock` to update it", printable::escape(path))
            }
            LoadError::Unchecked { first, errors } => write!(
                f,
                "the lock's sources no longer check cleanly ({errors} error{}; the first: {first}); `capc check` shows them",
                if *errors == 1 { "" } else { "s" }
            ),
            LoadError::Edited { diff } => write!(
                f,
                "the lock is not what `capc lock` writes from its sources (was it edited?); the difference:\n{}",
                printable::escape_lines(diff)
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// Where the lock's paths point: the locked folder and the extra scopes it was made with.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    pub root: PathBuf,
    pub user_dir: Option<PathBuf>,
    pub managed_dir: Option<PathBuf>,
    pub add_dirs: Vec<PathBuf>,
    pub plugin_dirs: Vec<PathBuf>,
}

impl Roots {
    fn options(&self) -> Options {
        Options {
            root: self.root.clone(),
            user_dir: self.user_dir.clone(),
            managed_dir: self.managed_dir.clone(),
            add_dirs: self.add_dirs.clone(),
            plugin_dirs: self.plugin_dirs.clone(),
            skip_hashes: true,
            leave_out_local: false,
            ..Options::default()
        }
    }
    /// The file a lock path (`.claude/…`, `~/…`, `<managed>/…`) names.
    pub fn locate(&self, shown: &str) -> PathBuf {
        capc_compiler::check::locate(&self.options(), shown)
    }
    /// Which scope folders were given, for `lock::paths`.
    pub fn given(&self) -> paths::Given {
        paths::Given {
            user_dir: self.user_dir.is_some(),
            managed_dir: self.managed_dir.is_some(),
            add_dirs: self.add_dirs.len(),
        }
    }
    /// The folder a lock path lives in: the lock's folder or the scope folder its prefix names.
    fn scope_dir(&self, shown: &str) -> &Path {
        let add_dir = shown
            .strip_prefix("<add-dir ")
            .and_then(|rest| rest.split_once(">/"))
            .and_then(|(n, _)| n.parse::<usize>().ok())
            .and_then(|n| self.add_dirs.get(n.wrapping_sub(1)));
        match (shown.strip_prefix("~/"), shown.strip_prefix("<managed>/"), add_dir) {
            (Some(_), _, _) => self.user_dir.as_deref().unwrap_or(&self.root),
            (_, Some(_), _) => self.managed_dir.as_deref().unwrap_or(&self.root),
            (_, _, Some(dir)) => dir,
            _ => &self.root,
        }
    }
    /// The bytes of the file a lock path names: a regular file of at most
    /// `walk::MAX_FILE_BYTES` whose real path stays inside its folder.
    pub fn read(&self, shown: &str) -> Result<Vec<u8>, String> {
        paths::check_path(shown, self.given(), false)?;
        let located = self.locate(shown);
        let real = located.canonicalize().map_err(|e| e.to_string())?;
        let folder = self.scope_dir(shown).canonicalize().map_err(|e| e.to_string())?;
        if !real.starts_with(&folder) {
            return Err("it is a symbolic link that leads outside its folder".to_string());
        }
        walk::read_regular(&real, walk::MAX_FILE_BYTES, walk::Links::Follow).map_err(|e| e.to_string())
    }
}

/// A permission rule of the lock, parsed once at load.
#[derive(Debug, Clone)]
pub struct Rule {
    pub text: String,
    pub behavior: Behavior,
    pub source: String,
    pub parsed: PermissionRule,
}

#[derive(Debug, Clone)]
pub struct Loaded {
    pub lock: Lock,
    pub roots: Roots,
    /// The lock's permission rules that parse, in lock order.
    pub rules: Vec<Rule>,
    /// Each command's name and path as shared strings, so a turn's view copies no text.
    pub names: Vec<(std::sync::Arc<str>, std::sync::Arc<str>)>,
    /// Names of the commands that are always in the table (not nested, not conditional).
    pub static_names: std::collections::HashSet<String>,
    /// Per command: its name is a built-in command's (it moves the dynamic-skill insertion point).
    pub builtin_named: Vec<bool>,
}

pub fn behavior(word: &str) -> Option<Behavior> {
    match word {
        "allow" => Some(Behavior::Allow),
        "ask" => Some(Behavior::Ask),
        "deny" => Some(Behavior::Deny),
        _ => None,
    }
}

/// A lock rule, parsed. A rule whose content the lock keeps only as a hash (it held a
/// secret: `Bash(sha256:…)`) fails closed: as a deny or ask rule it covers its whole tool, as
/// an allow rule it allows nothing.
fn parsed_rule(text: &str, behavior: Behavior) -> Option<PermissionRule> {
    match capc_compiler::secrets::hashed_rule_tool(text) {
        Some(_) if behavior == Behavior::Allow => None,
        Some(tool) => parse_permission_rule(tool).ok(),
        None => parse_permission_rule(text).ok(),
    }
}

impl Loaded {
    /// Reads `path` (a capabilities.lock) with `roots` telling where its paths point; refuses
    /// a lock file that is not a regular file, and a lock whose paths leave its folders.
    pub fn from_file(path: &Path, roots: Roots) -> Result<Loaded, LoadError> {
        let unreadable = |e: String| LoadError::Unreadable(path.to_path_buf(), e);
        let text = match write::read_file(path) {
            Ok(Some(text)) => text,
            Ok(None) => return Err(unreadable("no such file".to_string())),
            Err(e) => return Err(unreadable(e.to_string())),
        };
        let lock = write::decode(&text).map_err(|e| LoadError::Invalid(path.to_path_buf(), e))?;
        paths::check(&lock, roots.given()).map_err(|e| LoadError::Refused(path.to_path_buf(), e))?;
        Ok(Loaded::new(lock, roots))
    }

    pub fn new(lock: Lock, roots: Roots) -> Loaded {
        let rules = lock
            .permissions
            .iter()
            .filter_map(|p| {
                let behavior = behavior(p.behavior.as_str())?;
                Some(Rule {
                    text: p.rule.clone(),
                    behavior,
                    source: p.path.clone(),
                    parsed: parsed_rule(&p.rule, behavior)?,
                })
            })
            .collect();
        let names = lock.commands.iter().map(|c| (c.name.as_str().into(), c.path.as_str().into())).collect();
        let static_names = lock
            .commands
            .iter()
            .filter(|c| c.dynamic.is_none() && c.paths.is_empty())
            .map(|c| c.name.clone())
            .collect();
        let builtin_named = lock.commands.iter().map(|c| capc_compiler::builtins::is_command(&c.name)).collect();
        Loaded { lock, roots, rules, names, static_names, builtin_named }
    }

    /// Re-derives the whole lock from its sources (the check `capc lock` runs, on the lock's
    /// folder and the scopes of this session, with local settings when the lock has them) and
    /// refuses any difference: a changed, missing or new source by name, and otherwise the
    /// entries that differ, as a diff. An edited lock (an added server, a widened rule) is
    /// refused even when every source still hashes as listed.
    pub fn verify(&self) -> Result<(), LoadError> {
        let mut options =
            Options { skip_hashes: false, leave_out_local: !write::includes_local(&self.lock), ..self.roots.options() };
        // The folder is read as `capc lock` reads it: its capc.toml (excluded files, rules) and
        // its ignore files.
        let config = capc_compiler::config::Config::load(&self.roots.root, None).map_err(|e| LoadError::Stale {
            path: ".".to_string(),
            why: format!("its configuration cannot be used ({e})"),
        })?;
        options.filter = config.filter();
        options.policy = Some(std::sync::Arc::new(config.policy()));
        let mut checked = capc_compiler::check(&options)
            .map_err(|e| LoadError::Stale { path: ".".to_string(), why: format!("cannot be checked ({e})") })?;
        // Errors in what a session does not load (an unlisted plugin, a skill collection) do not
        // stop `capc lock`, so they do not stop a verified session either.
        if checked.blocking_errors().next().is_some() {
            let errors: Vec<_> = checked.blocking_errors().collect();
            let first = errors
                .first()
                .map(|d| format!("`{}` [{}] {}", printable::escape(&d.path), d.rule, printable::escape(&d.message)))
                .unwrap_or_default();
            return Err(LoadError::Unchecked { first, errors: errors.len() });
        }
        let fresh = checked.take_lock();
        if fresh == self.lock {
            return Ok(());
        }
        let stale = |path: &str, why: &str| LoadError::Stale { path: path.to_string(), why: why.to_string() };
        for source in &self.lock.sources {
            match fresh.sources.iter().find(|s| s.path == source.path) {
                None => return Err(stale(&source.path, "is gone (or is no longer read as a declaration)")),
                Some(now) if now.sha256 != source.sha256 => return Err(stale(&source.path, "changed")),
                Some(_) => {}
            }
        }
        if let Some(new) = fresh.sources.iter().find(|s| !self.lock.sources.iter().any(|l| l.path == s.path)) {
            return Err(stale(&new.path, "is new"));
        }
        Err(LoadError::Edited {
            diff: write::diff(&write::encode(&self.lock), &write::encode(&fresh), write::FILE_NAME),
        })
    }

    /// The prompt body of a skill or command (the text after its frontmatter), read now and
    /// checked against the lock.
    pub fn body(&self, command: &Command) -> Result<String, LoadError> {
        let stale = |why: String| LoadError::Stale { path: command.path.clone(), why };
        let bytes = self.roots.read(&command.path).map_err(|e| stale(format!("cannot be read ({e})")))?;
        let expected = self.lock.sources.iter().find(|s| s.path == command.path).map(|s| s.sha256.as_str());
        if expected != Some(sha256_hex(&bytes).as_str()) {
            return Err(stale("changed".to_string()));
        }
        let text = String::from_utf8(bytes).map_err(|_| stale("is no longer UTF-8".to_string()))?;
        let body_start = match capc_compiler::frontmatter::split(&text) {
            capc_compiler::frontmatter::Split::Found(block) => block.body_start,
            _ => 0,
        };
        Ok(text[body_start..].to_string())
    }

    /// The lock's rules for [`capc_grammar::decide`], followed by `extra` (behavior, rule,
    /// where it comes from).
    pub fn sourced_rules(&self, extra: &[(Behavior, String, &str)]) -> Vec<SourcedRule> {
        let mut out: Vec<SourcedRule> = self
            .rules
            .iter()
            .map(|r| SourcedRule {
                rule: r.parsed.clone(),
                behavior: r.behavior,
                source: r.source.clone(),
                settings_dir: None,
            })
            .collect();
        for (behavior, text, source) in extra {
            if let Ok(rule) = parse_permission_rule(text) {
                out.push(SourcedRule { rule, behavior: *behavior, source: source.to_string(), settings_dir: None });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hashed_rule_fails_closed() {
        let hashed = capc_compiler::secrets::redact_rule("Bash(curl -H sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx)");
        assert!(
            parsed_rule(&hashed, Behavior::Allow).is_none(),
            "an allow rule whose content is hidden allows nothing"
        );
        for behavior in [Behavior::Deny, Behavior::Ask] {
            assert_eq!(parsed_rule(&hashed, behavior), parse_permission_rule("Bash").ok(), "covers all of Bash");
        }
        assert_eq!(parsed_rule("Bash(git status)", Behavior::Allow), parse_permission_rule("Bash(git status)").ok());
    }
}
