"""A game's save and log are written by one process at a time.

Two `play --resume s.save --log g.log` at once (two terminals, or a studio serving the folder while someone
resumes its game at a terminal) each went on with the game: the log was cut back and written into at two
places at once (lines run together, `}{{"type"...`), and the save held whichever game wrote last, the other's
decisions lost without a word. So the writers of a game's files (`runtime.savegame.SaveWriter`,
`runtime.gamelog.GameLogWriter`) first `claim` the file: an exclusive lock (`flock`) on a small file beside it,
`.NAME.lock`, held while a writer of it lives (`owner`: a writer of the process that claimed it; an undo makes
new writers before the old ones go). A second process that claims it is refused with one line (`OutputError`,
exit 1) before it changes anything. The lock file is removed when its last writer goes or the process ends;
one left by a killed process is taken over by the next claim (the kernel released its lock). Where no lock can
be taken (a read-only folder, a file system without locks) nothing is claimed and writing the file itself says
what is wrong. A device, a FIFO or standard output is not claimed.
"""

from __future__ import annotations

import atexit
import os
import weakref

from .files import OutputError, target_kind

_HELD: dict[tuple[int, int], list] = {}  # a lock file (device, inode) -> [its path, its descriptor, writers holding it]


def lock_path(path: str) -> str:
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.lock")


def claim(path: str, owner: object) -> None:
    """Claim the game file at `path` for `owner`, a writer of it, or OutputError when another process holds it."""
    if target_kind(path) not in ("file", "new"):
        return
    key = _lock(path, lock_path(path))
    if key is not None:
        _HELD[key][2] += 1
        weakref.finalize(owner, _drop, key)


def _lock(path: str, lock: str) -> tuple[int, int] | None:
    """The lock file's (device, inode), locked by this process (None: no lock can be taken here); OutputError when
    another process holds it. Known by its inode, not its name: this process may hold it under another name (the
    folder was moved), and a second lock of it by this process would be refused as another's."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Windows
        return None
    for _ in range(3):  # the lock file may be removed by its last holder between our open and our lock
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NONBLOCK", 0), 0o600)  # a planted link is not followed, a FIFO not waited on
            st = os.fstat(fd)
        except OSError:
            return None  # nothing can be claimed here: writing the file itself will say why
        key = (st.st_dev, st.st_ino)
        if key in _HELD:
            os.close(fd)
            return key
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputError(path, f"{path} is being written by another rulecraft process (a game going on there): "
                                    "finish or stop that game first, or give another file") from None
        except OSError:
            os.close(fd)
            return None
        if _same(fd, lock):
            _HELD[key] = [lock, fd, 0]
            return key
        os.close(fd)
    return None


def _drop(key: tuple[int, int]) -> None:
    held = _HELD.get(key)
    if held is not None:
        held[2] -= 1
        if held[2] <= 0:
            _release(key)


def _same(fd: int, lock: str) -> bool:
    """Whether the name `lock` is still the file open as `fd`."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(lock, follow_symlinks=False))
    except OSError:
        return False


def _release(key: tuple[int, int]) -> None:
    lock, fd, _count = _HELD.pop(key)
    if _same(fd, lock):  # (never a file someone else put under its name meanwhile)
        try:
            os.unlink(lock)
        except OSError:
            pass
    os.close(fd)


@atexit.register
def release_all() -> None:
    """Every claim of this process given up, its lock file removed (the lock is released by closing)."""
    for key in list(_HELD):
        _release(key)
