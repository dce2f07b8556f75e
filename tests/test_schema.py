"""The JSON Schema for ruleset files and the pass that maps its errors back to YAML positions."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest

from rulecraft.loader.schema import FORM_KEYS, load_schema, validate_schema
from rulecraft.loader.yaml_source import YMap, load_file

ROOT = Path(__file__).resolve().parents[1]
RULESETS = sorted((ROOT / "rulesets").rglob("*.yaml"))

HEADER = """\
ruleset: demo
title: Demo
players: {min: 2, max: 4}
start: game
"""
GAME = """\
sequences:
  game:
    steps:
      - "end game"
"""


def check(tmp_path: Path, text: str):
    path = tmp_path / "ruleset.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    root, _, diags = load_file(str(path))
    assert diags == [] and isinstance(root, YMap), diags
    return validate_schema(root, str(path))


def only(diags, code):
    assert [d.code for d in diags] == [code], [(d.code, d.message, d.span) for d in diags]
    return diags[0]


def at(diag, line, col):
    assert (diag.span.line, diag.span.col) == (line, col), (diag.message, diag.span)


# --- the schema file itself -------------------------------------------------


def test_schema_is_valid_draft_2020_12():
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "urn:rulecraft:schema:ruleset:1"  # stable: names the schema, not a place
    on_disk = json.loads((ROOT / "schema" / "ruleset.schema.json").read_text(encoding="utf-8"))
    assert on_disk == schema


def test_every_property_has_a_title_and_description():
    missing = []

    def walk(node, where):
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                if node is not load_schema()["else"] and not str(where).startswith("/else"):
                    if not (isinstance(sub, dict) and sub.get("title") and sub.get("description")):
                        missing.append(f"{where}/properties/{name}")
            for k, v in node.items():
                walk(v, f"{where}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}/{i}")

    walk(load_schema(), "")
    assert missing == []


def test_form_keys_match_the_schema():
    defs = load_schema()["$defs"]
    forms = [defs[alt["$ref"].rsplit("/", 1)[1]]["required"][0] for alt in defs["step"]["anyOf"] if "$ref" in alt]
    assert tuple(forms) == FORM_KEYS == ("do", "call", "if", "while", "repeat", "loop", "for_each", "choose", "sealed", "stack",
                                         "auction", "respond", "trick", "target", "attack", "turns", "rounds",
                                         "repeat_choice", "draw_until")


# --- valid files -----------------------------------------------------------


@pytest.mark.parametrize("path", RULESETS, ids=[p.name for p in RULESETS])
def test_bundled_rulesets_validate(path):
    root, _, diags = load_file(str(path))
    assert diags == []
    assert validate_schema(root, str(path)) == []


def test_variant_with_only_ruleset_and_extends_is_valid(tmp_path):
    assert check(tmp_path, "ruleset: pig-fast\nextends: pig\n") == []


def test_variant_may_give_partial_entries_and_overrides(tmp_path):
    text = """\
    ruleset: pig-fast
    extends: pig
    title: Pig, first to 50
    parameters:
      target_score: {default: 50}
    sequences:
      turn: {title: A fast turn}
    overrides:
      - replace: turn.roll_again
        with: ["roll 1d6 as r"]
      - insert_after: turn.start
        steps: ["log 'go!'"]
      - insert_before: turn.start
        steps: []
      - remove: turn.bonus
      - remove_entry: options.old_rule
    """
    assert check(tmp_path, text) == []


def test_every_documented_section_is_accepted(tmp_path):
    text = HEADER + textwrap.dedent("""\
    version: 2015
    source: rules.html
    notes: free text
    parameters:
      target_score: {default: 100, doc: Points to win., min: 10, max: 1000}
    options:
      seize_tie: {default: nobody, choices: [nobody, first_in_order], doc: Tie rule., source: "DIGEST.md › 12.7"}
    cards:
      - for: {suit: [spades, hearts], rank: [2, 3]}
        id: "{rank}{suit}"
        name: "{rank} of {suit}"
        classes: [resource, event]
        attributes: {value: "=rank", tags: [a, b], big: true}
      - {id: red_joker, name: Red Joker, classes: [joker], count: 1}
    dice:
      pair:
        count: 2
        sides: 6
        results:
          - {name: snake_eyes, when: "doubles and faces[0] == 1", outcome: failure}
          - {name: lucky, when: doubles, reroll: optional}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      stocks: {per: [iron, wood], visibility: open}
      markets: {per: dynamic, visibility: count}
      pile: {visibility: top, initial: "[c for c in cards if c is egg]"}
    tables:
      wheel:
        keys: [iron, wood]
        columns: [primary, secondary]
        rows:
          iron: [wood, iron]
          wood: {primary: iron, secondary: wood}
        cycle: [primary]
        permutation: [secondary]
    variables: {target: 0, seizer: none, flag: false}
    player_variables: {score: 0}
    modifiers:
      extra_action: {doc: One more action this turn.}
    events: [bid_won]
    triggers:
      - {id: joker_drawn, "on": drawn, run: game, when: "card is joker", timing: now}
      - {"on": bid_won, run: game, timing: after action}
    scoring: {score: "p.score", highest_wins: true, tie_break: ["count(p.eggs)"], on_tie: shared}
    metrics:
      turns: {doc: Turns played, kind: tally, role: length}
      won: {doc: Win rate by seat, kind: per_player, by: "p.seat", value: "1 if p in winners() else 0"}
      length: {kind: per_game, value: "round"}
    sequences:
      game:
        kind: stage
        title: The game
        source: rules.html › Gameplay
        params: []
        steps:
          - "call setup"
          - {call: round, with: {n: 1, who: "players[0]"}}
          - {id: s1, label: Setup, note: n, source: s, do: "shuffle deck; draw 1"}
          - {if: true, then: [], else: ["log 'x'"]}
          - {while: "x < 3", do: ["x += 1"], name: w}
          - {repeat: ["x += 1"], until: "x > 3", name: r}
          - {loop: rounds, do: [{call: round}]}
          - {for_each: p, in: players, do: [], name: f}
          - choose: {player: p, kind: subset, options: "p.hand", min: 0, max: 3, prompt: Pick, as: picked, default: none, optional: true}
          - sealed: {each: p, in: players, choose: {kind: number, min: 0, max: "p.coins", prompt: Bid}, as: bids}
          - stack:
              zone: deck
              each: p
              in: "seat_order(first, dir: 'ccw')"
              play: {options: "[c for c in p.hand if c is power]", prompt: Play powers}
              on_play: ["set card.played_by = p"]
              resolve: ["call resolve_power with card: card"]
    """)
    assert check(tmp_path, text) == []


def test_unquoted_on_key_in_a_trigger(tmp_path):
    assert check(tmp_path, HEADER + GAME + "triggers:\n  - on: drawn\n    run: game\n") == []


# --- invalid files: code, line and column ----------------------------------


def test_unknown_top_level_key_with_did_you_mean(tmp_path):
    d = only(check(tmp_path, HEADER + GAME + "sequnces: {}\n"), "E201")
    at(d, 9, 1)
    assert "sequnces" in d.message and "'sequences'" in d.hint


def test_unknown_key_inside_a_zone(tmp_path):
    d = only(check(tmp_path, HEADER + GAME + "zones:\n  deck: {visibility: open, intial: all}\n"), "E201")
    at(d, 10, 28)
    assert "'intial'" in d.message and "'deck'" in d.message and "'initial'" in d.hint


def test_missing_title_points_at_the_first_key(tmp_path):
    text = "# yaml-language-server: $schema=x.json\n" + HEADER.replace("title: Demo\n", "") + GAME
    d = only(check(tmp_path, text), "E202")
    at(d, 2, 1)
    assert "'title'" in d.message and "extends" in d.hint


def test_missing_key_in_a_nested_mapping_points_at_its_key(tmp_path):
    d = only(check(tmp_path, HEADER.replace("{min: 2, max: 4}", "{min: 2}") + GAME), "E202")
    at(d, 3, 1)
    assert "'max'" in d.message


def test_wrong_type(tmp_path):
    d = only(check(tmp_path, HEADER.replace("{min: 2, max: 4}", "4") + GAME), "E203")
    at(d, 3, 10)
    assert "'players' must be a mapping" in d.message and "not a number" in d.message


def test_wrong_type_for_a_list_of_steps(tmp_path):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - if: x\n        then: \"end game\"\n"
    d = only(check(tmp_path, text), "E203")
    at(d, 9, 15)
    assert "'then' must be a list of steps, not text" == d.message


def test_bad_enum(tmp_path):
    d = only(check(tmp_path, HEADER + GAME + "zones:\n  deck:\n    visibility: secret\n"), "E204")
    at(d, 11, 17)
    assert "'secret'" in d.message and "hidden, owner, open, count, top" in d.message


def test_bad_id_pattern_as_a_mapping_key(tmp_path):
    d = only(check(tmp_path, HEADER + GAME + "zones:\n  2nd-pile: {visibility: open}\n"), "E204")
    at(d, 10, 3)
    assert "'2nd-pile'" in d.message and "a letter or _" in d.message


def test_bad_id_pattern_as_a_value(tmp_path):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - id: roll-again\n        do: x\n"
    d = only(check(tmp_path, text), "E204")
    at(d, 8, 13)
    assert "'roll-again'" in d.message


def test_bad_ruleset_id(tmp_path):
    d = only(check(tmp_path, HEADER.replace("ruleset: demo", "ruleset: My Game") + GAME), "E204")
    at(d, 1, 10)


def test_step_with_a_misspelled_form_key(tmp_path):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - cal: turn\n"
    d = only(check(tmp_path, text), "E205")
    at(d, 8, 9)
    assert "do, call, if" in d.message and "'call'" in d.hint


def test_misspelled_loop_key_next_to_do(tmp_path):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - whlie: \"x < 3\"\n        do: [\"x += 1\"]\n"
    d = only(check(tmp_path, text), "E201")
    at(d, 8, 9)
    assert "'while'" in d.hint


def test_step_with_two_forms(tmp_path):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - call: turn\n        if: x\n"
    d = only(check(tmp_path, text), "E205")
    at(d, 8, 9)
    assert "call, if" in d.message


def test_errors_deep_inside_nested_steps(tmp_path):
    text = HEADER + textwrap.dedent("""\
    sequences:
      game:
        steps:
          - loop: rounds
            do:
              - for_each: p
                in: players
                do:
                  - choose: {player: p, kind: maybe}
    """)
    d = only(check(tmp_path, text), "E204")
    at(d, 13, 43)
    assert "one, subset, number, yesno" in d.message


def test_overrides_item_with_two_operations(tmp_path):
    text = "ruleset: v\nextends: pig\noverrides:\n  - replace: turn.a\n    with: []\n    remove: turn.b\n"
    d = only(check(tmp_path, text), "E204")
    at(d, 4, 5)
    assert "one thing" in d.message


def test_overrides_item_with_no_operation(tmp_path):
    d = only(check(tmp_path, "ruleset: v\nextends: pig\noverrides:\n  - note: hi\n"), "E204")
    at(d, 4, 5)


def test_overrides_need_extends(tmp_path):
    d = only(check(tmp_path, HEADER + GAME + "overrides:\n  - remove: game.x\n"), "E202")
    at(d, 9, 1)
    assert "'extends'" in d.message


def test_all_problems_reported_once_in_order_with_short_messages(tmp_path):
    text = textwrap.dedent("""\
    ruleset: demo
    title: [a, b]
    players: {min: 0, max: 4, maxx: 5}
    start: game
    zones:
      deck: {visibility: secret, per: {a: 1}}
    sequences:
      game:
        steps:
          - if: {deep: {nested: [1, 2, 3]}}
            then: [[1, 2]]
    """)
    diags = check(tmp_path, text)
    where = [(d.span.line, d.span.col) for d in diags]
    assert where == sorted(where)
    assert len({(d.code, where[i]) for i, d in enumerate(diags)}) == len(diags)
    assert {d.code for d in diags} == {"E201", "E203", "E204"}
    assert len(diags) == 7, [(d.code, d.message) for d in diags]
    for d in diags:
        assert "{'" not in d.message and "['" not in d.message and len(d.message) < 200, d.message


# --- readers other than ours -------------------------------------------------


@pytest.fixture(scope="module")
def schema_validator():
    """What `jsonschema.validate(instance, schema)` makes on every call, made once: the schema checked against its
    meta-schema, then a validator of the class the schema names (a call took about 0.5 s of CPU, the validation
    itself 0.05 s)."""
    cls = jsonschema.validators.validator_for(load_schema())
    cls.check_schema(load_schema())
    return cls(load_schema())


@pytest.mark.parametrize("path", RULESETS, ids=[p.name for p in RULESETS])
def test_pyyaml_and_jsonschema_accept_every_bundled_ruleset(path, schema_validator):
    """The most common check in Python: yaml.safe_load (YAML 1.1, where a bare 'on' key is true) and jsonschema
    (as `jsonschema.validate` does it: the error it would raise is the best match of the validator's errors)."""
    import yaml

    with open(path, encoding="utf-8") as f:
        error = jsonschema.exceptions.best_match(schema_validator.iter_errors(yaml.safe_load(f)))
    assert error is None, error


def test_the_old_trigger_key_on_still_works_with_a_warning(tmp_path):
    from rulecraft.loader import load_ruleset

    text = HEADER + GAME + "triggers:\n  - on: drawn\n    run: game\n"
    path = tmp_path / "old.yaml"
    path.write_text(text, encoding="utf-8")
    result = load_ruleset(str(path))
    (warning,) = [d for d in result.diagnostics if d.code == "W312"]
    assert (warning.span.line, warning.span.col) == (10, 5) and "write 'event:'" in warning.message
    assert warning.severity.value == "warning" and result.ok
    assert result.ruleset.triggers[0].on == "drawn"
    both = tmp_path / "both.yaml"
    both.write_text(text.replace("  - on: drawn\n", "  - on: drawn\n    event: drawn\n"), encoding="utf-8")
    assert [d.code for d in load_ruleset(str(both)).diagnostics if d.is_error] == ["E201"]
