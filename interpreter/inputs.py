"""The files this process read as inputs, so that no output is ever written over one of them.

The loader notes every ruleset file it reads (parents under `extends:` too); the command line notes
the files it was given. The one writer (`rulecraft.files`) asks `input_named_by` before it replaces
a file, and the command line asks `same_file_problem` before any work starts. Files are known by
identity (device and inode), so a symlink or a hard link to an input is one too.
"""

from __future__ import annotations

import os
import stat
from typing import Optional

# The files this process has read as inputs (rulesets and their parents, logs, saves, coverage files), by
# identity (device, inode): no output may be written over one of them, whatever name reaches it.
_INPUTS: dict[tuple[int, int], str] = {}
MAX_INPUTS = 10_000  # identities remembered (a long-lived process, the language server, reads many)


def forget_inputs() -> None:
    """Start a new command: the files earlier commands of this process read are no longer its inputs."""
    _INPUTS.clear()


def note_input(path: str) -> None:
    """Remember `path` as an input of this process (a regular file only; anything else is not written over)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return
    if stat.S_ISREG(st.st_mode) and len(_INPUTS) < MAX_INPUTS:
        _INPUTS.setdefault((st.st_dev, st.st_ino), path)


def input_named_by(path: str) -> Optional[str]:
    """The input that `path` names (the same file by identity, through any link), or None."""
    if path == "-" or not _INPUTS:
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    key = (st.st_dev, st.st_ino)
    found = _INPUTS.get(key)
    if found is None:
        return None
    try:  # the input is still that file (a deleted input's inode may since belong to a new file)
        again = os.stat(found)
        if (again.st_dev, again.st_ino) == key:
            return found
    except (OSError, ValueError):
        pass
    _INPUTS.pop(key, None)
    return None


def same_file_problem(outputs: dict[str, str], inputs: dict[str, str]) -> Optional[str]:
    """One line when an output (by what it is: 'the --save file') names one of the inputs, or two outputs one file."""
    seen: dict[tuple[int, int], str] = {}
    for what, path in inputs.items():
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            seen.setdefault((st.st_dev, st.st_ino), what)
    named: dict[str, str] = {}
    for what, path in outputs.items():
        if path == "-":
            continue
        real = os.path.realpath(path)
        if real in named:  # two outputs, one file (not made yet): the second would replace the first
            return f"{what} {path} is also {named[real]}: each output needs its own file"
        named[real] = what
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            return f"{what} {path} is {seen[key]}: it would be written over; give another name"
        seen[key] = what
    return None
