#!/usr/bin/env python3
"""bash-probe.py: measures how Claude Code decides `!` shell injections in a skill body against
Bash permission rules, offline; it wrote `grammar/tests/data/bash-2.1.332.json` (Claude Code).

    CLAUDE_BIN=/path/to/claude tests/oracle/bash-probe.py [--only ID,ID] [--jobs N] [--out FILE]

For every case it builds a throwaway project (a git repo holding .claude/skills/t/SKILL.md with one
injection) and a throwaway HOME (rules in ~/.claude/settings.json, folder marked trusted), runs
`claude -p /t` through `claude-offline` (from ORACLE_DIR, default `../shared/oracle` beside the
repository; it answers the API locally, so nothing leaves the machine), and records:
  ran      the command ran (a new file appeared in the project, or the marker MARK:… is in the text)
  message  what Claude Code put in place of the output (the failure line on stdout when the
           permission check failed, which aborts the turn before any API request), or the output
  decision allow | ask | deny (deny = the failure message says the command "has been denied")

`--only` re-measures some cases and merges them into the existing file. The scratch folders are
`/tmp/bp/run/<id>/{proj,home}`; the test (`grammar/tests/grammar/bash_cases.rs`) models exactly those
paths, so keep them. The PATH gets /tmp/bp/bin, holding `mark X` (writes ./mark-X and prints
MARK:X; not a read-only command, so only a rule can allow it). A case's `links` (project path →
target) are made in the project first, and /tmp/bp/outside/secret.txt (MARK:secret) with them;
Claude Code runs from /tmp/bp, so `cd -` lands there.
"""
import concurrent.futures as cf, json, os, re, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ORACLE = os.environ.get('ORACLE_DIR', os.path.join(os.path.dirname(REPO), 'shared', 'oracle'))
DATA = os.path.join(REPO, 'grammar', 'tests', 'data', 'bash-2.1.332.json')
ROOT = '/tmp/bp/run'
BIN = '/tmp/bp/bin'
OUTSIDE = '/tmp/bp/outside'  # what the `links` of a case point to: holds secret.txt

# (id, command, allow, ask, deny, allowed_tools, form)   form: "inline" (!`cmd`) or "block" (```!)
G = 'Bash(git status:*)'
C = []


def case(cid, command, allow=(), ask=(), deny=(), allowed_tools=(), form=None, mode=None,
         env=None, args=(), note=None, project_allow=(), links=None):
    if form is None:
        form = 'block' if '`' in command or '\n' in command else 'inline'
    C.append(dict(id=cid, command=command, allow=list(allow), ask=list(ask), deny=list(deny),
                  project_allow=list(project_allow), allowed_tools=list(allowed_tools), form=form,
                  mode=mode, env=env or {}, args=list(args), note=note, links=dict(links or {})))


