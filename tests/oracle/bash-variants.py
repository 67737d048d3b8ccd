#!/usr/bin/env python3
"""bash-variants.py: generates flag-form variants of every command Claude Code's read-only table
names and measures, offline and in batches, which of them Claude Code runs with no rule; it wrote
`grammar/tests/data/bash-variants-2.1.332.json` (Claude Code).

    CLAUDE_BIN=/path/to/claude tests/oracle/bash-variants.py [--jobs N] [--batch N] [--list]

The variants (`generate()`, deterministic): each command bare and with a file, each of its
flags alone, `--flag=value`, value-taking flags with a separate and an attached value, long flags
abbreviated, short flags combined, unknown flags, options that name a program or a file, the
same commands behind `xargs`, `find -exec`, `env`, `timeout`, `nice`, `command`, and commands
that print the environment.

How a decision is obtained: one headless `claude -p` run per chunk of cases, in a trusted
throwaway project with no permission rule, against a local stand-in for the Messages API
(started here, on 127.0.0.1, inside `unshare -n` where allowed so nothing can leave) that
answers each turn with `--batch` Bash tool calls at once, then with the next chunk, until all
are sent. Each tool result says whether the command ran (its output) or needed approval (the
reason it needs approval, as an error result): decision `allow` or `ask`. The decision is the one Claude Code's permission check
gives a `!` injection too (`bash-probe.py` measures injections one run each; `--check` here
re-measures its no-rule cases in batches and compares).

The project is `/tmp/bv/<chunk>/proj` (a git repository holding `a.txt` and `b.txt`) and
the home `/tmp/bv/<chunk>/home`; each case records its chunk, and the test
(`grammar/tests/grammar/bash_variants.rs`) decides it with those paths. The PATH gets /tmp/bv/bin,
holding `mark X` (writes ./mark-X and prints MARK:X), the program the variants try to start.
"""
import concurrent.futures as cf, http.server, json, os, shutil, socket, subprocess, sys, threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, 'grammar', 'tests', 'data', 'bash-variants-2.1.332.json')
ROOT = '/tmp/bv'
BIN = ROOT + '/bin'
# How the tool result of a command that ran but failed begins; every other error result is the
# reason the command needs approval.
RAN = ('Exit code ', 'Command timed out', 'Shell cwd was reset')


def ran(message):
    return message.startswith(RAN)

# ---- the commands and their flags, as Claude Code's read-only table gives them ----
# Flag kinds: none (no value), number, string, char (one character), {} (xargs -I), EOF (xargs -E).
# The table is the one scripts/claude-code-tables extracts (compiler/data/claude-code/
# bash-read-only-flags.tsv), plus the `gh` commands of bash-variants-gh.json: the bundle lists
# them in another table that a default build never consults, and measuring them shows they ask.
def read_flag_table(path):
    table, current = {}, None
    for line in open(path):
        if not line.strip() or line.startswith('#'):
            continue
        parts = line.rstrip('\n').split('\t')
        if parts[0]:
            current = table[parts[0]] = {'safeFlags': {}}
        else:
            current['safeFlags'][parts[1]] = parts[2]
    return table


TABLE = read_flag_table(os.path.join(REPO, 'compiler', 'data', 'claude-code', 'bash-read-only-flags.tsv'))
TABLE.update(json.load(open(os.path.join(HERE, 'bash-variants-gh.json'))))

# Commands read-only with any argument without shell metacharacters, and the special cases.
PLAIN = ['cal', 'uptime', 'cat', 'head', 'tail', 'wc', 'stat', 'strings', 'hexdump', 'od', 'nl', 'id',
         'uname', 'free', 'df', 'du', 'locale', 'groups', 'nproc', 'basename', 'dirname', 'realpath',
         'cut', 'paste', 'tr', 'column', 'tac', 'rev', 'fold', 'expand', 'unexpand', 'fmt', 'comm', 'cmp',
         'numfmt', 'readlink', 'diff', 'true', 'false', 'sleep', 'type', 'expr', 'seq', 'tsort', 'pr']
SPECIAL = ['echo', 'printf', 'ls', 'cd', 'find', 'pwd', 'whoami', 'alias', 'jq', 'awk', 'uniq', 'tee',
           'printenv', 'env', 'arch', 'tty', 'hostid', 'logname', 'history', 'docker ps', 'docker images',
           'node', 'python3', 'b2sum', 'cksum', 'sha224sum', 'sha384sum', 'sha512sum', 'shasum', 'whereis',
           'git', 'gh', 'dir', 'vdir', 'sum']

