"""A game's state to JSON and back, copies for search bots, and a hash for replay checkpoints."""

from __future__ import annotations

import hashlib
import json
from ..values import ZoneRef
from .codec import Decoder, encode  # noqa: F401 - encode is read from here too
from .decisions import Decision
from .game import Frame, Game
from .knowledge import known_json, known_from_json

FORMAT = 1


def to_json(g) -> dict:
    """The whole game state as JSON-ready data."""
    data = {
        "format": FORMAT,
        "ruleset": g.rs.name,
        "players": [p.name for p in g.players],
        "seed": g.seed,
        "rng": g.rng.state,
        "zones": [[r.zone, encode(r.key), [c.id for c in cards]] for r, cards in g.zones.items()],
        "dynamic": dict(g.dynamic),
        "vars": {k: encode(v) for k, v in g.vars.items()},
        "pvars": [{k: encode(v) for k, v in pv.items()} for pv in g.pvars],
        "marks": {cid: {k: encode(v) for k, v in m.items()} for cid, m in g.marks.items()},
        "modifiers": [list(m) for m in g.modifiers],
        "frames": [
            {"seq": f.seq, "pc": f.pc, "sub": f.sub, "id": f.id,
             "locals": {k: encode(v) for k, v in f.locals.items()},
             "deferred": [[s, {k: encode(x) for k, x in a.items()}] for s, a in f.deferred]}
            for f in g.frames
        ],
        "frame_counter": g.frame_counter,
        "pending": _decision_json(g.pending),
        "over": g.over,
        "winners": g.winners,
        "scores": encode(g.scores),
        "steps": g.steps,
        "decisions": g.decisions,
    }
    known = known_json(g)
    if known:  # only when a seat was shown cards, so a game without 'show' hashes as it always did
        data["known"] = known
    if g.tallies:  # only when there are some, so a game without metrics hashes as it always did
        data["tallies"] = {m: [[k, *v] for k, v in per_key.items()] for m, per_key in g.tallies.items()}
    _within_size(data)
    return data


MAX_STATE_SIZE = 40_000_000  # texts' characters plus values in the whole state; a save is read back to 50 MB


def _within_size(data: dict) -> None:
    """Raise a RuleError when the state, written out, would pass MAX_STATE_SIZE. Each value of a game is bounded
    (dsl/guards.py: 100,000 values and 1,000,000 characters of texts, counted at every reference), but many
    variables each holding such a value add up: a save or a checkpoint hash would write them all out."""
    total, stack = 0, [data]
    pop, push = stack.pop, stack.extend
    while stack:
        x = pop()
        t = type(x)
        if t is str:
            total += len(x)
        elif t is list:
            total += len(x)
            push(x)
        elif t is dict:
            total += len(x)
            push(x.values())
        if total > MAX_STATE_SIZE:
            from ..diagnostics import RuleError  # noqa: PLC0415 - only on this rare path
            raise RuleError(f"the game's state has grown past {MAX_STATE_SIZE:,} characters and values in all: "
                            "too big to save or to check", None,
                            "many variables each hold a long list or text: keep fewer, or shorter ones")


def _decision_json(d: Decision | None):
    if d is None:
        return None
    out = {"player": d.player, "kind": d.kind, "prompt": d.prompt, "options": encode(d.options), "min": d.min,
           "max": d.max, "default": d.default, "node": d.node, "purpose": d.purpose, "optional": d.optional}
    if d.secret:  # only when it is, so a game without secrets hashes as it always did
        out["secret"] = True
    if d.labels:  # only when there are some, so a game without display names hashes as it always did
        out["labels"] = list(d.labels)
    return out


