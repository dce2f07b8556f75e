"""Pass 3: resolve `extends:` chains and apply a variant's edits to its parent, keeping every span.

A variant file may only extend a ruleset in its own folder (or below it) or a bundled one,
so a downloaded ruleset cannot make the loader read arbitrary files.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import stat
from typing import Optional

from ..bundled import bundled_root, bundled_rulesets
from ..diagnostics import Diagnostic, SourceCache, did_you_mean, error
from .yaml_source import Limits, YMap, YNode, YScalar, YSeq, load_file

MAX_DEPTH = 16
MAPPING_SECTIONS = (
    "parameters", "options", "tables", "zones", "variables", "player_variables", "card_variables",
    "modifiers", "events", "dice", "sequences", "metrics", "functions",
)
MERGED_MAPS = ("players", "scoring", "view")
BODY_KEYS = ("then", "else", "do", "repeat", "on_play", "resolve")


def _allowed(path: str, base_dir: str) -> bool:
    real = os.path.realpath(path)
    roots = [os.path.realpath(base_dir), os.path.realpath(bundled_root())]
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def _not_a_file(path: str) -> Optional[str]:
    """Why `path` cannot be a parent ruleset although something is there, or None (a plain file, or nothing)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "it is a loop of symbolic links"
        if exc.errno == errno.ENOENT:
            return "it is a symbolic link to nothing" if os.path.islink(path) else None
        return f"it cannot be looked at ({exc.strerror or exc})"
    for test, what in ((stat.S_ISREG, None), (stat.S_ISDIR, "it is a folder"), (stat.S_ISFIFO, "it is a FIFO (a named pipe)"),
                       (stat.S_ISCHR, "it is a device"), (stat.S_ISBLK, "it is a device"), (stat.S_ISSOCK, "it is a socket")):
        if test(mode):
            return what
    return "it is not a plain file"


def _find_parent(ref: str, child_path: str) -> tuple[Optional[str], Optional[str]]:
    """The parent's path, or (None, reason): 'outside', 'missing', or why what is there is no file to read."""
    base = os.path.dirname(os.path.abspath(child_path))
    if ref.endswith((".yaml", ".yml")) or "/" in ref or os.sep in ref:
        path = os.path.normpath(os.path.join(base, ref))
        if not _allowed(path, base):
            return None, "outside"
        if not ref.endswith((".yaml", ".yml")):
            return None, "its name does not end in .yaml or .yml"
        return (path, None) if os.path.isfile(path) else (None, _not_a_file(path) or "missing")
    for cand in (os.path.join(base, ref + ".yaml"), os.path.join(base, ref + ".yml")):
        if os.path.lexists(cand) and not os.path.isfile(cand):
            return None, _not_a_file(cand) or "missing"
        if os.path.isfile(cand):
            if not _allowed(cand, base):  # a symlink in the folder that leads out of it
                return None, "outside"
            return cand, None
    for b in bundled_rulesets():
        if b.name == ref:
            return b.path, None
    return None, "missing"


def _sibling_names(child_path: str, ref: str) -> list[str]:
    """The ruleset files next to the child, written the way `ref` is (with or without '.yaml')."""
    base = os.path.dirname(os.path.abspath(child_path))
    try:
        me = os.path.basename(child_path)
        files = [f for f in os.listdir(base) if f.endswith((".yaml", ".yml")) and f != me]
    except OSError:
        return []
    if ref.endswith((".yaml", ".yml")):
        return files
    return [os.path.splitext(f)[0] for f in files]


