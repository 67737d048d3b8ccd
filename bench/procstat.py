"""What /proc says of a running process, for the soak benchmarks (soak.py, lsp-soak.py)."""

import os
import pathlib


def status(pid):
    """Resident memory and its peak (KiB), threads and open file descriptors of process `pid`."""
    out = {}
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
        if key == "Threads":
            out["Threads"] = int(value)
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out
