"""The temporary file the one writer (`rulecraft.files`) fills before it renames it over its output, and the
sweep of such files a killed writer left.

A file is replaced whole: written beside it under a private name, then renamed over it, so a kill leaves the old
file as it was. But a writer killed (`kill -9`, a power cut, the machine's memory killer) between the two leaves its
temporary file behind, and nothing removed it (session 19: one `.NAME.RANDOM.tmp` beside a save, a chart or a
report for each kill, for ever). So the temporary file's name says which process writes it
(`.NAME.PID.RANDOM.tmp`), and the first time a process writes `NAME` it removes the temporary files of `NAME`
whose process is gone and that nobody has touched for a minute (a writer in another process namespace, whose
number means nothing here, is still never cut short: its file is younger than that).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time

STALE_SECONDS = 60  # a temporary file untouched this long, of a process that is gone, is a leftover
MAX_LOOKED_AT = 10_000  # entries of a folder looked at in one sweep: a folder of millions costs no more
_swept: set[str] = set()  # outputs whose leftovers this process has already looked for


def temp_beside(path: str) -> tuple[int, str]:
    """A new private file beside `path` (`mkstemp`: O_EXCL, O_NOFOLLOW, a random part), named by this process."""
    folder = os.path.dirname(os.path.abspath(path))
    prefix = f".{os.path.basename(path)}.{os.getpid()}."
    return tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)


def sweep(path: str) -> int:
    """Remove the temporary files of `path` that killed writers left; once a process for each output. How many."""
    full = os.path.abspath(path)
    if full in _swept:
        return 0
    _swept.add(full)
    named = re.compile(re.escape(f".{os.path.basename(full)}.") + r"([0-9]{1,10})\.[A-Za-z0-9_]{8}\.tmp")
    removed, now = 0, time.time()
    try:
        with os.scandir(os.path.dirname(full)) as entries:
            for i, entry in enumerate(entries):
                if i >= MAX_LOOKED_AT:
                    break
                found = named.fullmatch(entry.name)
                if found is None or int(found.group(1)) == os.getpid() or _alive(int(found.group(1))):
                    continue
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and st.st_mtime < now - STALE_SECONDS:
                    os.unlink(entry.path)
                    removed += 1
    except OSError:
        pass  # a folder that cannot be read, a file gone meanwhile: the write goes on
    return removed


def _alive(pid: int) -> bool:
    if pid <= 0:
        return True  # no process of ours: not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def mode_for(path: str) -> int:
    """The permission bits of the new file: those of the file it replaces, else 0666 less the umask."""
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux), else set and reset."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