VALUE = {'number': '1', 'string': 'x', 'char': ',', '{}': '{}', 'EOF': 'EOF'}
# Flags that take a program or a file, tried with an attached or `=` value on every command.
PROGRAM_FLAGS = ['-O', '-x', '-o', '--exec', '--upload-pack', '--receive-pack', '--output', '--pre',
                 '--open-files-in-pager', '--ext-diff', '--textconv', '-c', '--config', '-e', '-f',
                 '--compress-program', '--files0-from', '--from-file', '--rawfile', '--exec-batch']


def file_arg(cmd):
    """A positional argument that keeps the command meaningful."""
    name = cmd.split()[0]
    if name == 'git':
        return {'git grep': 'x', 'git log': 'HEAD', 'git show': 'HEAD', 'git blame': 'a.txt',
                'git cat-file': 'HEAD', 'git diff': 'HEAD', 'git ls-files': 'a.txt'}.get(cmd, '')
    if name in ('grep', 'egrep', 'fgrep', 'rg'):
        return 'x a.txt'
    if name == 'sed':
        return '-n 1p a.txt'
    if name in ('gh', 'docker', 'ps', 'pgrep', 'lsof', 'netstat', 'ss', 'date', 'hostname', 'tput',
                'which', 'man', 'help', 'test', 'xargs', 'tree', 'fd', 'fdfind'):
        return ''
    return 'a.txt'


def join(*parts):
    return ' '.join(p for p in parts if p)


def short_flags(flags):
    return [f for f in flags if len(f) == 2 and f[0] == '-' and f[1] != '-']


def abbreviations(flag, flags):
    """Prefixes of a long flag that GNU getopt would accept for it (unambiguous among the
    command's own long flags), at most two per flag."""
    out = []
    for cut in (3, 6):
        if len(flag) - cut < 4:
            continue
        prefix = flag[:len(flag) - cut]
        if prefix in flags or prefix in out:
            continue
        out.append(prefix)
    return out


def table_variants(cmd, spec):
    flags = spec.get('safeFlags') or {}
    arg = file_arg(cmd)
    out = [cmd, join(cmd, arg)]
    for flag, kind in sorted(flags.items()):
        if flag == '--':
            continue
        if kind == 'none':
            out.append(join(cmd, flag, arg))
            out.append(join(cmd, flag + '=mark', arg))
        else:
            value = VALUE.get(kind, 'x')
            out.append(join(cmd, flag, value, arg))
            out.append(join(cmd, flag + '=' + value, arg))
            if flag.startswith('--'):
                out.append(join(cmd, flag + '=-mark', arg))
            else:
                out.append(join(cmd, flag + value, arg))
                out.append(join(cmd, flag + 'mark', arg))
        if flag.startswith('--'):
            for prefix in abbreviations(flag, flags):
                out.append(join(cmd, prefix, arg) if kind == 'none' else join(cmd, prefix, VALUE.get(kind, 'x'), arg))
    shorts = short_flags(flags)
    nones = [f for f in shorts if flags[f] == 'none']
    valued = [f for f in shorts if flags[f] != 'none']
    for a, b in zip(nones, nones[1:] + nones[:1]):
        if a != b:
            out.append(join(cmd, a + b[1:], arg))
    for a in nones[:4]:
        for v in valued[:3]:
            out.append(join(cmd, a + v[1:] + VALUE.get(flags[v], 'x'), arg))
    for flag in PROGRAM_FLAGS:
        if flag in flags and flags[flag] == 'none':
            continue
        sep = '=' if flag.startswith('--') else ''
        out.append(join(cmd, flag + sep + 'mark', arg))
    out.append(join(cmd, '--no-such-flag', arg))
    out.append(join(cmd, '-Z', arg))
    return out


def plain_variants(cmd):
    arg = file_arg(cmd)
    out = [cmd, join(cmd, arg), join(cmd, '-n', arg), join(cmd, '--help'), join(cmd, '--version')]
    for flag in PROGRAM_FLAGS[:8]:
        sep = '=' if flag.startswith('--') else ''
        out.append(join(cmd, flag + sep + 'mark', arg))
    out.append(join(cmd, '--no-such-flag', arg))
    return out


