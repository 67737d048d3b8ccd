#!/usr/bin/env python3
"""Writes a synthetic Claude Code tree for scale benchmarks.

    bench/gen-tree.py OUT [--skills N] [--commands N] [--plugins N] [--mcp N] [--scale F]

The default is the shape issue #4 names: 10,000 skills, 2,000 commands, 200 plugins and
100 MCP servers, spread over a project (`.claude/`), a marketplace of plugins, and the
project `.mcp.json`. `--scale F` multiplies every count (0.1 → 1k skills, 10 → 100k).
Content is deterministic (no randomness, no clock), so two runs write identical trees.
"""
import argparse
import json
import os
import shutil

WORDS = "review deploy lint format release audit triage migrate profile document test index".split()


def word(i):
    return f"{WORDS[i % len(WORDS)]}-{i}"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def skill_text(name, i):
    return (
        f"---\nname: {name}\ndescription: Use this skill to {WORDS[i % len(WORDS)]} module {i} "
        f"of the service and report what changed, with file and line for every finding.\n"
        f"allowed-tools: Read, Grep, Bash(make {WORDS[(i + 3) % len(WORDS)]}:*)\n---\n\n"
        + "".join(f"{k + 1}. Step {k + 1} for $ARGUMENTS in module {i}.\n" for k in range(12))
    )


def command_text(i):
    return (
        f"---\ndescription: Run the {WORDS[i % len(WORDS)]} workflow for ticket $0\n"
        f"argument-hint: <ticket>\n---\n\nRun the {WORDS[i % len(WORDS)]} workflow for $ARGUMENTS.\n"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--commands", type=int, default=2_000)
    ap.add_argument("--plugins", type=int, default=200)
    ap.add_argument("--mcp", type=int, default=100)
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args()
    n_skills, n_commands = int(a.skills * a.scale), int(a.commands * a.scale)
    n_plugins, n_mcp = max(1, int(a.plugins * a.scale)), max(1, int(a.mcp * a.scale))
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    # Half the skills and commands live in the project, half in plugins.
    project_skills, project_commands = n_skills // 2, n_commands // 2
    for i in range(project_skills):
        write(f"{a.out}/.claude/skills/{word(i)}/SKILL.md", skill_text(word(i), i))
    for i in range(project_commands):
        write(f"{a.out}/.claude/commands/team-{i % 20}/{word(i)}.md", command_text(i))
    servers = {}
    for i in range(n_mcp):
        if i % 2:
            servers[f"svc-{i}"] = {"type": "http", "url": f"https://mcp{i}.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN_%d}" % i}}
        else:
            servers[f"svc-{i}"] = {"command": "npx", "args": ["-y", f"@example/mcp-{i}@1.0.{i}"], "env": {"API_KEY": "${API_KEY_%d:-dev}" % i}}
    write(f"{a.out}/.mcp.json", json.dumps({"mcpServers": servers}, indent=2) + "\n")
    allow = [f"mcp__svc-{i}__read" for i in range(0, n_mcp, 3)] + ["Bash(make test:*)", "Read(./docs/**)"]
    write(f"{a.out}/.claude/settings.json", json.dumps({"permissions": {"allow": allow, "deny": ["Read(./.env)"]}}, indent=2) + "\n")
    entries = []
    plugin_skills = (n_skills - project_skills) // n_plugins
    plugin_commands = (n_commands - project_commands) // n_plugins
    for p in range(n_plugins):
        name = f"plugin-{p}"
        root = f"{a.out}/plugins/{name}"
        write(f"{root}/.claude-plugin/plugin.json", json.dumps({"name": name, "version": f"1.{p}.0", "description": f"Plugin {p}"}, indent=2) + "\n")
        for i in range(plugin_skills):
            write(f"{root}/skills/{word(i)}/SKILL.md", skill_text(word(i), i))
        for i in range(plugin_commands):
            write(f"{root}/commands/{word(i)}.md", command_text(i))
        entries.append({"name": name, "source": f"./plugins/{name}", "version": f"1.{p}.0"})
    write(f"{a.out}/.claude-plugin/marketplace.json", json.dumps({"name": "synthetic", "owner": {"name": "Bench"}, "plugins": entries}, indent=2) + "\n")


if __name__ == "__main__":
    main()
