"""The editor's text not saved yet, kept by the studio so that a page reloaded (its "leave the page?" answered yes),
a browser that crashed or a studio started again loses nothing (session 18: all three lost the text). A page's own
storage would not do: it is kept per address, and a studio started again listens on another port.

A draft is `.rulecraft/drafts/HASH.json` under the studio's folder (HASH: of the ruleset's path in the folder),
readable by its owner only, written through the one writer (`rulecraft.files.replace_file`): `{path, base, text,
time}`, `base` the digest of the file on disk the text was typed over. The page sends its text a moment after the
typing settles and `null` once the text is the file's again; a save drops it. As with the games
(`play/gamefolder.py`), `.rulecraft` and its `drafts` must be real folders of the studio's folder: a link (a zip or
a git clone carries them) is never written through."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import time

from rulecraft.files import InputError, OutputError, read_regular, replace_file

DRAFTS = (".rulecraft", "drafts")
DIGEST = re.compile(r"[0-9a-f]{64}")  # a file's SHA-256 as `rulecraft.files.file_digest` writes it
MAX_DRAFTS = 200  # files with a draft at once: a page cannot fill the disk one path at a time
DRAFT_NAME = re.compile(r"[0-9a-f]{32}\.json")  # as `_name` names a draft
MAX_LOOKED_AT = 10_000  # entries of the drafts' folder looked at when they are counted


class DraftError(Exception):
    """A draft that cannot be kept: the sentence says why."""


def _home(root: str) -> str:
    """The drafts' folder, made when missing; DraftError when a part of it is a link or not a folder."""
    path = root
    for part in DRAFTS:
        path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            os.mkdir(path, 0o700)
            continue
        if not stat.S_ISDIR(st.st_mode):
            kind = "a link" if stat.S_ISLNK(st.st_mode) else "not a folder"
            raise DraftError(f"{os.path.relpath(path, root)} is {kind}: the text not saved is kept only in a folder "
                             f"of the studio's folder")
    return path


def _name(rel: str) -> str:
    return hashlib.sha256(rel.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".json"


def keep(root: str, rel: str, text: str | None, base: str | None) -> None:
    """Keep `text` as the draft of the ruleset `rel` (a path of the folder, checked by the caller), typed over the
    file whose digest is `base`; `None`: the text is the file's again, and its draft goes."""
    if text is None:
        drop(root, rel)
        return
    try:
        home = _home(root)
        path = os.path.join(home, _name(rel))
        if not os.path.lexists(path) and _count(home) >= MAX_DRAFTS:
            raise DraftError(f"{MAX_DRAFTS} files already have text not saved kept: save or discard some first")
        data = json.dumps({"path": rel, "base": base, "text": text, "time": time.time()}, ensure_ascii=False)
        replace_file(path, data.encode("utf-8", "surrogatepass"), private=True)
    except OutputError as exc:
        raise DraftError(exc.message.replace(root + os.sep, "")) from None
    except OSError as exc:
        raise DraftError(f"{(exc.strerror or str(exc)).lower()}") from None


def _count(home: str) -> int:
    """The drafts in `home`, up to MAX_DRAFTS: files named as `_name` names them. Other files (a folder from
    elsewhere, temporary files a killed studio left) are not drafts, and made every draft refused (session 19);
    at most MAX_LOOKED_AT entries are looked at, so a folder of millions costs no more."""
    found = 0
    with os.scandir(home) as entries:
        for i, entry in enumerate(entries):
            if found >= MAX_DRAFTS or i >= MAX_LOOKED_AT:
                break
            if DRAFT_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                found += 1
    return found


def drop(root: str, rel: str) -> None:
    """The draft of `rel` removed (saved, or discarded); nothing when there is none. Only a draft of the studio's own
    folders is removed: when `.rulecraft` or its `drafts` is a link (a folder from elsewhere), nothing is removed
    through it (session 19: a save removed a file of the folder the link led to). A draft that cannot be removed
    (a folder in its place) is let be: the file was saved, and a draft whose text is the file's is shown to nobody."""
    path = root
    for part in DRAFTS:
        path = os.path.join(path, part)
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return
        except OSError:
            return
    try:
        os.unlink(os.path.join(path, _name(rel)))
    except OSError:
        pass


def find(root: str, rel: str, limit: int) -> dict | None:
    """`{text, base, time}` of the draft of `rel`, or None: none kept, or one that cannot be read (a file from
    elsewhere: another path's, not a regular file, not JSON of that shape)."""
    try:
        home = os.path.join(root, *DRAFTS)
        for folder in (os.path.join(root, DRAFTS[0]), home):
            if os.path.islink(folder):
                return None
        # goes_on: the studio writes this draft again as the typing goes on (read as an input of the process, every
        # later keep of it was refused as "an input of this command", and the text typed after a reload was lost)
        got = json.loads(read_regular(os.path.join(home, _name(rel)), 2 * limit + 1000, "draft", goes_on=True))
    except (InputError, OSError, ValueError, RecursionError):
        return None
    if not (isinstance(got, dict) and got.get("path") == rel and isinstance(got.get("text"), str)
            and (got.get("base") is None or isinstance(got["base"], str) and DIGEST.fullmatch(got["base"]))
            and isinstance(got.get("time"), (int, float)) and math.isfinite(got["time"])):
        return None  # session 19: a time of NaN or 1e999 (no JSON) kept the file from opening
    return {"text": got["text"], "base": got["base"], "time": got["time"]}
