//! What `capc serve` lists, computed from a session: the prompts (every declared command and
//! skill a user can type), the Skill tool, and each skill's files as resources. Pure data,
//! compared as a whole after a reload to know which `list_changed` notifications to send.

use crate::commands::CommandView;
use crate::context::{Override, TurnContext};
use crate::session::Session;
use capc_compiler::model::Form;
use rmcp::model::{Prompt, PromptArgument, Resource, Skill, SkillFrontmatter, SkillResource, SkillResources, Tool};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

/// The argument that carries the whole argument string, as typed after `/name`.
pub const ARGUMENTS: &str = "arguments";
/// How many typed words a prompt takes from Claude Code. Claude Code splits what
/// follows `/mcp__capc__<name>` at whitespace and gives word `i` to the prompt's `i`-th declared
/// argument, dropping the words past the last one; so each prompt declares this many (`arguments`,
/// the frontmatter's names, then `word<i>`), and `prompts/get` joins them back in order.
pub(crate) const WORD_SLOTS: usize = 32;
/// The one tool: Claude Code's Skill tool, for clients without prompts.
pub(crate) const SKILL_TOOL: &str = "Skill";
/// A skill folder holding more files than this is listed up to this many, in path order.
const MAX_FILES_PER_SKILL: usize = 1000;

/// One file of a skill, served as `skill://<skill>/<path>`: a view of the list [`Files`] keeps,
/// whose URI, path and hash texts are made when a page, a read or a comparison needs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillFile<'a> {
    /// The skill's name as typed (the prompt's name).
    pub skill: &'a str,
    /// The file's path relative to the skill's folder, with `/`.
    pub relative: &'a str,
    /// `SKILL.md`'s path in the lock's notation (`.claude/skills/x/SKILL.md`, `~/…`): the
    /// folder every file of the skill is read from.
    skill_md: &'a str,
    hash: Hash<'a>,
    pub size: u64,
}

/// A listed file's SHA-256: the lock's for `SKILL.md` (lowercase hex); for a supporting file,
/// of the bytes read when the list was made (the lock hashes declarations only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hash<'a> {
    Locked(&'a str),
    Read(&'a [u8; 32]),
}

impl SkillFile<'_> {
    pub fn uri(&self) -> String {
        uri(self.skill, self.relative)
    }

    /// The path in the lock's notation, read through `Roots::read`, which keeps it inside its
    /// folder.
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        match self.hash {
            Hash::Locked(_) => self.skill_md.into(),
            Hash::Read(_) => {
                let folder = self.skill_md.rsplit_once('/').map_or("", |(folder, _)| folder);
                format!("{folder}/{}", self.relative).into()
            }
        }
    }

    /// Lowercase hex SHA-256.
    pub fn sha256(&self) -> std::borrow::Cow<'_, str> {
        match self.hash {
            Hash::Locked(hex) => hex.into(),
            Hash::Read(digest) => capc_compiler::secrets::hex(digest).into(),
        }
    }

    /// The hash is the lock's own (the file is `SKILL.md`).
    pub fn locked(&self) -> bool {
        matches!(self.hash, Hash::Locked(_))
    }
}

/// One instruction file of the lock (CLAUDE.md, a rule, an imported file), served as
/// `instruction://<path>` (the lock's path, `<`, `>` and spaces percent-encoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    pub uri: String,
    /// The path in the lock's notation, read through `Roots::read`.
    pub shown: String,
    pub sha256: String,
    /// When Claude Code sends it, and under which scope.
    pub description: String,
}

/// The lock's instruction files, in the order Claude Code sends them (not managed settings'
/// `claudeMd`, which is a settings value).
fn instruction_files(session: &Session) -> Vec<InstructionFile> {
    session
        .loaded
        .lock
        .instructions
        .iter()
        .filter(|i| i.key.is_none())
        .map(|i| {
            let encoded = i.path.replace('%', "%25").replace(' ', "%20").replace('<', "%3C").replace('>', "%3E");
            InstructionFile {
                uri: format!("instruction://{encoded}"),
                shown: i.path.clone(),
                sha256: i.sha256.clone(),
                description: format!("{} instructions, sent {}", i.scope.as_str(), i.condition()),
            }
        })
        .collect()
}