# --- baseline: no rules, read-only auto-allow ---------------------------------------------
case('ro-echo', 'echo hi')
case('ro-git-status', 'git status --short')
case('ro-ls', 'ls')
case('ro-cat', 'cat SKILLFILE')
case('ro-pwd', 'pwd')
case('ro-git-log', 'git log --oneline -1')
case('ro-grep', 'grep -c x SKILLFILE')
case('ro-wc', 'wc -l SKILLFILE')
case('ro-find', 'find . -maxdepth 1 -name x')
case('ro-find-delete', 'find . -maxdepth 1 -name nothing -delete')
case('ro-sort-o', 'sort -o sorted.txt SKILLFILE')
case('nr-mark', 'mark a')
case('nr-touch', 'touch touched')
case('nr-mkdir', 'mkdir made')
case('nr-rm', 'rm -f nothing')
case('nr-git-add', 'git add -A')
case('nr-printf', 'printf "%s" MARK:printf')
# --- rule forms -------------------------------------------------------------------------
case('rule-colon', 'mark a', allow=['Bash(mark:*)'])
case('rule-space-star', 'mark a', allow=['Bash(mark *)'])
case('rule-exact', 'mark a', allow=['Bash(mark a)'])
case('rule-exact-miss', 'mark a b', allow=['Bash(mark a)'])
case('rule-exact-noargs', 'mark', allow=['Bash(mark)'])
case('rule-colon-noargs', 'mark', allow=['Bash(mark:*)'])
case('rule-space-star-noargs', 'mark', allow=['Bash(mark *)'])
case('rule-star', 'mark a', allow=['Bash(*)'])
case('rule-bare', 'mark a', allow=['Bash'])
case('rule-wild-mid', 'mark a b', allow=['Bash(mark * b)'])
case('rule-wild-nospace', 'markx a', allow=['Bash(mark*)'])
case('rule-prefix-word', 'markx a', allow=['Bash(mark:*)'])
case('rule-two-word', 'mark a b', allow=['Bash(mark a:*)'])
case('rule-two-word-miss', 'mark b a', allow=['Bash(mark a:*)'])
case('rule-path', '/tmp/bp/bin/mark a', allow=['Bash(mark:*)'])
case('rule-ask', 'mark a', allow=['Bash(mark:*)'], ask=['Bash(mark:*)'])
case('rule-deny', 'mark a', allow=['Bash(mark:*)'], deny=['Bash(mark:*)'])
case('rule-deny-exact', 'mark a', allow=['Bash(*)'], deny=['Bash(mark a)'])
case('rule-deny-ro', 'echo hi', deny=['Bash(echo:*)'])
case('rule-ask-ro', 'echo hi', ask=['Bash(echo:*)'])
case('rule-deny-bare', 'echo hi', deny=['Bash'])
case('rule-ask-bare', 'echo hi', ask=['Bash'])
case('rule-deny-git-status', 'git status', deny=['Bash(git status)'])
case('rule-git-status-exact', 'git status --short', allow=['Bash(git status)'], deny=[])
case('rule-touch', 'touch touched', allow=['Bash(touch:*)'])
case('rule-touch-abs-out', 'touch /tmp/bp/outside-touched', allow=['Bash(touch:*)'])
# --- compound commands ----------------------------------------------------------------------
case('cmp-and-allowed', 'mark a && mark b', allow=['Bash(mark:*)'])
case('cmp-and-ro', 'echo x && mark b', allow=['Bash(mark:*)'])
case('cmp-and-miss', 'mark a && touch t', allow=['Bash(mark:*)'])
case('cmp-semi-miss', 'mark a; touch t', allow=['Bash(mark:*)'])
case('cmp-or-miss', 'mark a || touch t', allow=['Bash(mark:*)'])
case('cmp-pipe-miss', 'mark a | tee teed', allow=['Bash(mark:*)'])
case('cmp-pipe-ro', 'mark a | wc -l', allow=['Bash(mark:*)'])
case('cmp-pipe-ro-git', 'git status | head -1', allow=[G])
case('cmp-bg', 'mark a & mark b', allow=['Bash(mark:*)'])
case('cmp-bg-miss', 'mark a & touch t', allow=['Bash(mark:*)'])
case('cmp-newline', 'mark a\nmark b', allow=['Bash(mark:*)'])
case('cmp-newline-miss', 'mark a\ntouch t', allow=['Bash(mark:*)'])
case('cmp-deny-part', 'mark a && mark b', allow=['Bash(mark:*)'], deny=['Bash(mark b)'])
case('cmp-deny-part-ro', 'echo hi && mark a', allow=['Bash(mark:*)'], deny=['Bash(echo:*)'])
case('cmp-star-whole', 'mark a && touch t', allow=['Bash(mark a && touch t)'])
case('cmp-bare-star', 'mark a && touch t', allow=['Bash(*)'])
case('cmp-git-status-and', 'git status && mark a', allow=[G])
case('cmp-git-echo-ro', 'git status && echo hi', allow=[G])
# --- substitutions --------------------------------------------------------------------------
case('sub-dollar-git', 'git status $(touch subbed)', allow=[G])
case('sub-dollar-git-none', 'git status $(touch subbed)')
case('sub-backtick-git', 'git status `touch subbed`', allow=[G])
case('sub-dollar-echo', 'echo $(mark sub)', allow=['Bash(echo:*)'])
case('sub-dollar-echo-both', 'echo $(mark sub)', allow=['Bash(echo:*)', 'Bash(mark:*)'])
case('sub-dollar-echo-ro', 'echo $(date)')
case('sub-dollar-echo-ro-pwd', 'echo $(pwd)')
case('sub-backtick-echo-ro', 'echo `pwd`')
case('sub-dollar-mark-ro', 'mark $(pwd)', allow=['Bash(mark:*)'])
case('sub-dollar-mark-mark', 'mark $(mark inner)', allow=['Bash(mark:*)'])
case('sub-star', 'mark $(touch subbed)', allow=['Bash(*)'])
case('sub-quoted-dollar', 'mark "$(pwd)"', allow=['Bash(mark:*)'])
case('sub-single-quoted', "mark '$(touch subbed)'", allow=['Bash(mark:*)'])
case('sub-escaped', 'mark \\$\\(touch subbed\\)', allow=['Bash(mark:*)'])
case('sub-assign', 'X=$(mark sub)', allow=['Bash(mark:*)'])
case('procsub-in', 'mark <(pwd)', allow=['Bash(mark:*)'])
case('procsub-out', 'mark a >(cat)', allow=['Bash(mark:*)'])
case('procsub-diff', 'diff <(echo a) <(echo b)')
case('arith', 'mark $((1+2))', allow=['Bash(mark:*)'])
case('arith-echo', 'echo $((1+2))')
case('param-var', 'mark $HOME', allow=['Bash(mark:*)'])
case('param-brace', 'mark ${HOME}', allow=['Bash(mark:*)'])
case('param-default', 'mark ${X:-a}', allow=['Bash(mark:*)'])
case('param-echo', 'echo $HOME')
case('param-echo-brace', 'echo ${HOME}')
case('param-echo-assign', 'echo ${X:=a}')
case('subshell', '(mark a)', allow=['Bash(mark:*)'])
case('subshell-ro', '(echo hi)')
case('brace-group', '{ mark a; }', allow=['Bash(mark:*)'])
case('brace-group-ro', '{ echo hi; }')
case('brace-expansion', 'mark {a,b}', allow=['Bash(mark:*)'])
# --- redirections ---------------------------------------------------------------------------
case('redir-out-git', 'git status > redirected', allow=[G])
case('redir-out-echo', 'echo hi > redirected', allow=['Bash(echo:*)'])
case('redir-out-none', 'echo hi > redirected')
case('redir-out-mark', 'mark a > redirected', allow=['Bash(mark:*)'])
case('redir-append-mark', 'mark a >> redirected', allow=['Bash(mark:*)'])
case('redir-devnull', 'mark a > /dev/null', allow=['Bash(mark:*)'])
case('redir-devnull-ro', 'echo hi > /dev/null')
case('redir-2devnull', 'mark a 2>/dev/null', allow=['Bash(mark:*)'])
case('redir-2to1', 'mark a 2>&1', allow=['Bash(mark:*)'])
case('redir-2to1-ro', 'git status 2>&1')
case('redir-amp-gt', 'mark a &> redirected', allow=['Bash(mark:*)'])
case('redir-amp-gt-null', 'mark a &>/dev/null', allow=['Bash(mark:*)'])
case('redir-in', 'mark a < SKILLFILE', allow=['Bash(mark:*)'])
case('redir-in-ro', 'wc -l < SKILLFILE')
case('redir-out-abs', 'echo hi > /tmp/bp/outside-redirect')
case('redir-out-abs-allowed', 'echo hi > /tmp/bp/outside-redirect', allow=['Bash(echo:*)'])
case('redir-out-star', 'echo hi > redirected', allow=['Bash(*)'])
case('heredoc', 'cat <<EOF\nMARK:heredoc\nEOF')
case('heredoc-mark', 'mark a <<EOF\nhello\nEOF', allow=['Bash(mark:*)'])
case('heredoc-sub', 'cat <<EOF\n$(touch subbed)\nEOF')
case('heredoc-quoted-sub', "cat <<'EOF'\n$(touch subbed)\nEOF")
case('herestring', 'cat <<< MARK:herestring')
case('herestring-mark', 'mark a <<< hi', allow=['Bash(mark:*)'])
# --- assignments, env, wrappers ------------------------------------------------------------
case('assign-prefix', 'FOO=1 mark a', allow=['Bash(mark:*)'])
case('assign-prefix-ro', 'FOO=1 echo hi')
case('assign-lang', 'LANG=C mark a', allow=['Bash(mark:*)'])
case('assign-only', 'FOO=1')
case('env-mark', 'env mark a', allow=['Bash(mark:*)'])
case('env-assign-mark', 'env FOO=1 mark a', allow=['Bash(mark:*)'])
case('timeout-mark', 'timeout 5 mark a', allow=['Bash(mark:*)'])
case('nohup-mark', 'nohup mark a', allow=['Bash(mark:*)'])
case('sudo-mark', 'sudo mark a', allow=['Bash(mark:*)'])
case('bash-c', 'bash -c "mark a"', allow=['Bash(mark:*)'])
case('eval', 'eval mark a', allow=['Bash(mark:*)'])
case('xargs-mark', 'echo a | xargs mark', allow=['Bash(mark:*)'])
case('env-rule', 'env mark a', allow=['Bash(env:*)'])
# --- quoting, escapes, continuations, comments, globs ---------------------------------------
case('quote-double', 'mark "a b"', allow=['Bash(mark:*)'])
case('quote-single', "mark 'a b'", allow=['Bash(mark:*)'])
case('quote-cmdname', '"mark" a', allow=['Bash(mark:*)'])
case('escape-space', 'mark a\\ b', allow=['Bash(mark:*)'])
case('escape-semicolon', 'mark a\\;b', allow=['Bash(mark:*)'])
case('quoted-semicolon', 'mark "a;touch t"', allow=['Bash(mark:*)'])
case('continuation', 'mark \\\na', allow=['Bash(mark:*)'])
case('comment', 'mark a # touch t', allow=['Bash(mark:*)'])
case('comment-exact', 'mark a # c', allow=['Bash(mark a)'])
case('glob', 'mark *', allow=['Bash(mark:*)'])
case('glob-q', 'mark ?', allow=['Bash(mark:*)'])
case('glob-ls', 'ls *')
case('tilde', 'mark ~', allow=['Bash(mark:*)'])
case('extra-space', 'mark   a', allow=['Bash(mark a)'])
case('leading-space-exact', ' mark a', allow=['Bash(mark a)'])
# --- control flow, unparsable --------------------------------------------------------------
case('if', 'if true; then mark a; fi', allow=['Bash(mark:*)'])
case('for', 'for i in a b; do mark $i; done', allow=['Bash(mark:*)'])
case('while', 'while false; do mark a; done', allow=['Bash(mark:*)'])
case('func-def', 'f() { mark a; }; f', allow=['Bash(mark:*)'])
case('unclosed-quote', 'mark "a', allow=['Bash(mark:*)'])
case('unclosed-paren', 'mark $(pwd', allow=['Bash(mark:*)'])
case('unparsable-star', 'mark "a', allow=['Bash(*)'])
case('unparsable-bare', 'mark "a', allow=['Bash'])
case('negation', '! mark a', allow=['Bash(mark:*)'])
case('cd-mark', 'cd . && mark a', allow=['Bash(mark:*)'])
case('cd-git', 'cd . && git status', allow=[G])
# a cd anywhere in the line and git anywhere in it ask, with or without a rule for git (each
# pipeline segment is decided on its own, the cd of one still moves the git of another)
case('cd-git-pipe', 'cd .claude && true | git status')
case('cd-git-rule', 'cd .claude && git status', allow=[G])
case('cd-git-after', 'git status && cd .claude', allow=[G])
case('cd-git-dotdot', 'cd .claude/.. && git status', allow=[G])
case('cd-git-pushd', 'pushd .claude && git status', allow=[G, 'Bash(pushd:*)'])
case('cd-git-quoted', 'echo "$(cd .claude && git status)"')
# a line that writes a file git reads as its repository's own (HEAD, objects/, refs/, hooks/) and runs git
case('git-structure-touch', 'touch HEAD && git status', allow=[G, 'Bash(touch:*)'])
case('git-structure-mkdir', 'mkdir -p refs objects && git status', allow=[G, 'Bash(mkdir:*)'])
# --- skill allowed-tools ----------------------------------------------------------------------
case('at-colon', 'mark a', allowed_tools=['Bash(mark:*)'])
case('at-git-sub', 'git status $(touch subbed)', allowed_tools=[G])
case('at-git-redir', 'git status > redirected', allowed_tools=[G])
case('at-bare', 'mark a', allowed_tools=['Bash'])
case('at-miss', 'mark a', allowed_tools=['Bash(other:*)'])
case('at-deny-wins', 'mark a', deny=['Bash(mark:*)'], allowed_tools=['Bash(mark:*)'])
case('at-ask-wins', 'mark a', ask=['Bash(mark:*)'], allowed_tools=['Bash(mark:*)'])
case('at-compound', 'mark a && touch t', allowed_tools=['Bash(mark:*)', 'Bash(touch:*)'])