def wrapper_variants(cmd):
    arg = file_arg(cmd)
    return [
        join('echo a.txt | xargs', cmd),
        join('echo a.txt | xargs -n1', cmd),
        join('echo a.txt | xargs -0', cmd),
        join('echo a.txt | xargs -I{}', cmd, '{}'),
        join('echo a.txt | xargs --', cmd),
        join('find . -name a.txt -exec', cmd, '{} \\;'),
        join('find . -name a.txt -execdir', cmd, '{} +'),
        join('env', cmd, arg),
        join('env X=1', cmd, arg),
        join('env -i', cmd, arg),
        join('timeout 5', cmd, arg),
        join('nice', cmd, arg),
        join('nohup', cmd, arg),
        join('command', cmd, arg),
        join('time', cmd, arg),
        join('LC_ALL=C', cmd, arg),
    ]


ENVIRONMENT = [
    'printenv', 'printenv HOME', 'printenv -0', 'env', 'env -0', 'env -u X', 'env -i', 'set', 'set -o',
    'export', 'export -p', 'declare', 'declare -p', 'declare -x', 'declare -px', 'typeset -p',
    'compgen -v', 'compgen -e', 'readonly -p', 'jq -n env', "jq -n '$ENV'", 'jq -n $ENV', "jq -n 'env.HOME'",
    "jq -n '$ENV.HOME'", 'jq -n "env"', "jq -n '[env]'", 'ps e', 'ps eww', 'ps -e', 'ps auxe', 'ps -ef',
    'ps aux', 'ps -o pid,command e', 'ps -E', 'git config --list', 'git config -l', 'git config --get user.name',
    'git config --get-regexp .', 'git config --list --show-origin', 'git var -l', 'git var GIT_AUTHOR_IDENT',
    'cat /proc/self/environ', 'cat /proc/1/environ', 'strings /proc/self/environ', 'od -c /proc/self/environ',
    'tr "\\0" "\\n" < /proc/self/environ', 'xargs -0 -n1 < /proc/self/environ', 'echo $HOME',
    'echo "$GITHUB_TOKEN"', 'echo ${GITHUB_TOKEN}', 'printf "%s" "$PATH"', 'awk "BEGIN{print ENVIRON[\\"HOME\\"]}"',
    'awk "BEGIN{for (k in ENVIRON) print k}"', 'sort /proc/self/environ', 'head -c 100 /proc/self/environ',
    'python3 -c "import os;print(os.environ)"', 'node -e "console.log(process.env)"', 'alias', 'alias -p',
    'git -c core.pager=mark log -1', 'git -c alias.x=!mark x', 'git --config-env=core.pager=X log -1',
    'git -p log -1', 'git --paginate log -1', 'git --no-pager log -1', 'git -C . log -1', 'git -C /tmp log -1',
    'git --git-dir=/tmp log -1', 'git --work-tree=/tmp status', 'git --exec-path=/tmp status',
]

GIT_EXTRA = [
    'git grep --open-files x', 'git grep --open-files-in-pager=mark x', 'git grep -Omark x', 'git grep -O mark x',
    'git grep --open x', 'git ls-remote --upload-pack=mark .', 'git ls-remote --upload mark .',
    'git ls-remote -u mark .', 'git ls-remote --exec=mark .', 'git ls-remote --server-option=x .',
    'git ls-remote -o x .', 'git ls-remote .', 'git ls-remote', 'git log --output=out.txt',
    'git log --output out.txt', 'git log --out=out.txt', 'git diff --output=out.txt', 'git diff --ext-diff',
    'git diff --ext', 'git log --ext-diff -p', 'git diff --textconv', 'git log -p --textconv',
    'git show --textconv HEAD', 'git diff --no-index a.txt b.txt', 'git diff --no-index /etc/hostname a.txt',
    'git diff --no-index -- a.txt /etc/hostname', 'git blame --contents /etc/hostname a.txt',
    'git blame --contents=/etc/hostname a.txt', 'git blame --contents a.txt a.txt', 'git blame -S /etc/hostname a.txt',
    'git log --format=%H', 'git log --format=%G?', 'git log --pretty=format:%H', 'git log --pretty=oneline',
    'git log --show-signature', 'git log --exec=mark', 'git rebase -x mark', 'git status --porcelain=v2',
    'git status -uno', 'git status -unormal', 'git status --untracked-files=all', 'git status -sb',
    'git branch -D x', 'git branch -d x', 'git branch new', 'git branch --list', 'git branch --list x',
    'git branch -m x', 'git branch --set-upstream-to=x', 'git tag x', 'git tag -d x', 'git tag -l', 'git tag --list x',
    'git remote add x y', 'git remote -v', 'git remote show origin', 'git remote get-url origin',
    'git stash', 'git stash list', 'git stash show', 'git stash drop', 'git stash list --format=%H',
    'git worktree add x', 'git worktree list', 'git worktree list --porcelain', 'git reflog', 'git reflog show',
    'git reflog expire', 'git reflog delete x', 'git config user.name', 'git config --get core.pager',
    'git config user.name x', 'git config --unset x', 'git cat-file -p HEAD', 'git cat-file --batch',
    'git cat-file --filters HEAD:a.txt', 'git cat-file --textconv HEAD:a.txt', 'git rev-parse --git-dir',
    'git rev-parse --show-toplevel', 'git rev-parse --local-env-vars', 'git for-each-ref --format=%(refname)',
    'git for-each-ref --shell', 'git describe --always', 'git log -1 --', 'git log -- a.txt',
    'git log -- /etc/hostname', 'git show HEAD:a.txt', 'git show --output=x HEAD', 'git -C .. status',
    'git log -L1,1:a.txt', 'git log -S x', 'git log -G x', 'git log --grep=x', 'git log -3', 'git log -n3',
    'git log --max-count=3', 'git shortlog -sn', 'git shortlog --format=%H', 'git log --since=yesterday',
    'git ls-files --others', 'git ls-files -o', 'git ls-files --with-tree=HEAD', 'git grep -f /etc/hostname',
    'git grep -e x --', 'git grep --no-index x', 'git grep --no-index x /etc', 'git grep x -- /etc/hostname',
    'git diff HEAD -- /etc/hostname', 'git merge-base HEAD HEAD', 'git rev-list --all', 'git rev-list --count HEAD',
    'git archive HEAD', 'git bundle create x HEAD', 'git fetch', 'git pull', 'git push',
    'git -c core.fsmonitor=mark status', 'git --no-optional-locks status', 'git status --ignored',
]