/// How many items one page of `prompts/list` or `resources/list` holds; a longer list ends its
/// page with a `nextCursor` (what Claude Code's client follows to the last page). A page is
/// built when it is asked for: a large tree's whole list is never held.
pub(crate) const PAGE: usize = 1000;

/// Everything the server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    pub prompts: Prompts,
    pub tools: Vec<Tool>,
    pub files: Files,
    /// The instruction files, as resources.
    pub instructions: Vec<InstructionFile>,
    /// The served prompt (an index into `prompts`) each name a client may send reaches; `None`
    /// for a name that reaches an entry not served (a built-in under the same name).
    pub reaches: HashMap<Arc<str>, Option<usize>>,
    /// What the gateway left out, and why (printed once on stderr).
    pub problems: Vec<String>,
}

/// What a list call answers with, to compare before and after a reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    Prompts,
    Tools,
    Resources,
}

impl Catalog {
    pub fn of(session: &Session) -> Catalog {
        let cx = context(session);
        let view = session.view(&cx);
        let mut prompts = prompts(session, &view.commands, &cx);
        let mut tools = vec![skill_tool(&view.skill_listing)];
        let files = Files::of(session, &prompts);
        let reaches = reaches(&view.commands, &prompts);
        // The gateway's items (`capc serve --connect`): none without live connections.
        let mut problems = Vec::new();
        if session.live.is_some() {
            tools.extend(super::gateway::tools(session, &view.tools, &mut problems));
            let taken: HashSet<&str> = prompts.rows.iter().map(|r| &*r.name).collect();
            let served = super::gateway::prompts(session, &mut problems);
            let served: Vec<Prompt> = served.into_iter().filter(|p| !taken.contains(p.name.as_str())).collect();
            prompts.gateway = served;
        }
        let instructions = instruction_files(session);
        Catalog { prompts, tools, files, instructions, reaches, problems }
    }

    /// The lists that differ from `before`.
    pub fn changed(&self, before: &Catalog) -> Vec<List> {
        let mut out = Vec::new();
        if self.prompts != before.prompts {
            out.push(List::Prompts);
        }
        if self.tools != before.tools {
            out.push(List::Tools);
        }
        if self.files.changed(&before.files) || self.instructions != before.instructions {
            out.push(List::Resources);
        }
        out
    }

    /// The page of `resources/list` that starts at `cursor` (see [`Prompts::page`]).
    pub fn resources(&self, cursor: Option<&str>) -> Result<(Vec<Resource>, Option<String>), String> {
        let files = self.files.get();
        let (start, end, next) = page(cursor, files.len() + self.instructions.len())?;
        let listed = files
            .map(|f| {
                let mut r = Resource::new(f.uri(), format!("{}/{}", f.skill, f.relative));
                r.mime_type = Some(mime_type(f.relative).to_string());
                r.size = Some(f.size);
                r.description = Some(format!("sha256:{}", f.sha256()));
                r
            })
            .chain(self.instructions.iter().map(|i| {
                let mut r = Resource::new(&i.uri, i.shown.clone());
                r.mime_type = Some("text/markdown".to_string());
                r.description = Some(format!("{}; sha256:{}", i.description, i.sha256));
                r
            }));
        Ok((listed.skip(start).take(end - start).collect(), next))
    }

    /// The skills of the MCP Skills extension (SEP-2640), in pages: each served skill whose name
    /// the extension allows (lowercase letters, digits and hyphens: not a plugin's
    /// `acme:ship`), with its files, their digests and sizes. The page that starts at `cursor`
    /// (as `prompts/list`'s pages), and the next page's cursor; a page builds its own skills.
    pub(crate) fn skills_page(&self, cursor: Option<&str>) -> Result<(Vec<Skill>, Option<String>), String> {
        let (entries, admitted) = self.admitted_skills();
        let (start, end, next) = page(cursor, admitted.len())?;
        let shown: Vec<SkillFile<'_>> = admitted[start..end].iter().map(|&i| entries[i as usize]).collect();
        let names: HashSet<&str> = shown.iter().map(|entry| entry.skill).collect();
        let by_skill = by_skill(self.files.get().filter(|f| names.contains(f.skill)));
        let served = self.served();
        let files = |name: &str| by_skill.get(name).map_or(&[][..], Vec::as_slice);
        let skills = shown
            .into_iter()
            .filter_map(|entry| skill(entry, files(entry.skill), served.get(entry.skill).copied()))
            .collect();
        Ok((skills, next))
    }