def resolve_extends(root: YMap, path: str, sources: SourceCache, limits: Limits,
                    _stack: tuple[str, ...] = (), _read: int = 0) -> tuple[Optional[YMap], list[Diagnostic]]:
    """The ruleset with its ancestors merged in; `__lineage__` lists the files used.

    The parents of a ruleset are read as one file: together at most `limits.max_file_bytes` (`_read`: the bytes of
    those read so far). Each file's limit alone let a chain of 16 read 16 times as much (session 19: 10 MB of
    variants, each within the limit, took 37 s of processor and 2.3 GB to validate)."""
    from .schema import validate_schema

    diags: list[Diagnostic] = []
    stack = _stack + (os.path.realpath(path),)
    ext = root.get("extends")
    if ext is None:
        return _with_lineage(root, [path]), diags
    ref = str(ext.plain())
    if len(stack) > MAX_DEPTH:
        return None, [error("E501", f"'extends' chains more than {MAX_DEPTH} files deep", ext.span)]
    parent_path, why = _find_parent(ref, path)
    if parent_path is None:
        if why == "outside":
            return None, [error("E502", f"'extends: {ref}' points outside this ruleset's folder", ext.span,
                                "a variant may extend a file in its own folder or a bundled ruleset")]
        if why != "missing":
            return None, [error("E504", f"'extends: {ref}' is refused: {why}", ext.span,
                                "a parent is a ruleset file (.yaml) in this folder, or a bundled ruleset")]
        names = [b.name for b in bundled_rulesets()] + _sibling_names(path, ref)
        return None, [error("E501", f"cannot find the parent ruleset '{ref}'", ext.span,
                            did_you_mean(ref, names) or "give a bundled name or a path relative to this file")]
    if os.path.realpath(parent_path) in stack:
        chain = " -> ".join(os.path.basename(s) for s in stack + (os.path.realpath(parent_path),))
        return None, [error("E501", f"circular 'extends': {chain}", ext.span, "a ruleset cannot extend itself, even indirectly")]
    left = limits.max_file_bytes - _read
    try:
        size = os.stat(parent_path).st_size
    except OSError:
        size = 0
    if left < size <= limits.max_file_bytes:  # (a file over the limit alone is refused as no ruleset, below)
        return None, [error("E002", f"'extends: {ref}' brings the parents of this ruleset to {_read + size:,} bytes, over "
                                    f"the limit of {limits.max_file_bytes:,} for them together", ext.span,
                            "a ruleset's parents are read as one file: extend a shorter chain, or fewer long files")]
    proot, ptext, pdiags = load_file(parent_path, dataclasses.replace(limits, max_file_bytes=max(left, 0)) if
                                     size <= left else limits)
    refused = _not_a_ruleset(proot, ptext, pdiags)
    if refused:  # a key, a credentials file, a binary: nothing of it is quoted, not a line, not a key
        return None, [error("E504", f"'extends: {ref}' is refused: the file is not a ruleset ({refused})", ext.span,
                            "a parent ruleset starts with 'ruleset: NAME' (or 'extends:'); its content is not shown")]
    diags.extend(pdiags)
    if ptext is not None:
        sources.add(parent_path, ptext)
    if proot is None:
        return None, diags
    diags.extend(validate_schema(proot, parent_path))
    if any(d.is_error for d in diags):
        return None, diags
    merged_parent, more = resolve_extends(proot, parent_path, sources, limits, stack,
                                          _read + len(ptext.encode("utf-8", "surrogatepass")) if ptext else _read + size)
    diags.extend(more)
    if merged_parent is None:
        return None, diags
    lineage = [path] + list(merged_parent.get("__lineage__").plain())  # type: ignore[union-attr]
    merged = merge(merged_parent, root)
    diags.extend(apply_overrides(merged, root.get("overrides")))
    return _with_lineage(merged, lineage), diags


_RULESET_LINE = re.compile(r"^(ruleset|extends)[ \t]*:", re.M)
_WHY = {"E001": "it cannot be read", "E002": "it is larger than the size limit", "E003": "it is not UTF-8 text", "E006": "its aliases expand too far",
        "E007": "it is nested too deep", "E009": "it is not YAML", "E010": "it is empty"}


def not_a_ruleset_file(path: str, limits: Limits) -> Optional[str]:
    """Why the file at `path`, named by someone else's file (a log's header), is no ruleset, in words that quote none
    of it; None for a ruleset. The test `extends:` gives a parent (issue 38: a log naming creds.yaml had its keys
    printed)."""
    why = _not_a_file(path)
    if why:
        return why
    root, text, diags = load_file(path, limits)
    return _not_a_ruleset(root, text, diags)


def _not_a_ruleset(root: Optional[YNode], text: Optional[str], diags: list[Diagnostic]) -> Optional[str]:
    """Why a file named as a parent is no ruleset, in words that quote none of it; None for a ruleset
    (a broken one too: a file with a top-level 'ruleset:' line gets its own diagnostics, quoted as usual)."""
    if root is None and text is not None and _RULESET_LINE.search(text):
        return None
    if root is None:
        codes = [d.code for d in diags if d.is_error]
        return next((_WHY[c] for c in codes if c in _WHY), "it cannot be read as YAML")
    if not isinstance(root, YMap):
        return "it is not a mapping of keys"
    if root.get("ruleset") is None and root.get("extends") is None:
        return "it has no 'ruleset:' key"
    return None