# --- second batch: deny robustness, nested rules, more syntax, modes --------------------------
M = 'Bash(mark:*)'
case('deny-in-sub', 'git status $(touch subbed)', allow=[G], deny=['Bash(touch:*)'])
case('deny-outer-sub', 'mark $(pwd)', deny=[M])
case('deny-timeout', 'timeout 5 mark a', deny=[M])
case('deny-nohup', 'nohup mark a', deny=[M])
case('deny-assign', 'FOO=1 mark a', deny=[M])
case('deny-env', 'env mark a', deny=[M])
case('deny-bash-c', 'bash -c "mark a"', deny=[M])
case('deny-sudo', 'sudo mark a', deny=[M])
case('deny-path', '/tmp/bp/bin/mark a', deny=[M])
case('deny-quoted-name', '"mark" a', deny=[M])
case('deny-backslash-name', '\\mark a', deny=[M])
case('deny-xargs', 'echo a | xargs mark', deny=[M])
case('deny-pipe-tail', 'echo a | mark b', deny=[M])
case('deny-semi', 'echo a; mark b', deny=[M])
case('deny-subshell', '(mark a)', deny=[M])
case('deny-brace-group', '{ mark a; }', deny=[M])
case('deny-if', 'if true; then mark a; fi', deny=[M])
case('deny-redir', 'mark a > /dev/null', deny=[M])
case('deny-exact-with-args', 'mark a b', deny=['Bash(mark a)'])
case('deny-exact-space-star', 'mark a b', deny=['Bash(mark *)'])
case('deny-star', 'echo hi', deny=['Bash(*)'])
case('deny-heredoc', 'mark a <<EOF\nx\nEOF', deny=[M])
case('deny-procsub', 'mark <(pwd)', deny=[M])
case('deny-for', 'for i in a; do mark $i; done', deny=[M])
case('deny-eval', 'eval mark a', deny=[M])
case('ask-part', 'echo hi && mark a', allow=[M], ask=['Bash(echo:*)'])
case('ask-in-sub', 'echo $(mark a)', ask=[M])
case('ask-vs-deny', 'mark a && touch t', ask=[M], deny=['Bash(touch:*)'])
case('two-parts-need', 'git status && mark a && mark b')
case('two-parts-need-pipe', 'git status | mark a | mark b')
case('sub-exact-rule', 'echo $(date)', allow=['Bash(echo $(date))'])
case('sub-both-ro-rules', 'echo $(date)', allow=['Bash(echo:*)', 'Bash(date:*)'])
case('sub-bare-bash', 'mark $(touch subbed)', allow=['Bash'])
case('procsub-star', 'mark <(pwd)', allow=['Bash(*)'])
case('sub-dq-string', 'echo "a $(pwd) b"')
case('sub-dq-var', 'echo "$HOME"')
case('sub-dq-brace', 'echo "${HOME}"')
case('ansi-c', "mark $'a'", allow=[M])
case('positional', 'mark $1', allow=[M])
case('special-var', 'mark $?', allow=[M])
case('redir-exact-rule', 'echo hi > redirected', allow=['Bash(echo hi > redirected)'])
case('redir-2file', 'mark a 2> errfile', allow=[M])
case('redir-stderr', 'mark a >&2', allow=[M])
case('redir-clobber', 'mark a >| redirected', allow=[M])
case('redir-in-outside', 'mark a < /etc/hostname', allow=[M])
case('read-outside', 'cat /etc/hostname')
case('ls-outside', 'ls /tmp/bp/bin')
case('herestring-sub', 'cat <<< $(pwd)')
case('heredoc-dq', 'cat <<"EOF"\nMARK:hd\nEOF')
case('heredoc-dash-quoted', "cat <<-'EOF'\n\tMARK:hd\n\tEOF")
case('trailing-semi', 'mark a;', allow=[M])
case('mark-or-true', 'mark a || true', allow=[M])
case('pipe-both', 'mark a | mark b', allow=[M])
case('pipe-amp', 'mark a |& wc -l', allow=[M])
case('pipe-sh', 'echo echo hi | sh')
case('sh-c-ro', "sh -c 'echo hi'")
case('command-mark', 'command mark a', allow=[M])
case('exec-mark', 'exec mark a', allow=[M])
case('nice-mark', 'nice mark a', allow=[M])
case('time-mark', 'time mark a', allow=[M])
case('backslash-name', '\\mark a', allow=[M])
case('hash-in-word', 'mark a#b', allow=[M])
case('dbl-bracket', '[[ -f x ]] || mark a', allow=[M])
case('test-bracket', '[ -f x ] || mark a', allow=[M])
# bash evaluates an array subscript's substitution in a test's -v operand and in [['s arithmetic
case('test-bracket-subscript', "[ -v 'x[$(mark a)]' ]")
case('dbl-bracket-subscript', "[[ -v 'x[$(mark a)]' ]]")
case('dbl-bracket-arith-subscript', "[[ 'x[$(mark a)]' -eq 1 ]]")
case('test-bracket-v-name', '[ -v x ] || echo unset')
case('arith-cmd', '(( 1 + 1 )) && mark a', allow=[M])
case('cd-outside', 'cd /tmp && mark a', allow=[M])
case('cd-outside-ro', 'cd /tmp && ls')
case('git-C', 'git -C . status', allow=[G])
case('assign-exact-rule', 'FOO=1 mark a', allow=['Bash(FOO=1 mark:*)'])
case('assign-safe-ro', 'LANG=C echo hi')
case('assign-tz', 'TZ=UTC mark a', allow=[M])
case('assign-path', 'PATH=/tmp mark a', allow=[M])
case('rm-dot-star', 'rm -rf .', allow=['Bash(*)'])
case('rm-outside-star', 'rm -rf /tmp/bp/nonexistent-dir', allow=['Bash(*)'])
case('rm-outside-rule', 'rm -rf /tmp/bp/nonexistent-dir', allow=['Bash(rm:*)'])
case('at-exact', 'mark a', allowed_tools=['Bash(mark a)'])
case('at-star-sub', 'mark $(touch subbed)', allowed_tools=['Bash(*)'])
case('at-plus-user', 'mark a && touch t', allow=['Bash(touch:*)'], allowed_tools=[M])
case('block-form', 'mark a', allow=[M], form='block')
case('block-form-2lines-ro', 'echo a\necho b')
case('mode-accept-touch', 'touch touched', mode='acceptEdits')
case('mode-accept-redir', 'echo hi > redirected', mode='acceptEdits')
case('mode-accept-sub', 'git status $(touch subbed)', allow=[G], mode='acceptEdits')
case('mode-accept-mark', 'mark a', mode='acceptEdits')
SB = {'IS_SANDBOX': '1'}  # lets bypassPermissions start as root
case('mode-bypass-sub', 'git status $(touch subbed)', mode='bypassPermissions', env=SB)
case('mode-bypass-deny', 'mark a', deny=[M], mode='bypassPermissions', env=SB)
case('mode-bypass-rm-dot', 'rm -rf .', mode='bypassPermissions', env=SB)
case('mode-bypass-ask', 'mark a', ask=[M], mode='bypassPermissions', env=SB)
case('mode-dontask', 'mark a', mode='dontAsk')
case('mode-dontask-sub', 'git status $(touch subbed)', allow=[G], mode='dontAsk')
case('mode-plan', 'mark a', allow=[M], mode='plan')
case('mode-plan-ro', 'echo hi', mode='plan')