OTHER_EXTRA = [
    'sort -o out.txt a.txt', 'sort -oout.txt a.txt', 'sort --output=out.txt a.txt', 'sort --out=out.txt a.txt',
    'sort --compress-program=mark a.txt', 'sort --compress=mark a.txt', 'sort -S1M --compress-program mark a.txt',
    'sort -T /tmp a.txt', 'sort --files0-from=a.txt', 'sort -u a.txt', 'sort -rn a.txt', 'sort -k1,1 a.txt',
    'sed -n 1p a.txt', 'sed -n "1p" a.txt', 'sed -n 1w out.txt a.txt', 'sed -n "1e mark" a.txt', 'sed -i s/a/b/ a.txt',
    'sed -ibak s/a/b/ a.txt', 'sed --in-place=bak s/a/b/ a.txt', 'sed s/a/b/ a.txt', 'sed s/a/b/w out.txt a.txt',
    'sed s/a/b/e a.txt', 'sed -n -e 1p a.txt', 'sed -ne 1p a.txt', 'sed -n -f a.txt a.txt', 'sed -E -n 1p a.txt',
    'sed -z -n 1p a.txt', 'sed -s -n 1p a.txt', 'sed --quiet 1p a.txt', 'sed --debug -n 1p a.txt', 'sed 1d a.txt',
    'sed -n /x/p a.txt', 'sed -n "$p" a.txt', 'sed y/a/b/ a.txt', 'sed = a.txt', 'sed -n l a.txt',
    'xargs', 'xargs echo', 'xargs -n1 echo', 'xargs -I{} echo {}', 'xargs -Ix echo x', 'xargs -i echo {}',
    'xargs -P2 echo', 'xargs -a a.txt echo', 'xargs --arg-file=a.txt echo', 'xargs -E EOF echo', 'xargs -eEOF echo',
    'xargs -d, echo', 'xargs -d , echo', 'xargs -0 grep x', 'xargs grep -l x', 'xargs head -1', 'xargs tail -1',
    'xargs wc -l', 'xargs printf %s', 'xargs cat', 'xargs ls', 'xargs sort', 'xargs -- echo', 'xargs -- cat',
    'xargs --null echo', 'xargs -t echo', 'xargs -r echo', 'xargs -x echo', 'xargs -s 100 echo', 'xargs -L1 echo',
    'xargs -l echo', 'xargs -p echo', 'xargs --interactive echo', 'xargs -o echo', 'xargs --open-tty echo',
    'xargs sh -c mark', 'xargs grep -Omark x', 'xargs grep --pre=mark x', 'xargs mark', 'xargs git log',
    'find . -name a.txt', 'find . -delete', 'find . -exec mark {} \\;', 'find . -execdir mark {} +',
    'find . -ok mark {} \\;', 'find . -fprint out.txt', 'find . -fls out.txt', 'find . -fprintf out.txt %p',
    'find . -files0-from a.txt', 'find -L . -name a.txt', 'find . -newer a.txt', 'find /tmp -maxdepth 1',
    'find / -maxdepth 0', 'find . -printf %p', 'find . -print0', 'find . -type f -name "*.txt"',
    'rg x', 'rg --pre=mark x', 'rg --pre mark x', 'rg --pre-glob "*" x', 'rg -z x', 'rg --search-zip x',
    'rg --hostname-bin=mark x', 'rg -x x', 'rg -r y x', 'rg --replace=y x', 'rg --files', 'rg -l x /etc',
    'grep -r x /etc', 'grep -r x .', 'grep -R x', 'grep x /etc/hostname', 'grep -f /etc/hostname a.txt',
    'grep --file=/etc/hostname a.txt', 'grep -A1 x a.txt', 'grep -A 1 x a.txt', 'grep -A1x x a.txt',
    'grep -C2 x a.txt', 'grep -m1 x a.txt', 'grep -e x -e y a.txt', 'grep -ex a.txt', 'grep -Ex a.txt',
    'grep --color=always x a.txt', 'grep --include=*.txt -r x .', 'grep -P x a.txt', 'grep -z x a.txt',
    'tree -o out.txt', 'tree -oout.txt', 'tree --output=out.txt', 'tree -R', 'tree -L 1', 'tree -L1', 'tree --fromfile a.txt',
    'fd -x mark', 'fd --exec mark', 'fd -X mark', 'fd --exec-batch mark', 'fd -e txt', 'fd x /etc',
    'file -C', 'file --compile', 'file -m a.txt a.txt', 'file -f a.txt', 'file a.txt', 'file -z a.txt',
    'date', 'date +%s', 'date -s 2020-01-01', 'date --set=2020-01-01', 'date -d yesterday', 'date -u',
    'date -f a.txt', 'date -r a.txt', 'date --reference=a.txt', 'date -Iseconds', 'date -I', 'date --iso-8601=s',
    'hostname', 'hostname -f', 'hostname x', 'hostname -F a.txt', 'hostname --file=a.txt', 'hostname -b x',
    'printf "%s" x', 'printf -v X x', 'printf "%n" x', 'printf "\\x41"', 'printf "%d" 5', 'printf "%s %s" a b',
    'printf "%b" "\\x41"', 'printf -- "%s" x', 'printf "%q" x', 'printf "%*d" 5 1',
    'echo -e "\\x41"', 'echo -n x', 'echo x > out.txt', 'echo $(mark)', 'echo `mark`',
    'uniq a.txt out.txt', 'uniq a.txt', 'uniq -c a.txt', 'tee out.txt', 'tee -a out.txt', 'tee /dev/null',
    'jq . a.txt', 'jq -n 1', 'jq -r . a.txt', 'jq -f a.txt', 'jq --from-file a.txt', 'jq -L /tmp .',
    'jq --rawfile x a.txt -n 1', 'jq --slurpfile x a.txt -n 1', 'jq -n "input_filename"', 'jq -n "import \\"a\\" as a; 1"',
    'jq -n "include \\"a\\"; 1"', 'jq --arg x y -n 1', 'jq --args -n 1 a b', 'jq -n "$__loc__"', 'jq -n "system"',
    'awk "{print}" a.txt', 'awk "BEGIN{system(\\"mark\\")}"', 'awk -f a.txt', 'awk -v x=1 "{print}" a.txt',
    'awk "{print > \\"out.txt\\"}" a.txt', 'awk "{print | \\"mark\\"}" a.txt', 'awk -F, "{print}" a.txt',
    'ls', 'ls -la', 'ls -R', 'ls /etc', 'ls --hide=x', 'ls --hide=$(mark)', 'ls -I x', 'ls --color=always',
    'ls --quoting-style=shell', 'ls -w 10', 'ls --width=10', 'ls --format=long', 'ls --sort=size', 'ls ..',
    'ls /tmp/bv', 'ls ~', 'ls -d .*', 'ls *.txt', 'ls --time-style=+%s', 'ls --dired', 'ls -Z',
    'cat a.txt', 'cat /etc/hostname', 'cat ../a.txt', 'cat ~/.bashrc', 'cat -n a.txt', 'cat -A a.txt',
    'cat a.txt b.txt', 'cat /proc/self/cmdline', 'head -n1 a.txt', 'head -1 a.txt', 'head -c5 a.txt',
    'tail -n1 a.txt', 'tail -f /dev/null', 'tail -F a.txt', 'wc -l a.txt', 'wc --files0-from=a.txt',
    'cut -d, -f1 a.txt', 'cut -f1 /etc/hostname', 'diff a.txt b.txt', 'diff a.txt /etc/hostname',
    'diff --to-file=/etc/hostname a.txt', 'diff -r . /tmp', 'cmp a.txt b.txt', 'stat a.txt', 'stat /etc/hostname',
    'stat -c %s a.txt', 'readlink -f a.txt', 'realpath a.txt', 'realpath /etc', 'basename /a/b', 'dirname /a/b',
    'strings a.txt', 'od -c a.txt', 'hexdump -C a.txt', 'nl a.txt', 'tac a.txt', 'rev a.txt', 'fold -w 5 a.txt',
    'expand a.txt', 'fmt a.txt', 'column -t a.txt', 'paste a.txt b.txt', 'comm a.txt b.txt', 'tr a b',
    'seq 3', 'expr 1 + 1', 'sleep 0', 'true', 'false', 'type ls', 'type -a ls', 'which ls', 'which -a ls',
    'whereis ls', 'uname -a', 'id', 'id -u', 'groups', 'nproc', 'free -m', 'df -h', 'du -sh .', 'du -sh /etc',
    'locale', 'locale -a', 'uptime', 'cal', 'cal 2020', 'numfmt --to=si 1000', 'pr a.txt', 'tsort a.txt',
    'pwd', 'pwd -P', 'whoami', 'whoami x', 'arch', 'tty', 'hostid', 'logname', 'history', 'history 5',
    'history -c', 'history -w out.txt', 'alias x=y', 'cd .', 'cd ..', 'cd /tmp', 'cd', 'cd . .',
    'man ls', 'man -P mark ls', 'man --pager=mark ls', 'man -H ls', 'man -l a.txt', 'man --html=mark ls',
    'help cd', 'help -d cd', 'netstat -an', 'ss -tan', 'lsof -p 1', 'lsof -i', 'pgrep -l bash', 'ps aux',
    'ps -p 1', 'ps -o pid', 'ps -ww', 'tput cols', 'tput clear', 'tput -S', 'test -f a.txt', 'test -v X',
    '[ -f a.txt ]', '[[ -f a.txt ]]', 'base64 a.txt', 'base64 -d a.txt', 'base64 -w0 a.txt', 'base64 -o out.txt a.txt',
    'sha256sum a.txt', 'sha256sum -c a.txt', 'md5sum a.txt', 'sha1sum a.txt', 'b2sum a.txt', 'cksum a.txt',
    'docker ps', 'docker ps -a', 'docker images', 'docker ps --format "{{.ID}}"', 'docker logs x',
    'docker inspect x', 'docker inspect --format "{{.Id}}" x', 'docker run x', 'docker -H tcp://x ps',
    'gh pr list', 'gh pr view 1', 'gh issue list', 'gh repo view', 'gh auth status', 'gh api /user',
    'gh pr list --repo x/y', 'gh search repos x', 'gh run list', 'gh release list', 'gh label list',
    'node --version', 'node -v', 'python3 --version', 'python --version', 'claude --help', 'ip addr',
    'npm --version', 'cargo --version',
]


