#!/usr/bin/env python3
"""Records what Claude Code sends for a prompt of `capc serve`, beside what it sends for
its own command, in the same folder:

    CLAUDE_BIN=/path/to/claude tests/oracle/serve-mcp.py [--capc BIN]

The folder is `serve/tree/` plus the real corpus files `serve/cases.json` names (`copies`:
corpus path → path in the folder), locked with `capc lock`. For each input of `cases.json`
(`name`, `arguments`) Claude Code runs twice in a trusted copy of it: `/NAME ARGS` (its own
command), and `/mcp__capc__NAME ARGS` with `--mcp-config` naming `capc serve <folder>` as the
server `capc`. Both requests (as `regen.py` extracts them) go to `serve/<name>-<args>.json`,
and a plain turn (`hello`) with the server to `serve/tools-hello.json`.
`tests/trials/live/serve.rs` checks that the second sends the first's texts after Claude Code's
own wrapper block, that Claude Code offers capc's Skill tool, and that today's `capc serve`
still returns the recorded texts. Needs what `regen.py` needs, and a built capc (default
target/debug/capc).
"""
import argparse
import json
import shutil
import subprocess
import tempfile
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import regen  # noqa: E402

HERE = Path(__file__).resolve().parent / 'serve'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--capc', default=str(regen.REPO / 'target' / 'debug' / 'capc'))
    args = parser.parse_args()
    capc = str(Path(args.capc).resolve())
    cases = json.loads((HERE / 'cases.json').read_text())
    # The scenario's tree: serve/tree plus the corpus copies, made once in a folder of its own.
    source = Path(tempfile.mkdtemp(prefix='capc-serve-tree-')) / 'tree'
    shutil.copytree(HERE / 'tree', source)
    for corpus_path, to in cases['copies'].items():
        src, dst = regen.CORPORA / corpus_path, source / to
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    subprocess.run(['chmod', '-R', 'u+w', str(source)], check=True)
    (source / 'capc-mcp.json').write_text(json.dumps(
        {'mcpServers': {'capc': {'command': '<CAPC>', 'args': ['serve', '<TREE>']}}}))

    def prepare(tree):
        subprocess.run([capc, 'lock', str(tree)], check=True, capture_output=True)

    for old in HERE.glob('*.json'):
        if old.name != 'cases.json':
            old.unlink()
    base = {'trusted': True, 'mapping': {'<CAPC>': capc}, 'prepare': prepare}
    for case in cases['inputs']:
        name, arguments = case['name'], case['arguments']
        native = regen.run_one('serve', base, source.parent, f'/{name} {arguments}')
        served = regen.run_one('serve', dict(base, args=['--mcp-config', '<TREE>/capc-mcp.json']),
                               source.parent, f'/mcp__capc__{name} {arguments}')
        out = {'name': name, 'arguments': arguments, 'native': native, 'mcp': served}
        path = HERE / f'{regen.slug(name + " " + arguments)}.json'
        path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n')
        same = served.get('texts', [])[1:] == native.get('texts')
        print(f'{path.name}: {"same texts" if same else "TEXTS DIFFER"}')
    # A plain turn: the tools Claude Code offers from capc (deferred behind tool search).
    hello = regen.run_one('serve', dict(base, args=['--mcp-config', '<TREE>/capc-mcp.json']), source.parent, 'hello')
    (HERE / 'tools-hello.json').write_text(json.dumps({'mcp': hello}, indent=1, ensure_ascii=False) + '\n')
    print(f'tools-hello.json: deferred {[d for d in hello.get("deferred", []) if d.startswith("mcp__")]}')
    shutil.rmtree(source.parent, ignore_errors=True)


if __name__ == '__main__':
    main()
