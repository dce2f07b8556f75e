"""Hot expressions turned into Python source while games in several threads share a ruleset.

A stress run (eight threads playing dml on one loaded ruleset, sys.setswitchinterval(1e-6)) failed with
"NameError: name '_warm' is not defined" and "'Span' object is not callable": a thread could still be in the
trampoline when another thread took _warm out of the namespace, and two threads generating one expression
wrote their constants into the same namespace. These tests make both interleavings happen on purpose.
"""

from __future__ import annotations

import threading
import time
from types import FunctionType, SimpleNamespace

from rulecraft.dsl.codegen import generator as codegen
from rulecraft.dsl.closures import compiler as C
from rulecraft.dsl.codegen import hotcode as H
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.dsl.scope import Scope
from rulecraft.dsl.parser import parse_expression, plain_locator

TEXT = "[y * 2 for y in 1..x if y > 1] + [x]"
EXPECTED = [4, 6, 3]


def _lazy(monkeypatch):
    monkeypatch.setattr(H, "CODEGEN", True)
    scope = Scope({}, set(), set(), set(), set(), set(), {}, {}, {"x"})
    return Compiler(scope, []).expr(parse_expression(TEXT, plain_locator("<t>")))[0]


def _ctx():
    return SimpleNamespace(locals={"x": 3}, vars={}, marks={}, players=[])


def test_a_call_that_entered_the_trampoline_before_codegen_still_works(monkeypatch):
    fn = _lazy(monkeypatch)
    trampoline = fn.__code__
    for _ in range(H.HOT):
        assert fn(_ctx()) == EXPECTED
    assert fn.__code__ is not trampoline  # generated
    # a call in another thread that began with the old code: it looks its names up in the same namespace
    late = FunctionType(trampoline, fn.__globals__)
    assert late(_ctx()) == EXPECTED


def test_two_threads_reaching_the_hot_call_together_generate_once(monkeypatch):
    fn = _lazy(monkeypatch)
    for _ in range(H.HOT - 1):
        fn(_ctx())
    real = codegen.generate
    calls: list = []
    other_started = threading.Event()

    def slow_generate(*args):
        calls.append(args)
        if len(calls) == 1:  # the first thread: let the other one reach its hot call meanwhile
            other_started.wait(5)
            time.sleep(0.2)
        return real(*args)

    monkeypatch.setattr(codegen, "generate", slow_generate)
    results: list = []

    def first():
        results.append(fn(_ctx()))

    def second():
        other_started.set()
        results.append(fn(_ctx()))

    threads = [threading.Thread(target=first)]
    threads[0].start()
    while not calls:
        time.sleep(0.001)
    threads.append(threading.Thread(target=second))
    threads[1].start()
    for t in threads:
        t.join(10)
    assert results == [EXPECTED, EXPECTED]
    assert len(calls) == 1
