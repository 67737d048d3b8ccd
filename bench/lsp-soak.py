#!/usr/bin/env python3
"""A soak of `capc lsp`: what one language server holds after a day's worth of edits, over raw
JSON-RPC on stdio (the standard library only, no pytest-lsp):

    bench/lsp-soak.py [--capc BIN] [--skills N] [--edits N] [--save-every N] [--every N]

A temporary workspace of N skills (default 40), 10 commands, a settings file with permission
rules and an `.mcp.json` of 5 servers is opened in one `capc lsp`. Five files stay open: two
skills, a command, the settings file and `.mcp.json`. Then `--edits` edits (default 5,000), in
turn over the open files, each a `didChange` of the whole text (a skill's body and every fifth
time its description; a command's hint; a permission rule added and taken away; a server
renamed and back, which changes the settings file's findings), waited for (the edited file's
`publishDiagnostics` of that version); every `--save-every`-th edit (default 5: 1,000 saves)
also writes the text to disk and sends `didSave`. After each edit one request, in turn: a
hover on a frontmatter key, a completion in `allowed-tools`, a go to definition from an
`mcp__svc-0__read` rule to the server, a hover on that rule, `textDocument/documentSymbol`,
each answered before the next edit.

Every `--every` edits it samples the server from /proc/PID: resident memory (VmRSS), its peak
(VmHWM), open file descriptors and threads. Prints `key=value` lines: the samples, then the
figures docs/lsp.md states, and exits 1 when a bound there is passed (resident memory after
the soak, sampled once the server has been idle for 2 s, more than 16 MiB over what it was
after the first `--every` edits; more file descriptors than then; more than 2 threads more than
then), so a growth is a failure. No figure here is a timing.
"""
import argparse
import json
import pathlib
import shutil
import sys
import tempfile
import time

from lspclient import Client, published
from procstat import status


def skill_text(i, version):
    return (f"---\ndescription: Skill {i}, description {version // 5}\nallowed-tools: Read, Grep\n---\n"
            f"Do task {i} with $ARGUMENTS (version {version}).\n")


def command_text(i, version):
    return f"---\ndescription: Command {i}\nargument-hint: <ticket-{version}>\n---\nRun command {i} for $ARGUMENTS.\n"


def settings_text(version):
    allow = ["mcp__svc-0__read", "Skill(task-1)", "Bash(make test:*)"] + (["Read(./docs/**)"] if version % 2 else [])
    return json.dumps({"permissions": {"allow": allow, "deny": ["Read(./.env)"]}}, indent=2) + "\n"


def mcp_text(version):
    servers = {f"svc-{k}": {"command": "npx", "args": ["-y", f"@example/mcp-{k}@1.0.0"]} for k in range(5)}
    if version % 2:
        servers["svc-0x"] = servers.pop("svc-0")
    return json.dumps({"mcpServers": servers}, indent=2) + "\n"