def _with_lineage(m: YMap, lineage: list[str]) -> YMap:
    out = YMap(m.span, dict(m.entries), dict(m.key_spans))
    out.entries["__lineage__"] = YSeq(m.span, [YScalar(m.span, p) for p in lineage])
    return out


def _merge_map(parent: YMap, child: YMap) -> YMap:
    out = YMap(child.span, dict(parent.entries), dict(parent.key_spans))
    for k, v in child.entries.items():
        out.entries[k] = v
        out.key_spans[k] = child.key_spans.get(k, v.span)
    return out


def merge(parent: YMap, child: YMap) -> YMap:
    """The child's top-level keys over the parent's; section entries merge key by key."""
    out = YMap(child.span, dict(parent.entries), dict(parent.key_spans))
    out.entries.pop("__lineage__", None)
    for key, node in child.entries.items():
        if key in ("extends", "overrides"):
            continue
        pnode = parent.get(key)
        if key in MAPPING_SECTIONS and isinstance(node, YMap) and isinstance(pnode, YMap):
            sec = YMap(node.span, dict(pnode.entries), dict(pnode.key_spans))
            for ek, ev in node.entries.items():
                pe = pnode.get(ek)
                merged_entry = _merge_map(pe, ev) if isinstance(pe, YMap) and isinstance(ev, YMap) else ev
                if key == "tables" and isinstance(pe, YMap) and isinstance(ev, YMap):
                    # a variant that names some rows of a table changes those rows, and keeps the others
                    prows, crows = pe.get("rows"), ev.get("rows")
                    if isinstance(prows, YMap) and isinstance(crows, YMap):
                        merged_entry.entries["rows"] = _merge_map(prows, crows)
                sec.entries[ek] = merged_entry
                sec.key_spans[ek] = node.key_span(ek)
            out.entries[key] = sec
        elif key in MERGED_MAPS and isinstance(node, YMap) and isinstance(pnode, YMap):
            out.entries[key] = _merge_map(pnode, node)
        elif key == "triggers" and isinstance(node, YSeq) and isinstance(pnode, YSeq):
            out.entries[key] = _merge_by_id(pnode, node)
        else:
            out.entries[key] = node
        out.key_spans[key] = child.key_span(key)
    return out


def _merge_by_id(parent: YSeq, child: YSeq) -> YSeq:
    items = list(parent.items)
    index = {_id(n): i for i, n in enumerate(items) if _id(n)}
    for n in child.items:
        i = index.get(_id(n)) if _id(n) else None
        if i is None:
            items.append(n)
        else:
            items[i] = n
    return YSeq(child.span, items)


def _id(node: YNode) -> Optional[str]:
    if isinstance(node, YMap) and isinstance(node.get("id"), YScalar):
        return str(node.get("id").value)  # type: ignore[union-attr]
    return None


def _find_step(steps: YSeq, step_id: str) -> Optional[tuple[YSeq, int]]:
    for i, n in enumerate(steps.items):
        if _id(n) == step_id:
            return steps, i
        if isinstance(n, YMap):
            for key in BODY_KEYS:
                body = n.get(key)
                if isinstance(body, YSeq):
                    hit = _find_step(body, step_id)
                    if hit:
                        return hit
            for form in ("stack",):
                inner = n.get(form)
                if isinstance(inner, YMap):
                    for key in BODY_KEYS:
                        body = inner.get(key)
                        if isinstance(body, YSeq):
                            hit = _find_step(body, step_id)
                            if hit:
                                return hit
    return None


def _all_step_ids(steps: YSeq) -> list[str]:
    out = []
    for n in steps.items:
        if _id(n):
            out.append(_id(n))
        if isinstance(n, YMap):
            for key in BODY_KEYS:
                if isinstance(n.get(key), YSeq):
                    out.extend(_all_step_ids(n.get(key)))
    return out


def _new_steps(node: Optional[YNode]) -> list[YNode]:
    if node is None:
        return []
    return list(node.items) if isinstance(node, YSeq) else [node]


