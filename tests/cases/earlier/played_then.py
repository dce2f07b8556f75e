"""Play a corpus case's pinned games with the engine of the commit it names (`played_then:`), from git history.

    python tests/cases/earlier/played_then.py CASE [CASE ...]

The engine of that commit is exported with `git archive` into a temporary folder and imported in
a child process in place of the installed one, and the games of `expected.yaml` are played by the
corpus's own agent (tests/test_earlier_rulesets.py, read as text and run over the old engine).
"ALL SAME" means today's pins are what the ruleset did then. This needs the repository's history,
so it is a tool, not a test; the test compares with the pins.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

CHILD = r'''
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]  # the old engine, not ours
import hashlib, inspect, json
import yaml
import rulecraft.values as V
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

def encode(v):  # today's state_io.encode, over the old engine's value types
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    t = type(v)
    if t is V.Card: return {"$card": v.id}
    if t is V.Player: return {"$player": v.seat}
    if t is V.ZoneRef: return {"$zone": v.zone, "key": encode(v.key)}
    if t is getattr(V, "FamilyRef", None): return {"$family": v.zone}
    if t is getattr(V, "Roll", None): return {"$roll": v.to_json()}
    if getattr(V, "Row", None) and isinstance(v, V.Row): return {"$row": {k: encode(x) for k, x in v.items()}}
    if isinstance(v, (list, tuple)): return [encode(x) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v): return {"$dict": {k: encode(x) for k, x in v.items()}}
        return {"$map": [[encode(k), encode(x)] for k, x in v.items()]}
    raise TypeError(t)

known = inspect.signature(Game.__init__).parameters
ns = {"Game": lambda *a, **kw: Game(*a, **{k: v for k, v in kw.items() if k in known}),
      "hashlib": hashlib, "json": json, "encode": encode}
src = open(sys.argv[3], encoding="utf-8").read()
exec(src[src.index("class CyclingAgent"):src.index("def _expected")], ns)
res = load_ruleset(sys.argv[1])
assert res.ruleset is not None, [d.message for d in res.diagnostics]
ok = True
for g in yaml.safe_load(open(sys.argv[2], encoding="utf-8"))["games"]:
    got = ns["play"](res.ruleset, g["seed"], g["players"])
    ok &= got == g
    print(f"  seed {g['seed']}: " + ("same" if got == g else f"DIFFERENT {got}"))
print("ALL SAME" if ok else "SOME DIFFER")
sys.exit(0 if ok else 1)
'''


def engine(commit: str, into: Path) -> Path:
    """The package `rulecraft` as it was at `commit`, laid out as pyproject's package-dir maps it."""
    tree = into / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "interpreter", "schema", "rulesets", "tools"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    pkg = into / "pkg"
    (pkg).mkdir()
    (tree / "interpreter").rename(pkg / "rulecraft")
    for sub in ("schema", "rulesets", "tools"):
        (tree / sub).rename(pkg / "rulecraft" / sub)
    return pkg


def main(cases: list[str]) -> int:
    bad = 0
    for case in cases:
        expected = yaml.safe_load((HERE / case / "expected.yaml").read_text(encoding="utf-8"))
        commit = expected["played_then"]
        with tempfile.TemporaryDirectory() as tmp:
            pkg = engine(commit, Path(tmp))
            print(f"{case} with the engine of {commit}:", flush=True)
            proc = subprocess.run([sys.executable, "-c", CHILD, str(HERE / case / "ruleset.yaml"),
                                   str(HERE / case / "expected.yaml"), str(ROOT / "tests" / "test_earlier_rulesets.py")],
                                  env={"PYTHONPATH": str(pkg), "PATH": "/usr/bin:/bin"}, cwd=tmp)
            bad += proc.returncode != 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or sorted(p.name for p in HERE.iterdir() if (p / "expected.yaml").is_file())))