def position(text, needle, delta=0):
    """The LSP position of `needle` in `text` (ASCII), moved `delta` characters on."""
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--capc", default=str(pathlib.Path(__file__).resolve().parent.parent / "target/release/capc"))
    parser.add_argument("--skills", type=int, default=40)
    parser.add_argument("--edits", type=int, default=5_000)
    parser.add_argument("--save-every", type=int, default=5)
    parser.add_argument("--every", type=int, default=500)
    args = parser.parse_args()
    root = pathlib.Path(tempfile.mkdtemp(prefix="capc-lsp-soak-"))
    try:
        for i in range(args.skills):
            folder = root / ".claude" / "skills" / f"task-{i}"
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(skill_text(i, 0))
        (root / ".claude" / "commands").mkdir()
        for i in range(10):
            (root / ".claude" / "commands" / f"cmd-{i}.md").write_text(command_text(i, 0))
        (root / ".claude" / "settings.json").write_text(settings_text(0))
        (root / ".mcp.json").write_text(mcp_text(0))
        # The open files: (path, languageId, text of a version).
        files = [
            (root / ".claude/skills/task-0/SKILL.md", "markdown", lambda v: skill_text(0, v)),
            (root / ".claude/skills/task-1/SKILL.md", "markdown", lambda v: skill_text(1, v)),
            (root / ".claude/commands/cmd-0.md", "markdown", lambda v: command_text(0, v)),
            (root / ".claude/settings.json", "json", settings_text),
            (root / ".mcp.json", "json", mcp_text),
        ]
        client = Client([args.capc, "lsp"], timeout=60)
        pid = client.proc.pid
        client.initialize(root)
        versions = [1] * len(files)

        for path, language, text in files:
            client.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": language, "version": 1, "text": text(0)}})
            client.wait(published(path.as_uri(), 1))
        samples = [("start", 0, status(pid))]
        skill_uri, settings_uri = files[0][0].as_uri(), files[3][0].as_uri()
        requests = [
            ("hover-key", lambda: client.ask("textDocument/hover", {"textDocument": {"uri": skill_uri}, "position": position(skill_text(0, 0), "description", 2)})),
            ("completion", lambda: client.ask("textDocument/completion", {"textDocument": {"uri": skill_uri}, "position": position(skill_text(0, 0), "Read, Grep", 10)})),
            ("definition", lambda: client.ask("textDocument/definition", {"textDocument": {"uri": settings_uri}, "position": position(settings_text(0), "mcp__svc-0__read", 6)})),
            ("hover-rule", lambda: client.ask("textDocument/hover", {"textDocument": {"uri": settings_uri}, "position": position(settings_text(0), "mcp__svc-0__read", 6)})),
            ("symbols", lambda: client.ask("textDocument/documentSymbol", {"textDocument": {"uri": skill_uri}})),
        ]
        answered = {name: 0 for name, _ in requests}
        for n in range(1, args.edits + 1):
            k = n % len(files)
            path, _, text = files[k]
            versions[k] += 1
            version = versions[k]
            # Edits alternate between two texts where the finding changes (a rule, a server's
            # name), so the open files' versions stay in step with what the requests point at.
            body = text(version)
            client.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                                     "contentChanges": [{"text": body}]})
            client.wait(published(path.as_uri(), version))
            if n % args.save_every == 0:
                path.write_text(body)
                client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
            name, ask = requests[n % len(requests)]
            if ask() is not None:
                answered[name] += 1
            if n % args.every == 0:
                samples.append(("edits", n, status(pid)))
        # The end is sampled once the server is idle: a replaced check is freed on a thread of
        # its own, which a sample taken at that moment would count.
        time.sleep(2)
        samples.append(("idle", args.edits, status(pid)))
        for phase, n, s in samples:
            print(f"sample phase={phase} n={n} rss_kib={s['VmRSS']} hwm_kib={s['VmHWM']} fds={s['fds']} threads={s['Threads']}")
        base = next((s for phase, n, s in samples if phase == "edits"), samples[0][2])
        end = samples[-1][2]
        print(f"skills={args.skills} edits={args.edits} saves={args.edits // args.save_every} requests={args.edits}")
        print("answered_not_null " + " ".join(f"{name}={count}" for name, count in answered.items()))
        print(f"rss_start_kib={samples[0][2]['VmRSS']} rss_after_first_edits_kib={base['VmRSS']} rss_end_kib={end['VmRSS']} hwm_end_kib={end['VmHWM']}")
        print(f"fds_after_first_edits={base['fds']} fds_end={end['fds']} threads_after_first_edits={base['Threads']} threads_end={end['Threads']}")
        failed = []
        if end["VmRSS"] > base["VmRSS"] + 16 * 1024:
            failed.append("resident memory grew by more than 16 MiB")
        if end["fds"] > base["fds"]:
            failed.append("file descriptors grew")
        if end["Threads"] > base["Threads"] + 2:
            failed.append("threads grew by more than 2")
        client.shutdown(timeout=30)
        print("bounds=" + ("met" if not failed else "PASSED: " + "; ".join(failed)))
        return 1 if failed else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
