//! What a typed line does, as Claude Code handles it: slash dispatch (with `/a b`
//! joining to `a:b`), a prompt command expanded with its `!` injections or handed to a forked
//! agent, bundled skills, built-in commands, an unknown `/name`, an MCP prompt.

use super::{Grant, Session, ShellRun, PROMPT_TIMEOUT};
use crate::commands::{self, CommandView};
use crate::context::{Entry, Override, TurnContext};
use crate::mentions;
use crate::outcome::{Declared, TurnResult};
use crate::permissions::Permissions;
use crate::request::{self, Request};
use crate::turn::TurnView;
use capc_compiler::builtins::{bundled_skill, BundledSkill, CommandType};
use capc_compiler::model::{Command, Form, Origin};
use capc_grammar::{parse_template, ExpandContext, Template, TemplateVar};
use serde_json::Value;
use std::sync::Arc;

/// The result and request of an input that makes no request.
fn no_request(
    view: &TurnView,
    result: fn(String, String) -> TurnResult,
    command: &str,
    message: String,
) -> (TurnResult, Request) {
    let request = Request::none(view, vec![message.clone()]);
    (result(command.to_string(), message), request)
}

fn disabled(command: String, output: String) -> TurnResult {
    TurnResult::Disabled { command, output }
}

fn model_only(command: String, output: String) -> TurnResult {
    TurnResult::ModelOnly { command, output }
}

impl Session {
    pub(super) fn input(&mut self, input: &str, view: &TurnView, cx: &TurnContext) -> (TurnResult, Request) {
        let trimmed = input.trim();
        if !trimmed.starts_with('/') {
            return {
                let texts = self.with_mentions(input, vec![input.to_string()], cx);
                (TurnResult::Message { text: input.to_string() }, Request::main(view, texts))
            };
        }
        let Some(line) = capc_grammar::parse_command_line(input) else {
            let message = "Commands are in the form `/command [args]`".to_string();
            return (TurnResult::Error { message: message.clone() }, Request::none(view, vec![message]));
        };
        let mut name = line.base_name().to_string();
        let mut args = line.args.clone();
        // `/a b rest`: when nothing answers to `a` but `a:b` exists, it runs `a:b` with `rest`
        // (Claude Code's dispatcher; only the first word joins).
        if commands::find(&view.commands, &name).is_none() && self.mcp.prompt(&name).is_none() {
            let trimmed = args.trim_start();
            if let Some(first) = trimmed.split_whitespace().next() {
                let joined = format!("{name}:{first}");
                if commands::find(&view.commands, &joined).is_some() {
                    args = trimmed[first.len()..].trim_start().to_string();
                    name = joined;
                }
            }
        }
        match commands::find(&view.commands, &name).cloned() {
            Some(row) => match row.decl {
                Some(i) => {
                    let command = self.loaded.lock.commands[i].clone();
                    if cx.skill_override(&command.name) == Override::Off {
                        return no_request(view, disabled, &command.name, disabled_message(&command.name));
                    }
                    if !command.user_invocable {
                        return no_request(view, model_only, &command.name, model_only_message(&command.name));
                    }
                    self.run_prompt(&command, &args, view, cx, false)
                }
                None => match bundled_skill(&row.name).filter(|b| commands::bundled_exists(b, cx)) {
                    Some(b) => self.bundled(b, &args, view, cx),
                    None => self.local(&row, view, cx),
                },
            },
            None => {
                if let Some(b) = bundled_skill(&name).filter(|b| commands::bundled_exists(b, cx)) {
                    return self.bundled(b, &args, view, cx);
                }
                if self.mcp.prompt(&name).is_some() {
                    return self.mcp_prompt(&name, &args, view);
                }
                if line.looks_like_command() {
                    return self.unknown(&name, &args, input, view, cx);
                }
                {
                    let texts = self.with_mentions(input, vec![input.to_string()], cx);
                    (TurnResult::Message { text: input.to_string() }, Request::main(view, texts))
                }
            }
        }
    }

