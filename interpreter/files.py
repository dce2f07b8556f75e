"""The one writer of every output file, and the one check of every file read back (logs, saves, coverage).

Writing (`write_output`, `open_stream`):
- `-` is standard output (text, or bytes through `sys.stdout.buffer`).
- A regular file, or a name that does not exist yet, is replaced whole: the data goes to a
  private temporary file made beside it (`tempfile.mkstemp`: O_CREAT|O_EXCL|O_NOFOLLOW, a
  random name, so a planted `OUT.tmp` or symlink is never written through), then
  `os.replace` puts it in place; what a killed writer left is swept (`rulecraft.tempfiles`). A failure leaves the old file as it was and no temporary
  file behind. A symlink is replaced as a name; what it pointed to is not touched.
- Anything else that exists (a character or block device, a FIFO, a terminal) is written
  into, never replaced: `-o /dev/null` stays a device.
- A folder, a missing folder, no permission, a full disk...: an `OutputError` with a
  message for a person; the command line prints it and exits 1.

Reading (`read_regular`): only a regular file is read. A FIFO, a device or a folder is
refused at once (the file is opened without blocking and checked after opening), so
`--resume some-fifo` cannot hang and `/dev/zero` cannot fill the memory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from typing import Optional, Union

from .inputs import input_named_by, note_input  # the writer never replaces an input (rulecraft.inputs)
from .tempfiles import mode_for, sweep, temp_beside

Data = Union[str, bytes]


class OutputError(Exception):
    """An output cannot be written; `message` says why, for a person."""

    exit_code = 1  # the command line's code for it: the output cannot be made

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path
        self.message = message


class OutputIsInput(OutputError):
    """An output names a file this command reads (the ruleset, its parent, a log, a save): a usage error."""

    exit_code = 2


class InputError(Exception):
    """A file given to read back cannot be used; `message` says why."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path
        self.message = message


_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "it is a folder",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ENXIO: "nothing reads from it (a FIFO or socket without a reader)",
    errno.EPIPE: "the reader went away",
    errno.EFBIG: "the file would be too large",
}


def os_error_text(path: str, exc: OSError) -> str:
    """`cannot write PATH: REASON`, the reason in plain words (a full disk, a folder that does not exist...)."""
    if exc.errno == errno.ENOENT:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            return f"cannot write {path}: the folder {folder} does not exist"
    reason = _REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()
    return f"cannot write {path}: {reason}"


def _refuse_input(path: str) -> None:
    found = input_named_by(path)
    if found is not None:
        raise OutputIsInput(path, f"cannot write {path}: it is {found}, an input of this command; "
                                  "give another name")


def input_problem(path: Optional[str]) -> Optional[str]:
    """Why `path` must not be written, said before the work starts: it is a file this command read (a ruleset, a
    parent under `extends:`, a log, a save, a script of choices), by any name; else None."""
    try:
        if path:
            _refuse_input(path)
    except OutputIsInput as exc:
        return exc.message
    return None


def target_kind(path: str) -> str:
    """'stdout', 'new' (nothing there, or a dangling symlink), 'file' (a regular file), 'stream' (device, FIFO...).

    A folder is an OutputError."""
    if path == "-":
        return "stdout"
    try:
        st = os.stat(path)  # follows a symlink: a link to a device is written into like the device
    except FileNotFoundError:
        return "new"
    except OSError as exc:
        raise OutputError(path, os_error_text(path, exc)) from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(path, f"cannot write {path}: it is a folder; give a file name")
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISSOCK(st.st_mode):
        raise OutputError(path, f"cannot write {path}: it is a socket, not a file")
    return "stream"


