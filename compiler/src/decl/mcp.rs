//! MCP server configs: a project's `.mcp.json` (`{"mcpServers": {…}}` required), a
//! plugin's `.mcp.json` or inline `mcpServers` (the flat `{name: config}` form allowed too).

use super::FileCx;
use crate::diagnostic::{did_you_mean, Sink};
use crate::names::normalize_server;
use crate::node::Node;
use crate::rules;
use crate::schema::{check_fields, Unknown};

pub const TYPES: &[&str] = &["stdio", "http", "streamable-http", "sse", "ws"];

/// A whole `.mcp.json`; `project` demands the `mcpServers` wrapper (and reports the
/// environment variables a user must set). Returns the number of servers.
pub fn check_file(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, project: bool) -> usize {
    let Some(entries) = root.as_object() else {
        sink.report(
            &rules::wrong_field_type::RULE,
            root.span,
            format!("an MCP config must be an object, found {}", root.type_name()),
        )
        .help("write `{\"mcpServers\": {\"name\": {\"command\": \"…\"}}}`");
        return 0;
    };
    match root.get("mcpServers") {
        Some(servers) => {
            check_fields(sink, root, super::fields::MCP_FILE, "the MCP config", Unknown::Warn);
            check_servers(sink, cx, servers, "`mcpServers`", project)
        }
        None if project && !entries.is_empty() => {
            let diagnostic = sink.report(&rules::mcp_servers_key_missing::RULE, crate::span::Span::new(root.span.start, root.span.start + 1), "a project `.mcp.json` must put its servers under `mcpServers`")
                .help("wrap the servers: `{\"mcpServers\": { … }}`; Claude Code reads none of them without it (the flat form works only in plugins)");
            // Certain only when every entry is a server (an object): then wrapping moves them
            // all under `mcpServers` and nothing else.
            if entries.iter().all(|(_, v)| v.as_object().is_some()) {
                if let Some(edit) = crate::diagnostic::wrap_entries(cx.json_source.unwrap_or(""), root, "mcpServers") {
                    diagnostic.with_fix(vec![edit]);
                }
            }
            0
        }
        None => check_servers(sink, cx, root, "the MCP config", project),
    }
}

/// A `{name: config}` map; returns the number of servers.
pub(crate) fn check_servers(sink: &mut Sink<'_>, cx: &FileCx<'_>, map: &Node, what: &str, project: bool) -> usize {
    let Some(entries) = map.as_object() else {
        sink.report(
            &rules::wrong_field_type::RULE,
            map.span,
            format!("{what} must be an object of servers, found {}", map.type_name()),
        );
        return 0;
    };
    let mut seen: Vec<&str> = Vec::new();
    for (name, config) in entries {
        if seen.contains(&name.name.as_str()) {
            sink.report(
                &rules::duplicate_key::RULE,
                name.span,
                format!("server `{}` is defined more than once", name.name),
            )
            .help("the last definition wins; delete the other");
        }
        seen.push(&name.name);
        // A plugin's servers are named `plugin:<plugin>:<server>`, never a reserved name.
        let reserved = cx.scope != crate::decl::FileScope::Plugin && crate::builtins::is_reserved_mcp_name(&name.name);
        if reserved {
            sink.report(
                &rules::reserved_name::RULE,
                name.span,
                format!("`{}` is an MCP server name Claude Code keeps for its own servers", name.name),
            )
            .loads_anyway()
            .help("Claude Code never starts this server; rename it (names are compared after characters outside `[A-Za-z0-9_-]` become `_`; case matters)");
        }
        check_server(sink, &name.name, name.span, config);
        check_provenance(sink, cx, &name.name, config);
        // Never started: a session here has no such server to lock.
        if let (Some(at), false) = (cx.placement, reserved) {
            let path = sink.path().to_string();
            if let Some(decl) = crate::decl::declare::server(sink, name, config, at, &path) {
                sink.decls.push(decl);
            }
        }
        if project {
            check_env_refs(sink, cx, &name.name, config);
        }
        let normalized = match cx.plugin_name {
            Some(plugin) => crate::names::plugin_server(plugin, &name.name),
            None => normalize_server(&name.name),
        };
        check_tool_name_room(sink, &name.name, name.span, &normalized, cx.plugin_name.is_some());
        sink.declared_servers.push(normalized);
    }
    entries.len()
}