    /// A bundled skill or built-in prompt command typed by the user. capc has the prompts of
    /// `/init` and of `/security-review` outside a git repository; the others live inside
    /// Claude Code, and only their first block is recorded.
    fn bundled(&mut self, b: &BundledSkill, args: &str, view: &TurnView, cx: &TurnContext) -> (TurnResult, Request) {
        if cx.skill_override(b.name) == Override::Off {
            return no_request(view, disabled, b.name, disabled_message(b.name));
        }
        if !b.user_invocable {
            return no_request(view, model_only, b.name, model_only_message(b.name));
        }
        self.grant = Some(Grant { skill: b.name.to_string(), ..Grant::default() });
        let root = self.loaded.roots.root.to_string_lossy().into_owned();
        let prompt = match b.name {
            "security-review" if !in_git_repository(&self.loaded.roots.root) => {
                Some(capc_compiler::builtins::security_review_outside_git().replace("{cwd}", &root))
            }
            _ => b.prompt.map(str::to_string),
        };
        let mut texts = vec![request::command_block(b.name, args)];
        let mut note = None;
        match prompt {
            Some(text) => texts.push(text),
            None => note = Some(BUNDLED_NOTE.to_string()),
        }
        let result = TurnResult::Prompt {
            command: b.name.to_string(),
            origin: Some(Origin::Bundled),
            texts: texts.clone(),
            declared: None,
            note,
        };
        (result, Request::main(view, texts))
    }

    /// `/help` in an interactive session: each name a typed `/name` reaches, once — the
    /// folder's and its plugins' commands with their descriptions, then the bundled skills and
    /// the built-in commands by name.
    fn help(&self, view: &TurnView) -> String {
        let mut seen = std::collections::HashSet::new();
        let (mut declared, mut bundled, mut builtin) = (Vec::new(), Vec::new(), Vec::new());
        for c in view.commands.iter().filter(|c| seen.insert(c.name.clone())) {
            match c.origin {
                Origin::Builtin => builtin.push(format!("/{}", c.name)),
                Origin::Bundled => bundled.push(format!("/{}", c.name)),
                _ => {
                    let description = c
                        .decl
                        .and_then(|i| self.loaded.lock.commands.get(i))
                        .and_then(|d| d.description.as_deref())
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("");
                    declared.push((format!("/{}", c.name), description.to_string()));
                }
            }
        }
        let mut out = String::new();
        if !declared.is_empty() {
            out.push_str("Commands and skills here:\n");
            let width = declared.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(0);
            for (name, description) in &declared {
                out.push_str(format!("  {name:width$}  {description}").trim_end());
                out.push('\n');
            }
        }
        for (title, names) in [("Bundled skills", &bundled), ("Built-in commands", &builtin)] {
            if names.is_empty() {
                continue;
            }
            out.push_str(&format!("{title}:\n"));
            let mut line = String::from(" ");
            for name in names.iter() {
                if line.len() + name.len() + 1 > 98 {
                    out.push_str(&line);
                    out.push('\n');
                    line = String::from(" ");
                }
                line.push(' ');
                line.push_str(name);
            }
            out.push_str(&line);
            out.push('\n');
        }
        out.trim_end().to_string()
    }