    /// The URI of every skill [`Catalog::skills_page`] lists, in its order.
    pub(crate) fn skill_uris(&self) -> Vec<String> {
        let (entries, admitted) = self.admitted_skills();
        admitted.iter().map(|&i| entries[i as usize].uri()).collect()
    }

    /// The skill whose `SKILL.md` is at `uri`, as [`Catalog::skills_page`] lists it: found, and
    /// only it built (a large tree lists tens of thousands).
    pub fn skill(&self, uri: &str) -> Option<Skill> {
        let entry = self.files.find(uri).filter(SkillFile::locked)?;
        let files: Vec<SkillFile<'_>> = self.files.get().filter(|f| f.skill == entry.skill).collect();
        let command =
            self.prompts.rows.iter().find(|r| &*r.name == entry.skill).map(|r| &self.prompts.lock.commands[r.decl]);
        skill(entry, &files, command)
    }

    /// The listed `SKILL.md`s, and the places among them of those the extension admits: found
    /// the first time they are asked for, each skill built and dropped in turn.
    fn admitted_skills(&self) -> (Vec<SkillFile<'_>>, &[u32]) {
        let entries: Vec<SkillFile<'_>> = self.files.get().filter(SkillFile::locked).collect();
        let admitted = self.files.admitted.get_or_init(|| {
            // Each skill's files in list order, found by name once rather than by a scan of
            // the whole list per skill.
            let by_skill = by_skill(self.files.get());
            let served = self.served();
            let files = |name: &str| by_skill.get(name).map_or(&[][..], Vec::as_slice);
            (0..entries.len() as u32)
                .filter(|&i| {
                    let entry = entries[i as usize];
                    skill(entry, files(entry.skill), served.get(entry.skill).copied()).is_some()
                })
                .collect()
        });
        (entries, admitted)
    }

    /// The command each served prompt's name runs, by that name.
    fn served(&self) -> HashMap<&str, &capc_compiler::model::Command> {
        self.prompts.rows.iter().map(|r| (&*r.name, &self.prompts.lock.commands[r.decl])).collect()
    }

    /// The closest prompt name to `name`, for an unknown one.
    pub(crate) fn closest_prompt(&self, name: &str) -> Option<&str> {
        crate::request::closest(name, self.prompts.names())
    }
}

/// Skill files by their skill's name, each skill's in list order.
fn by_skill<'a>(files: impl Iterator<Item = SkillFile<'a>>) -> HashMap<&'a str, Vec<SkillFile<'a>>> {
    let mut by_skill: HashMap<&str, Vec<SkillFile<'_>>> = HashMap::new();
    for f in files {
        by_skill.entry(f.skill).or_default().push(f);
    }
    by_skill
}

/// The skill of `entry` (a `SKILL.md`) with its `files` and the `command` it is served as, when
/// the extension admits it (a name of lowercase letters, digits and hyphens).
fn skill(
    entry: SkillFile<'_>,
    files: &[SkillFile<'_>],
    command: Option<&capc_compiler::model::Command>,
) -> Option<Skill> {
    let resources =
        files.iter().map(|f| SkillResource::new(f.uri(), format!("sha256:{}", f.sha256()), f.size)).collect();
    let description = command.and_then(description).unwrap_or_default();
    let skill =
        Skill::new(entry.uri(), SkillFrontmatter::new(entry.skill, description), SkillResources::Files(resources));
    skill.validate().is_ok().then_some(skill)
}

/// The turn every request is answered in: a headless run, trusted only when the user said so
/// (`--trust`, or their own `.claude.json`).
pub fn context(session: &Session) -> TurnContext {
    TurnContext { trusted: session.trusted, ..TurnContext::default() }
}

/// The served prompts: the declared commands and skills as rows, each built into its MCP
/// `Prompt` (nine and more argument slots with their descriptions) only when a page of the
/// list or the prompt itself is asked for; then the gateway's, as their servers gave them.
#[derive(Debug, Clone)]
pub struct Prompts {
    lock: Arc<capc_compiler::model::Lock>,
    rows: Vec<Row>,
    gateway: Vec<Prompt>,
}

/// One declared prompt: its command in the lock, the name `/name` reaches it by, its title.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    decl: usize,
    name: Arc<str>,
    display: Option<Arc<str>>,
}

