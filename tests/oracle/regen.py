#!/usr/bin/env python3
"""Regenerates the oracle ground truth of the turn scenarios: what Claude Code itself sends.

    CLAUDE_BIN=/path/to/claude tests/oracle/regen.py [SCENARIO…]

Each scenario is a folder `tests/oracle/scenarios/<name>/`:

    scenario.toml   description, inputs and the context of the run (see below)
    tree/           the folder Claude Code starts in (copied to a scratch folder first;
                    absent: an empty folder)
    home/           optional: the HOME (`.claude/…`, `.claude.json`); copied too
    outside/        optional: a folder beside the tree, outside it (`<OUTSIDE>` in `args` and in
                    `*.json` files): an `--add-dir` the user names outside the project
    managed/        optional: the managed settings (`managed-settings.json`,
                    `managed-settings.d/`, `managed-mcp.json`). Claude Code reads them only from
                    /etc/claude-code on Linux, so the run is in a mount namespace of its own
                    (`unshare -m`, as root) where an overlay on /etc adds `claude-code/` as a copy
                    of this folder; the real /etc is never written.
                    It may hold `CLAUDE.md` and `.claude/rules/` too; capc reads it as
                    `--managed-dir`.
    expected/       written here: one JSON file per input, normalized

scenario.toml:

    description = "what this scenario shows"
    inputs = ["/deploy web", "hello"]   # each is one `claude -p INPUT` run
    trusted = true                       # the home's .claude.json accepts the trust dialog for tree/
    approve_mcp = ["everything"]         # enabledMcpjsonServers of tree/ in the home's .claude.json
    plugin_dirs = ["plugins/qa"]         # `--plugin-dir`, relative to tree/, in order
    corpus_plugin_dirs = ["o__r/plugins/x"]  # then `--plugin-dir` of real plugins, relative to
                                         # ../shared/corpora (outside the tree; `<CORPORA>`)
    corpus_tree = "o__r"                 # the tree is a writable copy of this corpus (links
                                         # kept), not tree/
    args = ["--permission-mode", "plan"] # more arguments for claude
    cwd = "packages/web"                 # start Claude Code in this folder of tree/ (default: tree/)
    env = { ENABLE_TOOL_SEARCH = "false" }
    [capc]                               # not read here: the context of capc's session for
    context = { trusted = true }         # these inputs, and its `add_dirs` (tests/trials/oracle.rs)

In `home/.claude.json` and in any file under `tree/` or `home/` named `*.json`, the strings
`<TREE>` and `<HOME>` are replaced by the scratch folders' absolute paths before the run
(a `projects` entry keyed `<TREE>` reaches the tree). `<SERVERS>` is replaced by the absolute path
of `runtime/tests/servers` (real MCP servers installed by `.ci/run`).

The expected file holds what the last Messages API request carried that depends on the
declarations: the tools sent, in order; the deferred tools announced; the Skill listing and the
agent listing, line by line as sent; the `<command-name>`s and the user-turn texts (the expanded
prompt) — with the scratch paths written as `<TREE>` and `<HOME>`, and without what varies from
run to run or does not depend on the declarations (the system prompt, the git and attribution
reminders, dates; a `date -u +%Y%m%d-%H%M%S` stamp is written `<STAMP>`). Runs use `--output-format stream-json` (the same request as plain `-p`), whose
`init` message gives the command table in order, the loaded plugins in load order, the MCP
servers and the agents (`init`). An input that makes no request (`/help` in `-p`, a skill only
the model may invoke) records `"request": false` and what Claude Code answered instead
(`result`). Needs `../shared/oracle` beside the repository and the claude binary in CLAUDE_BIN;
the tests that compare capc with these files need neither.

    CLAUDE_BIN=… CAPC_SCENARIOS=DIR tests/oracle/regen.py --keep [SCENARIO…]

records the scenarios of another folder (the live differential suite, tests/trials/differential.rs,
writes its own there); `--keep` keeps what `expected/` holds and runs only the inputs it lacks.
`CLAUDE_CODE_VERSION` names the version CLAUDE_BIN must report (unless set, the one capc follows:
the constant `CLAUDE_CODE_VERSION` of compiler/src/model/lock/mod.rs).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ORACLE = Path(os.environ.get('ORACLE_DIR', REPO.parent / 'shared' / 'oracle'))
SCENARIOS = Path(os.environ.get('CAPC_SCENARIOS', HERE / 'scenarios'))
SERVERS = REPO / 'runtime' / 'tests' / 'servers'
CORPORA = Path(os.environ.get('CORPORA_DIR', REPO.parent / 'shared' / 'corpora'))

# Texts that do not depend on the declarations: dropped.
VARYING = [
    re.compile(r'^<system-reminder>\nAs you answer the user\'s questions, you can use the following context:\n# (gitStatus|currentDate)'),
    re.compile(r'^<system-reminder>\nAttribution for git commits'),
]
DATE = re.compile(r'\b20\d\d-\d\d-\d\d\b')
# A time stamp `date -u +%Y%m%d-%H%M%S` prints (a `!` injection of a real plugin's skill).
STAMP = re.compile(r'\b20\d{6}-\d{6}\b')


def slug(text):
    s = re.sub(r'[^A-Za-z0-9]+', '-', text).strip('-').lower()
    return (s or 'empty')[:60]


def substitute(root, mapping):
    for path in sorted(root.rglob('*.json')):
        if path.is_file() and not path.is_symlink():
            text = path.read_text()
            new = text
            for key, value in mapping.items():
                new = new.replace(key, value)
            if new != text:
                path.write_text(new)


def normalize(value, mapping):
    if isinstance(value, str):
        for key, path in mapping.items():
            value = value.replace(path, key)
        return STAMP.sub('<STAMP>', DATE.sub('<DATE>', value))
    if isinstance(value, list):
        return [normalize(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v, mapping) for k, v in value.items()}
    return value


SKILLS_HEADER = 'The following skills are available for use with the Skill tool:\n\n'
AGENTS_HEADER = 'Available agent types for the Agent tool:\n'
AGENTS_END = '\n\nWhen you launch multiple agents'
DEFERRED_HEADER = 'to load tool schemas before calling them:\n'


def requests(log):
    if not log.exists():
        return []
    out = []
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        path = entry.get('path', '')
        if entry.get('method') == 'POST' and path.startswith('/v1/messages') and 'count_tokens' not in path:
            out.append(entry['body'])
    return out


def session_messages(stdout, requested):
    """From stream-json output: the `init` message's command table (`slash_commands`, in table
    order), loaded plugins (in load order, built-in ones left out), MCP servers and agents; and,
    when no request was made, the text Claude Code answered with instead."""
    out = {}
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get('type') == 'system' and message.get('subtype') == 'init' and 'init' not in out:
            out['init'] = {
                'slash_commands': message.get('slash_commands', []),
                'plugins': [p.get('source') or p.get('name') for p in message.get('plugins', [])
                            if not str(p.get('source', '')).endswith('@builtin')],
                'mcp_servers': [{'name': m.get('name'), 'status': m.get('status'), 'source': m.get('source')}
                                for m in message.get('mcp_servers', [])],
                'agents': message.get('agents', []),
            }
        if message.get('type') == 'result' and not requested:
            out['result'] = message.get('result')
    return out


def has_request(log):
    return bool(requests(log))


def texts_of(content):
    if isinstance(content, str):
        return [content]
    return [b.get('text', '') for b in content if b.get('type') == 'text']


def block_after(texts, header, end=None):
    """The text after HEADER up to END (or the paragraph's end), from the first text holding it."""
    for t in texts:
        i = t.find(header)
        if i < 0:
            continue
        rest = t[i + len(header):]
        j = rest.find(end) if end else rest.find('\n\n')
        return (rest if j < 0 else rest[:j]).split('\n')
    return None


def extract(log):
    """What the last Messages API request carried that depends on the declarations. Listings are
    kept line by line as sent (a description may span lines)."""
    bodies = requests(log)
    if not bodies:
        return {'request': False}
    body = bodies[-1]
    user = [t for m in body['messages'] if m['role'] == 'user' for t in texts_of(m['content'])]
    other = [t for m in body['messages'] if m['role'] != 'user' for t in texts_of(m['content'])]
    every = user + other
    deferred = block_after(every, DEFERRED_HEADER) or []
    return {
        'request': True,
        'tools': [t['name'] for t in body.get('tools', [])],
        'deferred': [d for d in deferred if d.strip()],
        'skill_listing': block_after(every, SKILLS_HEADER) or [],
        'agent_listing': block_after(every, AGENTS_HEADER, AGENTS_END) or [],
        'commands': [c for t in user for c in re.findall(r'<command-name>([^<]*)</command-name>', t)],
        'texts': [t for t in user if not any(v.search(t) for v in VARYING)],
    }


def run_one(name, spec, scenario_dir, text):
    scratch = Path(tempfile.mkdtemp(prefix='capc-oracle-'))
    try:
        tree = scratch / 'tree'
        home = scratch / 'home'
        if spec.get('corpus_tree'):
            shutil.copytree(CORPORA / spec['corpus_tree'], tree, symlinks=True)
            writable(tree)
        elif (scenario_dir / 'tree').is_dir():
            shutil.copytree(scenario_dir / 'tree', tree, symlinks=True)
        else:
            tree.mkdir()
        if (scenario_dir / 'home').is_dir():
            shutil.copytree(scenario_dir / 'home', home, symlinks=True)
        else:
            home.mkdir()
        tree_abs, home_abs = str(tree.resolve()), str(home.resolve())
        mapping = {'<TREE>': tree_abs, '<HOME>': home_abs, '<SERVERS>': str(SERVERS)}
        if (scenario_dir / 'outside').is_dir():
            outside = scratch / 'outside'
            shutil.copytree(scenario_dir / 'outside', outside, symlinks=True)
            mapping['<OUTSIDE>'] = str(outside.resolve())
            substitute(outside, mapping)
        if spec.get('corpus_plugin_dirs'):
            mapping['<CORPORA>'] = str(CORPORA.resolve())
        mapping.update(spec.get('mapping', {}))
        substitute(tree, mapping)
        substitute(home, mapping)
        managed = scratch / 'overlay' / 'upper' / 'claude-code'
        if (scenario_dir / 'managed').is_dir():
            shutil.copytree(scenario_dir / 'managed', managed, symlinks=True)
            substitute(managed, mapping)
            (scratch / 'overlay' / 'work').mkdir()
        if spec.get('prepare'):
            spec['prepare'](tree)
        config_path = home / '.claude.json'
        config = json.loads(config_path.read_text()) if config_path.exists() else {}
        project = config.setdefault('projects', {}).setdefault(tree_abs, {})
        if spec.get('trusted'):
            project['hasTrustDialogAccepted'] = True
        if spec.get('approve_mcp'):
            project['enabledMcpjsonServers'] = list(spec['approve_mcp'])
        config.setdefault('hasCompletedOnboarding', True)
        config_path.write_text(json.dumps(config, indent=1))
        args = []
        for d in spec.get('plugin_dirs', []):
            args += ['--plugin-dir', str(tree / d)]
        for d in spec.get('corpus_plugin_dirs', []):
            args += ['--plugin-dir', str(CORPORA.resolve() / d)]
        args += [a.replace('<TREE>', tree_abs).replace('<OUTSIDE>', mapping.get('<OUTSIDE>', '<OUTSIDE>'))
                 for a in spec.get('args', [])]
        # The stream-json output (same request as plain `-p`) opens with an `init` message that
        # lists the command table, the loaded plugins and the MCP servers.
        stream = '--output-format' not in args
        if stream:
            args += ['--output-format', 'stream-json', '--verbose']
        # `<TREE>` and `<OUTSIDE>` in an input name the scratch folders too.
        sent = text
        for key in ('<TREE>', '<OUTSIDE>'):
            if key in mapping:
                sent = sent.replace(key, mapping[key])
        args += ['-p', sent]
        env = dict(os.environ)
        # Wait for MCP servers before the first request, so a busy machine records them all.
        env['MCP_CONNECTION_NONBLOCKING'] = '0'
        env.update({k: str(v) for k, v in spec.get('env', {}).items()})
        env['ORACLE_HOME'] = home_abs
        log = scratch / 'requests.log'
        start = tree / spec['cwd'] if spec.get('cwd') else tree
        command = [str(ORACLE / 'claude-offline'), str(log), str(start)] + args
        if managed.is_dir():
            overlay = scratch / 'overlay'
            mount = (f'mount -t overlay overlay -o lowerdir=/etc,upperdir={overlay / "upper"},'
                     f'workdir={overlay / "work"} /etc && exec "$@"')
            command = ['unshare', '-m', '--propagation', 'private', 'sh', '-c', mount, 'sh'] + command
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
        out = {'input': text, 'stderr': [l for l in run.stderr.splitlines() if l.strip()]}
        if stream:
            out.update(session_messages(run.stdout, has_request(log)))
        elif not has_request(log):
            out['stdout'] = run.stdout.strip().splitlines()
        out.update(extract(log))
        # Longest paths first, so the home inside nothing and the tree inside nothing are both caught.
        inverse = {k: v for k, v in sorted(mapping.items(), key=lambda kv: -len(kv[1]))}
        return normalize(out, inverse)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def writable(root):
    """Gives the owner write access to every folder and file under ROOT (a copy of the read-only
    corpora), so the run may write where Claude Code writes and the copy can be removed."""
    for folder, dirs, files in os.walk(root):
        for name in [folder] + [os.path.join(folder, f) for f in files]:
            if not os.path.islink(name):
                os.chmod(name, os.stat(name).st_mode | 0o700 if name == folder else os.stat(name).st_mode | 0o600)


def followed_version():
    """The Claude Code version capc follows: the one constant that names it."""
    lock_rs = (HERE.parent.parent / 'compiler' / 'src' / 'model' / 'lock' / 'mod.rs').read_text()
    return re.search(r'pub const CLAUDE_CODE_VERSION: &str = "([^"]+)";', lock_rs).group(1)


def main(argv):
    if not os.environ.get('CLAUDE_BIN') or not os.access(os.environ['CLAUDE_BIN'], os.X_OK):
        raise SystemExit(f'set CLAUDE_BIN to the claude {followed_version()} binary (see ../shared/oracle/README.md)')
    version = subprocess.run([os.environ['CLAUDE_BIN'], '--version'], capture_output=True, text=True).stdout.strip()
    wanted = os.environ.get('CLAUDE_CODE_VERSION') or followed_version()
    if not version.startswith(wanted):
        raise SystemExit(f'CLAUDE_BIN is `{version}`; the ground truth is for {wanted}')
    keep = '--keep' in argv
    argv = [a for a in argv if a != '--keep']
    names = argv or sorted(p.name for p in SCENARIOS.iterdir() if (p / 'scenario.toml').is_file())
    for name in names:
        scenario_dir = SCENARIOS / name
        spec = tomllib.loads((scenario_dir / 'scenario.toml').read_text())
        expected = scenario_dir / 'expected'
        if expected.exists() and not keep:
            shutil.rmtree(expected)
        expected.mkdir(exist_ok=True)
        for text in spec['inputs']:
            if keep and (expected / f'{slug(text)}.json').exists():
                continue
            result = run_one(name, spec, scenario_dir, text)
            (expected / f'{slug(text)}.json').write_text(json.dumps(result, indent=1, ensure_ascii=False) + '\n')
        print(f'{name}: {len(spec["inputs"])} input(s)')


if __name__ == '__main__':
    main(sys.argv[1:])