# --- third batch ----------------------------------------------------------------------------
case('unclosed-paren-star', 'mark $(pwd', allow=['Bash(*)'])
case('rm-dot-bare', 'rm -rf .', allow=['Bash'])
case('redir-edit-rule', 'echo hi > redirected', allow=['Edit'])
case('redir-write-rule', 'echo hi > redirected', allow=['Write'])
case('redir-edit-path-rule', 'echo hi > redirected', allow=['Edit(redirected)'])
case('touch-edit-rule', 'touch touched', allow=['Edit'])
case('wild-mid-extra', 'mark a b c', allow=['Bash(mark * b)'])
case('wild-leading', 'mark a', allow=['Bash(* a)'])
case('wild-trailing-noargs', 'mark a', allow=['Bash(mark a *)'])
case('rule-case', 'mark a', allow=['Bash(MARK:*)'])
case('prefix-double-space', 'mark  a', allow=['Bash(mark a:*)'])
case('comment-line', '# note\nmark a', allow=[M])
case('comment-sub', 'mark a # $(touch subbed)', allow=[M])
case('bg-trailing', 'mark a &', allow=[M])
case('dq-sub-mark-none', 'echo "x $(mark a)"')
case('dq-sub-mark-rule', 'echo "x $(mark a)"', allow=[M])
case('dq-sub-git-touch', 'git status "x$(touch subbed)"', allow=[G])
case('dq-sub-git-touch-both', 'git status "x$(touch subbed)"', allow=[G, 'Bash(touch:*)'])
case('dq-sub-only', 'git status "$(pwd)"', allow=[G])
case('dq-backtick', 'echo "a `pwd` b"')
case('sub-as-name', '$(echo mark) a', allow=[M])
case('sq-backtick', "mark 'a`b'", allow=[M])
case('arith-var', 'echo $((1+X))')
case('arith-legacy', 'echo $[1+2]')
case('herestring-var', 'cat <<< $HOME')
case('cli-allowed-tools', 'mark a', args=['--allowedTools', M])
case('cli-allowed-tools-sub', 'git status $(touch subbed)', args=['--allowedTools', G])
case('cli-disallowed-tools', 'echo hi', args=['--disallowedTools', 'Bash(echo:*)'])
case('project-rule-trusted', 'mark a', project_allow=['Bash(mark:*)'],
     note='allow Bash(mark:*) in the project .claude/settings.json (folder trusted), not user scope')
