"""docs/tutorial.md works as written: each version of the file validates (or fails as shown) and the last plays."""

import re
from pathlib import Path

from rulecraft.diagnostics import render_text
from rulecraft.loader import load_ruleset
from rulecraft.tools.simulate.runs import simulate

DOC = Path(__file__).parent.parent / "docs" / "tutorial.md"


def _files():
    text = DOC.read_text(encoding="utf-8")
    return [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if b.startswith("# file: ")]


def test_every_version_of_the_tutorial_file(tmp_path):
    files = _files()
    assert len(files) >= 4
    for i, block in enumerate(files):
        name = block.splitlines()[0].split(": ", 1)[1].strip()
        path = tmp_path / name
        path.write_text(block, encoding="utf-8")
        result = load_ruleset(str(path))
        m = re.search(r"^# expect: (E\d+)", block, re.M)
        if m:
            codes = {d.code for d in result.diagnostics}
            assert m.group(1) in codes, render_text(result.diagnostics, result.sources)
        else:
            assert result.ok and not [d for d in result.diagnostics if d.is_error], \
                f"version {i + 1}:\n" + render_text(result.diagnostics, result.sources)
    final = tmp_path / "my-pig.yaml"
    summary = simulate(str(final), 30, seed=1, workers=1, check=True)
    assert not summary.errors, summary.errors
    assert all(r["winners"] for r in summary.results)


def test_part_two_writes_an_auction_game_that_plays(tmp_path):
    """Each version of my-auction.yaml validates cleanly, plays 30 games, and draws the auction as one box."""
    from rulecraft.graph import build_graph

    versions = [b for b in _files() if b.splitlines()[0] == "# file: my-auction.yaml"]
    assert len(versions) == 2
    for block in versions:
        path = tmp_path / "my-auction.yaml"
        path.write_text(block, encoding="utf-8")
        result = load_ruleset(str(path))
        assert result.ok and not result.diagnostics, render_text(result.diagnostics, result.sources)
        summary = simulate(str(path), 30, seed=1, workers=1, check=True)
        assert not summary.errors, summary.errors
        g = build_graph(result.ruleset)
        assert [n.kind for n in g.nodes.values() if n.sequence == "sale"].count("auction") == 1


def test_the_error_shown_is_the_error_given(tmp_path):
    block = next(b for b in _files() if "# expect:" in b)
    path = tmp_path / "my-pig.yaml"
    path.write_text(block, encoding="utf-8")
    result = load_ruleset(str(path))
    shown = render_text(result.diagnostics, result.sources).replace(str(tmp_path) + "/", "")
    first = shown.splitlines()[0]
    assert first in DOC.read_text(encoding="utf-8"), first