def output_problem(path: str) -> Optional[str]:
    """Why `path` cannot be written (a folder, a folder that does not exist), found before the work starts."""
    try:
        if target_kind(path) in ("stdout", "stream", "file"):
            return None
    except OutputError as exc:
        return exc.message
    folder = os.path.dirname(os.path.abspath(path))
    return None if os.path.isdir(folder) else f"cannot write {path}: the folder {folder} does not exist"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _replace(path: str, data: bytes, sync: bool, private: bool = False) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    sweep(path)  # what killed writers of this file left (rulecraft.tempfiles)
    try:
        fd, tmp = temp_beside(path)
    except OSError as exc:
        raise OutputError(path, os_error_text(path, exc)) from None
    try:
        try:
            if not private:  # mkstemp made it readable by its owner only: keep that for a private file
                os.fchmod(fd, mode_for(path))
            _write_all(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:  # also Ctrl-C between the write and the rename: leave no temporary file
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, os_error_text(path, exc)) from None
        raise
    if sync:  # the folder too, so the rename survives a power cut (a system that cannot sync a folder is let be)
        with contextlib.suppress(OSError):
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def _open_stream_fd(path: str) -> int:
    try:
        return os.open(path, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise OutputError(path, os_error_text(path, exc)) from None


def stdout_text(text: str) -> None:
    """A document (HTML, JSON, DOT, SVG, a log) to standard output: UTF-8 as its file would be, whatever the encoding
    of the terminal or pipe (a Latin-1 locale: a stranger's letters were Python's UnicodeEncodeError, exit 3)."""
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    if buf is None or (getattr(out, "encoding", "") or "").lower().replace("-", "").replace("_", "") == "utf8":
        out.write(text)
        out.flush()
        return
    out.flush()
    try:
        buf.write(text.encode("utf-8", "surrogateescape"))
        buf.flush()
    except BrokenPipeError:
        raise  # the reader went away: the command line ends quietly
    except OSError as exc:
        raise OutputError("-", os_error_text("standard output", exc)) from None


def write_output(path: str, data: Data, *, sync: bool = False, binary_to_terminal: bool = False) -> None:
    """Write `data` (text as UTF-8, or bytes) to `path` as the module docstring says; OutputError on failure.

    Bytes to `-` go to `sys.stdout.buffer`, but not to a terminal unless `binary_to_terminal`.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    kind = target_kind(path)
    if kind == "stdout":
        out = sys.stdout
        if isinstance(data, str):
            stdout_text(data)
            return
        if not binary_to_terminal and out.isatty():
            raise OutputError(path, "will not write binary data (a PDF or an image) to the terminal; "
                                    "give a file name, or send standard output to a file or a program")
        buf = getattr(out, "buffer", None)
        if buf is None:
            raise OutputError(path, "standard output takes no binary data here; give a file name")
        out.flush()
        buf.write(raw)
        buf.flush()
        return
    if kind == "stream":
        fd = _open_stream_fd(path)
        try:
            _write_all(fd, raw)
        except OSError as exc:
            raise OutputError(path, os_error_text(path, exc)) from None
        finally:
            os.close(fd)
        return
    _refuse_input(path)
    _replace(path, raw, sync)


def replace_file(path: str, data: Data, *, sync: bool = False, private: bool = False) -> None:
    """Replace a regular file (or make a new one) whole, as `write_output` does; a file that must be read
    back later (a save) cannot be a device, a FIFO or standard output: OutputError. `private`: readable
    by its owner only (a save holds every seat's hidden cards)."""
    if target_kind(path) not in ("new", "file"):
        raise OutputError(path, f"cannot write {path}: it is not a regular file (a save must be read back)")
    _refuse_input(path)
    _replace(path, data.encode("utf-8") if isinstance(data, str) else data, sync, private)


class ChangedOnDisk(OutputError):
    """A source file an editor saves changed on disk since the editor loaded it: not replaced."""


def file_digest(data: bytes) -> str:
    """The fingerprint an editor keeps of a file as it loaded it (SHA-256, hex)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def replace_source(path: str, data: Data, loaded: Optional[str], *, limit: int) -> str:
    """Save an edited source file (a ruleset a person edits): replaced whole as `replace_file` does, but only
    while the file on disk is still the one the editor loaded (`loaded`: its digest, None for a file that must
    not exist yet); ChangedOnDisk otherwise. The file edited is meant to be replaced, so it may be an input of
    this process. Gives the new digest."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    kind = target_kind(path)
    if kind not in ("new", "file"):
        raise OutputError(path, f"cannot write {path}: it is not a regular file")
    if kind == "new" and os.path.lexists(path):
        raise OutputError(path, f"cannot write {path}: it is a link to nothing")
    if kind == "file":
        try:
            now = file_digest(read_regular(path, limit, "source file"))
        except InputError as exc:
            raise OutputError(path, exc.message) from None
        if loaded != now:
            raise ChangedOnDisk(path, f"{path} changed on disk since it was loaded: not replaced; "
                                      "load it again (your text is kept in the editor) or save under another name")
    elif loaded is not None:
        raise ChangedOnDisk(path, f"{path} was removed on disk since it was loaded: not written; save again to write it anew")
    _replace(path, raw, sync=True)  # a person's work: on the disk, its folder too, before the page hears 'saved'
    return file_digest(raw)


class OutputStream:
    """A text output written line by line as it is made (a game log): each `write` reaches the file at once.

    A regular file (or a new name) is replaced at the start by a fresh file readable by its owner
    only, as a save is (a game's log and its story hold every hidden card and roll, and the seed
    that deals them), and then grows; a device or FIFO is written into; `-` is
    standard output. After a failure (a full disk) the stream is broken: the error is raised
    once, as an OutputError, and `close` is quiet.
    """

    def __init__(self, path: str, fd: Optional[int], owned: bool):
        self.path = path
        self.fd = fd
        self.owned = owned
        self.broken = False

    def write(self, text: str) -> None:
        if self.broken:
            raise OutputError(self.path, f"cannot write {self.path}: an earlier write failed")
        try:
            if self.fd is None:
                stdout_text(text)
            else:
                _write_all(self.fd, text.encode("utf-8"))
        except BrokenPipeError:
            self.broken = True
            if self.fd is None:
                raise  # standard output's reader went away: the command line ends quietly
            raise OutputError(self.path, os_error_text(self.path, BrokenPipeError(errno.EPIPE, "broken pipe"))) from None
        except OSError as exc:
            self.broken = True
            raise OutputError(self.path, os_error_text(self.path, exc)) from None

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None and self.owned:
            try:
                os.close(fd)
            except OSError:
                pass  # whatever failed was already said by write


def open_stream(path: str, start: str = "") -> OutputStream:
    """The stream of `path`, which begins with `start`: a regular file is replaced whole by one holding `start` (a
    log written again by an undo: whole or as it was, never cut in between; session 19), then added to."""
    kind = target_kind(path)
    if kind == "stdout":
        stream = OutputStream(path, None, False)
    elif kind == "stream":
        stream = OutputStream(path, _open_stream_fd(path), True)
    else:
        _refuse_input(path)
        _replace(path, start.encode("utf-8"), False, private=True)  # atomically, its owner's alone
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise OutputError(path, os_error_text(path, exc)) from None
        return OutputStream(path, fd, True)
    if start:
        stream.write(start)
    return stream


def output_folder_problem(folder: str) -> Optional[str]:
    """Why files cannot be written into `folder` (made if missing), or None."""
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        return f"cannot write into {folder}: it is not a folder"
    except OSError as exc:
        return os_error_text(folder, exc).replace(f"cannot write {folder}", f"cannot make the folder {folder}")
    if not os.path.isdir(folder):
        return f"cannot write into {folder}: it is not a folder"
    return None


def read_regular(path: str, limit: int, what: str = "file", goes_on: bool = False) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError for anything else.

    Opened with O_NONBLOCK (a FIFO does not wait for a writer) and checked with fstat after
    opening, so nothing can be swapped in between the check and the read. The file is an input of this process
    from then on (a log, a save, a coverage file, a script of choices): no output replaces it (issue 38) — unless
    `goes_on`: the save a game resumes, or the log it continues, which the game goes on writing."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise InputError(path, f"{path} is a folder, not a {what}") from None
    except OSError as exc:
        raise InputError(path, f"cannot read the {what} {path}: {(exc.strerror or str(exc)).lower()}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(path, f"{path} is a folder, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if \
                stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file"
            raise InputError(path, f"{path} is {kind}, not a {what}: only a regular file is read")
        if st.st_size > limit:
            raise InputError(path, f"{path} is larger than {limit:,} bytes: not a {what}")
        if not goes_on:
            note_input(path)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise InputError(path, f"{path} is larger than {limit:,} bytes: not a {what}")
        return data
    except OSError as exc:
        raise InputError(path, f"cannot read the {what} {path}: {(exc.strerror or str(exc)).lower()}") from None
    finally:
        os.close(fd)