impl Prompts {
    pub fn len(&self) -> usize {
        self.rows.len() + self.gateway.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th prompt, built.
    pub fn get(&self, i: usize) -> Option<Prompt> {
        match self.rows.get(i) {
            Some(row) => Some(prompt(&self.lock.commands[row.decl], row)),
            None => self.gateway.get(i - self.rows.len()).cloned(),
        }
    }

    pub fn name(&self, i: usize) -> Option<&str> {
        match self.rows.get(i) {
            Some(row) => Some(&row.name),
            None => self.gateway.get(i - self.rows.len()).map(|p| p.name.as_str()),
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.rows.iter().map(|r| &*r.name).chain(self.gateway.iter().map(|p| p.name.as_str()))
    }

    /// The page that starts at `cursor` (a position, as the previous page's `nextCursor` gave
    /// it; none: the first), and the cursor of the next page when there is one.
    pub fn page(&self, cursor: Option<&str>) -> Result<(Vec<Prompt>, Option<String>), String> {
        let (start, end, next) = page(cursor, self.len())?;
        Ok(((start..end).filter_map(|i| self.get(i)).collect(), next))
    }
}

/// The positions of the page that starts at `cursor` in a list of `len` items, and the next
/// page's cursor.
pub fn page(cursor: Option<&str>, len: usize) -> Result<(usize, usize, Option<String>), String> {
    let start = match cursor {
        None => 0,
        Some(c) => match c.parse::<usize>() {
            Ok(n) if n <= len => n,
            _ => return Err(format!("invalid cursor `{}`", capc_compiler::printable::escape(c))),
        },
    };
    let end = (start + PAGE).min(len);
    Ok((start, end, (end < len).then(|| end.to_string())))
}

/// Two lists are the same when every prompt is, compared one built prompt at a time.
impl PartialEq for Prompts {
    fn eq(&self, other: &Prompts) -> bool {
        self.len() == other.len()
            && self.gateway == other.gateway
            && (0..self.rows.len()).all(|i| self.get(i) == other.get(i))
    }
}

/// The declared commands and skills a user can type, each once, in command-table order under
/// the name the table gives it (the entry `/name` reaches first); a display name is the title.
fn prompts(session: &Session, table: &[CommandView], cx: &TurnContext) -> Prompts {
    let commands = &session.loaded.lock.commands;
    // What `/name` runs (`commands::find`): the first row under that exact name. A later row
    // under a taken name is one `/name` never reaches. Found in one pass, not a lookup per row
    // (a large tree's table has 100,000).
    let mut first: HashMap<&str, Option<usize>> = HashMap::with_capacity(table.len());
    for row in table {
        first.entry(&*row.name).or_insert(row.decl);
    }
    let mut rows = Vec::new();
    for row in table {
        let Some(i) = row.decl else { continue };
        match first.get_mut(&*row.name) {
            // Once served, the name is taken.
            Some(decl) if *decl == Some(i) => *decl = None,
            _ => continue,
        }
        let c = &commands[i];
        if !c.user_invocable || cx.skill_override(&c.name) == Override::Off {
            continue;
        }
        rows.push(Row { decl: i, name: row.name.clone(), display: row.display.clone() });
    }
    Prompts { lock: session.loaded.lock.clone(), rows, gateway: Vec::new() }
}

fn description(c: &capc_compiler::model::Command) -> Option<String> {
    c.description.as_deref().or(c.fallback_description.as_deref()).map(str::to_string)
}

/// The MCP prompt of the command `c`, served as `row`.
fn prompt(c: &capc_compiler::model::Command, row: &Row) -> Prompt {
    let mut whole = PromptArgument::new(ARGUMENTS).with_description(match &c.argument_hint {
        Some(hint) => format!("The whole argument string, as typed after /{} ({hint})", row.name),
        None => format!("The whole argument string, as typed after /{}", row.name),
    });
    whole.required = Some(false);
    let mut arguments = vec![whole];
    for name in c.arguments.iter().filter(|n| n.as_str() != ARGUMENTS) {
        let mut argument = PromptArgument::new(name)
            .with_description(format!("${name}: one word of the argument string, in declared order"));
        argument.required = Some(false);
        arguments.push(argument);
    }
    // The slots that catch the rest of what is typed in Claude Code, a word each.
    while arguments.len() < WORD_SLOTS {
        let name = format!("word{}", arguments.len() + 1);
        if arguments.iter().all(|a| a.name != name) {
            arguments.push(PromptArgument::new(name));
        } else {
            arguments.push(PromptArgument::new(format!("{name}_")));
        }
    }
    let mut prompt = Prompt::new(&*row.name, description(c), Some(arguments));
    prompt.title = row.display.as_deref().map(str::to_string);
    prompt
}

/// What each name reaches, by Claude Code's lookup (`commands::find`): an exact name in the
/// table first, then the first entry in table order whose display name or aliases hold it.
fn reaches(table: &[CommandView], prompts: &Prompts) -> HashMap<Arc<str>, Option<usize>> {
    let index: HashMap<&str, usize> = prompts.rows.iter().enumerate().map(|(i, r)| (&*r.name, i)).collect();
    let served = |row: &CommandView| row.decl.and(index.get(&*row.name).copied());
    let mut out = HashMap::new();
    for row in table {
        out.entry(row.name.clone()).or_insert_with(|| served(row));
    }
    for row in table {
        for name in row.display.iter().chain(row.aliases.iter()) {
            out.entry(name.clone()).or_insert_with(|| served(row));
        }
    }
    out
}

/// Claude Code's Skill tool: `{skill, args?}`, described by the Skill listing it would send.
fn skill_tool(listing: &str) -> Tool {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "skill": {"type": "string", "description": "The skill name, e.g. \"commit\" or \"plugin:review\""},
            "args": {"type": "string", "description": "Optional arguments for the skill"},
        },
        "required": ["skill"],
        "additionalProperties": false,
    });
    let serde_json::Value::Object(schema) = schema else { unreachable!("an object literal") };
    let description = if listing.is_empty() {
        "Execute a skill within the main conversation. No skills are available.".to_string()
    } else {
        format!("Execute a skill within the main conversation.\n\nAvailable skills:\n{listing}")
    };
    Tool::new(SKILL_TOOL, description, Arc::new(schema))
}

