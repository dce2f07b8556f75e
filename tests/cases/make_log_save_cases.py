"""Writes the bad-input corpus of game logs (tests/cases/logs/) and saved games (tests/cases/saves/).

    .venv/bin/python tests/cases/make_log_save_cases.py

Each case is a folder: the file (`game.log` or `game.save`) and `expected.yaml` (a one-line
comment saying what the case shows, then the verdict: a piece of the message, the exit code,
the line of the file it names). The games are played with the frozen rulesets in
tests/cases/_rulesets/, so the corpus stays valid when the bundled examples change. The
expected verdicts are written here by hand, case by case; tests/test_log_save_corpus.py checks
them. Running this again rewrites every case the same way (the games are seeded).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent))  # tests/, for the shared game recorder

from gamerecord import record_game  # noqa: E402

PIG = "../../_rulesets/pig.yaml"  # as the files name it, relative to a case folder
SA = "../../_rulesets/sealed-auction.yaml"


def play(ref: str, seed: int, stop_after: int | None = None, overrides: dict | None = None):
    """(log lines, save text) of a seeded random game, stopped after `stop_after` decisions if given."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        log, save = Path(tmp) / "g.log", Path(tmp) / "g.save"
        record_game(os.path.normpath(HERE / "logs" / "case" / ref), ref, seed, str(log), str(save),
                    overrides=overrides, stop_after=stop_after)
        return log.read_text().splitlines(), save.read_text()


def rec(line: str) -> dict:
    return json.loads(line)


def dump(r: dict) -> str:
    return json.dumps(r, separators=(",", ":"))


def edit(lines: list[str], i: int, **changes) -> list[str]:
    """A copy of the lines with record i (1-based line) changed; a value of DROP removes the key."""
    out = list(lines)
    r = rec(out[i - 1])
    for k, v in changes.items():
        if v is DROP:
            r.pop(k, None)
        else:
            r[k] = v
    out[i - 1] = dump(r)
    return out


DROP = object()


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def write_case(kind: str, name: str, data: str | bytes, comment: str, expected: dict) -> None:
    folder = HERE / kind / name
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / ("game.log" if kind == "logs" else "game.save")
    if isinstance(data, bytes):
        target.write_bytes(data)
    else:
        target.write_bytes(data.encode("utf-8"))
    body = [f"# {comment}"]
    for k, v in expected.items():
        body.append(f"{k}: {json.dumps(v)}")
    (folder / "expected.yaml").write_text("\n".join(body) + "\n", encoding="utf-8")