def apply_overrides(merged: YMap, overrides: Optional[YNode]) -> list[Diagnostic]:
    """Edit steps (replace, insert, remove) and section entries of the merged ruleset in place."""
    diags: list[Diagnostic] = []
    if not isinstance(overrides, YSeq):
        return diags
    seqs = merged.get("sequences")
    if isinstance(seqs, YMap):  # copy what we edit so the parent's tree is left alone
        seqs = YMap(seqs.span, {k: _deep_copy(v) for k, v in seqs.entries.items()}, dict(seqs.key_spans))
        merged.entries["sequences"] = seqs
    for op in overrides.items:
        if not isinstance(op, YMap):
            continue
        if op.get("remove_entry") is not None:
            target = str(op.get("remove_entry").plain())
            section, _, key = target.partition(".")
            sec = merged.get(section)
            if section == "triggers" and isinstance(sec, YSeq):
                kept = [t for t in sec.items if _id(t) != key]
                if len(kept) == len(sec.items):
                    diags.append(error("E503", f"no trigger with the id '{key}' to remove", op.get("remove_entry").span,
                                       did_you_mean(key, [i for i in map(_id, sec.items) if i])))
                else:
                    merged.entries["triggers"] = YSeq(sec.span, kept)
                continue
            if not isinstance(sec, YMap) or key not in sec.entries:
                keys = list(sec.entries) if isinstance(sec, YMap) else list(MAPPING_SECTIONS)
                diags.append(error("E503", f"nothing to remove at '{target}'", op.get("remove_entry").span,
                                   did_you_mean(key if isinstance(sec, YMap) else section, keys)))
                continue
            sec = YMap(sec.span, dict(sec.entries), dict(sec.key_spans))
            del sec.entries[key]
            merged.entries[section] = sec
            continue
        verb = next((v for v in ("replace", "insert_before", "insert_after", "remove", "update") if op.get(v) is not None),
                    None)
        if verb is None:
            continue
        tnode = op.get(verb)
        target = str(tnode.plain())
        seq_id, _, step_id = target.partition(".")
        seq = seqs.get(seq_id) if isinstance(seqs, YMap) else None
        if not isinstance(seq, YMap) or not step_id:
            names = list(seqs.entries) if isinstance(seqs, YMap) else []
            if step_id and not isinstance(seq, YMap):
                diags.append(error("E503", f"'{target}': there is no sequence '{seq_id}'", tnode.span,
                                   did_you_mean(seq_id, names) or "sequences: " + ", ".join(names)))
                continue
            diags.append(error("E503", f"'{target}' does not name a step: write SEQUENCE.STEP_ID", tnode.span,
                               did_you_mean(seq_id, names) if not isinstance(seq, YMap) else None))
            continue
        steps = seq.get("steps")
        hit = _find_step(steps, step_id) if isinstance(steps, YSeq) else None
        if hit is None:
            ids = _all_step_ids(steps) if isinstance(steps, YSeq) else []
            diags.append(error("E503", f"sequence '{seq_id}' has no step with the id '{step_id}'", tnode.span,
                               did_you_mean(step_id, ids) or "only steps with an 'id:' can be edited by a variant"))
            continue
        body, i = hit
        if verb == "update":
            step = body.items[i]
            changes = op.get("set")
            if not isinstance(step, YMap):
                diags.append(error("E503", f"step '{target}' is a plain string: replace it instead", tnode.span))
            elif isinstance(changes, YMap):
                body.items[i] = _deep_merge(step, changes)
            continue
        new = _new_steps(op.get("with") if verb == "replace" else op.get("steps"))
        if verb == "replace":
            body.items[i:i + 1] = new
        elif verb == "insert_before":
            body.items[i:i] = new
        elif verb == "insert_after":
            body.items[i + 1:i + 1] = new
        else:
            del body.items[i]
    return diags


def _deep_merge(base: YMap, changes: YMap) -> YMap:
    """`base` with `changes` laid over it: nested mappings merge key by key, anything else is replaced."""
    out = YMap(base.span, dict(base.entries), dict(base.key_spans))
    for k, v in changes.entries.items():
        old = base.get(k)
        out.entries[k] = _deep_merge(old, v) if isinstance(old, YMap) and isinstance(v, YMap) else v
        out.key_spans[k] = changes.key_span(k)
    return out


def _deep_copy(node: YNode) -> YNode:
    if isinstance(node, YMap):
        return YMap(node.span, {k: _deep_copy(v) for k, v in node.entries.items()}, dict(node.key_spans))
    if isinstance(node, YSeq):
        return YSeq(node.span, [_deep_copy(v) for v in node.items])
    return node