/// The served skills' files: each skill's folder, `SKILL.md` with the lock's hash, then its
/// other regular files (the walk's rules: no link out of the folder, no `.git` or
/// `node_modules`), in path order. They are walked and hashed the first time a client asks
/// for them, not at start: `initialize` is then answered without reading every supporting file.
#[derive(Debug, Clone)]
pub struct Files {
    /// The served lock, whose commands and sources the folders point into.
    lock: Arc<capc_compiler::model::Lock>,
    folders: Arc<Vec<Folder>>,
    roots: crate::loaded::Roots,
    listed: Arc<OnceLock<Vec<Listed>>>,
    /// Which of the listed `SKILL.md`s the Skills extension admits (their places among them),
    /// found the first time the skills are listed (see `Catalog::admitted_skills`).
    admitted: Arc<OnceLock<Vec<u32>>>,
}

/// One served skill, before its folder is walked: its name (shared with the session), its
/// command in the lock (whose path is `SKILL.md`'s) and `SKILL.md`'s source there (its hash).
#[derive(Debug)]
struct Folder {
    skill: Arc<str>,
    command: usize,
    source: usize,
}

/// One listed file as [`Files`] keeps it: its skill's folder (an index), and for a supporting
/// file its path in the folder and its hash; `SKILL.md`'s are the lock's. A large tree lists
/// one per skill at least, so nothing here is text a [`SkillFile`] can make when asked.
#[derive(Debug)]
struct Listed {
    folder: u32,
    supporting: Option<(Box<str>, [u8; 32])>,
    size: u64,
}

impl Files {
    fn of(session: &Session, prompts: &Prompts) -> Files {
        let loaded = &session.loaded;
        let served: HashSet<&str> = prompts.rows.iter().map(|r| &*r.name).collect();
        let sources: HashMap<&str, usize> =
            loaded.lock.sources.iter().enumerate().map(|(i, s)| (s.path.as_str(), i)).collect();
        let mut folders = Vec::new();
        for (i, c) in loaded.lock.commands.iter().enumerate() {
            if c.form != Form::Skill || !served.contains(&*loaded.names[i].0) {
                continue;
            }
            let Some(&source) = sources.get(c.path.as_str()) else { continue };
            folders.push(Folder { skill: loaded.names[i].0.clone(), command: i, source });
        }
        Files {
            lock: loaded.lock.clone(),
            folders: Arc::new(folders),
            roots: loaded.roots.clone(),
            listed: Arc::default(),
            admitted: Arc::default(),
        }
    }

