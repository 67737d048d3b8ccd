//! A lock, loaded: the runtime's only view of the declarations. Prompt bodies are read
//! lazily, by path, and refused when their bytes no longer match the lock's SHA-256.

use capc_compiler::lock::write;
use capc_compiler::model::{Command, Lock};
use capc_compiler::secrets::sha256_hex;
use capc_compiler::Options;
use capc_grammar::{parse_permission_rule, Behavior, PermissionRule, SourcedRule};
use std::path::{Path, PathBuf};

/// Why a lock cannot be used.
#[derive(Debug)]
pub enum LoadError {
    Unreadable(PathBuf, std::io::Error),
    Invalid(PathBuf, String),
    /// `--verify`: a source changed (or vanished) since the lock was written.
    Stale {
        path: String,
        why: String,
    },
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Unreadable(p, e) => write!(f, "cannot read `{}`: {e}", p.display()),
            LoadError::Invalid(p, e) => write!(f, "`{}` is not a capabilities.lock: {e}", p.display()),
            LoadError::Stale { path, why } => {
                write!(f, "the lock is stale: `{path}` {why}; run `capc lock` to update it")
            }
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
        }
    }
    /// The file a lock path (`.claude/…`, `~/…`, `<managed>/…`) names.
    pub fn locate(&self, shown: &str) -> PathBuf {
        capc_compiler::check::locate(&self.options(), shown)
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

impl Loaded {
    /// Reads `path` (a capabilities.lock) with `roots` telling where its paths point.
    pub fn from_file(path: &Path, roots: Roots) -> Result<Loaded, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::Unreadable(path.to_path_buf(), e))?;
        let lock = write::decode(&text).map_err(|e| LoadError::Invalid(path.to_path_buf(), e))?;
        Ok(Loaded::new(lock, roots))
    }

    pub fn new(lock: Lock, roots: Roots) -> Loaded {
        let rules = lock
            .permissions
            .iter()
            .filter_map(|p| {
                Some(Rule {
                    text: p.rule.clone(),
                    behavior: behavior(p.behavior.as_str())?,
                    source: p.path.clone(),
                    parsed: parse_permission_rule(&p.rule).ok()?,
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

    /// Re-hashes every source, naming the first that changed.
    pub fn verify(&self) -> Result<(), LoadError> {
        for source in &self.lock.sources {
            match std::fs::read(self.roots.locate(&source.path)) {
                Ok(bytes) if sha256_hex(&bytes) == source.sha256 => {}
                Ok(_) => {
                    return Err(LoadError::Stale { path: source.path.clone(), why: "changed".to_string() });
                }
                Err(e) => {
                    return Err(LoadError::Stale { path: source.path.clone(), why: format!("cannot be read ({e})") })
                }
            }
        }
        Ok(())
    }

    /// The prompt body of a skill or command (the text after its frontmatter), read now and
    /// checked against the lock.
    pub fn body(&self, command: &Command) -> Result<String, LoadError> {
        let stale = |why: String| LoadError::Stale { path: command.path.clone(), why };
        let bytes =
            std::fs::read(self.roots.locate(&command.path)).map_err(|e| stale(format!("cannot be read ({e})")))?;
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
