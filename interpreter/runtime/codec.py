"""Values as plain JSON data and back (cards, players, zones and rolls as small tagged objects), and deep copies."""

from __future__ import annotations

from typing import Any

from ..values import Card, FamilyRef, Player, Roll, Row, ZoneRef


def encode(v: Any) -> Any:
    """A value as JSON data; cards, players, zones and rolls become small tagged objects."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    t = type(v)
    if t is Card:
        return {"$card": v.id}
    if t is Player:
        return {"$player": v.seat}
    if t is ZoneRef:
        return {"$zone": v.zone, "key": encode(v.key)}
    if t is FamilyRef:
        return {"$family": v.zone}
    if t is Roll:
        return {"$roll": v.to_json()}
    if isinstance(v, Row):
        return {"$row": {k: encode(x) for k, x in v.items()}}
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v):
            return {"$dict": {k: encode(x) for k, x in v.items()}}
        return {"$map": [[encode(k), encode(x)] for k, x in v.items()]}
    raise TypeError(f"cannot save a value of type {t.__name__}")


class Decoder:
    def __init__(self, ruleset, players: list[Player]):
        self.cards = {c.id: c for c in ruleset.cards}
        self.players = players

    def __call__(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "$card" in v:
            return self.cards[v["$card"]]
        if "$player" in v:
            return self.players[v["$player"]]
        if "$zone" in v:
            return ZoneRef(v["$zone"], self(v["key"]))
        if "$family" in v:
            return FamilyRef(v["$family"])
        if "$roll" in v:
            r = v["$roll"]
            return Roll(r["dice"], tuple(r["faces"]), r["result"], r["success"], r["target"])
        if "$row" in v:
            return Row({k: self(x) for k, x in v["$row"].items()})
        if "$dict" in v:
            return {k: self(x) for k, x in v["$dict"].items()}
        if "$map" in v:
            return {self(k): self(x) for k, x in v["$map"]}
        raise ValueError(f"unknown saved value {sorted(v)}")


def copy_value(v: Any) -> Any:
    if isinstance(v, list):
        return [copy_value(x) for x in v]
    if isinstance(v, dict) and not isinstance(v, Row):
        return {k: copy_value(x) for k, x in v.items()}
    return v  # cards, players, zone refs, rolls and rows never change
