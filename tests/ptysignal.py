"""Start a rulecraft command with its standard error on a pseudo-terminal (so it draws its progress bar), wait
until the bar shows games under way, send it a signal, and collect what it wrote. Waits are bounded."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time


def signal_when_playing(args: list, signum: int, marker: bytes, wait: float = 120.0) -> tuple[int, str]:
    """(exit code, standard error as text); the signal goes once `marker` (e.g. b'/1000000 games') was written."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rulecraft.tools.cli.main", *args], stdout=subprocess.DEVNULL,
                            stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    seen = b""
    end = time.monotonic() + wait

    def read(timeout: float) -> bool:
        nonlocal seen
        if not select.select([master], [], [], timeout)[0]:
            return False
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other side is closed
            return False
        seen += chunk
        return bool(chunk)

    try:
        while marker not in seen and time.monotonic() < end and proc.poll() is None:
            read(0.5)
        if marker not in seen:
            raise AssertionError(f"no games under way: {seen[-500:]!r}")
        os.kill(proc.pid, signum)
        while time.monotonic() < end and proc.poll() is None:  # keep reading: a full terminal would block it
            read(0.5)
        proc.wait(timeout=max(1.0, end - time.monotonic()))
        while read(0.2):  # what it wrote last
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return proc.returncode, seen.decode(errors="replace")