case('assign-then-use', 'X=a; mark $X', allow=[M])
case('export-then', 'export X=a && mark a', allow=[M])
case('deny-ro-in-pipe', 'mark a | grep x', allow=[M], deny=['Bash(grep:*)'])
case('ask-ro-in-pipe', 'mark a | grep x', allow=[M], ask=['Bash(grep:*)'])
case('cd-then-git-touch', 'cd . && touch t', allow=['Bash(touch:*)'])
case('multi-cd', 'cd . && cd . && mark a', allow=[M])
case('git-status-exact-rule-args', 'git status $(pwd)', allow=['Bash(git status $(pwd))'])
case('sub-exact-prefix-rule', 'echo $(date) x', allow=['Bash(echo $(date):*)'])
case('sub-wild-rule', 'echo $(date)', allow=['Bash(echo *)'])

# --- fourth batch: substitutions inside double quotes are split out --------------------------
case('dq2-git-mark', 'git status "ab $(mark a)"', allow=[G])
case('dq2-git-mark-both', 'git status "ab $(mark a)"', allow=[G, M])
case('dq2-echo-mark-both', 'echo "ab $(mark a)"', allow=['Bash(echo:*)', M])
case('dq2-git-touch-both', 'git status "ab $(touch subbed)"', allow=[G, 'Bash(touch:*)'])
case('exact-redir-null', 'mark a > /dev/null', allow=['Bash(mark a)'])
case('heredoc-star', 'cat <<EOF\nMARK:hd\nEOF', allow=['Bash(*)'])
case('brace-group-star', '{ mark a; }', allow=['Bash(*)'])
case('subshell-star', '(mark a)', allow=['Bash(*)'])
case('subshell-exact', '(mark a)', allow=['Bash((mark a))'])