/// A server whose `mcp__<server>__` prefix leaves too little of the 64 characters a tool's name
/// may have (`mcp-tool-name-too-long`).
fn check_tool_name_room(sink: &mut Sink<'_>, name: &str, span: crate::span::Span, normalized: &str, in_plugin: bool) {
    use crate::names::{tool_name, MAX_TOOL_NAME, MIN_TOOL_NAME_ROOM};
    let prefix = tool_name(normalized, "");
    let room = MAX_TOOL_NAME.saturating_sub(prefix.len());
    if room >= MIN_TOOL_NAME_ROOM {
        return;
    }
    let left = match room {
        0 => "no tool name fits: every request that offers one of its tools fails".to_string(),
        n => format!("a tool named with more than {n} characters makes every request fail"),
    };
    sink.report(
        &rules::mcp_tool_name_too_long::RULE,
        span,
        format!(
            "server `{name}` names its tools `{prefix}<tool>`: the prefix takes {} of the {MAX_TOOL_NAME} characters a tool name may have; {left}",
            prefix.len()
        ),
    )
    .help(if in_plugin {
        "give the server (or the plugin) a shorter name: a plugin's tools are `mcp__plugin_<plugin>_<server>__<tool>`, 64 characters at most"
    } else {
        "give the server a shorter name: tools are `mcp__<server>__<tool>`, 64 characters at most"
    });
}

fn check_server(sink: &mut Sink<'_>, name: &str, name_span: crate::span::Span, config: &Node) {
    let what = format!("server `{name}`");
    if config.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            config.span,
            format!("{what} must be an object, found {}", config.type_name()),
        );
        return;
    }
    check_fields(sink, config, super::fields::MCP_SERVER, &what, Unknown::Warn);
    let kind = config.get("type").and_then(Node::as_str);
    match kind {
        Some(t) if !TYPES.contains(&t) => {
            let span = config.get("type").map_or(name_span, |n| n.span);
            let d = sink.report(&rules::unknown_mcp_server_type::RULE, span, format!("{what} has unknown type `{t}`"));
            match did_you_mean(t, TYPES.iter().copied()) {
                Some(s) => d.help(format!("did you mean `{s}`? Claude Code skips the server otherwise")),
                None => d.help("use `stdio`, `http` (or its alias `streamable-http`), `sse` or `ws`; Claude Code skips the server otherwise"),
            };
        }
        None | Some("stdio") => {
            if config.get("command").is_none() {
                if config.get("url").is_some() && kind.is_none() {
                    sink.report(
                        &rules::mcp_server_without_transport::RULE,
                        name_span,
                        format!("{what} has a `url` but no `type`, so it is read as a stdio server"),
                    )
                    .help("add `\"type\": \"http\"` (or `\"sse\"` / `\"ws\"`)");
                } else {
                    sink.report(
                        &rules::mcp_server_without_transport::RULE,
                        name_span,
                        format!("{what} has no `command`"),
                    )
                    .help("a stdio server needs `\"command\"`; a remote one needs `\"type\"` and `\"url\"`");
                }
            }
        }
        Some(_) => {
            if config.get("url").is_none() {
                sink.report(&rules::mcp_server_without_transport::RULE, name_span, format!("{what} has no `url`"))
                    .help("a remote server needs `\"url\"`");
            }
        }
    }
    for map in ["env", "headers"] {
        if let Some(values) = config.get(map).and_then(Node::as_object) {
            for (key, value) in values {
                if value.as_str().is_none() {
                    sink.report(
                        &rules::wrong_field_type::RULE,
                        value.span,
                        format!("`{map}.{}` in {what} must be a string, found {}", key.name, value.type_name()),
                    );
                }
            }
        }
    }
}

