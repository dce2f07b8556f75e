"""Pass 2: check a ruleset's YAML tree against schema/ruleset.schema.json and report each problem at its file:line:column."""

from __future__ import annotations

import copy
import functools
import json
import re
from importlib import resources
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # the pure-Python validator is imported only when a file has a problem to explain
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

from ..diagnostics import Diagnostic, did_you_mean, error, sort_key
from ..model.kinds import KINDS, on_change
from .yaml_limits import collecting, indent_hint, key_before
from .yaml_source import YMap, YNode, YScalar, YSeq

LOOP_FORMS = ("while", "loop", "for_each")  # these take 'do' as their body, not as a form
TYPE_WORDS = {"string": "text", "number": "a number", "integer": "a whole number", "boolean": "true or false",
              "null": "empty", "array": "a list", "object": "a mapping"}
_DESCENDING = {"properties", "additionalProperties", "patternProperties", "items", "prefixItems"}


@functools.lru_cache(maxsize=None)
def _file_schema() -> dict:
    """The ruleset JSON Schema as shipped, read once from the installed package."""
    text = resources.files("rulecraft.schema").joinpath("ruleset.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@functools.lru_cache(maxsize=None)
def load_schema() -> dict:
    """The ruleset JSON Schema: the shipped file, with the form of every registered step kind that brings
    its own (model/kinds.py) added as `$defs/KEYStep` and listed in `$defs/step.anyOf`."""
    extra = [k for k in KINDS.values() if k.schema is not None]
    if not extra:
        return _file_schema()
    schema = copy.deepcopy(_file_schema())
    for kind in extra:
        schema["$defs"][f"{kind.key}Step"] = copy.deepcopy(dict(kind.schema))
        schema["$defs"]["step"]["anyOf"].append({"$ref": f"#/$defs/{kind.key}Step"})
    return schema


@functools.lru_cache(maxsize=None)
def step_forms() -> dict[str, int]:
    """Each step form's key and its place in the step's anyOf: a form is a $defs subschema whose first required key is its own."""
    defs = load_schema()["$defs"]
    forms = {}
    for i, alt in enumerate(defs["step"]["anyOf"]):
        ref = alt.get("$ref", "")
        if ref.startswith("#/$defs/"):
            forms[defs[ref.rsplit("/", 1)[1]]["required"][0]] = i
    return forms


FORM_KEYS = tuple(step_forms())  # the forms of the shipped schema


def all_forms() -> tuple[str, ...]:
    """Every step form, the registered kinds' included."""
    return tuple(step_forms())


def _forget() -> None:
    """A step kind was registered or removed: what was worked out from the schema is worked out again."""
    for cached in (load_schema, step_forms, _validator, _def_names, _step_keys, _forms_with_key, _fast_validator):
        cached.cache_clear()


@functools.lru_cache(maxsize=None)
def _validator() -> "Draft202012Validator":
    from jsonschema import Draft202012Validator, validators
    return validators.extend(Draft202012Validator, {"pattern": _pattern})(load_schema())


def _pattern(validator, pattern: str, instance, schema) -> Iterator["ValidationError"]:
    """`pattern` as JSON Schema reads it: `$` ends the text (Python's also matches before a last line break)."""
    from jsonschema.exceptions import ValidationError
    if isinstance(instance, str) and not _ecma(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_ecma = functools.lru_cache(maxsize=None)(lambda p: re.compile(re.sub(r"(?<!\\)\$", r"\\Z", p)))


@functools.lru_cache(maxsize=None)
def _def_names() -> dict[int, str]:
    """$defs entries by object identity, so an error's schema can be recognised."""
    return {id(d): name for name, d in load_schema()["$defs"].items()}


@functools.lru_cache(maxsize=None)
def _step_keys() -> frozenset[str]:
    defs = load_schema()["$defs"]
    return frozenset(k for name, d in defs.items() if name.endswith("Step") for k in d.get("properties", {}))


@functools.lru_cache(maxsize=None)
def _forms_with_key(key: str) -> tuple[str, ...]:
    """The step forms whose steps take `key` (e.g. 'until' goes with 'repeat'); none for a key every step takes."""
    defs = load_schema()["$defs"]
    owners = {f for d in (d for name, d in defs.items() if name.endswith("Step")) for f in all_forms()
              if f != key and f in d.get("properties", {}) and key in d.get("properties", {})}
    return tuple(f for f in all_forms() if f in owners) if len(owners) < len(all_forms()) - 1 else ()


@functools.lru_cache(maxsize=None)
def _fast_validator():
    """A compiled validator (jsonschema-rs) that only says valid or not, in well under a millisecond.

    The pure-Python walk below is what explains a problem at its line and column; it is
    slow on large rulesets, so it runs only when the fast check finds something. Without
    jsonschema-rs installed, the walk always runs.
    """
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - the package is a dependency; this keeps a source install working
        return None
    try:
        return jsonschema_rs.validator_for(load_schema())
    except Exception:  # pragma: no cover - an unsupported keyword: fall back to the full walk
        return None


def validate_schema(root: YMap, path: str) -> list[Diagnostic]:
    """Every schema problem in `root`, each once, sorted by position."""
    data = root.plain()
    fast = _fast_validator()
    if fast is not None:
        try:
            if fast.is_valid(data):
                return []
        except (ValueError, TypeError):
            pass  # data the fast validator cannot take: let the walk say what is wrong
    found: dict[tuple, Diagnostic] = {}
    with collecting():  # a load pauses the collector, and jsonschema's errors are cycles: 3.6 GB for 30,000 of them
        for err in _validator().iter_errors(data):
            for key, diag in _explain_any(err, root):
                found.setdefault(key, diag)
    return sorted(found.values(), key=sort_key)


def _explain_any(err: "ValidationError", root: YMap) -> Iterator[tuple[tuple, Diagnostic]]:
    if err.validator == "anyOf" and _def_names().get(id(err.schema)) == "step":
        yield from _explain_step(err, root)
    else:
        yield from _explain(_best_match([err]) or err, root)


def _explain_step(err: "ValidationError", root: YMap) -> Iterator[tuple[tuple, Diagnostic]]:
    """A step that matches no form: find its form by its key, then explain only that form's errors."""
    inst, path = err.instance, tuple(err.absolute_path)
    node, _ = _walk(root, path)
    if not isinstance(inst, dict) or not isinstance(node, YMap):
        return  # neither text nor a mapping: the step's own 'type' says so
    forms = [k for k in all_forms() if k in inst and not (k == "do" and any(l in inst for l in LOOP_FORMS))]
    if not forms:
        span, hint = node.span, None
        for k in node.entries:
            hint = None if k in _step_keys() else did_you_mean(k, all_forms())
            if hint:
                span, hint = node.key_span(k), f"'{k}': {hint}"
                break
        yield (path, "E205"), error(
            "E205", "this step has no form: a step mapping needs one of " + ", ".join(all_forms()), span,
            hint or "or write the step as text: a string of statements")
    elif len(forms) > 1:
        yield (path, "E205"), error(
            "E205", f"this step has {len(forms)} forms ({', '.join(forms)}); a step has exactly one", node.span,
            "split it into separate steps, or nest one inside the other (under 'then:' or 'do:')")
    else:
        index = step_forms()[forms[0]]
        for sub in err.context:
            if sub.relative_schema_path and sub.relative_schema_path[0] == index:
                yield from _explain_any(sub, root)


def _best_match(errors):
    from jsonschema.exceptions import best_match

    return best_match(errors)


def _explain(err: "ValidationError", root: YMap) -> Iterator[tuple[tuple, Diagnostic]]:
    path = tuple(err.absolute_path)
    node, parent = _walk(root, path)
    schema = err.schema if isinstance(err.schema, dict) else {}
    defname = _def_names().get(id(schema), "")
    kind, inst = err.validator, err.instance
    subject = _subject(path, root)

    if _on_key_name(err) and kind == "enum" and isinstance(node, YMap):  # a key outside the keys a step form lists
        allowed = [str(k) for k in err.validator_value]
        yield _unknown_key(inst, allowed, path, node, any(k in all_forms() for k in allowed), root)
    elif _on_key_name(err):  # a propertyNames failure: the instance is a key of the mapping at `path`
        span = node.key_span(inst) if isinstance(node, YMap) else node.span
        yield (path, inst, "E204"), error(
            "E204", f"'{_short(inst)}' is not allowed as a name here: expected {_expected(schema)}", span,
            "rename it, and every place that refers to it")
    elif err.context:  # a oneOf/anyOf whose alternatives fail equally: say what was expected overall
        if all(c.validator == "type" for c in err.context):
            words = [_expected(c.schema) for c in err.context if isinstance(c.schema, dict)]
            expected = _expected(schema) if schema.get("errorMessage") else " or ".join(dict.fromkeys(words))
            yield (path, "E203"), error("E203", f"{subject} must be {expected}, not {_kind(inst)}", node.span)
        else:
            yield (path, "E204"), error("E204", f"{subject} matches none of the allowed forms", node.span, _message(schema))
    elif kind == "additionalProperties" and isinstance(node, YMap):
        allowed = set(schema.get("properties", {}))
        extras = [k for k in inst if k not in allowed and not any(re.search(p, k) for p in schema.get("patternProperties", {}))]
        for k in extras:
            yield _unknown_key(k, allowed, path, node, defname.endswith("Step"), root, schema.get("x-other-keys"))
    elif kind == "required" and isinstance(inst, dict):
        span = parent.key_span(path[-1]) if isinstance(parent, YMap) else node.span
        for k in err.validator_value:
            if k not in inst:
                yield (path, k, "E202"), error("E202", f"missing required key '{k}'{_within(path, root)}", span, _add_hint(k, path, err))
    elif kind == "dependentRequired" and isinstance(inst, dict) and isinstance(node, YMap):
        for prop, deps in err.validator_value.items():
            for k in (d for d in deps if prop in inst and d not in inst):
                yield (path, k, "E202"), error(
                    "E202", f"'{prop}' needs '{k}' as well", node.key_span(prop), f"add '{k}:' or remove '{prop}'")
    elif kind == "type":
        yield (path, "E203"), error("E203", f"{subject} must be {_expected(schema)}, not {_kind(inst)}", node.span,
                                    indent_hint(parent, path[-1] if path else None))
    else:
        yield (path, "E204"), error("E204", _not_allowed(kind, err, schema, subject), node.span, _value_hint(kind, err))


# keys that belong elsewhere in a construct: (the key, the path's last two parts) -> what to write instead
_ELSEWHERE = {
    ("player", ("sealed", "choose")): "every player in 'in:' decides at once: name each one with 'each:' on the "
                                      "sealed step (each: p, in: players) and use that name in 'choose:'",
    ("as", ("sealed", "choose")): "the answers are bound with 'as:' on the sealed step, beside 'choose:'",
}


def _unknown_key(key: str, allowed, path: tuple, node: YMap, in_step: bool, root: YMap, others=None) -> tuple:
    hint = (others or {}).get(key) or _ELSEWHERE.get((key, tuple(p for p in path if isinstance(p, str))[-2:])) \
        or "; or ".join(h for h in (indent_hint(node, key), did_you_mean(key, allowed)) if h) or _comma_hint(key, node)
    if hint is None and in_step:
        owners = _forms_with_key(key)
        hint = (f"'{key}' belongs to a step of another form: {' or '.join(owners)} (e.g. '{owners[0]}:' with '{key}:')"
                if owners else did_you_mean(key, _step_keys()))
    if hint is None and allowed:
        hint = "keys allowed here: " + ", ".join(sorted(allowed))
    return (path, key, "E201"), error("E201", f"unknown key '{key}'{_within(path, root)}", node.key_span(key), hint)


def _comma_hint(key: str, node: YMap) -> str | None:
    """`{prompt: Pick one, then wait}`: the comma ended the text, and the rest became a key with no value."""
    prev = key_before(node.entries, key) if node.entries[key].plain() is None else None
    value = node.entries.get(prev) if prev is not None else None
    if not (isinstance(value, YScalar) and isinstance(value.value, str) and node.key_span(prev).line == node.key_span(key).line):
        return None
    return f"a comma inside {{...}} ends a value: quote the text, {prev}: \"{_short(value.value)}, {_short(key)}\""


def _walk(root: YMap, path: tuple) -> tuple[YNode, YNode | None]:
    """The node at `path` (or the deepest one that exists) and its parent."""
    node: YNode = root
    parent: YNode | None = None
    for part in path:
        if isinstance(node, YMap) and part in node.entries:
            nxt = node.entries[part]
        elif isinstance(node, YSeq) and isinstance(part, int) and 0 <= part < len(node.items):
            nxt = node.items[part]
        else:
            break
        parent, node = node, nxt
    return node, parent


def _on_key_name(err: "ValidationError") -> bool:
    sp = [p for p in err.absolute_schema_path if isinstance(p, str)]
    if "propertyNames" not in sp:
        return False
    tail = sp[len(sp) - sp[::-1].index("propertyNames"):]
    return not (_DESCENDING & set(tail)) and isinstance(err.instance, str)


def _subject(path: tuple, root: YMap | None = None) -> str:
    if not path:
        return "the ruleset"
    last = path[-1]
    if isinstance(last, int):
        step = _step_words(_walk(root, path)[0], path[0] == "cards") if root is not None else None
        if step:
            return step
        owner = next((p for p in reversed(path[:-1]) if isinstance(p, str)), None)
        return f"item {last + 1} of '{owner}'" if owner else f"item {last + 1}"
    if root is not None and len(path) >= 2 and isinstance(path[-2], int):  # a key of a step (or card group): say which
        step = _step_words(_walk(root, path[:-1])[0], path[0] == "cards")
        if step and not step.endswith(f"line {_walk(root, path[:-1])[0].span.line}"):  # named: worth saying
            return f"'{last}' of {step}"
    return f"'{last}'"


def _step_words(node: YNode, card: bool = False) -> str | None:
    """A step as its designer knows it: by its id, its label, or its form and line (never 'item 5 of do'); a card group by its id."""
    if not isinstance(node, YMap) or card:  # (not a mapping, a card's class say: no id to name it by)
        return f"the card group '{node.get('id').value}'" if isinstance(node, YMap) and isinstance(node.get("id"), YScalar) else None
    form = next((k for k in node.entries if k in all_forms()), None)
    if form is None and not any(k in node.entries for k in ("id", "label")):
        return None
    ident, label = node.get("id"), node.get("label")
    if isinstance(ident, YScalar) and isinstance(ident.value, str):
        return f"step '{ident.value}'"
    if isinstance(label, YScalar) and isinstance(label.value, str):
        return f"the step '{_short(label.value)}'"
    return f"the '{form}' step of line {node.span.line}"


def _within(path: tuple, root: YMap | None = None) -> str:
    return f" in {_subject(path, root)}" if path else ""


def _short(value: Any, limit: int = 40) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        return _kind(value)
    text = str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind(value: Any) -> str:
    kinds = ((bool, "true/false"), ((int, float), "a number"), (str, "text"), (type(None), "empty"), (list, "a list"))
    return next((word for t, word in kinds if isinstance(value, t)), "a mapping")


def _message(schema: dict) -> str | None:
    """The schema's own errorMessage as a diagnostic-style phrase (lower case, no final dot)."""
    msg = schema.get("errorMessage")
    return msg[0].lower() + msg[1:].rstrip(".") if msg else None


def _expected(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "something else"
    msg = schema.get("errorMessage")
    m = re.match(r"Expected (.*?)\.?$", msg or "", re.S)
    if m:
        return m.group(1)
    types = schema.get("type")
    types = [types] if isinstance(types, str) else types or []
    return " or ".join(TYPE_WORDS.get(t, t) for t in types) or "something else"


def _add_hint(key: str, path: tuple, err: "ValidationError") -> str:
    props = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
    if not path:
        props = load_schema()["properties"]
    desc = props.get(key, {}).get("description") if isinstance(props.get(key), dict) else None
    hint = f"add '{key}:'" + (f" ({desc[0].lower()}{desc[1:].rstrip('.')})" if desc else "")
    if not path and "else" in err.absolute_schema_path:
        hint += "; only a variant (with 'extends:') may leave it out"
    return hint


def _not_allowed(kind: str, err: "ValidationError", schema: dict, subject: str) -> str:
    inst, val = err.instance, err.validator_value
    shown = f"'{_short(inst)}'"
    if kind == "enum":
        return f"{shown} is not allowed for {subject}; use one of: " + ", ".join(_short(v) for v in val)
    if kind == "const":
        return f"{subject} must be {_short(val)}"
    if kind == "pattern":
        return f"{shown} is not allowed for {subject}: expected {_expected(schema)}"
    if kind in ("minimum", "exclusiveMinimum"):
        return f"{subject} must be {'at least' if kind == 'minimum' else 'more than'} {val}, not {_short(inst)}"
    if kind in ("maximum", "exclusiveMaximum"):
        return f"{subject} must be {'at most' if kind == 'maximum' else 'less than'} {val}, not {_short(inst)}"
    if kind in ("minItems", "minLength", "minProperties"):
        return f"{subject} must not be empty" if val == 1 else f"{subject} needs at least {val} entries"
    if kind in ("maxItems", "maxLength", "maxProperties"):
        unit = {"maxItems": "entries", "maxLength": "characters", "maxProperties": "keys"}[kind]
        return f"{subject} is too long: at most {val} {unit}"
    if kind == "uniqueItems":
        return f"{subject} lists the same value twice"
    return _message(schema) or f"{subject} is not allowed here"


def _value_hint(kind: str, err: "ValidationError") -> str | None:
    if kind == "enum" and isinstance(err.instance, str):  # a name other games use for a value: the schema says ours
        other = (err.schema.get("x-other-names") or {}) if isinstance(err.schema, dict) else {}
        return other.get(err.instance.lower()) or did_you_mean(err.instance, [str(v) for v in err.validator_value])
    if kind == "pattern" and isinstance(err.instance, str) and list(err.absolute_path)[-1:] == ["call"] \
            and "[" in err.instance:  # 'call: TABLE[KEY].COLUMN': the statement form calls by table
        return f"a call by table is a statement: write the step as text, - \"call {_short(err.instance)}\""
    return None


on_change(_forget)