def generate():
    cases = []
    for cmd in sorted(TABLE):
        for command in table_variants(cmd, TABLE[cmd]):
            cases.append(command)
    for cmd in PLAIN + SPECIAL:
        cases.extend(plain_variants(cmd))
    for cmd in sorted(set(PLAIN + SPECIAL + [c for c in TABLE if ' ' not in c])):
        cases.extend(wrapper_variants(cmd))
    cases.extend(ENVIRONMENT + GIT_EXTRA + OTHER_EXTRA)
    seen, out = set(), []
    for command in cases:
        if command not in seen and '\n' not in command:
            seen.add(command)
            out.append(command)
    return out


# ---- the measurement ----------------------------------------------------------------------


def stream_events(message, blocks):
    yield 'message_start', {'message': message}
    for i, block in enumerate(blocks):
        if block['type'] == 'text':
            yield 'content_block_start', {'index': i, 'content_block': {'type': 'text', 'text': ''}}
            yield 'content_block_delta', {'index': i, 'delta': {'type': 'text_delta', 'text': block['text']}}
        else:
            start = dict(block, input={})
            yield 'content_block_start', {'index': i, 'content_block': start}
            yield 'content_block_delta', {'index': i, 'delta': {'type': 'input_json_delta',
                                                                'partial_json': json.dumps(block['input'])}}
        yield 'content_block_stop', {'index': i}
    stop = 'tool_use' if any(b['type'] == 'tool_use' for b in blocks) else 'end_turn'
    yield 'message_delta', {'delta': {'stop_reason': stop, 'stop_sequence': None}, 'usage': {'output_tokens': 1}}
    yield 'message_stop', {}


