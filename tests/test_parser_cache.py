"""The parser's tables are built once and kept as JSON in the user's cache folder (never a pickle): a parser
loaded from there parses exactly as a built one; a damaged, foreign or unwritable cache is never an error."""

from __future__ import annotations

import os
import stat

import pytest

from rulecraft.dsl import parser as P

TEXTS = ["1 + 2 * x", "[c for c in p.hand if c.value > 2]", "a if b else c", "record(winner: none, price: 0)",
         "f(a, b).x[3]", "not x in y", "'{a} and {b}'"]
STMTS = ["let x = 1; move c to p.hand", "set t[k] = 2; log 'x {y}'", "draw 2 from deck to p.hand as got"]


def _grammar() -> str:
    from importlib.resources import files
    return files(P.__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


def _asts(lark) -> list:
    out = []
    for text in TEXTS:
        out.append(lark.parse(text, start="expr_start")[0])
    for text in STMTS:
        out.append(lark.parse(text, start="stmts_start")[0])
    return out


def _with_builder(fn):
    saved = P._BUILD.begin(P.plain_locator(), 0)
    try:
        return fn()
    finally:
        P._BUILD.restore(saved)


def test_a_parser_loaded_from_the_cache_parses_as_a_built_one(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path / "c"))
    path = P._cache_path(_grammar())
    built = P._load_or_build(_grammar(), path)  # builds, and writes the cache
    assert os.path.exists(path) and open(path, encoding="utf-8").read(1) == "{"  # JSON, not a pickle
    loaded = P._load_or_build(_grammar(), path)
    assert loaded is not built and not loaded.options.cache
    assert _with_builder(lambda: _asts(loaded)) == _with_builder(lambda: _asts(built))
    assert [t.name for t in loaded.terminals] == [t.name for t in built.terminals]


def test_a_damaged_cache_is_built_again(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path))
    path = P._cache_path(_grammar())
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"data": {"#t": [1, ')
    lark = P._load_or_build(_grammar(), path)
    assert _with_builder(lambda: _asts(lark))
    assert open(path, encoding="utf-8").read().endswith("}")  # written afresh


def test_a_read_only_cache_folder_is_no_error(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    path = P._cache_path(_grammar())
    folder.chmod(0o500)
    try:
        lark = P._load_or_build(_grammar(), path)
        assert _with_builder(lambda: _asts(lark))
        assert not os.path.exists(path) or os.geteuid() == 0  # root writes anyway
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_a_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    assert P._cache_path(_grammar()) is None
    monkeypatch.setenv("RULECRAFT_CACHE", "")
    assert P._cache_path(_grammar()) is None


def test_the_cache_file_is_named_by_the_grammar(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path))
    assert P._cache_path(_grammar()) != P._cache_path(_grammar() + "\n// edited\n")
    assert stat.S_IMODE(os.stat(tmp_path).st_mode) & 0o022 == 0