    /// A served skill's name, `SKILL.md`'s path in the lock's notation, and its hash there.
    fn folder<'a>(&'a self, folder: &'a Folder) -> (&'a str, &'a str, &'a str) {
        let path = &self.lock.commands[folder.command].path;
        (&folder.skill, path, &self.lock.sources[folder.source].sha256)
    }

    /// Every file, walked and hashed on the first call.
    pub fn get(&self) -> impl ExactSizeIterator<Item = SkillFile<'_>> + Clone {
        self.listed.get_or_init(|| self.walk()).iter().map(|listed| self.view(listed))
    }

    fn view<'a>(&'a self, listed: &'a Listed) -> SkillFile<'a> {
        let (skill, skill_md, sha256) = self.folder(&self.folders[listed.folder as usize]);
        let (relative, hash) = match &listed.supporting {
            Some((relative, digest)) => (&**relative, Hash::Read(digest)),
            None => (skill_md.rsplit_once('/').map_or(skill_md, |(_, name)| name), Hash::Locked(sha256)),
        };
        SkillFile { skill, relative, skill_md, hash, size: listed.size }
    }

    /// The listed file `uri` names.
    pub fn find(&self, uri: &str) -> Option<SkillFile<'_>> {
        let mut made = String::new();
        self.get().find(|f| {
            made.clear();
            write_uri(&mut made, f.skill, f.relative);
            made == uri
        })
    }

    fn walk(&self) -> Vec<Listed> {
        let mut out = Vec::new();
        for (index, folder) in self.folders.iter().enumerate() {
            let (_, path, _) = self.folder(folder);
            let Some((folder_shown, file_name)) = path.rsplit_once('/') else { continue };
            let folder = index as u32;
            let size = std::fs::metadata(self.roots.locate(path)).map(|m| m.len()).unwrap_or(0);
            out.push(Listed { folder, supporting: None, size });
            let tree = capc_compiler::walk::walk(&self.roots.locate(folder_shown));
            for relative in tree.files.iter().filter(|f| f.as_str() != file_name).take(MAX_FILES_PER_SKILL) {
                // Unreadable files (too large, a FIFO, a link out) are left out of the list.
                let Ok(bytes) = self.roots.read(&format!("{folder_shown}/{relative}")) else { continue };
                let digest = capc_compiler::secrets::sha256(&bytes);
                out.push(Listed {
                    folder,
                    supporting: Some((relative.as_str().into(), digest)),
                    size: bytes.len() as u64,
                });
            }
        }
        out.shrink_to_fit();
        out
    }
}

impl Files {
    /// Whether a client that listed `before` would see another list now. Files no client has
    /// listed yet are compared by their skills and `SKILL.md` hashes only: nobody holds a list
    /// of their other files to update.
    fn changed(&self, before: &Files) -> bool {
        if before.listed.get().is_none() {
            return !self.folders.iter().map(|f| self.folder(f)).eq(before.folders.iter().map(|f| before.folder(f)));
        }
        self != before
    }
}

impl PartialEq for Files {
    fn eq(&self, other: &Files) -> bool {
        self.get().eq(other.get())
    }
}

/// `skill://<skill>/<path>`, each segment percent-encoded where a URI cannot hold it (a
/// plugin skill's `:` would otherwise read as a port).
pub fn uri(skill: &str, relative: &str) -> String {
    let mut out = String::new();
    write_uri(&mut out, skill, relative);
    out
}

fn write_uri(out: &mut String, skill: &str, relative: &str) {
    out.push_str("skill://");
    encode(out, skill);
    for segment in relative.split('/') {
        out.push('/');
        encode(out, segment);
    }
}

fn encode(out: &mut String, segment: &str) {
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            use std::fmt::Write as _;
            let _ = write!(out, "%{b:02X}");
        }
    }
}

fn mime_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("json") => "application/json",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("txt") | None => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_encode_what_a_uri_cannot_hold() {
        assert_eq!(uri("deploy", "SKILL.md"), "skill://deploy/SKILL.md");
        assert_eq!(uri("acme:ship", "scripts/run it.sh"), "skill://acme%3Aship/scripts/run%20it.sh");
    }
}
