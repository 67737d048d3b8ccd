//! A lock, loaded: the runtime's only view of the declarations. Prompt bodies are read
//! lazily, by path, and refused when their bytes no longer match the lock's SHA-256.
//!
//! A lock comes with a repository and may have been edited by anyone: it is read only from a
//! regular file, every path in it must stay inside its folder or a scope folder the session
//! was given (`lock::paths`), and a file is read by such a path only when it is a regular
//! file whose real path (links resolved) is still inside that folder.

mod derive;
mod rules;

use derive::{derive_from, ClaimedFile};
pub(crate) use rules::held;
use rules::parsed_rule;
pub use rules::LockRule;
pub(crate) use rules::{settings_notice, Held};

use crate::context::TurnContext;
use crate::text;
use capc_compiler::lock::paths;
use capc_compiler::model::{Command, Form, Lock, Origin, Scope};
use capc_compiler::secrets::sha256_hex;
use capc_compiler::Options;
use capc_compiler::{printable, walk};
use capc_grammar::{Behavior, PermissionRule};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
                "the lock's sources no longer check cleanly ({}; the first: {first}); `capc check` shows them",
                capc_compiler::plural::count(*errors, "error")
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
    /// Whether the `--add-dir` folders' instruction files load (see
    /// `Options::add_dir_instructions`).
    pub add_dir_instructions: bool,
}

impl Roots {
    fn options(&self) -> Options {
        Options {
            root: self.root.clone(),
            user_dir: self.user_dir.clone(),
            managed_dir: self.managed_dir.clone(),
            add_dirs: self.add_dirs.clone(),
            plugin_dirs: self.plugin_dirs.clone(),
            add_dir_instructions: self.add_dir_instructions,
            skip_hashes: true,
            leave_out_local: false,
            ..Options::default()
        }
    }
    /// Whether the user's own `.claude.json` (in the user dir) trusts the locked folder: its
    /// entry, or a parent folder's, has `hasTrustDialogAccepted` (as Claude Code reads it).
    /// Nothing in the repository is consulted.
    pub fn user_trusts(&self) -> bool {
        let Some(home) = &self.user_dir else { return false };
        let capc_compiler::walk::Content::Text(text) = capc_compiler::walk::read(&home.join(".claude.json")) else {
            return false;
        };
        let Ok(config) = serde_json::from_str::<serde_json::Value>(&text) else { return false };
        let Some(projects) = config.get("projects").and_then(serde_json::Value::as_object) else { return false };
        let root = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        let real = root.canonicalize().ok();
        [Some(root), real].into_iter().flatten().any(|start| {
            start.ancestors().any(|folder| {
                let key = folder.to_string_lossy();
                projects.get(key.as_ref()).and_then(|p| p.get("hasTrustDialogAccepted"))
                    == Some(&serde_json::Value::Bool(true))
            })
        })
    }

