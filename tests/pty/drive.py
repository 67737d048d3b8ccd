"""Drives a command on a pseudo-terminal, as a person at a keyboard would.

Usage: drive.py KEYS_JSON -- COMMAND...   KEYS_JSON is a list of strings, each typed after the
previous answer has arrived (JSON escapes such as "\\u001b[A" for the up arrow). Prints all the
terminal output. Used by tests/it/cli.rs to check the REPL's line editing and history.
"""
import json
import os
import pty
import select
import sys
import time


def read_until_quiet(fd, quiet=0.4, limit=10.0):
    out = b""
    end = time.time() + limit
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], quiet)
        if not ready:
            if out:
                break
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def main():
    sep = sys.argv.index("--")
    keys = json.loads(sys.argv[1])
    command = sys.argv[sep + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    out = read_until_quiet(fd)
    for key in keys:
        os.write(fd, key.encode())
        out += read_until_quiet(fd)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode("utf-8", "replace"))
    sys.exit(os.waitstatus_to_exitcode(status))


main()
