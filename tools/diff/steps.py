"""The sequences part of `rulecraft diff`: steps matched by id and content, named by their sheet numbers.

Matching, for each sequence both rulesets have:
1. a step with an `id` is matched by it, wherever it is in the sequence;
2. the steps without one are matched block by block (the steps of a sequence, of a `then`, a loop's body ...,
   inside two steps already matched): runs of steps with the same content are aligned as `diff(1)` aligns
   lines, and where the two sides differ between such runs, a step is matched with the most alike step of
   the same form on the other side (its text at least half the same);
3. a step left over on both sides with exactly the same content (nested steps included) has **moved**.
What is still left was removed (from A) or added (in B).

A matched step has changed when its own fields differ (form, statements, condition, call, decision, label,
note, source). The changes inside a changed step are told as part of it (one difference); a step that did
not change itself reports the changes inside it on their own. Steps are named by the numbers the sheets and
the book give them (`2.c`, `2.c.i`), with their id when they have one.
"""

from __future__ import annotations

import difflib
from typing import Optional

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import NO_KIND, StepKind, kind_of, of_step

from rulecraft.tools.diff.align import opcodes
from rulecraft.tools.diff.values import Change, Diff, SequenceChanges, _ast_form, _fields_diff, _plain, show
from rulecraft.tools.chart.sheetplan import step_numbers

def _kind(s: M.Step) -> StepKind:
    return kind_of(s) or NO_KIND


def _form(s: M.Step) -> str:
    """The word a step's form is named by: its kind's `form`, else its key ('do', 'loop', 'auction', 'unless')."""
    kind = _kind(s)
    return kind.form or kind.key


def _stmts_text(stmts) -> str:
    """The text of a step's statements (a quoted string gives each statement the whole text)."""
    seen: list[str] = []
    for st in stmts:
        if st.text not in seen:
            seen.append(st.text)
    return "; ".join(seen)


class _Stmts:
    """A step's statements: compared by their syntax trees, shown as their text."""

    def __init__(self, stmts):
        self.text = _stmts_text(stmts)
        self.form = tuple(_ast_form(st.ast) for st in stmts)

    def __eq__(self, other):
        return isinstance(other, _Stmts) and self.form == other.form

    def __hash__(self):
        return hash(self.form)

    def __repr__(self):
        return repr(self.text)


def _decision_fields(d: Optional[M.DecisionSpec], prefix: str = "") -> dict:
    if d is None:
        return {}
    return {f"{prefix}player": d.player, f"{prefix}kind": d.kind, f"{prefix}options": d.options,
            f"{prefix}min": d.min, f"{prefix}max": d.max, f"{prefix}prompt": d.prompt, f"{prefix}as": d.bind,
            f"{prefix}default": d.default, f"{prefix}optional": d.optional}


def step_fields(s: M.Step) -> dict:
    """What makes a step what it is (not its nested steps): its form, what its kind says it is made of (statements,
    condition, call, decision, a construct's settings), label, note and source."""
    kind = _kind(s)
    f: dict = {"form": _form(s)}
    for name, value in kind.fields(s):
        if isinstance(value, M.DecisionSpec):  # its settings, each a field ('player', or 'choice player' ...)
            f.update(_decision_fields(value, f"{name} " if name else ""))
        elif isinstance(value, tuple) and all(isinstance(x, M.CStmt) for x in value):  # statements: by their syntax
            f[name] = _Stmts(value)
        else:
            f[name] = value
    # a step written as text has its text as label: only a label of its own counts
    text = kind.text(s) if kind.text_label else ""
    f["label"] = s.label if s.label and "".join(s.label.split()) != "".join(text.split()) else ""
    f["note"] = s.note
    f["source"] = s.source
    return f


def step_summary(s: M.Step) -> str:
    """One line saying what a step does: its label (a step labelled with its text: what it does), else its kind's
    summary, else its form."""
    kind = _kind(s)
    if s.label and not kind.text_label:
        return s.label
    return kind.summary(s) if kind.summary is not None else _form(s)


def _walk(steps, parent=None):
    for s in steps:
        yield s, parent
        for _name, body in s.bodies:
            yield from _walk(body, s)


def _frozen(v):
    """A hashable form of a compared value (for aligning blocks of steps)."""
    if isinstance(v, _Stmts):
        return ("statements", v.form)
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _frozen(x)) for k, x in v.items())
    return v


def _own(s: M.Step) -> tuple:
    return tuple((k, _frozen(_plain(v))) for k, v in step_fields(s).items())


def _deep(s: M.Step) -> tuple:
    return (_own(s), tuple((name, tuple(_deep(c) for c in body)) for name, body in s.bodies))


def _count(s: M.Step) -> int:
    return sum(1 for _ in _walk([s])) - 1