# --- the cases from the brief, verbatim shapes ------------------------------------------------
case('brief-sub', 'git status $(touch /tmp/bp/outside-touched)', allow=[G])
case('brief-backtick', 'git status `touch /tmp/bp/outside-touched`', allow=[G])
case('brief-backtick-inline', 'git status `touch /tmp/bp/outside-touched`', allow=[G], form='inline',
     note='inline !`…` stops at the first backtick: only "git status" is extracted and run; '
          'the rest of the line stays as literal text')
case('brief-redirect', 'git status > /tmp/bp/outside-redirect', allow=[G])
case('brief-redirect-allowed-tools', 'git status > /tmp/bp/outside-redirect', allowed_tools=[G])

# --- which asks the whole-tool allow (Bash / Bash(*)) overrides -----------------------------
case('bg-star', 'mark a &', allow=['Bash(*)'])
case('eval-star', 'eval mark a', allow=['Bash(*)'])
case('find-delete-star', 'find . -maxdepth 1 -name nothing -delete', allow=['Bash(*)'])
case('read-outside-star', 'cat /etc/hostname', allow=['Bash(*)'])
case('read-outside-read-rule', 'cat /etc/hostname', allow=['Read(/etc/**)'])
case('read-outside-read-rule-abs', 'cat /etc/hostname', allow=['Read(//etc/**)'])
case('multi-cd-star', 'cd . && cd . && mark a', allow=['Bash(*)'])

case('redir-edit-deny', 'echo hi > redirected', deny=['Edit(redirected)'])
case('glued-wild-dotdot', 'mark../x', allow=['Bash(mark*)'])