    /// The file a lock path (`.claude/…`, `~/…`, `<managed>/…`, `<plugin-dir N>/…`) names.
    pub fn locate(&self, shown: &str) -> PathBuf {
        capc_compiler::check::locate(&self.options(), shown)
    }
    /// Which scope folders were given, for `lock::paths`.
    pub fn given(&self) -> paths::Given {
        paths::Given {
            user_dir: self.user_dir.is_some(),
            managed_dir: self.managed_dir.is_some(),
            add_dirs: self.add_dirs.len(),
            plugin_dirs: self.plugin_dirs.len(),
        }
    }
    /// The folder a lock path lives in: the lock's folder or the scope folder its prefix names.
    fn scope_dir(&self, shown: &str) -> &Path {
        let extra = numbered_dir(shown, "<add-dir ", &self.add_dirs)
            .or_else(|| numbered_dir(shown, "<plugin-dir ", &self.plugin_dirs));
        match (shown.strip_prefix("~/"), shown.strip_prefix("<managed>/"), extra) {
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

/// The folder of `dirs` a `<FLAG N>/…` lock path names (`prefix` is `<FLAG `).
fn numbered_dir<'d>(shown: &str, prefix: &str, dirs: &'d [PathBuf]) -> Option<&'d PathBuf> {
    let (n, _) = shown.strip_prefix(prefix)?.split_once(">/")?;
    dirs.get(n.parse::<usize>().ok()?.wrapping_sub(1))
}

#[derive(Debug, Clone)]
pub struct Loaded {
    /// The lock the session runs: for a lock file, its claims as far as the sources vouch for
    /// them (see [`crate::trust::vouch`]).
    pub lock: Arc<Lock>,
    /// What the lock file said, as far as a later derivation needs it (`lock` itself when the
    /// lock is not from a file): not the whole lock, which `verify` reads again.
    claimed: Option<ClaimedFile>,
    /// What the lock file claimed that its sources did not vouch for, one note each.
    pub unvouched: Vec<String>,
    pub roots: Roots,
    /// The folder the session starts in, relative to the locked folder (`capc session --cwd`;
    /// empty: the locked folder itself), normalized: the instruction files of each folder from
    /// the locked one down to it are sent at the start, and `@` mentions are taken from it.
    pub start: String,
    /// The lock's permission rules that parse, in lock order.
    pub rules: Vec<LockRule>,
    /// The rules that hold in a trusted folder (all) and in an untrusted one.
    trusted: Held,
    untrusted: Held,
    /// The lock's whole-tool deny rules.
    pub(crate) whole_denies: Arc<[PermissionRule]>,
    /// Each command's name and path as shared strings, so a turn's view copies no text.
    pub names: Vec<(Arc<str>, Arc<str>)>,
    /// Each command's display name (a skill's `name:`), when it has one.
    pub(crate) displays: Vec<Option<Arc<str>>>,
    /// Each command's bare aliases (a plugin entry's `name:` without `:`), the ones Claude Code
    /// keeps.
    pub aliases: Vec<Arc<[Arc<str>]>>,
    /// Names of the commands that are always in the table (not nested, not conditional).
    pub(crate) static_names: std::collections::HashSet<String>,
    /// Per command: its name is a built-in command's (it moves the dynamic-skill insertion point).
    pub(crate) builtin_named: Vec<bool>,
    /// Per command and per agent: it comes from a plugin only project or local settings
    /// enable, which Claude Code does not load in an untrusted folder.
    pub(crate) needs_trust: Vec<bool>,
    pub(crate) agent_needs_trust: Vec<bool>,
    /// The commands in the order Claude Code lists them (Skill listing, the commands named
    /// to the user): skills of managed, user, project and `--add-dir` folders, each group by
    /// name; legacy commands of every scope together by name; plugin commands; plugin skills.
    pub(crate) listing_order: Vec<usize>,
    /// The home folder whose `.claude.json` the untrusted-folder notice names.
    pub home: PathBuf,
    /// Per command: what the Skill listing says of it (its description, or first body line,
    /// lines joined, with `when_to_use`), measured (see [`Loaded::description`]).
    descriptions: Vec<Option<Measured>>,
    /// Per command: its name is a bundled skill's, which it takes.
    pub(crate) bundled_named: Vec<bool>,
    /// Made from the files, not from a lock file (`capc serve` in a folder with no lock): the
    /// local settings are read as Claude Code reads them, so a re-derivation keeps them.
    pub from_tree: bool,
}

/// A lock as a session holds it, from a lock file or computed from the files (not one it was
/// given): without the marketplaces' entries (`[[marketplace_plugin]]`), which are for review
/// (`capc diff`) and load nothing (on a large tree, a fifth of the lock). What a session's lock
/// is compared with is read whole (a lock file, again) or made so ([`Loaded::verify`]).
pub(crate) fn for_session(lock: &mut Lock) {
    lock.marketplace_plugins = Vec::new();
}

/// A command's text in the Skill listing, measured once: kept only when it is not the lock's
/// description (or first body line) as it is, which it is for most commands.
#[derive(Debug, Clone)]
struct Measured {
    own: Option<Box<str>>,
    size: usize,
    units: usize,
}

/// What deriving a session's lock again needs, and serving the lock derived: the lock (shared
/// with the session, not copied), where it came from, its folders and start folder; not the
/// rules, names and descriptions a session computes from its lock, which a copy of the whole
/// [`Loaded`] would hold twice (`capc serve --watch` keeps this between saves).
#[derive(Debug, Clone)]
pub struct Rederive {
    pub lock: Arc<Lock>,
    claimed: Option<ClaimedFile>,
    roots: Roots,
    start: String,
    from_tree: bool,
}

impl Rederive {
    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// The session of `lock` in place of this one's lock (`capc serve` after a save): the same
    /// folders, start folder and origin.
    pub fn reloaded(&self, mut lock: Lock) -> Loaded {
        if self.claimed.is_some() || self.from_tree {
            for_session(&mut lock);
        }
        let mut loaded = Loaded::new(lock, self.roots.clone());
        loaded.start = self.start.clone();
        loaded.from_tree = self.from_tree;
        if !self.from_tree {
            loaded.claimed = self.claimed.clone();
        }
        loaded
    }
}

impl Loaded {
    /// What the Skill listing says of command `i` (its description, or first body line, lines
    /// joined, with `when_to_use`), with its size and length.
    pub(crate) fn description(&self, i: usize) -> Option<text::Described<'_>> {
        let measured = self.descriptions[i].as_ref()?;
        let command = &self.lock.commands[i];
        let text = match &measured.own {
            Some(own) => own,
            None => command.description.as_deref().or(command.fallback_description.as_deref())?,
        };
        Some(text::Described::with_measure(text, measured.size, measured.units))
    }

