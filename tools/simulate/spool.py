"""Every game's result of a simulation kept on disk (`Spool`), for the files that list every game (`--json`, `--csv`),
and the error of a run that played its games but cannot report them (`RunRefused`)."""

from __future__ import annotations

import itertools
import json
from typing import Iterator


class RunRefused(ValueError):
    """A run that played its games but cannot report them (said in one line, nothing written, exit 1)."""


class Spool(list):
    """Every game's result, in order, kept in a temporary file instead of memory (one JSON text a line: a
    result is JSON data already, so it reads back equal).

    It is a list to `json.dump` with an indent (the pure-Python encoder iterates it) and to code
    that loops over `summary.results`; its own list storage stays empty. The file has no name
    (tempfile.TemporaryFile) and goes when the spool does."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile

        self._file = tempfile.TemporaryFile(prefix="rulecraft-results-")
        self._n = 0
        self.failed: OSError | None = None  # the first write that failed (a full disk): the rest are not kept

    def append(self, r) -> None:
        if self.failed is not None:
            return
        try:
            self._file.seek(0, 2)
            self._file.write(json.dumps(r, separators=(",", ":")).encode() + b"\n")
        except OSError as exc:  # never raised inside a pool's merge (its workers would be killed): said after the run
            self.failed = exc
            return
        self._n += 1

    def kept(self) -> None:
        """Raise RunRefused if a result could not be written to the temporary file (a full temporary folder made
        `simulate --json` an internal error, exit 3)."""
        import tempfile

        from rulecraft.files import os_error_text

        if self.failed is None:
            try:
                self._file.flush()
            except OSError as exc:
                self.failed = exc
        if self.failed is not None:
            try:
                self._file.close()  # (gone now: the run keeps nothing of it)
            except OSError:  # (its buffer, which the full disk refuses again)
                pass
            raise RunRefused(f"the games' results could not be kept in the temporary folder {tempfile.gettempdir()} "
                             f"({os_error_text(tempfile.gettempdir(), self.failed).split(': ', 1)[-1]})")

    def extend(self, rs) -> None:
        for r in rs:
            self.append(r)

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def __iter__(self) -> Iterator:
        pos = 0
        for _ in range(self._n):  # every loop keeps its own position: loops may nest
            self._file.seek(pos)
            line = self._file.readline()
            pos = self._file.tell()
            yield json.loads(line)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(itertools.islice(self, *i.indices(self._n)))
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return next(itertools.islice(self, i, None))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Spool of {self._n} results>"