def match_steps(sa: M.SequenceDef, sb: M.SequenceDef) -> tuple[dict[str, str], set[str]]:
    """(A step path -> B step path for every matched step, the A paths of the steps that moved)."""
    ids_a = {s.id: s for s, _p in _walk(sa.steps) if s.explicit_id}
    ids_b = {s.id: s for s, _p in _walk(sb.steps) if s.explicit_id}
    pairs: dict[str, str] = {}
    queue: list[tuple] = [(sa.steps, sb.steps)]
    for k in ids_a:
        if k in ids_b:
            pairs[ids_a[k].path] = ids_b[k].path
            queue.append((ids_a[k], ids_b[k]))
    while queue:
        x, y = queue.pop(0)
        if isinstance(x, M.Step):  # a matched pair: align each of their blocks
            other = dict(y.bodies)
            queue.extend((body, other.get(name, ())) for name, body in x.bodies)
            continue
        la = [s for s in x if not s.explicit_id]
        lb = [s for s in y if not s.explicit_id]
        for tag, i1, i2, j1, j2 in opcodes([_deep(s) for s in la], [_deep(s) for s in lb]):
            if tag == "equal":
                found = list(zip(la[i1:i2], lb[j1:j2]))
            elif tag == "replace":
                found = _alike(la[i1:i2], lb[j1:j2])
            else:
                found = []
            for s, t in found:
                pairs[s.path] = t.path
                queue.append((s, t))
    # what is left on both sides with the same content has moved (its nested steps with it); looked up by
    # content, each step's content worked out once (a scan per step was quadratic: hours for 40,000 steps)
    taken = set(pairs.values())
    left_b: dict[tuple, list] = {}
    for t, _p in _walk(sb.steps):
        if t.path not in taken and not t.explicit_id:
            left_b.setdefault(_deep(t), []).append(t)
    moved: set[str] = set()
    for s, parent in _walk(sa.steps):
        if s.path in pairs or s.explicit_id or (parent is not None and parent.path not in pairs):
            continue
        same = left_b.get(_deep(s), [])
        while same and same[0].path in taken:
            same.pop(0)
        t = same[0] if same else None
        if t is None:
            continue
        for (x, _px), (y, _py) in zip(_walk([s]), _walk([t])):
            pairs[x.path] = y.path
            taken.add(y.path)
        moved.add(s.path)
    return pairs, moved


ALIKE_PAIRS = 20_000  # at most this many pairs of steps are compared in one changed stretch