    /// The settings keys and `env` variables that change what a turn sends, as the locked
    /// settings give them merged (user, project, local, then managed, each over what came
    /// before; managed-settings.json before the managed-settings.d/ files): `env`,
    /// `skillOverrides` and the other objects key by key, `attribution` whole from the
    /// strongest file that sets it, anything else from the strongest scope. A value the lock
    /// keeps only as a hash (a secret) is left out.
    pub(crate) fn settings_flags(&self) -> BTreeMap<String, Value> {
        let mut rows: Vec<&capc_compiler::model::Setting> = self
            .lock
            .settings
            .iter()
            .filter(|s| {
                s.key.starts_with("env.")
                    || capc_compiler::runs::TURN_KEYS
                        .iter()
                        .any(|k| s.key == *k || s.key.strip_prefix(k).is_some_and(|rest| rest.starts_with('.')))
            })
            .collect();
        let rank = |scope: Scope| match scope {
            Scope::User => 0,
            Scope::Project => 1,
            Scope::Local => 2,
            Scope::Managed => 3,
            _ => 4,
        };
        rows.sort_by_key(|s| (rank(s.scope), !s.path.ends_with("managed-settings.json"), s.path.clone()));
        let scalar = |text: &str| -> Value {
            match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => text
                    .parse::<serde_json::Number>()
                    .map(Value::Number)
                    .unwrap_or_else(|_| Value::String(text.to_string())),
            }
        };
        let mut flags: BTreeMap<String, Value> = BTreeMap::new();
        // `attribution` is taken whole from the last file that sets it.
        let attribution_file = rows
            .iter()
            .rev()
            .find(|s| s.key == "attribution" || s.key.starts_with("attribution."))
            .map(|s| s.path.clone());
        for s in rows {
            if s.value.starts_with("sha256:") {
                continue;
            }
            if let Some(name) = s.key.strip_prefix("env.") {
                flags.insert(name.to_string(), Value::String(s.value.clone()));
            } else if let Some(field) = s.key.strip_prefix("attribution.") {
                if Some(&s.path) != attribution_file.as_ref() {
                    continue;
                }
                let value = if field == "sessionUrl" { scalar(&s.value) } else { Value::String(s.value.clone()) };
                let entry = flags.entry("attribution".to_string()).or_insert_with(|| Value::Object(Default::default()));
                if !entry.is_object() {
                    *entry = Value::Object(Default::default());
                }
                if let Value::Object(map) = entry {
                    map.insert(field.to_string(), value);
                }
            } else if let Some(name) = s.key.strip_prefix("skillOverrides.") {
                let entry =
                    flags.entry("skillOverrides".to_string()).or_insert_with(|| Value::Object(Default::default()));
                if let Value::Object(map) = entry {
                    map.insert(name.to_string(), Value::String(s.value.clone()));
                }
            } else if s.key == "attribution" {
                if Some(&s.path) == attribution_file.as_ref() {
                    flags.insert(s.key.clone(), scalar(&s.value));
                }
            } else {
                flags.insert(s.key.clone(), scalar(&s.value));
            }
        }
        flags
    }

    /// `cx` with the locked settings' turn keys (`settings_flags`) under its own `flags`: what
    /// the host passes wins, key by key, as a variable set in the environment or a key given on
    /// the command line would.
    pub(crate) fn with_settings(&self, mut cx: TurnContext) -> TurnContext {
        for (key, value) in self.settings_flags() {
            cx.flags.entry(key).or_insert(value);
        }
        cx
    }

    /// The policy switch `key` when the lock has it in force (`[[policy]]`).
    pub fn policy(&self, key: &str) -> Option<&capc_compiler::model::PolicySwitch> {
        self.lock.policy.iter().find(|s| s.key == key)
    }

    /// `lock` is taken as it is or shared (`Arc<Lock>`: a check's resolved lock, not copied).
    pub fn new(lock: impl Into<Arc<Lock>>, roots: Roots) -> Loaded {
        let lock: Arc<Lock> = lock.into();
        let rules: Vec<LockRule> = lock
            .permissions
            .iter()
            .filter_map(|p| {
                Some(LockRule {
                    text: p.rule.clone(),
                    behavior: p.behavior,
                    scope: p.scope,
                    source: p.path.clone(),
                    parsed: parsed_rule(&p.rule, p.behavior)?,
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
        let (mut trusted, mut untrusted) = held(&rules, &root.to_string_lossy(), &home.to_string_lossy());
        let refused = settings_notice(&lock.settings_not_loaded, |shown| {
            let path = roots.locate(shown);
            std::path::absolute(&path).unwrap_or(path).to_string_lossy().into_owned()
        });
        if !refused.is_empty() {
            for held in [&mut trusted, &mut untrusted] {
                held.notices = refused.iter().chain(held.notices.iter()).cloned().collect();
            }
        }
        let whole_denies = rules
            .iter()
            .filter(|r| r.behavior == Behavior::Deny && r.parsed.is_whole_tool())
            .map(|r| r.parsed.clone())
            .collect();
        let names = lock.commands.iter().map(|c| (c.name.as_str().into(), c.path.as_str().into())).collect();
        let displays = lock.commands.iter().map(|c| c.display_name.as_deref().map(Arc::from)).collect();
        let aliases = lock.commands.iter().map(|c| c.aliases.iter().map(|a| Arc::from(a.as_str())).collect()).collect();
        let trust_only =
            |plugin: &Option<String>, path: &str| plugin.is_some() && crate::trust::component_needs_trust(&lock, path);
        let needs_trust = lock.commands.iter().map(|c| trust_only(&c.plugin, &c.path)).collect();
        let agent_needs_trust = lock.agents.iter().map(|a| trust_only(&a.plugin, &a.path)).collect();
        let listing_order = listing_order(&lock.commands);
        let descriptions = lock
            .commands
            .iter()
            .map(|c| {
                let description = c.description.as_deref().or(c.fallback_description.as_deref());
                let listed = text::describe(description.map(text::one_line), c.when_to_use.as_deref())?;
                let (listed, size, units) = text::measured(&text::listing_escaped(&listed));
                let own = (Some(listed.as_str()) != description).then(|| listed.into_boxed_str());
                Some(Measured { own, size, units })
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
            claimed: None,
            lock,
            unvouched: Vec::new(),
            roots,
            start: String::new(),
            rules,
            trusted,
            untrusted,
            whole_denies,
            names,
            displays,
            aliases,
            static_names,
            builtin_named,
            needs_trust,
            agent_needs_trust,
            listing_order,
            home,
            descriptions,
            bundled_named,
            from_tree: false,
        }
    }

    /// The lock `capc lock --include-local` would write now for `roots`, computed in memory and
    /// loaded: the files as Claude Code loads them, local settings included, with no lock file.
    /// Refused as `capc lock` refuses: when what a session here loads has errors.
    /// The session started in `start` (`capc session --cwd`, relative and normalized; see
    /// [`Loaded::start`]). When a folder on the way from the locked folder down to it (itself
    /// included) has a `.claude/` of its own, Claude Code started there loads more and other
    /// than the lock says for the locked folder: the skills, commands and agents of each
    /// `.claude/` up to the locked folder, the nearer first, and the settings of `start`'s own
    /// (`capc_compiler::Options::start`). That lock is computed from the files, as `capc lock`
    /// reads them, and taken only when every file of the folder it reads is one the lock hashed,
    /// unchanged; otherwise the session is refused (the lock is stale).
    pub fn start_in(mut self, start: String) -> Result<Loaded, LoadError> {
        let mut at = self.roots.root.clone();
        let nested = start.split('/').filter(|p| !p.is_empty()).any(|part| {
            at.push(part);
            at.join(".claude").is_dir()
        });
        if !nested {
            self.start = start;
            return Ok(self);
        }
        let mut fresh = if self.from_tree {
            derive_from(&self.roots, true, None, &start)?
        } else {
            let (fresh, claimed) = self.derive_started(&start)?;
            // Only the folder's own files are compared: the other scopes are the user's.
            for source in fresh.sources.iter().filter(|s| !s.path.starts_with('~') && !s.path.starts_with('<')) {
                let stale = |why: &str| LoadError::Stale { path: source.path.clone(), why: why.to_string() };
                match claimed.sources.iter().find(|l| l.path == source.path) {
                    Some(locked) if locked.sha256 == source.sha256 => {}
                    Some(_) => return Err(stale("changed since the lock was written")),
                    None => return Err(stale("is not in the lock")),
                }
            }
            fresh
        };
        if self.claimed.is_some() || self.from_tree {
            for_session(&mut fresh);
        }
        let mut loaded = Loaded::new(fresh, self.roots);
        loaded.claimed = self.claimed;
        loaded.unvouched = self.unvouched;
        loaded.from_tree = self.from_tree;
        loaded.start = start;
        Ok(loaded)
    }

    /// What deriving this session's lock again needs (see [`Rederive`]).
    pub fn rederive(&self) -> Rederive {
        Rederive {
            lock: self.lock.clone(),
            claimed: self.claimed.clone(),
            roots: self.roots.clone(),
            start: self.start.clone(),
            from_tree: self.from_tree,
        }
    }

    pub fn from_tree(roots: Roots) -> Result<Loaded, LoadError> {
        let mut lock = derive_from(&roots, true, None, "")?;
        for_session(&mut lock);
        let mut loaded = Loaded::new(lock, roots);
        loaded.from_tree = true;
        Ok(loaded)
    }

    /// The allow rules of the local settings (`.claude/settings.local.json`) as they are now,
    /// whether or not the lock holds them; none when there is no such file or the folder does
    /// not check.
    pub(crate) fn local_allows(&self) -> Vec<String> {
        if !self.roots.root.join(".claude/settings.local.json").is_file() {
            return Vec::new();
        }
        let Ok(lock) = derive_from(&self.roots, true, None, &self.start) else { return Vec::new() };
        lock.permissions
            .iter()
            .filter(|p| p.scope == Scope::Local && p.behavior == Behavior::Allow)
            .map(|p| p.rule.clone())
            .collect()
    }

    /// The lock's rules that hold in a trusted or untrusted folder.
    pub(crate) fn held_rules(&self, trusted: bool) -> Held {
        if trusted {
            self.trusted.clone()
        } else {
            self.untrusted.clone()
        }
    }

    /// The "Codebase and user instructions" reminder Claude Code puts first in the user
    /// turn: each instruction file of the lock that loads at the start (not a rule waiting for
    /// a `paths:` match), in the lock's order, as `Contents of PATH (HEADING):` and the text it
    /// sends; `None` when there is none. Each file is read now and refused when its bytes no
    /// longer hash as the lock says.
    pub fn instructions(&self) -> Result<Option<String>, LoadError> {
        let mut parts: Vec<String> = Vec::new();
        for instruction in self.start_instructions() {
            let stale = |why: String| LoadError::Stale { path: instruction.path.clone(), why };
            let bytes = self.roots.read(&instruction.path).map_err(|e| stale(format!("cannot be read ({e})")))?;
            if sha256_hex(&bytes) != instruction.sha256 {
                return Err(stale("changed".to_string()));
            }
            let text = String::from_utf8(bytes).map_err(|_| stale("is no longer UTF-8".to_string()))?;
            let heading = match instruction.scope {
                Scope::Local => "user's private project instructions, not checked in",
                Scope::User => "user's private global instructions for all projects",
                Scope::Managed => "organization-managed policy instructions",
                _ => "project instructions, checked into the codebase",
            };
            let (path, body) = match &instruction.key {
                // A settings key's text (managed settings' `claudeMd`), under the name Claude
                // Code gives it.
                Some(key) => {
                    let value: serde_json::Value =
                        serde_json::from_str(&text).map_err(|_| stale("is no longer JSON".to_string()))?;
                    let body = value.get(key).and_then(serde_json::Value::as_str).unwrap_or_default();
                    ("<managed-settings>".to_string(), body.trim().to_string())
                }
                None => (
                    self.roots.locate(&instruction.path).display().to_string(),
                    capc_compiler::check::instructions::sent(&text),
                ),
            };
            parts.push(format!("Contents of {path} ({heading}):\n\n{body}"));
        }
        if parts.is_empty() {
            return Ok(None);
        }
        Ok(Some(format!("<system-reminder>\n{INSTRUCTIONS_INTRO}\n\n{}\n</system-reminder>", parts.join("\n\n"))))
    }

    /// Whether `folder` (relative to the locked one) is the start folder or one above it.
    fn holds_start(&self, folder: &str) -> bool {
        self.start == folder || self.start.starts_with(&format!("{folder}/"))
    }

    /// The instruction files sent at the start, in order: those the lock sends at the start,
    /// with, before the `--add-dir` folders' (when the session starts below the locked folder),
    /// each nested folder's from the locked folder down to the start folder, outermost first,
    /// as Claude Code reads every folder above the one it starts in: its CLAUDE.md and
    /// .claude/CLAUDE.md with their imports, its rules without `paths`, then its
    /// CLAUDE.local.md with its imports.
    fn start_instructions(&self) -> Vec<&capc_compiler::model::Instruction> {
        let all = &self.lock.instructions;
        let mut out: Vec<&capc_compiler::model::Instruction> = Vec::new();
        let added = |i: &capc_compiler::model::Instruction| i.path.starts_with("<add-dir ");
        out.extend(all.iter().filter(|i| i.at_start() && !added(i)));
        if !self.start.is_empty() {
            // The file an entry's imports chain starts from decides its place in its folder.
            let rank = |i: &capc_compiler::model::Instruction| {
                let mut top = i;
                for _ in 0..all.len() {
                    match top.imported_by.as_ref().and_then(|by| all.iter().find(|j| &j.path == by)) {
                        Some(by) => top = by,
                        None => break,
                    }
                }
                if top.scope == Scope::Local {
                    2
                } else if top.path.contains("/.claude/rules/") {
                    1
                } else {
                    0
                }
            };
            let mut folders: Vec<&str> =
                all.iter().filter_map(|i| i.folder.as_deref()).filter(|f| self.holds_start(f)).collect();
            folders.sort_by_key(|f| (f.split('/').count(), f.to_string()));
            folders.dedup();
            for folder in folders {
                let mut here: Vec<&capc_compiler::model::Instruction> =
                    all.iter().filter(|i| i.folder.as_deref() == Some(folder) && i.paths.is_empty()).collect();
                here.sort_by_key(|i| rank(i));
                out.extend(here);
            }
        }
        out.extend(all.iter().filter(|i| i.at_start() && added(i)));
        out
    }

    /// The instruction files a turn that reads `read` (absolute paths, in order) brings in, as
    /// Claude Code attaches them after the reads, for each file read in turn: the managed
    /// and user rules whose `paths` match it, then each nested folder above it (outermost first:
    /// its files and their imports, its rules without `paths`, then those whose `paths` match
    /// the file relative to that folder), then the project's rules whose `paths` match. Each is
    /// `Contents of PATH:` and its body, once a turn. A file changed since the lock is left out,
    /// with a note saying so.
    pub(crate) fn attached_for(&self, read: &[PathBuf], notes: &mut Vec<String>) -> Vec<String> {
        use capc_compiler::check::instructions::paths_match;
        let root = self.roots.root.canonicalize().unwrap_or_else(|_| self.roots.root.clone());
        let rels: Vec<String> = read
            .iter()
            .filter_map(|p| {
                p.canonicalize().ok()?.strip_prefix(&root).ok().map(|r| r.to_string_lossy().replace('\\', "/"))
            })
            .collect();
        let all = &self.lock.instructions;
        let mut picked: Vec<usize> = Vec::new();
        let take = |n: usize, picked: &mut Vec<usize>| {
            if !picked.contains(&n) {
                picked.push(n);
            }
        };
        let rooted = |i: &capc_compiler::model::Instruction| i.folder.is_none() && !i.path.starts_with("<add-dir ");
        let all: Vec<(usize, &capc_compiler::model::Instruction)> = all.iter().enumerate().collect();
        for rel in &rels {
            for scope in [Scope::Managed, Scope::User] {
                for (n, i) in all.iter().filter(|(_, i)| i.scope == scope && rooted(i) && !i.paths.is_empty()) {
                    if paths_match(&i.paths, rel) {
                        take(*n, &mut picked);
                    }
                }
            }
            // A folder the session starts in or below was sent at the start.
            let mut folders: Vec<&str> = all
                .iter()
                .filter_map(|(_, i)| i.folder.as_deref())
                .filter(|f| rel.starts_with(&format!("{f}/")) && !self.holds_start(f))
                .collect();
            folders.sort();
            folders.dedup();
            folders.sort_by_key(|f| f.split('/').count());
            for folder in folders {
                let inner = &rel[folder.len() + 1..];
                for (n, _) in all.iter().filter(|(_, i)| i.folder.as_deref() == Some(folder) && i.paths.is_empty()) {
                    take(*n, &mut picked);
                }
                for (n, i) in all.iter().filter(|(_, i)| i.folder.as_deref() == Some(folder) && !i.paths.is_empty()) {
                    if paths_match(&i.paths, inner) {
                        take(*n, &mut picked);
                    }
                }
            }
            for (n, i) in all.iter().filter(|(_, i)| matches!(i.scope, Scope::Project | Scope::Local) && rooted(i)) {
                if !i.paths.is_empty() && paths_match(&i.paths, rel) {
                    take(*n, &mut picked);
                }
            }
        }
        let mut out = Vec::new();
        for i in picked.into_iter().map(|n| all[n].1) {
            let text = self
                .roots
                .read(&i.path)
                .ok()
                .filter(|bytes| sha256_hex(bytes) == i.sha256)
                .and_then(|bytes| String::from_utf8(bytes).ok());
            match text {
                Some(text) => out.push(format!(
                    "<system-reminder>\nContents of {}:\n\n{}\n</system-reminder>",
                    self.roots.locate(&i.path).display(),
                    capc_compiler::check::instructions::attached(&text)
                )),
                None => notes.push(format!(
                    "instruction file `{}` changed since the lock (or cannot be read): not sent",
                    printable::escape(&i.path)
                )),
            }
        }
        out
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
}

/// The first paragraph of the instructions reminder (Claude Code).
pub(crate) const INSTRUCTIONS_INTRO: &str = "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.";

/// The order Claude Code lists commands in (see [`Loaded::listing_order`]); names
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
    // A session started in a subfolder lists the skills of each `.claude/` up to the project's,
    // the nearer folder's first.
    let depth = |c: &Command| match (c.origin, c.form, c.scope) {
        (Origin::Plugin, _, _) | (_, Form::Command, _) => 0,
        (_, _, Scope::Project | Scope::Local) => {
            c.path.find(".claude/skills/").map_or(0, |at| c.path[..at].matches('/').count())
        }
        _ => 0,
    };
    // Plugins' entries keep the lock's order: their plugins' load order, then the table's.
    let key = |i: usize| {
        let c = &commands[i];
        let by_name = if c.origin == Origin::Plugin { Default::default() } else { crate::collate::key(&c.name) };
        (group(c), std::cmp::Reverse(depth(c)), by_name, i)
    };
    let mut order: Vec<usize> = (0..commands.len()).collect();
    order.sort_by_cached_key(|&i| key(i));
    order
}