    /// A built-in command that is not a prompt. A headless session answers `/help` and the
    /// other commands that draw Claude Code's interface with "isn't available in this
    /// environment" and `/clear` with nothing, making no request; interactively capc answers
    /// `/help`, `/skills`, `/mcp`, `/agents`, `/permissions` and `/clear` from the session.
    fn local(&mut self, row: &CommandView, view: &TurnView, cx: &TurnContext) -> (TurnResult, Request) {
        if cx.entry == Entry::Headless {
            let output = match (row.kind, &*row.name) {
                (_, "clear") => {
                    self.grant = None;
                    Vec::new()
                }
                (CommandType::LocalJsx, name) => vec![format!("/{name} isn't available in this environment.")],
                _ => Vec::new(),
            };
            let result = TurnResult::Local {
                command: row.name.to_string(),
                kind: row.kind.as_str().to_string(),
                output: Some(output.join("\n")),
                note: None,
            };
            return (result, Request::none(view, output));
        }
        let output = match &*row.name {
            "help" => Some(self.help(view)),
            "skills" => Some(view.skill_listing.clone()),
            "mcp" => Some(
                self.mcp.servers().map(|s| format!("{}: {}", s.name, s.status.as_str())).collect::<Vec<_>>().join("\n"),
            ),
            "agents" => Some(view.agent_listing.clone()),
            "permissions" => Some(
                self.loaded
                    .lock
                    .permissions
                    .iter()
                    .map(|p| format!("{} {}", p.behavior.as_str(), p.rule))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            "clear" => {
                self.grant = None;
                Some(String::new())
            }
            _ => None,
        };
        let stdout: Vec<String> = output.iter().filter(|o| !o.is_empty()).cloned().collect();
        let note =
            output.is_none().then(|| "runs inside Claude Code's interface; capc does not reproduce it".to_string());
        let result =
            TurnResult::Local { command: row.name.to_string(), kind: row.kind.as_str().to_string(), output, note };
        (result, Request::none(view, stdout))
    }

    /// An unknown `/name`: headless, it goes to the model after a reminder of the commands
    /// there are; interactively Claude Code says so and sends nothing.
    fn unknown(
        &mut self,
        name: &str,
        args: &str,
        input: &str,
        view: &TurnView,
        cx: &TurnContext,
    ) -> (TurnResult, Request) {
        let (named, unnamed) = self.named_commands(view, cx);
        let candidates = named.iter().chain(&unnamed).map(String::as_str);
        let closest = request::closest(name, candidates).map(str::to_string);
        let result = TurnResult::Unknown { command: name.to_string(), did_you_mean: closest.clone() };
        if cx.entry == Entry::Interactive {
            let mut stdout = vec![match &closest {
                Some(c) => format!("Unknown command: /{name}. Did you mean /{c}?"),
                None => format!("Unknown command: /{name}"),
            }];
            if !args.is_empty() {
                stdout.push(format!("Args from unknown skill: {args}"));
            }
            return (result, Request::none(view, stdout));
        }
        let more = unnamed.len() + self.mcp.prompt_commands().len() + request::HEADLESS_BUILTIN_UNNAMED;
        let reminder = request::unknown_command_reminder(name, &named, more, closest.as_deref());
        let texts = self.with_mentions(input, vec![reminder, input.to_string()], cx);
        (result, Request::main(view, texts))
    }

    /// The commands the unknown-command reminder names (prompt commands the user may type and
    /// the model may run, not MCP prompts, by the name they show, in command order) and the
    /// user's other commands the user may type.
    fn named_commands(&self, view: &TurnView, cx: &TurnContext) -> (Vec<String>, Vec<String>) {
        let commands = &self.loaded.lock.commands;
        let mut in_table = vec![false; commands.len()];
        for row in &view.commands {
            if let Some(i) = row.decl {
                in_table[i] = true;
            }
        }
        let (mut named, mut unnamed) = (Vec::new(), Vec::new());
        let mut taken = std::collections::HashSet::new();
        // A plugin's `anthropic-skills:…` entries sit after the built-ins, as Claude Code lists them.
        let mut reserved = Vec::new();
        for &i in &self.loaded.listing_order {
            let c = &commands[i];
            // A second loaded plugin of the same name keeps its entries in the table (the first
            // answers), and the reminder names them again.
            let hidden = c.shadowed_by.as_ref().is_some_and(|by| by.rule != "load-order");
            if !in_table[i] || hidden {
                continue;
            }
            taken.insert(c.name.as_str());
            let level = cx.skill_override(&c.name);
            if !c.user_invocable || level == Override::Off {
                continue;
            }
            // By the name it shows; one a user cannot type as one word is not named.
            let shown = c.display_name.as_deref().map_or_else(|| c.name.clone(), str::to_string);
            let typable = !shown.is_empty()
                && shown.chars().all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | ':' | '.' | '-'));
            if c.disable_model_invocation || level == Override::UserInvocableOnly || !typable {
                unnamed.push(shown);
            } else if capc_compiler::names::is_reserved_namespace(&c.name) {
                reserved.push(shown);
            } else {
                named.push(shown);
            }
        }
        for b in capc_compiler::builtins::bundled_skills() {
            let listed = b.listed && b.model_invocable && b.user_invocable && commands::bundled_exists(b, cx);
            if listed
                && !taken.contains(b.name)
                && !matches!(cx.skill_override(b.name), Override::Off | Override::UserInvocableOnly)
            {
                named.push(b.name.to_string());
            }
        }
        named.extend(reserved);
        (named, unnamed)
    }

    /// An MCP prompt typed as `/mcp__server__prompt ARGS`: the words map to the prompt's
    /// arguments in order; the messages the server returns follow the command block. Such a
    /// turn carries no listings.
    fn mcp_prompt(&mut self, name: &str, args: &str, view: &TurnView) -> (TurnResult, Request) {
        let mut texts = vec![request::command_block(name, args)];
        let (mut error, mut note) = (None, None);
        let Some((server, prompt, names)) = self.mcp.prompt(name) else {
            let result = TurnResult::McpPrompt {
                command: name.to_string(),
                arguments: None,
                error: None,
                note: None,
                texts: None,
            };
            return (result, Request::main(view, texts).without_attachments());
        };
        let words = capc_grammar::split_arguments(args);
        let arguments: serde_json::Map<String, Value> =
            names.iter().zip(words).map(|(n, w)| (n.clone(), Value::String(w))).collect();
        let server = server.name.clone();
        match &self.caller {
            Some(caller) => match caller.prompt(&server, &prompt, arguments.clone(), PROMPT_TIMEOUT) {
                Ok(messages) => texts.extend(messages),
                Err(message) => error = Some(message),
            },
            None => {
                note = Some("the prompt's messages come from the server (start the session with --connect)".to_string())
            }
        }
        let result = TurnResult::McpPrompt {
            command: name.to_string(),
            arguments: Some(arguments),
            error,
            note,
            texts: Some(texts.clone()),
        };
        (result, Request::main(view, texts).without_attachments())
    }

    /// A prompt command: expanded (with its `!` injections decided and, when allowed, run),
    /// or handed to a forked agent. `from_model`: the Skill tool, whose grant is added to the
    /// turn's rather than replacing it.
    pub(super) fn run_prompt(
        &mut self,
        command: &Command,
        args: &str,
        view: &TurnView,
        cx: &TurnContext,
        from_model: bool,
    ) -> (TurnResult, Request) {
        let body = match self.loaded.body(command) {
            Ok(body) => body,
            Err(e) => {
                let message = e.to_string();
                return (TurnResult::Error { message: message.clone() }, Request::none(view, vec![message]));
            }
        };
        let folders = self.folders(command);
        let allowed_tools = folders.allowed_tools(command);
        let (expanded, shell) = match self.expand(command, &body, args, cx, &folders, &allowed_tools) {
            Ok(expanded) => expanded,
            // Over Claude Code's cap on a text with its arguments filled in: its message, and no
            // request.
            Err(Expansion::TooLong(too_long)) => {
                let message = too_long.to_string();
                return (TurnResult::Error { message: message.clone() }, Request::none(view, vec![message]));
            }
            // A `!` injection refused or failed: the whole expansion ends with Claude Code's
            // line, which is all a headless run prints (no request is made).
            Err(Expansion::Shell(failure)) => {
                let result = TurnResult::ShellError {
                    command: command.name.clone(),
                    message: failure.message.clone(),
                    shell: failure.runs,
                };
                return (result, Request::none(view, vec![failure.message]));
            }
        };
        let prompt = if command.form == Form::Skill {
            request::skill_block(&folders.skill_dir, &expanded)
        } else {
            expanded.clone()
        };
        let declared = Declared {
            allowed_tools: allowed_tools.clone(),
            model: command.model.as_deref().map(str::to_string),
            effort: command.effort.as_deref().map(str::to_string),
            shell,
        };
        if command.context.as_deref() == Some("fork") {
            let agent = command.agent.as_deref().unwrap_or("general-purpose").to_string();
            let request = self.subagent_request(view, &agent, prompt.clone());
            let result = TurnResult::Fork { command: command.name.clone(), agent, prompt, declared };
            return (result, request);
        }
        let grant = Grant {
            skill: command.name.clone(),
            allowed_tools,
            model: command.model.as_deref().map(str::to_string),
            effort: command.effort.as_deref().map(str::to_string),
        };
        self.grant = match (from_model, self.grant.take()) {
            // The Skill tool's context modifier: a set union with what the turn already has.
            (true, Some(mut current)) => {
                for tool in grant.allowed_tools {
                    if !current.allowed_tools.contains(&tool) {
                        current.allowed_tools.push(tool);
                    }
                }
                current.model = grant.model.or(current.model);
                current.effort = grant.effort.or(current.effort);
                Some(current)
            }
            _ => Some(grant),
        };
        let texts = vec![request::command_block(&command.name, args), prompt];
        let result = TurnResult::Prompt {
            command: command.name.clone(),
            origin: Some(command.origin),
            texts: texts.clone(),
            declared: Some(declared),
            note: None,
        };
        // A typed command's `@` mentions are read from its expanded prompt (the arguments in it).
        let texts = if from_model { texts } else { self.with_mentions(&expanded, texts, cx) };
        (result, Request::main(view, texts))
    }

    /// `texts` after the reminders of the files and folders `text` mentions with `@`, as Claude
    /// Code attaches them ([`crate::mentions`]); what capc leaves out goes to the turn's notes.
    /// capc reads only inside the folder, the `--add-dir` folders and the loaded plugins' roots.
    fn with_mentions(&mut self, text: &str, texts: Vec<String>, cx: &TurnContext) -> Vec<String> {
        let found = mentions::extract(text);
        if found.is_empty() {
            return texts;
        }
        let roots = &self.loaded.roots;
        let mut allowed: Vec<std::path::PathBuf> = vec![roots.root.clone()];
        allowed.extend(roots.add_dirs.iter().cloned());
        allowed.extend(self.loaded.lock.plugins.iter().filter(|p| p.loaded).map(|p| roots.locate(&p.root)));
        let allowed: Vec<std::path::PathBuf> =
            allowed.iter().map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone())).collect();
        let inside = |p: &std::path::Path| allowed.iter().any(|d| p.starts_with(d));
        // Mentions are taken from the folder the session starts in.
        let start = roots.root.join(&self.loaded.start);
        let cwd = std::path::absolute(&start).unwrap_or(start);
        let mut reads = Vec::new();
        let mut read_paths = Vec::new();
        for mention in &found {
            let (path, range) = mentions::parse_range(mention);
            let Some(target) = mentions::resolve(&cwd, roots.user_dir.as_deref(), path) else {
                self.notes.push(format!("`@{mention}` names a file in the user's home, which this session has not got: capc does not read it (Claude Code does)"));
                continue;
            };
            match mentions::read(mention, &target, range, inside) {
                mentions::MentionRead::Blocks(pair) => {
                    reads.push(pair);
                    read_paths.push(target.clone());
                }
                mentions::MentionRead::Nothing => {}
                mentions::MentionRead::Note(note) => self.notes.push(note),
            }
        }
        // The rules whose `paths` match a file read come after the reads, in the same run of
        // attachments; the instructions reminder goes after them (`Session::turn`). The last
        // block ends its message, and so its line, unless a reminder joins that message after
        // it: the instructions, the git context of a folder in a repository, the attribution.
        let rules = self.loaded.attached_for(&read_paths, &mut self.notes);
        let followed = reminder_follows(cx, &self.loaded.roots.root)
            || self.loaded.lock.instructions.iter().any(|i| i.at_start() && i.tokens > 0);
        let mut out = mentions::join_blocks(reads.into_iter().flatten().chain(rules).collect(), !followed);
        self.attached = out.len();
        out.extend(texts);
        out
    }

    /// The request of a forked skill's subagent (the main model is not called): the prompt
    /// alone as its user turn, the agent's pool (the main thread's without its main-thread-only
    /// tools), the Skill listing, no agent listing.
    fn subagent_request(&self, view: &TurnView, agent: &str, prompt: String) -> Request {
        let declared = self.loaded.lock.agents.iter().find(|a| a.name == agent && a.shadowed_by.is_none());
        let (allowed, disallowed) = match (declared, capc_compiler::builtins::builtin_agent(agent)) {
            (Some(a), _) => (a.tools.clone(), a.disallowed_tools.clone()),
            // A built-in agent's tools, as its listing line states them.
            (None, Some(b)) => {
                let list = |text: &str| text.split(", ").map(str::to_string).collect::<Vec<_>>();
                match b.tools.strip_prefix("All tools except ") {
                    Some(except) => (Vec::new(), list(except)),
                    None if b.tools == "*" => (Vec::new(), Vec::new()),
                    None => (list(b.tools), Vec::new()),
                }
            }
            (None, None) => (Vec::new(), Vec::new()),
        };
        let tools = crate::pool::for_subagent(&view.tools, &allowed, &disallowed);
        let names: std::collections::HashSet<&str> = tools.iter().map(|t| &*t.name).collect();
        let mut request = Request::main(view, vec![prompt]);
        request.tools = crate::pool::sent(&tools, view.placeholder);
        request.deferred.retain(|n| names.contains(&**n));
        request.agent_listing.clear();
        request
    }

    /// The folders a command's text names: its file's folder (`${CLAUDE_SKILL_DIR}`, a skill's
    /// base directory) and, for a plugin's command, the plugin's root (`${CLAUDE_PLUGIN_ROOT}`)
    /// and data folder (`${CLAUDE_PLUGIN_DATA}`). Claude Code keeps each plugin's data in
    /// `~/.claude/plugins/data/<id>`, the id (`name@marketplace`) with every character but ASCII
    /// letters, digits, `-` and `_` written as `-`; without a user folder that variable stays
    /// as written.
    fn folders(&self, command: &Command) -> Folders {
        let file = self.loaded.roots.locate(&command.path);
        let skill_dir = file.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let plugin = command.plugin.as_ref().and_then(|name| self.loaded.lock.plugins.iter().find(|p| &p.name == name));
        let plugin_root = plugin.map(|p| self.loaded.roots.locate(&p.root).to_string_lossy().into_owned());
        let plugin_data = plugin.and_then(|p| {
            let id: String =
                p.id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
            let home = self.loaded.roots.user_dir.as_ref()?;
            Some(home.join(".claude/plugins/data").join(id).to_string_lossy().into_owned())
        });
        Folders { skill_dir, plugin_root, plugin_data }
    }

    fn expand(
        &self,
        command: &Command,
        body: &str,
        args: &str,
        cx: &TurnContext,
        folders: &Folders,
        allowed_tools: &[String],
    ) -> Result<(String, Vec<ShellRun>), Expansion> {
        let template = self.template(body);
        let project = self.loaded.roots.root.to_string_lossy().into_owned();
        let mut variables: Vec<(TemplateVar, &str)> = vec![
            (TemplateVar::SkillDir, &folders.skill_dir),
            (TemplateVar::SessionId, &self.session_id),
            (TemplateVar::ProjectDir, &project),
        ];
        if let Some(root) = &folders.plugin_root {
            variables.push((TemplateVar::PluginRoot, root));
        }
        if let Some(data) = &folders.plugin_data {
            variables.push((TemplateVar::PluginData, data));
        }
        if let Some(effort) = &command.effort {
            variables.push((TemplateVar::Effort, effort));
        }
        let names: Vec<&str> = command.arguments.iter().map(String::as_str).collect();
        // Arguments are filled in escaped (`capc_grammar::escape_argument`), so no `!` injection
        // found below came from them; the text is refused past Claude Code's size cap.
        let expanded = capc_grammar::try_expand(
            &template,
            args,
            &ExpandContext { argument_names: &names, variables: &variables },
            capc_grammar::MAX_EXPANDED_CHARS,
        )
        .map_err(Expansion::TooLong)?;
        // `!` injections run after substitution, through the permission decision with the
        // skill's allowed-tools as always-allow rules. Most texts have none, which the cheap
        // scan tells without parsing the whole text again.
        if capc_grammar::find_shell_commands(&expanded).is_empty() {
            return Ok((expanded, Vec::new()));
        }
        let (rendered, _) = parse_template(&expanded);
        let permissions = Permissions::assemble(&self.loaded, cx, allowed_tools);
        let settings = crate::shell::Settings {
            dir: &self.loaded.roots.root,
            additional_dirs: &self.loaded.roots.add_dirs,
            mode: cx.permission_mode,
            run: self.run_shell,
            // capc runs nothing in a folder whose trust was not accepted unless the user asked
            // for headless Claude Code's behaviour (`--untrusted-injections run`).
            trusted: cx.trusted,
            run_untrusted: self.run_untrusted,
            // Set in settings, the switch spares managed skills (bundled ones have no injection
            // capc runs).
            disabled: cx.flag("disableSkillShellExecution")
                || (self.loaded.policy("disableSkillShellExecution").is_some()
                    && command.scope != capc_compiler::model::Scope::Managed),
        };
        crate::shell::expand(&rendered, &permissions.rules(), &settings).map_err(Expansion::Shell)
    }
}