def serve(commands, batch, results):
    """A Messages API stand-in: turn k answers with tool calls for commands[k*batch:(k+1)*batch];
    the tool results of every turn are kept in `results` (tool_use id → (content, is_error))."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, obj):
            out = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header('content-type', 'application/json')
            self.send_header('content-length', str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def do_GET(self):
            self.reply(404, {})

        def do_HEAD(self):
            self.send_response(200)
            self.end_headers()

        def do_POST(self):
            n = int(self.headers.get('content-length') or 0)
            try:
                body = json.loads(self.rfile.read(n) if n else b'{}')
            except ValueError:
                body = {}
            if self.path.startswith('/v1/messages/count_tokens'):
                return self.reply(200, {'input_tokens': 10})
            if not self.path.startswith('/v1/messages'):
                return self.reply(404, {})
            main = any(t.get('name') == 'Bash' for t in body.get('tools') or [])
            turn = 0
            for m in body.get('messages') or []:
                if m.get('role') == 'assistant':
                    turn += 1
                if m.get('role') == 'user' and isinstance(m.get('content'), list):
                    for block in m['content']:
                        if isinstance(block, dict) and block.get('type') == 'tool_result':
                            results[block['tool_use_id']] = (block.get('content'), bool(block.get('is_error')))
            chunk = commands[turn * batch:(turn + 1) * batch] if main else []
            if chunk:
                blocks = [{'type': 'tool_use', 'id': f'toolu_{turn * batch + i:05d}', 'name': 'Bash',
                           'input': {'command': c, 'description': 'probe', 'timeout': 10000}}
                          for i, c in enumerate(chunk)]
            else:
                blocks = [{'type': 'text', 'text': 'OK'}]
            message = {'id': f'msg_{turn}', 'type': 'message', 'role': 'assistant',
                       'model': body.get('model', 'claude'), 'content': [], 'stop_reason': None,
                       'stop_sequence': None, 'usage': {'input_tokens': 1, 'output_tokens': 1}}
            if not body.get('stream'):
                stop = 'tool_use' if chunk else 'end_turn'
                return self.reply(200, dict(message, content=blocks, stop_reason=stop))
            self.send_response(200)
            self.send_header('content-type', 'text/event-stream')
            self.end_headers()
            for kind, data in stream_events(message, blocks):
                self.wfile.write(f'event: {kind}\ndata: {json.dumps({"type": kind, **data})}\n\n'.encode())
            self.wfile.flush()

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def text_of(content):
    if isinstance(content, list):
        return '\n'.join(b.get('text', '') for b in content if isinstance(b, dict))
    return content or ''


def setup_project(chunk):
    base = os.path.join(ROOT, chunk)
    shutil.rmtree(base, ignore_errors=True)
    proj, home = base + '/proj', base + '/home'
    os.makedirs(proj)
    os.makedirs(home + '/.claude')
    for name, text in (('a.txt', 'x a\ny b\n'), ('b.txt', 'x b\n')):
        with open(os.path.join(proj, name), 'w') as f:
            f.write(text)
    git = ['git', '-C', proj, '-c', 'user.name=probe', '-c', 'user.email=probe@example.invalid']
    subprocess.run(['git', 'init', '-q', proj], check=True)
    subprocess.run(git + ['add', '-A'], check=True)
    subprocess.run(git + ['commit', '-qm', 'probe'], check=True)
    # A `!` injection is checked with reads outside the working directories blocked; the Bash tool
    # is too when the settings say so, which makes the two checks the same.
    json.dump({'permissions': {'blockReadsOutsideWorkingDirectories': True}},
              open(home + '/.claude/settings.json', 'w'))
    json.dump({'projects': {proj: {'hasTrustDialogAccepted': True}}}, open(home + '/.claude.json', 'w'))
    return proj, home


def worker(chunk, commands, batch):
    """Runs inside its own network namespace where possible: the API stand-in and one claude run."""
    proj, home = setup_project(chunk)
    results = {}
    server = serve(commands, batch, results)
    env = dict(os.environ, HOME=home, PATH=BIN + ':' + os.environ['PATH'],
               ANTHROPIC_BASE_URL=f'http://127.0.0.1:{server.server_address[1]}',
               ANTHROPIC_API_KEY='sk-ant-oracle-dummy', DISABLE_AUTOUPDATER='1', DISABLE_TELEMETRY='1',
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC='1', BASH_DEFAULT_TIMEOUT_MS='10000')
    p = subprocess.run(['timeout', '1800', os.environ['CLAUDE_BIN'], '-p', 'probe', '--max-turns', '1000'],
                       cwd=proj, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    server.shutdown()
    out = []
    for i, command in enumerate(commands):
        got = results.get(f'toolu_{i:05d}')
        if got is None:
            decision, message = 'missing', ''
        else:
            message = text_of(got[0])
            decision = 'ask' if got[1] and not ran(message) else 'allow'
        out.append({'id': f'{chunk}-{i:04d}', 'chunk': chunk, 'command': command, 'decision': decision,
                    'message': message[:120]})
    missing = sum(1 for r in out if r['decision'] == 'missing')
    if missing:
        sys.stderr.write(f'{chunk}: {missing} results missing; claude said: {p.stdout[-300:]} {p.stderr[-300:]}\n')
    return out


def setup_bin():
    os.makedirs(BIN, exist_ok=True)
    p = os.path.join(BIN, 'mark')
    with open(p, 'w') as f:
        f.write('#!/bin/sh\nfor a in "$@"; do : > "./mark-$(printf %s "$a" | tr -c "A-Za-z0-9_.-" _)"; done\n'
                ': > ./mark-ran\necho "MARK:$*"\n')
    os.chmod(p, 0o755)


def run_chunk(args):
    chunk, commands, batch = args
    spec = os.path.join(ROOT, chunk + '.in.json')
    with open(spec, 'w') as f:
        json.dump({'chunk': chunk, 'commands': commands, 'batch': batch}, f)
    prefix = ['unshare', '-n', '-u'] if subprocess.run(['unshare', '-n', '-u', 'true']).returncode == 0 else []
    subprocess.run(prefix + [sys.executable, __file__, '--worker', spec], check=True)
    return json.load(open(spec.replace('.in.json', '.out.json')))


def check_against_injections(jobs, batch):
    """The no-rule cases bash-probe.py measured as `!` injections, measured here as tool calls:
    the decisions must be the same, or this way of measuring does not stand for injections."""
    probe = json.load(open(os.path.join(REPO, 'grammar', 'tests', 'data', 'bash-2.1.332.json')))
    keys = ('allow', 'ask', 'deny', 'project_allow', 'allowed_tools', 'mode', 'args', 'env')
    cases = [c for c in probe if not any(c.get(k) for k in keys) and '\n' not in c['command']]
    got = run_chunk(('check', [c['command'] for c in cases], batch))
    differ = [(c, g) for c, g in zip(cases, got) if c['decision'] != g['decision']]
    for c, g in differ:
        print(f"{c['id']}: injection {c['decision']}, tool call {g['decision']}: {c['command']!r}")
    print(f'{len(cases) - len(differ)} of {len(cases)} no-rule injection cases decided the same as tool calls')
    sys.exit(1 if differ else 0)


def main():
    args = sys.argv[1:]
    if args[:1] == ['--worker']:
        spec = json.load(open(args[1]))
        if subprocess.run(['ip', 'link', 'set', 'lo', 'up'], capture_output=True).returncode != 0:
            pass
        out = worker(spec['chunk'], spec['commands'], spec['batch'])
        json.dump(out, open(args[1].replace('.in.json', '.out.json'), 'w'))
        return
    jobs, batch, size, out_path, limit, check = 3, 50, 400, DATA, None, False
    while args:
        a = args.pop(0)
        if a == '--list':
            for c in generate():
                print(c)
            return
        if a == '--jobs':
            jobs = int(args.pop(0))
        elif a == '--batch':
            batch = int(args.pop(0))
        elif a == '--chunk':
            size = int(args.pop(0))
        elif a == '--out':
            out_path = args.pop(0)
        elif a == '--limit':
            limit = int(args.pop(0))
        elif a == '--check':
            check = True
    if not os.environ.get('CLAUDE_BIN'):
        sys.exit('bash-variants.py: set CLAUDE_BIN to the claude binary (Claude Code for the committed data)')
    setup_bin()
    if check:
        return check_against_injections(jobs, batch)
    commands = generate()[:limit]
    chunks = [(f'c{n:02d}', commands[i:i + size], batch) for n, i in enumerate(range(0, len(commands), size))]
    with cf.ThreadPoolExecutor(jobs) as ex:
        res = [r for part in ex.map(run_chunk, chunks) for r in part]
    counts = {}
    for r in res:
        counts[r['decision']] = counts.get(r['decision'], 0) + 1
    print(len(res), 'cases', counts)
    with open(out_path, 'w') as f:
        json.dump(res, f, indent=0, ensure_ascii=False)
        f.write('\n')


if __name__ == '__main__':
    main()
