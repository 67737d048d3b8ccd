#!/usr/bin/env python3
"""Records Claude Code as the client of `capc serve`'s permission questions:

    CLAUDE_BIN=/path/to/claude tests/oracle/serve-ask.py [--capc BIN]

The folder is `serve-ask/tree/`: a command `/stamp` whose `!` command (`./count.sh`) no rule
allows. Claude Code runs `/mcp__capc__stamp` in a trusted copy of it twice, with `--mcp-config`
naming `capc serve <folder> --trust` as the server `capc`, through a relay that logs every
JSON-RPC line between them: once as it is (a headless run, which answers a question itself),
and once with an `Elicitation` hook in the folder's settings answering `yes-always`. Each run
goes to `serve-ask/<run>.json`: the client's `initialize` capabilities, the `elicitation/create`
capc sent, Claude Code's answer, capc's answer to `prompts/get`, the request Claude Code sent
(as `regen.py` extracts it) and `.claude/settings.local.json` afterwards. `tests/trials/live/serve.rs`
checks the records and that today's `capc serve` still asks the recorded question. Needs what
`regen.py` needs, and a built capc (default target/debug/capc).
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import regen  # noqa: E402

HERE = Path(__file__).resolve().parent / 'serve-ask'

# Runs `capc serve` and logs each line both ways (`C>` from Claude Code, `S>` from capc); at the
# end, the local settings of the folder.
RELAY = r'''
import subprocess, sys, threading
log_path, tree, command = sys.argv[1], sys.argv[2], sys.argv[3:]
log = open(log_path, "a")
log.write("T> " + tree + "\n")
server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def up():
    for line in sys.stdin.buffer:
        log.write("C> " + line.decode()); log.flush()
        server.stdin.write(line); server.stdin.flush()
    server.stdin.close()
threading.Thread(target=up, daemon=True).start()
seen = None
for line in server.stdout:
    log.write("S> " + line.decode()); log.flush()
    # Claude Code ends the relay with the server: the local settings as each answer leaves them.
    try:
        now = open(tree + "/.claude/settings.local.json").read()
    except OSError:
        now = None
    if now is not None and now != seen:
        seen = now
        log.write("L> " + now.replace("\n", "\\n") + "\n"); log.flush()
    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()
'''

HOOK = {'hooks': {'Elicitation': [{'matcher': 'capc', 'hooks': [{'type': 'command', 'command': (
    "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"Elicitation\", "
    "\"action\": \"accept\", \"content\": {\"answer\": \"yes-always\"}}}'")}]}]}}


def traffic(log):
    lines = log.read_text().splitlines()
    tree = next(l[3:] for l in lines if l.startswith('T> '))
    messages = [(l[:2], json.loads(l[3:].replace(tree, '<TREE>'))) for l in lines if l[:2] in ('C>', 'S>')]
    out = {}
    for side, m in messages:
        if side == 'C>' and m.get('method') == 'initialize':
            out['capabilities'] = m['params']['capabilities']
        if side == 'S>' and m.get('method') == 'elicitation/create':
            out['question'], asked = m['params'], m['id']
            out['answer'] = next(c.get('result', c.get('error')) for s, c in messages
                                 if s == 'C>' and c.get('id') == asked and 'method' not in c)
        if side == 'C>' and m.get('method') == 'prompts/get':
            out['prompts_get'] = next(s.get('result', s.get('error')) for d, s in messages
                                      if d == 'S>' and s.get('id') == m['id'] and 'method' not in s)
    local = [l[3:].replace('\\n', '\n') for l in lines if l.startswith('L> ')]
    out['settings_local'] = local[-1] if local else None
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--capc', default=str(regen.REPO / 'target' / 'debug' / 'capc'))
    args = parser.parse_args()
    capc = str(Path(args.capc).resolve())
    scratch = Path(tempfile.mkdtemp(prefix='capc-serve-ask-'))
    relay = scratch / 'relay.py'
    relay.write_text(RELAY)
    for run, settings in [('headless', None), ('hook', HOOK)]:
        scenario = scratch / run
        shutil.copytree(HERE / 'tree', scenario / 'tree')
        if settings:
            (scenario / 'tree' / '.claude' / 'settings.json').write_text(json.dumps(settings, indent=2) + '\n')
        log = scratch / f'{run}.log'
        (scenario / 'tree' / 'capc-mcp.json').write_text(json.dumps({'mcpServers': {'capc': {
            'command': sys.executable,
            'args': [str(relay), str(log), '<TREE>', capc, 'serve', '<TREE>', '--trust']}}}))
        # A busy machine may take a while to start capc: Claude Code waits for it.
        spec = {'trusted': True, 'args': ['--mcp-config', '<TREE>/capc-mcp.json'], 'env': {'MCP_TIMEOUT': 120000}}
        claude = regen.run_one('serve-ask', spec, scenario, '/mcp__capc__stamp')
        if not log.exists():
            sys.exit(f'{run}: Claude Code did not start capc serve: {claude.get("stderr")}')
        out = {'input': '/mcp__capc__stamp', **traffic(log), 'claude': claude}
        (HERE / f'{run}.json').write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n')
        print(f'{run}.json: answer {out.get("answer")}')
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == '__main__':
    main()
