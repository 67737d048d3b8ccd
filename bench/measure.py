#!/usr/bin/env python3
"""Times one command: median wall time, CPU time and peak memory over several runs.

    bench/measure.py [--runs N] [--stdin FILE] [--before 'SHELL CMD'] -- CMD [ARG...]

One untimed warm-up run comes first (page cache, and whatever the command writes).
`--before` runs (untimed, through `sh -c`) ahead of every run, e.g. to delete a file the
command would otherwise find up to date. Output and errors of CMD are discarded.

Prints one line, `key=value` pairs separated by spaces (milliseconds, KiB):
    wall_ms=<median> wall_min_ms=<min> wall_max_ms=<max> cpu_ms=<median user+sys>
    rss_kib=<largest peak resident set> rc=<exit status of the last run>
    others_pct=<CPU time other processes used during the timed runs, in % of all CPUs>
Wall time is measured around fork/exec/wait of CMD alone (no shell, no Python start-up);
CPU time and peak memory come from the kernel's accounting of that child (`wait4`).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def busy_seconds():
    """CPU time the whole machine has spent busy (not idle or waiting), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(fields[:8]) - fields[3] - fields[4]) / hz


def run_once(cmd, stdin_path):
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if stdin_path:
            stdin.close()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--stdin", help="file to feed CMD on standard input")
    ap.add_argument("--before", help="shell command run, untimed, before every run")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command given")
    walls, cpus, rss, rc = [], [], 0, 0
    others = 0.0
    for i in range(a.runs + 1):
        if a.before:
            subprocess.run(["sh", "-c", a.before], check=True)
        before = busy_seconds()
        wall, cpu, maxrss, rc = run_once(cmd, a.stdin)
        after = busy_seconds()
        if i == 0:
            continue  # warm-up
        if before is not None and after is not None:
            others += max(0.0, after - before - cpu)
        walls.append(wall)
        cpus.append(cpu)
        rss = max(rss, maxrss)
    ms = lambda s: f"{s * 1000:.1f}"  # noqa: E731
    print(
        f"wall_ms={ms(statistics.median(walls))} wall_min_ms={ms(min(walls))} wall_max_ms={ms(max(walls))} "
        f"cpu_ms={ms(statistics.median(cpus))} rss_kib={rss} rc={rc} "
        f"others_pct={100 * others / (sum(walls) * (os.cpu_count() or 1)):.0f}"
    )


if __name__ == "__main__":
    sys.exit(main())
