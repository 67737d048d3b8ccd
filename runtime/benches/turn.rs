//! One turn's full recomputation, and lock loading. `cargo bench -p capc-runtime`.
//! Targets (the session issue): 300 commands and 2,000 tools < 200 µs; 20,000 tools < 2 ms;
//! a lock of 10,000 entries loads in < 50 ms.

use capc_compiler::model::{
    Approval, Behavior, Command, Form, Lock, McpServer, Origin, Permission, Scope, Source, Transport,
};
use capc_runtime::loaded::{Loaded, Roots};
use capc_runtime::mcp::{McpState, Status, ToolSpec, Update};
use capc_runtime::permissions::Permissions;
use capc_runtime::pool;
use capc_runtime::turn::{self, TurnContext};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn command(i: usize) -> Command {
    Command {
        name: format!("skill-{i:05}"),
        origin: if i.is_multiple_of(5) { Origin::Plugin } else { Origin::Skill },
        scope: if i.is_multiple_of(5) { Scope::Plugin } else { Scope::Project },
        form: if i.is_multiple_of(3) { Form::Command } else { Form::Skill },
        path: format!(".claude/skills/skill-{i:05}/SKILL.md"),
        plugin: i.is_multiple_of(5).then(|| "kit".to_string()),
        description: Some(format!("Does task number {i} for the team, with care and a checklist")),
        when_to_use: i.is_multiple_of(4).then(|| "When the user asks for it".into()),
        allowed_tools: ["Read".to_string(), "Bash(git status:*)".to_string()].into_iter().collect(),
        paths: if i.is_multiple_of(50) { std::iter::once("src/**".to_string()).collect() } else { Default::default() },
        user_invocable: true,
        content_length: 400,
        ..Command::default()
    }
}

fn lock(commands: usize, servers: usize) -> Lock {
    let mut lock = capc_compiler::lock::resolve::empty_lock();
    lock.commands = (0..commands).map(command).collect();
    lock.sources = (0..commands)
        .map(|i| Source {
            path: format!(".claude/skills/skill-{i:05}/SKILL.md"),
            kind: "skill".into(),
            sha256: "0".repeat(64),
        })
        .collect();
    lock.mcp_servers = (0..servers)
        .map(|i| McpServer {
            name: format!("server{i:03}"),
            normalized: format!("server{i:03}"),
            scope: Scope::Project,
            transport: Transport::Stdio,
            path: ".mcp.json".into(),
            command: Some("npx".into()),
            approval: Some(Approval::Approved),
            ..McpServer::default()
        })
        .collect();
    lock.permissions = vec![
        Permission {
            rule: "Bash(rm *)".into(),
            behavior: Behavior::Deny,
            path: ".claude/settings.json".into(),
            ..Permission::default()
        },
        Permission {
            rule: "mcp__server007".into(),
            behavior: Behavior::Deny,
            path: ".claude/settings.json".into(),
            ..Permission::default()
        },
        Permission {
            rule: "WebSearch".into(),
            behavior: Behavior::Deny,
            path: ".claude/settings.json".into(),
            ..Permission::default()
        },
        Permission {
            rule: "Read".into(),
            behavior: Behavior::Allow,
            path: ".claude/settings.json".into(),
            ..Permission::default()
        },
    ];
    lock
}

fn mcp(lock: &Lock, tools: usize) -> McpState {
    let mut state = McpState::from_lock(lock);
    let servers = lock.mcp_servers.len().max(1);
    let updates = lock
        .mcp_servers
        .iter()
        .enumerate()
        .map(|(s, server)| Update {
            server: server.name.clone(),
            status: Some(Status::Connected),
            tools: Some(
                (0..tools / servers)
                    .map(|t| ToolSpec {
                        name: format!("tool_{s}_{t}"),
                        description: format!("Tool {t} of server {s}"),
                        ..ToolSpec::default()
                    })
                    .collect(),
            ),
            ..Update::default()
        })
        .collect();
    state.apply(updates).expect("servers exist");
    state
}

fn turns(c: &mut Criterion) {
    let cx = TurnContext { touched_files: vec!["src/main.rs".into(), "docs/a.md".into()], ..TurnContext::default() };
    for (commands, tools) in [(300, 2_000), (300, 20_000)] {
        let lock = lock(commands, 20);
        let state = mcp(&lock, tools);
        let loaded = Loaded::new(lock, Roots::default());
        c.bench_function(&format!("turn/{commands}-commands-{tools}-tools"), |b| {
            b.iter(|| black_box(turn::compute(black_box(&loaded), black_box(&state), black_box(&cx))))
        });
        if tools == 2_000 {
            // The parts, to see where a turn's time goes.
            c.bench_function("part/permissions", |b| b.iter(|| black_box(Permissions::assemble(&loaded, &cx, &[]))));
            let permissions = Permissions::assemble(&loaded, &cx, &[]);
            c.bench_function("part/command-table", |b| {
                b.iter(|| black_box(capc_runtime::commands::command_table(&loaded, &cx)))
            });
            let table = capc_runtime::commands::command_table(&loaded, &cx);
            c.bench_function("part/skill-listing", |b| {
                b.iter(|| black_box(capc_runtime::listing::skill_listing(&loaded, &table, &cx)))
            });
            c.bench_function("part/agent-listing", |b| {
                b.iter(|| black_box(capc_runtime::agents::agent_listing(&loaded, &cx, &permissions)))
            });
            let lsp = !loaded.lock.lsp_servers.is_empty();
            c.bench_function("part/tool-pool", |b| {
                b.iter(|| black_box(pool::tool_pool(&cx, &permissions, &state, lsp)))
            });
            let pool = pool::tool_pool(&cx, &permissions, &state, lsp);
            c.bench_function("part/tool-section", |b| {
                b.iter(|| black_box(turn::tool_section(&pool.tools, pool.tool_search, &state)))
            });
        }
    }
}

fn loading(c: &mut Criterion) {
    let text = capc_compiler::lock::write::encode(&lock(10_000, 100));
    c.bench_function("load/10000-entries", |b| {
        b.iter(|| {
            let lock = capc_compiler::lock::write::decode(black_box(&text)).expect("decodes");
            black_box(Loaded::new(lock, Roots::default()))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = turns, loading
}
criterion_main!(benches);
