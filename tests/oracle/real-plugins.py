#!/usr/bin/env python3
"""Writes the oracle scenarios of real plugins: every plugin of the shared corpora that has a
command or a skill, loaded with `--plugin-dir` from an empty folder elsewhere, as a plugin
author runs Claude Code on their plugin.

    CLAUDE_BIN=/path/to/claude tests/oracle/real-plugins.py      # writes the scenarios
    CLAUDE_BIN=/path/to/claude tests/oracle/regen.py real-…       # then records what Claude Code sends

For each plugin (a folder of `../shared/corpora` holding `.claude-plugin/plugin.json` and a
`commands/` or `skills/` folder), Claude Code is asked once, with a plain turn, what
its command table holds; the scenario's inputs are that plain turn, then every command of the
plugin typed with arguments (`/<plugin>:<command> ARGS`), then its first skill typed the same
way. The names come from Claude Code itself (the `init` message's `slash_commands` that carry
the plugin's prefix), so a name capc would spell otherwise is still typed as users type it.

A scenario is `tests/oracle/scenarios/real-<owner>-<folder>/scenario.toml` with
`corpus_plugin_dirs` (relative to the corpora folder) and no `tree/`: the run starts in an
empty folder, untrusted, with an empty home. Scenarios of plugins that no longer exist are
removed. A plugin whose commands or skills hold a `!` injection is run in a trusted folder
(its author's), so the injections are decided and run, not refused for trust. Needs ../shared beside the repository and the claude binary in CLAUDE_BIN.
"""
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import regen  # noqa: E402

CORPORA = Path(os.environ.get('CORPORA_DIR', regen.REPO.parent / 'shared' / 'corpora'))
ARGS = 'add input validation to src/api/users.ts'
PREFIX = 'real-'
# Plugins left out, with why. Each is a difference from Claude Code, kept in sight here.
EXCLUDED = {}
INJECTION = re.compile(r'!`|```!')


def plugins():
    """Every plugin folder with a command or a skill, sorted by its path under the corpora."""
    found = []
    for manifest in sorted(CORPORA.glob('*/**/.claude-plugin/plugin.json')):
        folder = manifest.parent.parent
        if (folder / 'commands').is_dir() or (folder / 'skills').is_dir():
            found.append(folder.relative_to(CORPORA).as_posix())
    return found


def injects(rel):
    """Whether a command or skill of the plugin holds a `!` shell injection."""
    folder = CORPORA / rel
    files = list((folder / 'commands').rglob('*.md')) + list((folder / 'skills').glob('*/SKILL.md'))
    return any(INJECTION.search(f.read_text(errors='replace')) for f in files if f.is_file())


def scenario_name(rel):
    owner = rel.split('__', 1)[0]
    return PREFIX + regen.slug(f'{owner}-{Path(rel).name}')


def command_table(rel):
    """The plugin's entries in Claude Code's command table, in table order."""
    scratch = Path(tempfile.mkdtemp(prefix='capc-oracle-'))
    try:
        tree, home = scratch / 'tree', scratch / 'home'
        tree.mkdir()
        home.mkdir()
        (home / '.claude.json').write_text(json.dumps({'hasCompletedOnboarding': True}))
        env = dict(os.environ, ORACLE_HOME=str(home))
        args = ['--plugin-dir', str(CORPORA / rel), '--output-format', 'stream-json', '--verbose', '-p', 'hello']
        run = subprocess.run([str(regen.ORACLE / 'claude-offline'), str(scratch / 'log'), str(tree)] + args,
                             env=env, capture_output=True, text=True, timeout=180)
        init = regen.session_messages(run.stdout, True).get('init', {})
        plugin = next((p for p in init.get('plugins', [])), None)
        if plugin is None:
            return None, []
        name = plugin.split('@', 1)[0]
        return name, [c for c in init.get('slash_commands', []) if c.startswith(name + ':')]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def skill_names(rel):
    folder = CORPORA / rel / 'skills'
    if not folder.is_dir():
        return set()
    return {p.parent.name for p in folder.glob('*/SKILL.md')}


def main():
    if not CORPORA.is_dir():
        raise SystemExit(f'{CORPORA} is not there (the shared corpora, beside the repository)')
    written = set()
    for rel in plugins():
        if rel in EXCLUDED:
            print(f'{rel}: left out ({EXCLUDED[rel]})', file=sys.stderr)
            continue
        name = scenario_name(rel)
        assert name not in written, f'two plugins make the scenario name {name}'
        plugin, table = command_table(rel)
        if plugin is None:
            print(f'{rel}: Claude Code loads no plugin from it; left out', file=sys.stderr)
            continue
        skills = skill_names(rel)
        commands = [c for c in table if c.split(':')[-1] not in skills]
        typed = [c for c in table if c.split(':')[-1] in skills][:1]
        inputs = ['hello'] + [f'/{c} {ARGS}' for c in commands + typed]
        slugs = [regen.slug(i) for i in inputs]
        assert len(set(slugs)) == len(slugs), f'{rel}: two inputs share a file name'
        folder = regen.SCENARIOS / name
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            f'description = "the real plugin {rel} (Claude Code names it `{plugin}`), loaded with --plugin-dir '
            f'from an empty folder elsewhere: a plain turn, then its commands and first skill typed with arguments"',
            'inputs = [' + ', '.join(json.dumps(i) for i in inputs) + ']',
            # Where a `!` injection is typed, the folder is trusted, as its author's would be:
            # Claude Code then decides and runs it, and so does capc.
            *(['trusted = true'] if injects(rel) else []),
            f'corpus_plugin_dirs = [{json.dumps(rel)}]',
            '',
            "# Written by tests/oracle/real-plugins.py. The context of capc's session (tests/trials/oracle.rs).",
            '[capc]',
            'context = {}',
            '',
        ]
        (folder / 'scenario.toml').write_text('\n'.join(lines))
        written.add(name)
        print(f'{name}: {len(inputs) - 1} typed')
    for old in regen.SCENARIOS.glob(PREFIX + '*'):
        if old.name not in written:
            shutil.rmtree(old)


if __name__ == '__main__':
    main()