/// Why a prompt command's text could not be made.
enum Expansion {
    TooLong(capc_grammar::TooLong),
    Shell(crate::shell::Aborted),
}

impl Session {
    /// `body` parsed as a template, parsed once per text. The texts are the lock's command
    /// bodies; past a few thousand (a folder reloaded many times) the cache starts again.
    fn template(&self, body: &str) -> Arc<Template> {
        const MOST: usize = 4096;
        let mut cache = self.templates.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(template) = cache.get(body) {
            return template.clone();
        }
        if cache.len() >= MOST {
            cache.clear();
        }
        let template = Arc::new(parse_template(body).0);
        cache.insert(body.to_owned(), template.clone());
        template
    }
}

/// The folders a command's text names (see `Session::folders`).
struct Folders {
    skill_dir: String,
    plugin_root: Option<String>,
    plugin_data: Option<String>,
}

impl Folders {
    /// A command's `allowed-tools` as its turn applies them: in a plugin's, Claude Code's
    /// plugin loader writes `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}` and, in a skill,
    /// `${CLAUDE_SKILL_DIR}` as the folder each names, so
    /// `Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)` allows that script.
    fn allowed_tools(&self, command: &Command) -> Vec<String> {
        let Some(root) = &self.plugin_root else { return command.allowed_tools.to_vec() };
        let skill_dir = (command.form == Form::Skill).then_some(&self.skill_dir);
        command
            .allowed_tools
            .iter()
            .map(|rule| {
                let mut rule = rule.replace("${CLAUDE_PLUGIN_ROOT}", root);
                if let Some(data) = &self.plugin_data {
                    rule = rule.replace("${CLAUDE_PLUGIN_DATA}", data);
                }
                match skill_dir {
                    Some(dir) => rule.replace("${CLAUDE_SKILL_DIR}", dir),
                    None => rule,
                }
            })
            .collect()
    }
}

