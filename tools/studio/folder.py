"""The folder the studio serves: its ruleset files by relative path, read and saved only inside it.

Every path a client names is relative to the folder and checked here before anything is opened: no
absolute path, no '..', nothing that leaves the folder through a symlink, no hidden file. Only ruleset
files (.yaml or .yml holding a ruleset) are written, through the one writer (`rulecraft.files`).
The bundled rulesets are offered read-only, to be copied into the folder.
"""

from __future__ import annotations

import itertools
import json
from importlib import resources
import os
import posixpath
import re
import stat
from dataclasses import dataclass

from rulecraft.bundled import bundled_rulesets
from rulecraft.files import InputError, OutputError, file_digest, read_regular, replace_source
from rulecraft.loader.yaml_source import DEFAULT_LIMITS

MAX_FILE = DEFAULT_LIMITS.max_file_bytes  # bytes of a ruleset file, as the loader reads (the language server's too)
MAX_FILES = 500  # ruleset files listed from one folder
MAX_DEPTH = 3  # folders below the served one that are looked into
MAX_ENTRIES = 10_000  # entries of the folder and those below looked at in one look
SUFFIXES = (".yaml", ".yml")
RULESET_MARK = re.compile(r"^(ruleset|extends)\s*:", re.M)
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}$")

TEMPLATE = """ruleset: {name}
title: {title}
version: "1"
source: Written in the studio.
players: {{min: 2, max: 4, default: 2}}

player_variables:
  score: 0

sequences:
  game:
    kind: stage
    title: The game
    steps:
      - label: Each player scores a point
        for_each: p
        in: "players"
        do:
          - "p.score += 1"
      - "end game"

start: game

scoring:
  score: "p.score"
"""


VARIANT = """ruleset: {name}
extends: {parent}
title: {title}
version: "1"
source: A variant, written in the studio.
notes: |
  What this variant changes from {parent}, and why.

# A variant holds only what it changes: everything else comes from {parent}.
#   a number:        parameters: {{NAME: {{default: 5}}}}
#   a house rule:    options: {{NAME: {{default: CHOICE}}}}
#   a step, by id:   overrides: [{{replace: SEQUENCE.STEP, with: ["..."]}}, {{insert_after: SEQUENCE.STEP, steps: ["..."]}}]
# Every edit a variant can make: docs/format.md, "Variants". The studio's Variants tab shows what it changes.
"""


class Refused(Exception):
    """A path or a write the studio refuses; the message says why, for a person (HTTP 403 or 409)."""

    def __init__(self, message: str, status: int = 403, **more):
        super().__init__(message)
        self.message, self.status, self.more = message, status, more  # `more`: fields the answer adds


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the folder, with '/'
    size: int
    mtime_ns: int


