//! A lock, loaded: the runtime's only view of the declarations. Prompt bodies are read
//! lazily, by path, and refused when their bytes no longer match the lock's SHA-256.

use crate::listing;
use crate::permissions::Held;
use capc_compiler::lock::write;
use capc_compiler::model::{Command, Form, Lock, Origin, Scope};
use capc_compiler::secrets::sha256_hex;
use capc_compiler::Options;
use capc_grammar::{parse_permission_rule, Behavior, PermissionRule};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

impl Roots {
    fn options(&self) -> Options {
        Options {
            root: self.root.clone(),
            user_dir: self.user_dir.clone(),
            managed_dir: self.managed_dir.clone(),
            add_dirs: self.add_dirs.clone(),
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
    pub scope: Scope,
    pub source: String,
    pub parsed: PermissionRule,
}

#[derive(Debug, Clone)]
pub struct Loaded {
    pub lock: Lock,
    pub roots: Roots,
    /// The lock's permission rules that parse, in lock order.
    pub rules: Vec<Rule>,
    /// The rules that hold in a trusted folder (all) and in an untrusted one.
    trusted: Held,
    untrusted: Held,
    /// The lock's whole-tool deny rules.
    pub whole_denies: Arc<[PermissionRule]>,
    /// Each command's name and path as shared strings, so a turn's view copies no text.
    pub names: Vec<(Arc<str>, Arc<str>)>,
    /// Each command's display name (a skill's `name:`), when it has one.
    pub displays: Vec<Option<Arc<str>>>,
    /// Names of the commands that are always in the table (not nested, not conditional).
    pub static_names: std::collections::HashSet<String>,
    /// Per command: its name is a built-in command's (it moves the dynamic-skill insertion point).
    pub builtin_named: Vec<bool>,
    /// Per command and per agent: it comes from a plugin only project or local settings
    /// enable, which Claude Code does not load in an untrusted folder.
    pub needs_trust: Vec<bool>,
    pub agent_needs_trust: Vec<bool>,
    /// The commands in the order Claude Code lists them (Skill listing, the commands named
    /// to the user): skills of managed, user, project and `--add-dir` folders, each group by
    /// name; legacy commands of every scope together by name; plugin commands; plugin skills.
    pub listing_order: Vec<usize>,
    /// The home folder whose `.claude.json` the untrusted-folder notice names.
    pub home: PathBuf,
    /// Per command: what the Skill listing says of it (its description, or first body line,
    /// lines joined, with `when_to_use`), measured (see `listing::measured`).
    pub descriptions: Vec<Option<(String, usize, usize)>>,
    /// Per command: its name is a bundled skill's, which it takes.
    pub bundled_named: Vec<bool>,
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
        let rules: Vec<Rule> = lock
            .permissions
            .iter()
            .filter_map(|p| {
                Some(Rule {
                    text: p.rule.clone(),
                    behavior: behavior(p.behavior.as_str())?,
                    scope: p.scope,
                    source: p.path.clone(),
                    parsed: parse_permission_rule(&p.rule).ok()?,
                })
            })
            .collect();
        let home = roots
            .user_dir
            .clone()
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .map(|h| std::path::absolute(&h).unwrap_or(h))
            .unwrap_or_default();
        let root = std::path::absolute(&roots.root).unwrap_or_else(|_| roots.root.clone());
        let (trusted, untrusted) = crate::permissions::held(&rules, &root.to_string_lossy(), &home.to_string_lossy());
        let whole_denies = rules
            .iter()
            .filter(|r| r.behavior == Behavior::Deny && r.parsed.is_whole_tool())
            .map(|r| r.parsed.clone())
            .collect();
        let names = lock.commands.iter().map(|c| (c.name.as_str().into(), c.path.as_str().into())).collect();
        let displays = lock.commands.iter().map(|c| c.display_name.as_deref().map(Arc::from)).collect();
        let trust_only = |plugin: &Option<String>| crate::permissions::needs_trust(&lock, plugin.as_deref());
        let needs_trust = lock.commands.iter().map(|c| trust_only(&c.plugin)).collect();
        let agent_needs_trust = lock.agents.iter().map(|a| trust_only(&a.plugin)).collect();
        let listing_order = listing_order(&lock.commands);
        let descriptions = lock
            .commands
            .iter()
            .map(|c| {
                let description = c.description.as_deref().or(c.fallback_description.as_deref()).map(listing::one_line);
                listing::describe(description, c.when_to_use.as_deref()).map(|d| listing::measured(&d))
            })
            .collect();
        let bundled_named =
            lock.commands.iter().map(|c| capc_compiler::builtins::bundled_skill(&c.name).is_some()).collect();
        let static_names = lock
            .commands
            .iter()
            .filter(|c| c.dynamic.is_none() && c.paths.is_empty())
            .map(|c| c.name.clone())
            .collect();
        let builtin_named = lock.commands.iter().map(|c| capc_compiler::builtins::is_command(&c.name)).collect();
        Loaded {
            lock,
            roots,
            rules,
            trusted,
            untrusted,
            whole_denies,
            names,
            displays,
            static_names,
            builtin_named,
            needs_trust,
            agent_needs_trust,
            listing_order,
            home,
            descriptions,
            bundled_named,
        }
    }

    /// The lock's rules that hold in a trusted or untrusted folder.
    pub fn held_rules(&self, trusted: bool) -> Held {
        if trusted {
            self.trusted.clone()
        } else {
            self.untrusted.clone()
        }
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
}

/// The order Claude Code 2.1.332 lists commands in (see [`Loaded::listing_order`]); names
/// compare as `localeCompare` does.
fn listing_order(commands: &[Command]) -> Vec<usize> {
    let group = |c: &Command| -> (u8, u8) {
        let scope = match c.scope {
            Scope::Managed => 0,
            Scope::User => 1,
            Scope::Project | Scope::Local => 2,
            Scope::AddDir => 3,
            Scope::Plugin | Scope::Builtin => 4,
        };
        match (c.origin, c.form) {
            (Origin::Plugin, Form::Command) => (2, 0),
            (Origin::Plugin, _) => (3, 0),
            (_, Form::Command) => (1, 0),
            _ => (0, scope),
        }
    };
    let mut order: Vec<usize> = (0..commands.len()).collect();
    order.sort_by_cached_key(|&i| (group(&commands[i]), crate::collate::key(&commands[i].name), i));
    order
}