# --- issue #38: every path form (tilde variants, a bare `cd`, globs through a committed link) --
case('tilde-user-read', 'cat ~root/../etc/hostname')
case('tilde-user-read-star', 'cat ~root/../etc/hostname', allow=['Bash(*)'])
case('tilde-user-read-rule', 'cat ~root/../etc/hostname', allow=['Bash(cat:*)'])
case('tilde-user-ls', 'ls ~root')
case('tilde-user-mark', 'mark ~root', allow=[M])
case('tilde-user-quoted', 'cat "~root/../etc/hostname"')
case('tilde-user-redir-in', 'wc -l < ~root/../etc/hostname')
case('tilde-user-redir-out', 'echo hi > ~root/../tmp/bp/outside-redirect')
case('tilde-user-touch', 'touch ~root/../tmp/bp/outside-touched')
case('tilde-plus-read', 'cat ~+/SKILLFILE')
case('tilde-plus-ls', 'ls ~+')
case('tilde-minus-read', 'cat ~-/x')
case('tilde-minus-cd', 'cd ~- && ls')
case('tilde-plus-cd', 'cd ~+ && ls')
case('tilde-user-cd', 'cd ~root')
case('tilde-home-read', 'cat ~/x')
case('cd-bare', 'cd')
case('cd-bare-and', 'cd && ls')
case('cd-bare-semi', 'cd; ls -la')
case('cd-bare-star', 'cd && ls', allow=['Bash(*)'])
case('cd-bare-rule', 'cd && ls', allow=['Bash(cd:*)'])
case('cd-bare-read-rule', 'cd && ls', allow=['Read(~/**)'])
case('cd-empty', 'cd "" && ls')
case('cd-dashdash', 'cd -- && ls')
case('cd-dash', 'cd - && ls')
case('cd-P', 'cd -P && ls')
case('cd-home', 'cd ~ && ls')
OUT = OUTSIDE
case('glob-link', 'cat d/*/secret.txt', links={'d/lnk': OUT},
     note='d/lnk is a link to /tmp/bp/outside, which holds secret.txt (MARK:secret)')
case('glob-link-plain', 'cat d/lnk/secret.txt', links={'d/lnk': OUT})
case('glob-link-ls', 'ls d/*', links={'d/lnk': OUT})
case('glob-link-nomatch', 'cat d/*/nothing.txt', links={'d/lnk': OUT})
case('glob-link-rm-rule', 'rm -f d/*/secret.txt', allow=['Bash(rm:*)'], links={'d/lnk': OUT})
case('glob-link-cd', 'cd d/* && ls', links={'d/lnk': OUT})
case('glob-link-redir-in', 'wc -l < d/*/secret.txt', links={'d/lnk': OUT})
case('glob-link-grep', 'grep -r MARK d/*', links={'d/lnk': OUT})
case('tilde-home-redir-out', 'echo hi > ~/redirected')
case('tilde-plus-redir-out', 'echo hi > ~+/redirected')
case('tilde-plus-redir-out-rule', 'echo hi > ~+/redirected', allow=['Bash(echo:*)'])
case('tilde-plus-touch-rule', 'touch ~+/touched', allow=['Bash(touch:*)'])
case('tilde-minus-cd-star', 'cd ~- && ls', allow=['Bash(*)'])
case('cd-dash-star', 'cd - && ls', allow=['Bash(*)'])
case('cd-dash-only', 'cd -')
case('glob-link-redir-out', 'echo hi > d/*/secret.txt', allow=['Bash(echo:*)'], links={'d/lnk': OUT})
case('glob-link-redir-in-star', 'wc -l < d/*/secret.txt', allow=['Bash(*)'], links={'d/lnk': OUT})
case('tilde-home-redir-out-star', 'echo hi > ~/redirected', allow=['Bash(*)'])
case('glob-redir-in', 'wc -l < .claude/*/t/SKILL.md')
case('link-dotdot', 'cat d/lnk/../../etc/hostname', links={'d/lnk': '/tmp/bp'},
     note='d/lnk is a link to /tmp/bp: d/lnk/../.. is / on disk, the project as written')
case('cd-then-link', 'cd d && cat lnk/secret.txt', links={'d/lnk': OUT})
case('cd-then-link-redir-in', 'cd d && wc -l < lnk/secret.txt', links={'d/lnk': OUT})
case('cd-then-relative', 'cd .claude && cat ../../../../../etc/hostname')
case('cd-sub-then-read', 'cd .claude && cat skills/t/SKILL.md')
case('glob-rm-star-rule', 'rm -rf nothing/*', allow=['Bash(rm:*)'])
case('glob-touch-star', 'touch made-*', allow=['Bash(*)'])


def skill_text(c):
    fm = ['---', 'name: t', 'description: probe']
    if c['allowed_tools']:
        fm.append('allowed-tools: ' + ', '.join(c['allowed_tools']))
    fm.append('---')
    if c['form'] == 'inline':
        body = 'Result: !`' + c['command'] + '`'
    else:
        body = 'Result:\n```!\n' + c['command'] + '\n```'
    return '\n'.join(fm) + '\n' + body + '\nEND\n'


def setup_bin():
    os.makedirs(BIN, exist_ok=True)
    p = os.path.join(BIN, 'mark')
    with open(p, 'w') as f:
        f.write('#!/bin/sh\nfor a in "$@"; do : > "./mark-$(printf %s "$a" | tr -c "A-Za-z0-9_.-" _)"; done\n'
                'echo "MARK:$*"\n')
    os.chmod(p, 0o755)


def files_of(d):
    out = set()
    for r, ds, fs in os.walk(d):
        if '.git' in ds:
            ds.remove('.git')
        for f in fs:
            out.add(os.path.relpath(os.path.join(r, f), d))
    return out