def _alike(xs: list, ys: list) -> list[tuple]:
    """Pairs of steps of the same form whose texts are most alike (at least half the same), best first.

    Every step against every other in a short stretch; in a long one (thousands of steps changed) each step only
    against those near its own place, so the work stays within ALIKE_PAIRS comparisons whatever the sizes."""
    scored = []
    texts_x, texts_y = [step_summary(s) for s in xs], [step_summary(t) for t in ys]
    # of the same form: of one model class (a loop whichever form wrote it, a construct with any other)
    forms_x, forms_y = [of_step(s) for s in xs], [of_step(t) for t in ys]
    reach = max(1, ALIKE_PAIRS // max(1, len(xs)) // 2)
    for i in range(len(xs)):
        near = round(i * len(ys) / len(xs)) if xs else 0
        lo, hi = (0, len(ys)) if len(xs) * len(ys) <= ALIKE_PAIRS else (max(0, near - reach), min(len(ys), near + reach + 1))
        for j in range(lo, hi):
            if forms_x[i] == forms_y[j]:
                m = difflib.SequenceMatcher(None, texts_x[i], texts_y[j], autojunk=False)
                if m.real_quick_ratio() >= 0.5 and m.quick_ratio() >= 0.5 and (r := m.ratio()) >= 0.5:
                    scored.append((-r, i, j))
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    for _r, i, j in sorted(scored):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            out.append((i, xs[i], ys[j]))
    return [(x, y) for _i, x, y in sorted(out, key=lambda p: p[0])]


def _name(s: M.Step, num: str) -> str:
    return f"step {num} ({s.id})" if s.explicit_id else f"step {num}"


def _id(s: M.Step) -> str:
    return s.id if s.explicit_id else ""


def _nested(n: int) -> str:
    return f" (with {n} nested step{'s' if n != 1 else ''})" if n else ""


def sequence_changes(a: M.Ruleset, b: M.Ruleset, diff: Diff) -> list[Change]:
    out: list[Change] = []
    for how, mine, other in (("removed", a, b), ("added", b, a)):
        for sid, seq in mine.sequences.items():
            if sid in other.sequences:
                continue
            steps = [s.path for s, _p in _walk(seq.steps)]
            out.append(Change("Sequences", how, f"sequence {sid}",
                              (f"kind {seq.kind}, {len(steps)} steps" + (f": {seq.title}" if seq.title else ""),),
                              sid))
            diff.sequences[sid] = SequenceChanges(how, **{how: set(steps)})
    for sid, sa in a.sequences.items():
        sb = b.sequences.get(sid)
        if sb is not None:
            out += _one_sequence(sid, sa, sb, diff, (a, b))
    return out


def sheet_numbers(rs: M.Ruleset, seq: M.SequenceDef) -> dict[str, str]:
    """The steps' numbers as the players' sheets print them (bookkeeping steps are not on the sheets and take no
    number; such a step is named by its number in the full view, `--detail full`)."""
    from rulecraft.tools.words.bookkeeping import hidden_step

    full = step_numbers(seq)
    shown = step_numbers(seq, lambda s: hidden_step(rs, s))
    return {p: shown.get(p) or f"{n} in the full view" for p, n in full.items()}


def _one_sequence(sid: str, sa: M.SequenceDef, sb: M.SequenceDef, diff: Diff, rulesets: tuple) -> list[Change]:
    out: list[Change] = []
    head = _fields_diff({"kind": sa.kind, "title": sa.title, "params": list(sa.params), "source": sa.source,
                         "doc": sa.doc},
                        {"kind": sb.kind, "title": sb.title, "params": list(sb.params), "source": sb.source,
                         "doc": sb.doc})
    if head:
        out.append(Change("Sequences", "changed", f"sequence {sid}", tuple(head), sid))
    pairs, moved = match_steps(sa, sb)
    num_a, num_b = sheet_numbers(rulesets[0], sa), sheet_numbers(rulesets[1], sb)  # as the sheets number them
    steps_a = {s.path: (s, p) for s, p in _walk(sa.steps)}
    steps_b = {s.path: (s, p) for s, p in _walk(sb.steps)}
    back = {y: x for x, y in pairs.items()}
    sc = SequenceChanges(pairs=dict(pairs))
    sc.removed = {p for p in steps_a if p not in pairs}
    sc.added = {p for p in steps_b if p not in back}
    moved_inside = {x.path for p in moved for x, _ in _walk([steps_a[p][0]])}
    own = {y: _fields_diff(step_fields(steps_a[x][0]), step_fields(steps_b[y][0]))
           for x, y in pairs.items() if x not in moved_inside}
    own = {y: d for y, d in own.items() if d}
    sc.changed = set(own) | {pairs[p] for p in moved}

    def holder(path_b: Optional[str]) -> Optional[str]:
        """The nearest step around (B side) that changed itself: it tells what changed inside it."""
        while path_b is not None:
            if path_b in own:
                return path_b
            parent = steps_b[path_b][1]
            path_b = parent.path if parent is not None else None
        return None

    inner: dict[str, list[str]] = {}
    changes: list[tuple[str, Change]] = []  # (B path or A path for ordering, change)

    def report(path_b_parent: Optional[str], line: str, change: Change, order: str) -> None:
        h = holder(path_b_parent)
        if h is not None:
            inner.setdefault(h, []).append(line)
        else:
            changes.append((order, change))

    for p, (s, parent) in steps_a.items():
        if p in sc.removed and (parent is None or parent.path not in sc.removed):
            text = step_summary(s) + _nested(_count(s))
            pb = pairs.get(parent.path) if parent is not None else None
            report(pb, f"removed {_name(s, num_a[p])} (numbered as in A): {text}",
                   Change("Sequences", "removed", _name(s, num_a[p]), (text,), sid, num_a[p], "", _id(s)), "a" + p)
    for p, (s, parent) in steps_b.items():
        if p in sc.added and (parent is None or parent.path not in sc.added):
            text = step_summary(s) + _nested(_count(s))
            report(parent.path if parent is not None else None, f"added {_name(s, num_b[p])}: {text}",
                   Change("Sequences", "added", _name(s, num_b[p]), (text,), sid, "", num_b[p], _id(s)), "b" + p)
    for x in sorted(moved):
        s, t = steps_a[x][0], steps_b[pairs[x]][0]
        text = f"now {num_b[t.path]}, otherwise unchanged: {step_summary(t)}"
        parent = steps_b[t.path][1]
        report(parent.path if parent is not None else None, f"moved {_name(s, num_a[x])}: {text}",
               Change("Sequences", "moved", _name(s, num_a[x]), (text,), sid, num_a[x], num_b[t.path], _id(s)),
               "b" + t.path)
    for y, d in own.items():
        parent = steps_b[y][1]
        if holder(parent.path if parent is not None else None) is not None:
            t = steps_b[y][0]
            inner.setdefault(holder(parent.path), []).extend(f"{_name(t, num_b[y])}: {ln}" for ln in d)
    for y, d in own.items():
        parent = steps_b[y][1]
        if holder(parent.path if parent is not None else None) is None:
            t = steps_b[y][0]
            changes.append(("b" + y, Change("Sequences", "changed", _name(t, num_b[y]), tuple(d + inner.get(y, [])),
                                            sid, num_a[back[y]], num_b[y], _id(t))))
    order = {p: i for i, p in enumerate(["a" + p for p in steps_a] + ["b" + p for p in steps_b])}
    whats = {"removed": 0, "added": 1, "moved": 2, "changed": 3}
    changes.sort(key=lambda c: (whats[c[1].what], order.get(c[0], 0)))
    out += [c for _o, c in changes]
    if head or sc.added or sc.removed or sc.changed:
        sc.status = "changed"
    diff.sequences[sid] = sc
    return out


__all__ = ["match_steps", "sequence_changes", "step_fields", "step_summary", "show"]