def log_cases() -> None:
    full, _ = play(PIG, 5)
    sa, _ = play(SA, 2)
    n = len(full)  # header, 43 decisions, end
    end = n
    C = []

    def case(name, data, comment, verdict, exit, line, **more):
        C.append((name, data, comment, dict(verdict=verdict, exit=exit, line=line, **more)))

    # controls: what a good log gives
    case("valid-complete", text(full), "a complete log of a seeded game replays identically", "identical", 0, None)
    case("valid-partial-flag", text(full), "--partial accepts a complete log too", "identical", 0, None, partial=True)
    case("valid-crlf", "\r\n".join(full) + "\r\n", "Windows line ends change nothing", "identical", 0, None)
    case("valid-blank-lines", text(full[:5] + ["", "   "] + full[5:]), "blank lines are skipped", "identical", 0, None)
    case("valid-bom", "\ufeff" + text(full), "a UTF-8 byte order mark at the start is accepted", "identical", 0, None)
    case("valid-chance-dropped", text([full[0]] + [dump({k: v for k, v in rec(l).items() if k != "chance"})
                                                    for l in full[1:]]),
         "chance results are worked out from the seed: a log without them still replays", "identical", 0, None)
    case("valid-player-dropped", text(edit(full, 2, player=DROP)),
         "who decides is worked out by the game: a record without 'player' is fine", "identical", 0, None)
    case("valid-other-version", text(edit(full, 1, rulecraft="9.9.9")),
         "written by another rulecraft version of the same log format: replays, with a warning", "identical", 0, None,
         warning="rulecraft 9.9.9")
    case("valid-fingerprint-edited", text(edit(full, 1, fingerprint="0000000000000000")),
         "a changed fingerprint only warns that the ruleset's files changed", "identical", 0, None,
         warning="files changed")
    case("valid-sealed-auction", text(sa), "a log with number decisions from another ruleset replays", "identical", 0,
         None)
    case("valid-ruleset-option", text(edit(full, 1, ruleset="/nowhere/pig.yaml")),
         "--ruleset replaces the ruleset the log names", "identical", 0, None, ruleset=PIG)

    # cut short
    case("truncated-mid-line", "\n".join(full[:20]) + "\n" + full[20][:25],
         "a game killed while writing: the cut line is dropped, the rest is unfinished", "cut short at line 21", 1, 21)
    case("truncated-mid-line-partial", "\n".join(full[:20]) + "\n" + full[20][:25],
         "... and --partial accepts it", "replay identically", 0, 21, partial=True)
    case("truncated-at-line-end", text(full[:30]), "a log that stops between lines has no end record",
         "has no end record", 1, 30)
    case("truncated-at-line-end-partial", text(full[:30]), "... which --partial accepts",
         "its 29 decisions replay identically", 0, 30, partial=True)
    case("truncated-before-end-record", text(full[:-1]), "every decision but no end record: unfinished",
         "has no end record", 1, end - 1)
    case("header-only", text(full[:1]), "only the header: the game never got to its first decision",
         "its 0 decisions replay identically", 1, 1)
    case("header-only-partial", text(full[:1]), "--partial accepts a header-only log (a game killed at once)",
         "its 0 decisions replay identically", 0, 1, partial=True)
    case("header-cut", full[0][:40], "the header itself cut short", "line 1 is not JSON", 1, 1)
    case("empty", "", "an empty file", "not a game log header", 1, 1)
    case("only-newlines", "\n\n\n", "a file of blank lines", "not a game log header", 1, 1)

    # not a log at all
    case("not-json", "This is not a game log.\nIt is a letter.\n", "plain text", "line 1 is not JSON", 1, 1)
    case("binary", bytes(range(256)) * 4, "binary data", "binary data", 1, 1)
    case("not-utf8", text(full[:3]).encode() + b"\xff\xfe\xfa\n" + text(full[3:]).encode(),
         "bytes that are not UTF-8 in the middle", "line 4 is not UTF-8", 1, 4)
    case("json-array", "[1, 2, 3]\n", "JSON, but not a record", "not a game log record", 1, 1)
    case("json-record-no-type", '{"seed": 5}\n', "a record without a type", "not a game log record", 1, 1)
    case("deeply-nested", "[" * 100_000 + "]" * 100_000 + "\n", "JSON nested 100,000 deep must not crash the reader",
         "line 1", 1, 1)
    case("huge-number", text(edit(full, 1, seed=0)).replace('"seed":0', '"seed":' + "9" * 5000, 1),
         "a 5,000-digit number (Python refuses to read it)", "line 1 is not JSON", 1, 1)
    case("a-ruleset-file", (HERE / "_rulesets" / "pig.yaml").read_text(), "a ruleset given where a log is expected",
         "line 1 is not JSON", 1, 1)

    # a header that cannot be used
    case("format-3", text(edit(full, 1, format=3)), "a log format this rulecraft does not know",
         "the log is in format 3", 1, 1)
    case("format-text", text(edit(full, 1, format="one")), "a log format that is not a number",
         "the log is in format 'one'", 1, 1)
    case("no-seed", text(edit(full, 1, seed=DROP)), "a header without its seed", "seed is not a whole number", 1, 1)
    case("seed-text", text(edit(full, 1, seed="5")), "a seed written as text", "seed is not a whole number", 1, 1)
    case("seed-float", text(edit(full, 1, seed=5.5)), "a seed with decimals", "seed is not a whole number", 1, 1)
    case("seed-infinity", text(full).replace('"seed":5', '"seed":Infinity', 1), "a seed of Infinity (Python's JSON reads it)",
         "seed is not a whole number", 1, 1)
    case("players-empty", text(edit(full, 1, players=[])), "no players", "players are not a list of names", 1, 1)
    case("players-too-many", text(edit(full, 1, players=[f"P{i}" for i in range(1000)])), "1,000 players",
         "players are not a list of names", 1, 1)
    case("players-not-names", text(edit(full, 1, players=[1, 2])), "players that are not names",
         "players are not a list of names", 1, 1)
    case("players-count-changed", text(edit(full, 1, players=["P1", "P2", "P3"])),
         "a third player added: the turns go round differently", "the log says player 0 decides", 1, 4)
    case("overrides-not-text", text(edit(full, 1, overrides={"target_score": 10})), "an override that is not text",
         "overrides are not NAME: VALUE texts", 1, 1)
    case("overrides-unknown", text(edit(full, 1, overrides={"nonsense": "1"})), "an override the ruleset does not have",
         "E316", 1, 1)
    case("no-ruleset", text(edit(full, 1, ruleset=DROP)), "a header naming no ruleset", "names no ruleset", 1, 1)

    # the ruleset the log names
    case("ruleset-not-yaml", text(edit(full, 1, ruleset="/etc/passwd")),
         "a log may not make replay read any file: only bundled names and .yaml files", "neither a bundled ruleset", 1, 1)
    case("ruleset-ssh-key", text(edit(full, 1, ruleset="~/.ssh/id_rsa")), "nor a private key",
         "neither a bundled ruleset", 1, 1)
    case("ruleset-missing", text(edit(full, 1, ruleset="no-such-game.yaml")), "a ruleset file that does not exist",
         "cannot load the ruleset", 1, 1)
    case("other-ruleset-name", text(edit(full, 1, name="dml")), "the header says it is another game",
         "the log is of ruleset 'dml'", 1, 1)
    case("other-ruleset-file", text(edit(full, 1, ruleset=SA)), "a pig log pointed at the sealed auction",
         "the log is of ruleset 'pig'", 1, 1)
    case("other-ruleset-option", text(full), "--ruleset naming another game", "the log is of ruleset 'pig'", 1, 1,
         ruleset=SA)
    case("bundled-other-game", text(edit(full, 1, ruleset="dml", name=DROP)),
         "a pig log replayed as the bundled DML game", "the log says player 0 decides", 1, 2)

    # tampered decisions
    case("choice-flipped", text(edit(full, 4, choice=not rec(full[3])["choice"])),
         "one yes/no answer flipped: the game goes another way, caught at the next record",
         "the log says player 0 decides", 1, 5)
    case("choice-illegal-number", text(edit(full, 3, choice=7)), "a yes/no decision answered 7",
         "not legal here", 1, 3)
    case("choice-text", text(edit(full, 3, choice="yes")), "an answer written as text", "not legal here", 1, 3)
    case("choice-missing", text(edit(full, 3, choice=DROP)), "a decision without its choice", "has no choice", 1, 3)
    case("choice-huge-list", text(edit(full, 3, choice=list(range(10000)))), "a list of 10,000 numbers as a choice",
         "not legal here", 1, 3)
    case("chance-edited", text(edit(full, 6, chance=[["roll", "1d6", [6]]])) if rec(full[5])["chance"] != [["roll", "1d6", [6]]]
         else text(edit(full, 6, chance=[["roll", "1d6", [1]]])), "a die result changed in the log", "chance differs", 1, 6)
    case("chance-added", text(edit(full, 7, chance=[["roll", "1d6", [6]], ["roll", "1d6", [6]]])),
         "an extra roll claimed", "chance differs", 1, 7)
    case("player-edited", text(edit(full, 3, player=0)), "the wrong player claims a decision",
         "the log says player 0 decides", 1, 3)
    case("player-nonsense", text(edit(full, 2, player={"seat": 1})), "a player that is not a seat",
         "the log says player", 1, 2)
    case("hash-edited", text(edit(full, 11, hash="0123456789abcdef")), "a checkpoint hash changed",
         "differs from the log after decision 10", 1, 11)
    case("decision-deleted", text(full[:5] + full[6:]), "a decision removed", "the log numbers this decision 6", 1, 6)
    case("decision-duplicated", text(full[:6] + [full[5]] + full[6:]), "a decision written twice",
         "the log numbers this decision 5", 1, 7)
    case("decisions-swapped", text(full[:4] + [full[5], full[4]] + full[6:]),
         "two decisions swapped: their numbers give them away", "the log numbers this decision 5", 1, 5)
    case("extra-decision-after-end", text(full[:-1] + [full[-2], full[-1]]), "one more decision than the game had",
         "already over", 1, end)

    # tampered results
    case("winners-edited", text(edit(full, end, winners=[1])), "the other player claims the win", "winners differ",
         1, end)
    case("scores-edited", text(edit(full, end, scores=[100, 99])), "a loser's score raised in the end record",
         "scores differ", 1, end)
    case("decision-count-edited", text(edit(full, end, decisions=99)), "the end record claims more decisions",
         "the log says 99 decisions", 1, end)
    case("final-hash-edited", text(edit(full, end, hash="0123456789abcdef")), "the final state hash changed",
         "the final state differs", 1, end)
    case("end-too-early", text(full[:10] + [full[-1]]), "an end record after ten decisions",
         "still waits for a decision", 1, 11)
    case("end-twice", text(full + [full[-1]]), "two end records", "ends the game twice", 1, end + 1)
    case("seed-edited", text(edit(full, 1, seed=6)), "another seed: the dice soon differ", "chance differs", 1, 3)
    case("overrides-edited", text(edit(full, 1, overrides={"target_score": "20"})),
         "a lower target score claimed: the game ends early", "already over", 1, 8)
    case("two-logs-joined", text(full + sa), "two logs in one file", "a second header", 1, end + 1)
    case("unknown-record", text(full[:3] + ['{"type":"comment","text":"hi"}'] + full[3:]), "a record of an unknown type",
         "unknown record type", 1, 4)

    for i, (name, data, comment, expected) in enumerate(C, 1):
        write_case("logs", f"{i:03d}-{name}", data, comment, expected)