class Folder:
    def __init__(self, root: str):
        self.root = os.path.realpath(root)
        self.looked = 0  # entries the last look at the folder looked at
        self._verdicts: dict[str, tuple[int, int, bool]] = {}  # real path -> (size, time, a ruleset?) of the last look

    def resolve(self, rel: str) -> str:
        """The absolute path of `rel` inside the folder, or Refused."""
        if not isinstance(rel, str) or not rel or len(rel) > 1000 or "\x00" in rel or "\\" in rel:
            raise Refused("a file of the folder is named by its path relative to the folder")
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (JSON's '\ud800'): no file's name, and os.path's traceback
            raise Refused("a file's name is UTF-8 text: this one holds a lone surrogate") from None
        if rel.startswith("/") or os.path.isabs(rel) or re.match(r"^[A-Za-z]:", rel):
            raise Refused(f"'{rel[:100]}' is an absolute path: only files inside the folder are served")
        parts = rel.split("/")
        if any(p in ("", ".", "..") for p in parts):
            raise Refused(f"'{rel[:100]}' leaves the folder or is not a plain path ('..', '.' and '//' are refused)")
        if any(p.startswith(".") for p in parts):
            raise Refused(f"'{rel[:100]}' is a hidden file: not served")
        path = os.path.join(self.root, *parts)
        real = os.path.realpath(path)
        if os.path.commonpath([real, self.root]) != self.root:
            raise Refused(f"'{rel[:100]}' leads out of the folder (a symlink): not served")
        return real

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def scan(self) -> dict[str, Entry]:
        """The ruleset files of the folder (a few levels down), by relative path. The studio looks once a second, so
        a look is bounded by work, not by what a folder from elsewhere holds: at most MAX_ENTRIES entries are looked
        at (`looked`), and a file is opened to see whether it is a ruleset only when it is new or its size or time
        changed since the last look (a folder of 20,000 '.yaml' data files was read whole at every look)."""
        found: dict[str, Entry] = {}
        verdicts: dict[str, tuple[int, int, bool]] = {}
        self.looked = 0
        folders = [(self.root, "", 0)]  # (path, its path relative to the folder with a '/' after it, depth)
        while folders and self.looked < MAX_ENTRIES and len(found) < MAX_FILES:
            dirpath, under, depth = folders.pop(0)
            try:
                with os.scandir(dirpath) as it:
                    entries = list(itertools.islice(it, MAX_ENTRIES - self.looked))
            except OSError:
                continue
            self.looked += len(entries)
            for e in sorted(entries, key=lambda e: e.name):
                if e.name.startswith("."):
                    continue
                try:
                    if e.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH and e.name not in ("node_modules", "__pycache__"):
                            folders.append((e.path, f"{under}{e.name}/", depth + 1))
                        continue
                except OSError:
                    continue
                if e.name.endswith(SUFFIXES) and len(found) < MAX_FILES:
                    self._look(e, under + e.name, found, verdicts)
        self._verdicts = verdicts  # what was seen this look only: it never grows past one look's files
        return found

    def _look(self, e: os.DirEntry, rel: str, found: dict, verdicts: dict) -> None:
        try:  # the folders walked are real ones (no link is followed into one): only a link needs resolving
            real = self.resolve(rel) if e.is_symlink() else e.path
            st = os.stat(real) if e.is_symlink() else e.stat(follow_symlinks=False)
        except (Refused, OSError):
            return
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE:
            return
        known = self._verdicts.get(real)
        ruleset = known[2] if known and known[:2] == (st.st_size, st.st_mtime_ns) else _is_ruleset(real)
        verdicts[real] = (st.st_size, st.st_mtime_ns, ruleset)
        if ruleset:
            found[rel] = Entry(rel, st.st_size, st.st_mtime_ns)

    def read(self, rel: str) -> tuple[str, str, str]:
        """(absolute path, text, digest of the bytes) of a file of the folder."""
        path = self.resolve(rel)
        if not rel.endswith(SUFFIXES):
            raise Refused(f"'{rel[:100]}' is not a ruleset file (.yaml or .yml)")
        try:
            raw = read_regular(path, MAX_FILE, "ruleset file")
        except InputError as exc:
            raise Refused(exc.message, 404 if not os.path.exists(path) else 403) from None
        return path, raw.decode("utf-8", "replace"), file_digest(raw)

    def save(self, rel: str, text: str, loaded: str | None) -> str:
        """Write a ruleset file (atomic; refused when it changed on disk since `loaded`); the new digest."""
        path = self.resolve(rel)
        if not rel.endswith(SUFFIXES):
            raise Refused(f"'{rel[:100]}': only ruleset files (.yaml or .yml) are written")
        if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE:
            raise Refused(f"the text is over the limit of {MAX_FILE:,} bytes: not saved", 413)
        if not RULESET_MARK.search(text):
            raise Refused("only ruleset files are written: the text has no top-level 'ruleset:' or 'extends:'")
        bad = _unencodable(text)
        if bad:
            raise Refused(f"not saved: the text holds {bad}, which no file can hold; {KEPT}", 400)
        if os.path.isfile(path) and not _is_ruleset(path, MAX_FILE):  # a compose file, notes...: never the studio's to replace
            raise Refused(f"not saved: '{rel[:100]}' on disk is not a ruleset file (no top-level 'ruleset:' or "
                          f"'extends:'), and the studio writes over ruleset files only; {KEPT}")
        where = _not_utf8(path)
        if where:  # shown with U+FFFD where its bytes are not UTF-8: a save would have written those over for good
            raise Refused(f"not saved: '{rel[:100]}' on disk is not UTF-8 text ({where}): the editor shows its bytes "
                          f"there as \ufffd, and saving would replace them for good; convert the file to UTF-8 "
                          f"first; {KEPT}")
        try:
            return replace_source(path, text, loaded, limit=MAX_FILE)
        except OutputError as exc:
            if type(exc).__name__ == "ChangedOnDisk":  # `removed`: the page saves again as a new file, when asked
                raise Refused(exc.message.replace(path, rel), 409, removed=not os.path.lexists(path)) from None
            raise Refused(f"{exc.message.replace(path, rel)}: not saved; the file on disk is as it was; {KEPT}",
                          403) from None

    def create(self, rel: str, source: str | None, parent: str | None = None) -> str:
        """A new ruleset file: a copy of a bundled ruleset (by id), a variant that `extends:` `parent` (a ruleset of
        the folder, or 'bundled:NAME'; given a bare name, it is made beside a parent of the folder, where the
        loader finds it), or the template; never over a file."""
        head, _, name = rel.rpartition("/")
        if parent and not parent.startswith("bundled:") and not head:
            head = parent.rpartition("/")[0]
        stem, dot, suffix = name.rpartition(".")
        if dot and "." + suffix.lower() in SUFFIXES:  # 'Mine.YAML' is 'Mine.yaml', not 'Mine.YAML.yaml'
            name = f"{stem}.{suffix.lower()}"
        else:
            stem = name
        if not NAME.fullmatch(stem) or stem.endswith(".") or ".." in stem:  # (match: "x\n" passed)
            raise Refused("a new ruleset's name is letters, digits, '_', '-' and '.' (not at its end)", 400)
        rel = f"{head}/{name}" if head else name
        if not rel.endswith(SUFFIXES):
            rel += ".yaml"
        if os.path.lexists(self.resolve(rel)):
            raise Refused(f"'{rel}' exists already: give another name", 409)
        if parent:
            text = self._variant(rel, stem, parent)
        elif source:
            text = _schema_from_here(bundled_text(source))
        else:
            text = TEMPLATE.format(name=re.sub(r"[^A-Za-z0-9_-]", "-", stem), title=stem.replace("-", " ").title())
        self.save(rel, text, None)
        return rel


    def _variant(self, rel: str, stem: str, parent: str) -> str:
        if parent.startswith("bundled:"):
            with open(bundled_path(parent[8:]), encoding="utf-8") as f:  # Refused (404) when there is none
                parent_text = f.read()
            ref = parent[8:]
        else:
            parent_text = self.read(parent)[1]  # Refused when it is no ruleset of the folder
            ref = posixpath.relpath(parent, posixpath.dirname(rel) or ".")
            if ref.startswith("../"):
                raise Refused(f"a variant is written in the folder of its parent ('{parent[:100]}') or above it: "
                              "the loader reads a parent only there", 400)
        if not re.fullmatch(r"[A-Za-z0-9_./-]+", ref):  # a name YAML would read otherwise ('a: b.yaml', '#1.yaml')
            ref = json.dumps(ref)  # a JSON string is a YAML double-quoted one
        # titled after its parent, as players read it at the top of their screen and on the printed pages ('Dml
        # House', its file name capitalised, named no game); a JSON string is a YAML double-quoted one
        title = _title_of(parent_text)
        return VARIANT.format(name=re.sub(r"[^A-Za-z0-9_-]", "-", stem), parent=ref,
                              title=json.dumps(f"{title} ({stem})") if title else stem.replace("-", " ").title())


_TITLE = re.compile(r"^title:[ \t]*(\S[^\n]*)$", re.M)


def _title_of(text: str) -> str | None:
    """The top-level `title:` of a ruleset's text, when it is written on its line as a plain or quoted string."""
    import yaml

    m = _TITLE.search(text)
    try:
        title = yaml.safe_load(m.group(1)) if m else None
    except yaml.YAMLError:
        return None
    return title.strip()[:200] or None if isinstance(title, str) else None


def bundled() -> list[dict]:
    return [{"name": b.name, "title": b.title} for b in bundled_rulesets(include_examples=True)]


def bundled_path(name: str) -> str:
    for b in bundled_rulesets(include_examples=True):
        if b.name == name:
            return b.path
    raise Refused(f"no bundled ruleset is named '{str(name)[:100]}'", 404)


_MODELINE = re.compile(r"# yaml-language-server: \$schema=(\S+)[^\n]*\n")


def _schema_from_here(text: str) -> str:
    """A bundled ruleset's first line names the schema by a path from the bundled folder (../../schema/...), which
    names nothing beside a copy: the copy names the installed schema file by its whole path (an editor's YAML support
    reads it from there), or loses the line when the schema is no file on disk."""
    line = _MODELINE.match(text)
    if line is None or not line.group(1).startswith("."):
        return text
    try:
        path = os.fspath(resources.files("rulecraft.schema").joinpath("ruleset.schema.json"))
    except TypeError:  # (a package read from a zip)
        return text[line.end():]
    return f"# yaml-language-server: $schema={path}\n" + text[line.end():] if os.path.isfile(path) else text[line.end():]


def bundled_text(name: str) -> str:
    with open(bundled_path(name), encoding="utf-8") as fh:
        return fh.read()


KEPT = "your text is kept in the editor only: save it under another name, or mend the cause and save again"


def _unencodable(text: str) -> str:
    """'a lone surrogate (U+D800) at line L, column C' when `text` cannot be written as UTF-8 (JSON can carry one
    that no file can hold), else ''."""
    try:
        text.encode("utf-8")
        return ""
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        col = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
        return f"a lone surrogate (U+{ord(text[exc.start]):04X}) at line {line}, column {col}"


def _not_utf8(path: str) -> str:
    """'line L, column C' of the first byte of the file at `path` that is not UTF-8, else '' (or no such file)."""
    try:
        raw = read_regular(path, MAX_FILE, "ruleset file")
    except InputError:
        return ""
    try:
        raw.decode("utf-8")
        return ""
    except UnicodeDecodeError as exc:
        line, start = raw.count(b"\n", 0, exc.start) + 1, raw.rfind(b"\n", 0, exc.start) + 1
        return f"line {line}, column {exc.start - start + 1}"


def _is_ruleset(path: str, head: int = 8000) -> bool:
    """Whether the file's first `head` characters hold a top-level 'ruleset:' or 'extends:' (the list looks at the
    head only; a save looks at the whole file, so a long leading comment never keeps a ruleset from being saved)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return RULESET_MARK.search(fh.read(head)) is not None
    except OSError:
        return False