/// The note of a bundled skill whose prompt capc does not have.
pub(super) const BUNDLED_NOTE: &str = "a bundled skill: its prompt is inside Claude Code";

/// What Claude Code prints for a skill `skillOverrides` turns off.
fn disabled_message(name: &str) -> String {
    format!("Skill \"{name}\" is disabled via skillOverrides. Remove the override from your settings to run it. If your organization set it, only an admin can remove it.")
}

/// What Claude Code prints for a `user-invocable: false` skill typed by the user.
fn model_only_message(name: &str) -> String {
    format!("This skill can only be invoked by Claude, not directly by users. Ask Claude to use the \"{name}\" skill for you.")
}

/// Whether `dir` is inside a git work tree (a `.git` in it or a folder above).
/// Whether a reminder joins the user turn's first message after its attachments: the
/// attribution reminder, or the git context of a folder in a repository.
pub(super) fn reminder_follows(cx: &TurnContext, root: &std::path::Path) -> bool {
    cx.attribution_reminder() || in_git_repository(root)
}

fn in_git_repository(dir: &std::path::Path) -> bool {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().any(|d| d.join(".git").exists())
}

#[cfg(test)]
mod tests {
    use super::*;
    /// Through a session: a mention inside the folder is read, one outside (through a link
    /// leading out, or an absolute path) is not, and the turn's notes say so.
    #[test]
    fn session_reads_inside_and_notes_outside() {
        use crate::loaded::{Loaded, Roots};
        use crate::session::Session;
        let scratch = std::env::temp_dir().join(format!("capc-mentions-session-{}", std::process::id()));
        let (tree, outside) = (scratch.join("tree"), scratch.join("outside"));
        std::fs::create_dir_all(&tree).expect("tree");
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::write(tree.join("in.txt"), "in\n").expect("write");
        std::fs::write(outside.join("secret.txt"), "secret\n").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, tree.join("out")).expect("link");
        let options = capc_compiler::Options { root: tree.clone(), ..Default::default() };
        let lock = capc_compiler::check(&options).expect("the tree exists").lock();
        let roots = Roots { root: tree.clone(), ..Roots::default() };
        let mut session = Session::new(Loaded::new(lock, roots));
        let secret = outside.join("secret.txt");
        let input = format!("see @in.txt @out/secret.txt @{}", secret.display());
        let outcome = session.turn(&input, TurnContext::default());
        let texts = &outcome.request.texts;
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[0].contains("in.txt\"}"), "{texts:?}");
        assert_eq!(texts[1], "<system-reminder>\nResult of calling the Read tool:\n1\tin\n2\t\n</system-reminder>");
        assert!(!texts.iter().any(|t| t.contains("secret\n")), "{texts:?}");
        let expected_notes = if cfg!(unix) { 2 } else { 1 };
        assert_eq!(outcome.notes.len(), expected_notes, "{:?}", outcome.notes);
        assert!(outcome.notes.iter().all(|n| n.contains("outside the folder")), "{:?}", outcome.notes);
        std::fs::remove_dir_all(&scratch).ok();
    }
}