def from_json(ruleset, data: dict, **game_kwargs):
    """A game restored from `to_json` data; it continues exactly as the saved one would."""
    if data.get("format") != FORMAT:
        raise ValueError(f"saved game format {data.get('format')!r} is not {FORMAT}")
    if data.get("ruleset") != ruleset.name:
        raise ValueError(f"the saved game is of '{data.get('ruleset')}', not '{ruleset.name}'")
    names = data["players"]
    g = Game(ruleset, len(names), data["seed"], names=names, start=False, **game_kwargs)
    dec = Decoder(ruleset, g.players)
    g.rng.state = data["rng"]
    g.zones = {}
    g.where = {}
    for zone, key, ids in data["zones"]:
        ref = ZoneRef(zone, dec(key))
        g.zones[ref] = [dec.cards[i] for i in ids]
        for c in g.zones[ref]:
            g.where[c.index] = ref
    g.dynamic = dict(data["dynamic"])
    g.vars = {k: dec(v) for k, v in data["vars"].items()}
    g.pvars = [{k: dec(v) for k, v in pv.items()} for pv in data["pvars"]]
    g.marks = {cid: {k: dec(v) for k, v in m.items()} for cid, m in data["marks"].items()}
    g.modifiers = [list(m) for m in data["modifiers"]]
    g.lapsing = any(isinstance(m[3], str) for m in g.modifiers)  # 'until next KIND' (Game.push)
    g.frames = []
    for fd in data["frames"]:
        seq = ruleset.sequences[fd["seq"]]
        f = Frame(fd["seq"], seq.kind, {k: dec(v) for k, v in fd["locals"].items()}, fd["id"])
        f.pc, f.sub = fd["pc"], fd["sub"]
        f.deferred = [(s, {k: dec(x) for k, x in a.items()}) for s, a in fd["deferred"]]
        g.frames.append(f)
    owners = {m[3] for m in g.modifiers}
    for f in g.frames:
        f.mods = f.id in owners  # its modifiers lapse when it ends
    g.frame_counter = data["frame_counter"]
    p = data["pending"]
    g.pending = None if p is None else Decision(p["player"], p["kind"], p["prompt"], dec(p["options"]), p["min"],
                                                  p["max"], p["default"], node=p["node"], purpose=p["purpose"],
                                                  optional=bool(p.get("optional", False)),
                                                  labels=list(p.get("labels") or ()),
                                                  secret=bool(p.get("secret", False)))
    g.over, g.winners, g.scores = data["over"], data["winners"], dec(data["scores"])
    g.steps, g.decisions = data["steps"], data["decisions"]
    if g.pending is not None:
        g.pending.number = g.decisions
        if g.pending.purpose != "reroll" and g.frames:  # the step that asks is where the game stands
            f = g.frames[-1]
            code = g.programs[f.seq].code
            g.pending.step = code[f.pc].step if 0 <= f.pc < len(code) else None
    g.tallies = {m: {k: list(v) for k, *v in rows} for m, rows in data.get("tallies", {}).items()}
    g.known = known_from_json(data.get("known", {}), dec)
    g.locals = g.frames[-1].locals if g.frames else {}
    return g


def state_hash(g, layout: bool = False) -> str:
    """A short fingerprint of everything that decides how the game goes on."""
    return hash_of(to_json(g), layout)


def hash_of(data: dict, layout: bool = False) -> str:
    """`state_hash` of `to_json` data (e.g. read back from a saved game).

    The hash is of the game, not of the file's layout: the place (file:line:column) of the step
    that asks the pending decision is left out, so a comment or a blank line added to the
    ruleset keeps its logs and saves valid (where the game is, is in the frames: sequence and
    step index). `layout=True` gives the hash of logs and saves of format 1, which kept the
    line and column.
    """
    data = dict(data)
    data.pop("steps", None)
    pending = data.get("pending")
    if isinstance(pending, dict) and isinstance(pending.get("node"), str):
        if layout:  # format 1: line and column, without the file's path
            data["pending"] = dict(pending, node=":".join(pending["node"].rsplit(":", 2)[-2:]))
        else:
            data["pending"] = {k: v for k, v in pending.items() if k != "node"}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def clone(g, story: bool = True):
    """An independent copy of a running game: `Game.copy`."""
    return g.copy(story)
