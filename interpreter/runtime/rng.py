"""A small seeded random generator (SplitMix64) whose whole state is one integer.

Python's `random` keeps 625 words of state and its algorithms may change between
versions; a game state must copy cheaply, serialise to JSON and replay identically.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


# The seeds a game may be given, on the command line as in a log or a save: what a 64-bit generator holds (a
# negative seed from -2**63 counts as its two's complement). A seed outside was played but its log never replayed.
SEED_MIN, SEED_END = -(2**63), 2**64


class SplitMix:
    __slots__ = ("state",)

    def __init__(self, seed: int = 0):
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform whole number from 0 to n - 1 (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        while True:
            # next64, written out: this is the generator's busiest path (every shuffle, die and bot choice)
            z = self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            x = z ^ (z >> 31)
            # the rejection limit is _MASK - (_MASK + 1) % n, never below _MASK - n + 1: a draw up to _MASK - n
            # is kept without working it out (almost every draw)
            if x <= _MASK - n or x <= _MASK - (_MASK + 1) % n:
                return x % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates, each swap drawn as below(i + 1) draws it (written out: no call per card)."""
        state = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            while True:
                z = state = (state + 0x9E3779B97F4A7C15) & _MASK
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                x = z ^ (z >> 31)
                if x <= _MASK - n or x <= _MASK - (_MASK + 1) % n:  # (as below)
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]
        self.state = state


def fixed_faces(item, name: str, count: int, sides: int):
    """The faces a scenario fixes for the next roll (`dice:`), checked against the dice rolled.

    `item` is a whole number (one die), a list of faces, or {dice: NAME, faces: [...]}.
    Returns the faces as a tuple, or a text saying why they do not fit this roll."""
    want = item.get("dice") if isinstance(item, dict) else None
    faces = item.get("faces") if isinstance(item, dict) else item
    faces = [faces] if isinstance(faces, int) and not isinstance(faces, bool) else faces
    if want is not None and str(want) != name:
        return f"the scenario fixes a roll of '{want}' next, but the game rolls '{name}'"
    if not isinstance(faces, list) or len(faces) != count or \
            not all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= sides for f in faces):
        return (f"the scenario fixes the next roll ({name}, {count}d{sides}) as {faces!r}: "
                f"give {count} face{'s' if count != 1 else ''} from 1 to {sides}")
    return tuple(faces)
