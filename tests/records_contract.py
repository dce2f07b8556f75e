"""The contract of rulecraft.records, checked on whatever Python runs this file, with the standard library alone.

`check(records)` makes small classes twice, with `records.dataclass(frozen=True)` and with
`dataclasses.dataclass(frozen=True)`, and compares everything a caller can see of them: equality (a NaN field
too), hash, repr (a recursive one too), the frozen errors, pickling, copy and deepcopy, `dataclasses.replace` (and
`copy.replace` where the running Python has it), fields, asdict, astuple, match args, signature and doc, weak
references, and inheritance both ways. tests/test_records.py runs it in the test process and, as a script
(`python3.13 tests/records_contract.py interpreter/records.py`), on each other Python it finds.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import inspect
import pickle
import re
import sys
import weakref
from dataclasses import field
from types import ModuleType
from typing import Any, Callable

NAN = float("nan")


def _outcome(fn: Callable[[], Any]) -> Any:
    """What a call gives: its value, or the type and message of what it raised."""
    try:
        return ("value", fn())
    except Exception as exc:  # the type and message are what is compared
        return ("raised", type(exc).__name__, str(exc))


def _plain(value: Any) -> Any:
    """A value with the twin's names and addresses taken out, so ours and theirs compare."""
    return re.sub(r" at 0x[0-9a-f]+", "", str(value)).replace("_theirs", "").replace("_ours", "")


def _make(maker: Callable, suffix: str, name: str, bases: tuple, annotations: dict, defaults: dict,
          **options: Any) -> type:
    """A class made by `maker` and kept in this module under `name + suffix`, so pickle finds it by name."""
    full = name + suffix
    ns = {"__annotations__": annotations, "__module__": __name__, "__qualname__": full, **defaults}
    cls = maker(frozen=True, **options)(type(full, bases, ns))
    globals()[full] = cls
    return cls


def _pair(records: ModuleType) -> dict[str, tuple[type, type]]:
    """The same classes made by records (first) and by dataclasses (second)."""
    out: dict[str, list[type]] = {}
    for maker, suffix in ((records.dataclass, "_ours"), (dataclasses.dataclass, "_theirs")):
        plain = _make(maker, suffix, "Plain", (), {"a": "float", "b": "Any", "c": "tuple", "d": "Any"},
                      {"b": 0, "c": field(default=(), repr=False), "d": field(default=None, compare=False)})
        made = {
            "Plain": plain,
            "Empty": _make(maker, suffix, "Empty", (), {}, {}),
            "Made": _make(maker, suffix, "Made", (), {"a": "int", "b": "list", "c": "int"},
                          {"b": field(default_factory=list, hash=False), "c": field(default=3, kw_only=True)}),
            "NoEq": _make(maker, suffix, "NoEq", (), {"a": "int"}, {}, eq=False),
            "Derived": _make(maker, suffix, "Derived", (plain,), {"e": "str"}, {"e": "e"}),
        }
        for name, cls in made.items():
            out.setdefault(name, []).append(cls)
    return {name: (ours, theirs) for name, (ours, theirs) in out.items()}


def _instances(name: str, cls: type) -> list:
    """Instances of one of the classes above, alike for ours and theirs (a NaN in the first two)."""
    if name == "Empty":
        return [cls(), cls()]
    if name == "Made":
        return [cls(1), cls(1), cls(2, [1], c=4)]
    if name == "NoEq":
        return [cls(1), cls(1)]
    nan = [cls(NAN), cls(NAN), cls(1.0, "x", (2,), "ignored"), cls(1.0, "x", (2,), "other")]
    return nan + ([cls(NAN, e="f")] if name == "Derived" else [])


