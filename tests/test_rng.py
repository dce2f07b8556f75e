"""The game's random generator: SplitMix64 as published, and below() without modulo bias.

below() writes next64 out for speed; these tests keep the two the same, since every saved game and log
replays through them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rulecraft.runtime.rng import _MASK, SplitMix


def test_next64_gives_the_published_splitmix64_sequence():
    # the first outputs for seed 0 of the reference implementation (Vigna, splitmix64.c)
    g = SplitMix(0)
    assert [g.next64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, _MASK), n=st.integers(1, 2**64))
def test_below_draws_as_next64_with_rejection(seed, n):
    fast, plain = SplitMix(seed), SplitMix(seed)
    limit = _MASK - (_MASK + 1) % n
    for _ in range(5):
        x = plain.next64()
        while x > limit:
            x = plain.next64()
        assert fast.below(n) == x % n
    assert fast.state == plain.state


def test_shuffle_is_the_same_for_a_seed():
    a, b = list(range(40)), list(range(40))
    SplitMix(7).shuffle(a)
    SplitMix(7).shuffle(b)
    assert a == b and sorted(a) == list(range(40)) and a != list(range(40))


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, _MASK), size=st.integers(0, 60))
def test_shuffle_swaps_as_below_draws(seed, size):
    """shuffle writes below() out (no call per item): the same swaps, the generator left in the same state."""
    fast, plain = SplitMix(seed), SplitMix(seed)
    a, b = list(range(size)), list(range(size))
    fast.shuffle(a)
    for i in range(size - 1, 0, -1):
        j = plain.below(i + 1)
        b[i], b[j] = b[j], b[i]
    assert a == b and fast.state == plain.state