/// Where the server's code comes from: a package launcher without an exact version
/// (`unpinned-mcp-package`), a plain-`http` URL to another machine (`insecure-mcp-url`). The
/// package is recorded as a pin of the lock.
pub(crate) fn check_provenance(sink: &mut Sink<'_>, cx: &FileCx<'_>, name: &str, config: &Node) {
    if let Some(url) =
        config.get("url").filter(|_| config.get("type").and_then(Node::as_str).is_some_and(|t| t != "stdio"))
    {
        if let Some(host) = url.as_str().and_then(crate::provenance::plain_http_host) {
            sink.report(
                &rules::insecure_mcp_url::RULE,
                url.span,
                format!("server `{name}` is reached over plain `http` at `{host}`: its tool calls and headers cross the network unencrypted"),
            )
            .help("use `https://`");
        }
    }
    let Some(command) = config.get("command") else { return };
    let Some(program) = command.as_str() else { return };
    let args: Vec<String> = config
        .get("args")
        .and_then(Node::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect();
    let Some(launch) = crate::provenance::server_launch(program, &args) else { return };
    if let Some(u) = crate::provenance::unpinned(program, &args) {
        // Point at the argument that names the package, else at the command.
        let at = config
            .get("args")
            .and_then(Node::as_array)
            .unwrap_or_default()
            .iter()
            .find(|a| a.as_str().is_some_and(|s| s.contains(u.launch.package.as_str())))
            .map_or(command.span, |a| a.span);
        sink.report(
            &rules::unpinned_mcp_package::RULE,
            at,
            format!("server `{name}` {}: each start may fetch a different release", u.runs()),
        )
        .help(u.fix);
    }
    if let Some(at) = cx.placement {
        let full_name = match at.plugin {
            Some(plugin) => format!("plugin:{plugin}:{name}"),
            None => name.to_string(),
        };
        let path = sink.path().to_string();
        let pin = launch.pin(crate::model::PinOf::McpServer, &full_name, &path);
        sink.decls.push(crate::model::Decl {
            path,
            span: Some(command.span),
            item: crate::model::Item::Pin(Box::new(pin)),
        });
    }
}

/// `${VAR}` references in the fields Claude Code expands (`command`, `args`, `env`, `url`,
/// `headers`): a variable without a default must be set by whoever runs Claude Code.
fn check_env_refs(sink: &mut Sink<'_>, cx: &FileCx<'_>, server: &str, config: &Node) {
    let mut strings: Vec<&Node> = Vec::new();
    for field in ["command", "url"] {
        strings.extend(config.get(field).filter(|n| n.as_str().is_some()));
    }
    strings.extend(
        config.get("args").and_then(Node::as_array).unwrap_or_default().iter().filter(|n| n.as_str().is_some()),
    );
    for map in ["env", "headers"] {
        strings.extend(
            config
                .get(map)
                .and_then(Node::as_object)
                .unwrap_or_default()
                .iter()
                .map(|(_, v)| v)
                .filter(|n| n.as_str().is_some()),
        );
    }
    for node in strings {
        let text = node.as_str().unwrap_or("");
        let (refs, errors) = capc_grammar::parse_env_refs(text);
        for e in errors {
            sink.report(
                &rules::invalid_env_reference::RULE,
                cx.sub_span(node, e.span.start..e.span.end),
                format!("server `{server}`: {}", e.message),
            )
            .help("Claude Code leaves this text as written; write `${NAME}` or `${NAME:-default}`");
        }
        for r in refs.iter().filter(|r| r.default.is_none()) {
            if r.name == "CLAUDE_PROJECT_DIR" {
                sink.report(&rules::required_env_variable::RULE, cx.sub_span(node, r.span.start..r.span.end), format!("server `{server}` uses `${{CLAUDE_PROJECT_DIR}}`, which is set only in the server's environment"))
                    .severity(crate::diagnostic::Severity::Warning)
                    .help("Claude Code expands it before the server starts, when it is still unset; write `${CLAUDE_PROJECT_DIR:-.}`");
                continue;
            }
            sink.report(&rules::required_env_variable::RULE, cx.sub_span(node, r.span.start..r.span.end), format!("server `{server}` needs `{}` in the environment", r.name))
                .help(format!("everyone who runs Claude Code here must set `{}`; unset, the text stays `${{{}}}` (give a default with `${{{}:-value}}`)", r.name, r.name, r.name));
        }
    }
}