def _facts(name: str, cls: type) -> list:
    """Everything compared, for one class: a list of plain values."""
    xs = _instances(name, cls)
    facts: list = [
        [(f.name, f.init, f.repr, f.compare, f.hash, f.kw_only) for f in dataclasses.fields(cls)],
        cls.__match_args__, _plain(inspect.signature(cls)), _plain(cls.__doc__), dataclasses.is_dataclass(cls),
        cls.__hash__ is None, cls.__hash__ is object.__hash__, hasattr(cls, "__slots__"),
    ]
    for x in xs:
        facts.append(_plain(repr(x)))
        facts.append([(x == y, x != y, x.__eq__(y)) for y in xs])  # NaN: equal to itself, to another by version
        facts.append(x.__eq__(object()))
        facts.append(_outcome(lambda x=x: hash(x) == hash(copy.copy(x))))
        if cls.__hash__ is not object.__hash__ and not any(v != v for v in vars(x).values()):
            facts.append(_outcome(lambda x=x: hash(x)))  # the value itself (a NaN's hash is its identity's)
        facts.append(_outcome(lambda x=x: dataclasses.asdict(x)))
        facts.append(_outcome(lambda x=x: dataclasses.astuple(x)))
        for f in [*dataclasses.fields(cls), field()]:
            fname = getattr(f, "name", None) or "other"
            facts.append(_plain(_outcome(lambda x=x, n=fname: setattr(x, n, 1))))
            facts.append(_plain(_outcome(lambda x=x, n=fname: delattr(x, n))))
        for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(x, protocol))
            facts.append((_plain(repr(back)), back == x, type(back) is cls))
        facts.append((copy.copy(x) == x, copy.deepcopy(x) == x, type(copy.deepcopy(x)) is cls))
        facts.append(_plain(_outcome(lambda x=x: repr(dataclasses.replace(x)))))
        if dataclasses.fields(cls):
            first = dataclasses.fields(cls)[0].name
            facts.append(_plain(_outcome(lambda x=x, n=first: repr(dataclasses.replace(x, **{n: 5})))))
        if hasattr(copy, "replace"):  # Python 3.13
            facts.append(_plain(_outcome(lambda x=x: repr(copy.replace(x)))))  # type: ignore[attr-defined]
        facts.append(weakref.ref(x)() is x)
    return facts


def _recursive(records: ModuleType) -> list:
    """repr of a value that holds itself, both ways."""
    out = []
    for maker, suffix in ((records.dataclass, "_ours"), (dataclasses.dataclass, "_theirs")):
        box = _make(maker, suffix, "Box", (), {"items": "list"}, {})([])
        box.items.append(box)
        out.append(_plain(repr(box)))
    return out


def _across(records: ModuleType) -> list:
    """A class made by one decorator deriving from one made by the other: fields, equality, frozen."""
    out = []
    for base_maker, sub_maker, suffix in ((records.dataclass, dataclasses.dataclass, "_ours"),
                                          (dataclasses.dataclass, records.dataclass, "_theirs")):
        base = _make(base_maker, suffix, "Base", (), {"a": "int"}, {})
        sub = _make(sub_maker, suffix, "Sub", (base,), {"b": "int"}, {"b": 2})
        x = sub(1)
        out.append((_plain(repr(x)), x == sub(1), x != sub(1, 3), hash(x) == hash(sub(1)),
                    _plain(_outcome(lambda x=x: setattr(x, "a", 5))), pickle.loads(pickle.dumps(x)) == x))
    return out


def check(records: ModuleType) -> int:
    """Compare ours with theirs; raise AssertionError naming the first difference. Returns how many facts agreed."""
    agreed = 0
    for name, (ours, theirs) in _pair(records).items():
        mine, real = _facts(name, ours), _facts(name, theirs)
        assert len(mine) == len(real), name
        for i, (a, b) in enumerate(zip(mine, real)):
            assert a == b, f"{name}, fact {i} on Python {sys.version.split()[0]}: records gives {a!r}, dataclasses {b!r}"
        agreed += len(mine)
    ours_box, their_box = _recursive(records)
    assert ours_box == their_box, (ours_box, their_box)
    one, other = _across(records)
    assert one == other, (one, other)
    return agreed + 2


def load(path: str) -> ModuleType:
    """interpreter/records.py as a module of its own (it imports the standard library only)."""
    spec = importlib.util.spec_from_file_location("records_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses looks the module of a class up while it works
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    print(f"{check(load(sys.argv[1]))} facts agree on Python {sys.version.split()[0]}")