def save_cases() -> None:
    _, mid = play(PIG, 5, stop_after=20)
    _, zero = play(PIG, 5, stop_after=0)
    _, done = play(PIG, 5)
    _, sa_mid = play(SA, 2, stop_after=5)
    full_log, _ = play(PIG, 5)
    m = mid.splitlines()  # header, 20 decisions, state (line 22)
    S = len(m)
    C = []

    def case(name, data, comment, verdict, exit, line, **more):
        C.append((name, data, comment, dict(verdict=verdict, exit=exit, line=line, **more)))

    def state_edit(lines, fn, rehash=False):
        out = list(lines)
        st = rec(out[-1])
        fn(st["state"])
        if rehash:
            from rulecraft.runtime.state_io import hash_of

            st["hash"] = hash_of(st["state"])
        out[-1] = dump(st)
        return out

    case("valid-mid-game", mid, "a game saved after 20 decisions resumes and plays to the end", "winner:", 0, None)
    case("valid-at-start", zero, "a game saved before its first decision resumes", "winner:", 0, None)
    case("valid-finished", done, "a finished game: resuming only tells the result", "winner:", 0, None)
    case("valid-sealed-auction", sa_mid, "a sealed-auction game resumes with its own ruleset", "winner:", 0, None,
         ruleset=SA)
    case("valid-other-version", text(edit(m, 1, rulecraft="9.9.9")), "saved by another version of the same save format:"
         " resumes, with a warning", "winner:", 0, None, warning="rulecraft 9.9.9")
    case("valid-fingerprint-edited", text(edit(m, 1, fingerprint="0000000000000000")),
         "a changed fingerprint only warns: the decisions still lead to the saved state", "winner:", 0, None,
         warning="files changed")
    case("valid-crlf", "\r\n".join(m) + "\r\n", "Windows line ends change nothing", "winner:", 0, None)

    case("empty", "", "an empty file", "empty", 1, 1)
    case("binary", bytes(range(256)) * 4, "binary data", "binary data", 1, 1)
    case("not-utf8", b"\xff\xfe" + mid.encode(), "bytes that are not UTF-8", "not UTF-8", 1, 1)
    case("not-json", "saved game, trust me\n", "plain text", "line 1 is not JSON", 1, 1)
    case("json-array", "[]\n", "JSON, but not a record", "line 1 is not a record", 1, 1)
    case("deeply-nested", "[" * 100_000 + "]" * 100_000 + "\n", "JSON nested 100,000 deep", "line 1", 1, 1)
    case("a-log", text(full_log), "a game log given where a save is expected", "this is a game log", 1, 1)
    case("a-ruleset-file", (HERE / "_rulesets" / "pig.yaml").read_text(), "a ruleset given where a save is expected",
         "line 1 is not JSON", 1, 1)
    case("header-only", text(m[:1]), "only the header", "cut short", 1, 1)
    case("truncated-mid-state", "\n".join(m[:-1]) + "\n" + m[-1][:50], "the state line cut short",
         f"line {S} is not JSON", 1, S)
    case("truncated-at-line-end", text(m[:-1]), "the state line missing", "cut short", 1, S - 1)
    case("truncated-mid-decisions", text(m[:8]), "cut among the decisions", "cut short", 1, 8)
    case("extra-line", text(m + [m[-1]]), "a line after the state", "goes on after the state", 1, S + 1)

    case("format-3", text(edit(m, 1, format=3)), "a save format this rulecraft does not know", "save format 3", 1, 1)
    case("format-missing", text(edit(m, 1, format=DROP)), "a header without a save format", "save format None", 1, 1)
    case("state-format-2", text(m[:-1] + [dump(dict(rec(m[-1]), format=2))]), "a state format this rulecraft does not know",
         "state format 2", 1, S)
    case("decision-count-edited", text(edit(m, 1, decisions=25)), "the header promises more decisions than there are",
         "cut short", 1, S)
    case("decision-count-low", text(edit(m, 1, decisions=10)), "the header promises fewer decisions than there are",
         "goes on after the state", 1, 13)
    case("no-seed", text(edit(m, 1, seed=DROP)), "a header without its seed", "seed is not a whole number", 1, 1)
    case("players-empty", text(edit(m, 1, players=[])), "no players", "players are not a list of names", 1, 1)
    case("overrides-not-text", text(edit(m, 1, overrides={"target_score": 10})), "an override that is not text",
         "overrides are not NAME: VALUE texts", 1, 1)

    case("other-ruleset", sa_mid, "a sealed-auction save resumed as pig", "saved with the ruleset 'sealed-auction'", 1, 1)
    case("name-edited", text(edit(m, 1, name="dml")), "the header claims another game", "saved with the ruleset 'dml'",
         1, 1)
    case("agents-python", text(edit(m, 1, agents=["python:os:system", "random"])),
         "a save cannot make resume import code: its python: agent is refused", "cannot choose agents", 2, None)
    case("agents-script", text(edit(m, 1, agents=["script:/etc/passwd", "random"])),
         "nor read files through a script: agent", "cannot choose agents", 2, None)
    case("agents-python-overridden", text(edit(m, 1, agents=["python:os:system", "random"])),
         "agents given on the command line replace the saved ones", "winner:", 0, None, agents=["random"])

    case("choice-illegal", text(edit(m, 5, choice=7)), "a yes/no decision answered 7", "not legal here", 1, 5)
    case("choice-flipped", text(edit(m, 5, choice=not rec(m[4])["choice"])), "one answer flipped: the game goes "
         "another way, caught at the next decision", "the file says player 0 decides", 1, 6)
    case("player-edited", text(edit(m, 3, player=1 - rec(m[2])["player"])), "the wrong player claims a decision",
         "the file says player", 1, 3)
    case("decision-renumbered", text(edit(m, 4, n=9)), "a decision out of order", "is not decision 3", 1, 4)
    case("decision-not-a-decision", text(m[:4] + ['{"type":"note"}'] + m[5:]), "a line that is no decision",
         "is not decision 4", 1, 5)
    case("seed-edited", text(edit(m, 1, seed=6)), "another seed: the turns soon differ", "the file says player 0", 1, 10)
    case("players-renamed", text(edit(m, 1, players=["Ann", "Bob"])), "player names changed: the state no longer matches",
         "do not lead to the saved state", 1, S)
    case("state-score-edited", text(state_edit(m, lambda st: st["pvars"][0].update(score=99))),
         "a score raised in the state, hash kept", "does not match its hash", 1, S)
    case("state-score-edited-rehashed", text(state_edit(m, lambda st: st["pvars"][0].update(score=99), rehash=True)),
         "a score raised and the hash recomputed: the decisions still give it away", "do not lead to the saved state",
         1, S)
    case("state-hash-edited", text(m[:-1] + [dump(dict(rec(m[-1]), hash="0123456789abcdef"))]), "the hash changed",
         "does not match its hash", 1, S)
    case("state-not-a-state", text(m[:-1] + ['{"type":"state","hash":1,"state":[]}']), "a state of the wrong shape",
         "is not the saved state", 1, S)
    case("state-garbage-inside", text(state_edit(m, lambda st: st.update(frames="garbage", rng="x", zones=7))),
         "a state full of garbage is never loaded: the decisions decide", "does not match its hash", 1, S)

    for i, (name, data, comment, expected) in enumerate(C, 1):
        write_case("saves", f"{i:03d}-{name}", data, comment, expected)


def main() -> None:
    for kind in ("logs", "saves"):
        if (HERE / kind).exists():
            shutil.rmtree(HERE / kind)
        (HERE / kind).mkdir()
    log_cases()
    save_cases()
    print("cases:", len(list((HERE / "logs").iterdir())), "logs,", len(list((HERE / "saves").iterdir())), "saves")


if __name__ == "__main__":
    main()