def run(c):
    base = os.path.join(ROOT, c['id'])
    shutil.rmtree(base, ignore_errors=True)
    proj, home = base + '/proj', base + '/home'
    os.makedirs(proj + '/.claude/skills/t')
    os.makedirs(home + '/.claude')
    cmd = c['command'].replace('SKILLFILE', '.claude/skills/t/SKILL.md')
    c = dict(c, command=cmd)
    open(proj + '/.claude/skills/t/SKILL.md', 'w').write(skill_text(c))
    subprocess.run(['git', 'init', '-q', proj], check=True)
    if c['links']:
        os.makedirs(OUTSIDE, exist_ok=True)
        open(os.path.join(OUTSIDE, 'secret.txt'), 'w').write('MARK:secret\n')
    for link, target in c['links'].items():
        os.makedirs(os.path.dirname(os.path.join(proj, link)), exist_ok=True)
        os.symlink(target, os.path.join(proj, link))
    perms = {k: c[k] for k in ('allow', 'ask', 'deny') if c[k]}
    if c['project_allow']:
        json.dump({'permissions': {'allow': c['project_allow']}},
                  open(proj + '/.claude/settings.json', 'w'))
    json.dump({'permissions': perms}, open(home + '/.claude/settings.json', 'w'))
    json.dump({'projects': {proj: {'hasTrustDialogAccepted': True}}}, open(home + '/.claude.json', 'w'))
    for f in ('/tmp/bp/outside-touched', '/tmp/bp/outside-redirect'):
        if os.path.exists(f):
            os.remove(f)
    before = files_of(proj)
    env = dict(os.environ, ORACLE_HOME=home, PATH=BIN + ':' + os.environ['PATH'], **c['env'])
    log = base + '/log'
    extra = (['--permission-mode', c['mode']] if c['mode'] else []) + c['args']
    # From /tmp/bp, so that `cd -` (the previous directory, $OLDPWD: where claude-offline was
    # started) lands in the same place on every machine.
    p = subprocess.run([ORACLE + '/claude-offline', log, proj] + extra + ['-p', '/t'], env=env,
                       capture_output=True, text=True, cwd='/tmp/bp')
    after = files_of(proj)
    new = sorted(after - before - {'.claude/settings.local.json'})
    outside = [f for f in ('/tmp/bp/outside-touched', '/tmp/bp/outside-redirect') if os.path.exists(f)]
    text = None
    try:
        r = json.loads(subprocess.run([ORACLE + '/request.py', log], capture_output=True,
                                      text=True).stdout)
        for t in r['texts']:
            if t.startswith('Base directory for this skill'):
                text = t
    except Exception:
        pass
    if text is not None:
        m = re.search(r'Result:\s?(.*)\nEND\n?$', text, re.S)
        message = m.group(1) if m else text
    else:
        message = p.stdout.strip()
    ran = bool(new or outside or text is not None)
    exec_failed = text is None and message.startswith('Shell command failed for pattern')
    if text is not None or exec_failed:
        decision = 'allow'  # the command ran (a failing exit aborts the turn with "Shell command failed")
        ran = True
    elif 'has been denied' in message:
        decision = 'deny'
    else:
        decision = 'ask'
    return {'id': c['id'], **({'note': c['note']} if c['note'] else {}), 'command': cmd,
            'form': c['form'], 'allow': c['allow'], 'ask': c['ask'], 'deny': c['deny'],
            'project_allow': c['project_allow'], 'allowed_tools': c['allowed_tools'],
            'args': c['args'], 'mode': c['mode'], 'env': c['env'],
            **({'links': c['links']} if c['links'] else {}), 'decision': decision,
            'ran': ran, 'message': message, 'new_files': new + outside,
            'stderr': p.stderr.strip()[-500:]}


def main():
    args = sys.argv[1:]
    only = None
    jobs = 2
    out = DATA
    while args:
        a = args.pop(0)
        if a == '--only':
            only = set(args.pop(0).split(','))
        elif a == '--jobs':
            jobs = int(args.pop(0))
        elif a == '--out':
            out = args.pop(0)
    if not os.environ.get('CLAUDE_BIN'):
        sys.exit('bash-probe.py: set CLAUDE_BIN to the claude binary to measure (Claude Code for the committed data)')
    if not os.path.exists(os.path.join(ORACLE, 'claude-offline')):
        sys.exit(f'bash-probe.py: no claude-offline in {ORACLE} (set ORACLE_DIR)')
    setup_bin()
    cases = [c for c in C if only is None or c['id'] in only]
    with cf.ThreadPoolExecutor(jobs) as ex:
        res = list(ex.map(run, cases))
    for r in res:
        print(f"{r['id']:28} {r['decision']:5} ran={str(r['ran']):5} {r['message'][:160]!r}")
    if only is not None and os.path.exists(out):
        old = json.load(open(out))
        byid = {r['id']: r for r in old}
        for r in res:
            byid[r['id']] = r
        order = [c['id'] for c in C]
        res = [byid[i] for i in order if i in byid] + [r for i, r in byid.items() if i not in order]
    with open(out, 'w') as f:
        json.dump(res, f, indent=1, ensure_ascii=False)
        f.write('\n')


if __name__ == '__main__':
    main()
