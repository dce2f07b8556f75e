"""rulecraft.records.dataclass against dataclasses.dataclass: every class made with it behaves as the real one.

Each module that uses it is loaded a second time with the real decorator in its place (a twin module), and every
class is compared with its twin: fields, doc, match args, the constructor's signature, repr, equality, hash, and
the errors when a field is assigned or deleted.
"""

from __future__ import annotations

import dataclasses
import glob
import importlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import records_contract
import rulecraft.records as records

MODULES = ["rulecraft.dsl.ast", "rulecraft.model.steps", "rulecraft.model.ruleset", "rulecraft.model.compiled",
           "rulecraft.model.kinds"]


def _twin(name: str):
    """The module loaded again under another name, its classes made by dataclasses itself."""
    real = importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(name + "_twin", real.__file__)
    twin = importlib.util.module_from_spec(spec)
    twin.__package__ = real.__package__
    saved = records.dataclass
    records.dataclass = dataclasses.dataclass
    sys.modules[spec.name] = twin  # dataclasses looks its module up while it works
    try:
        spec.loader.exec_module(twin)
    finally:
        records.dataclass = saved
        del sys.modules[spec.name]
    return real, twin


def _classes(module):
    return [c for c in vars(module).values()
            if isinstance(c, type) and c.__module__ == module.__name__ and "__dataclass_fields__" in c.__dict__]


def _field_facts(cls):
    def same(v):  # a function of the twin module is another object of the same name
        return getattr(v, "__qualname__", None) or v if callable(v) else v
    return [(f.name, same(f.default), same(f.default_factory), f.init, f.repr, f.compare, f.hash, f.kw_only)
            for f in dataclasses.fields(cls)]


def _params(cls) -> tuple:
    p = cls.__dataclass_params__
    return p.init, p.repr, p.eq, p.order, p.unsafe_hash, p.frozen


def _no_address(text) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", str(text))


def _values(cls, salt: str):
    return [f"{salt}{i}" for i, f in enumerate(dataclasses.fields(cls)) if f.init]


def _error(fn, *args):
    try:
        fn(*args)
    except Exception as exc:  # the type and message are what is compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("name", MODULES)
def test_classes_behave_as_dataclasses_makes_them(name):
    real, twin = _twin(name)
    ours = _classes(real)
    assert ours, name
    assert [c.__name__ for c in ours] == [c.__name__ for c in _classes(twin)]
    for cls in ours:
        other = getattr(twin, cls.__name__)
        where = f"{name}.{cls.__name__}"
        assert _field_facts(cls) == _field_facts(other), where
        assert _no_address(cls.__doc__) == _no_address(other.__doc__), where
        assert cls.__match_args__ == other.__match_args__, where
        assert _params(cls) == _params(other), where
        assert _no_address(inspect.signature(cls.__init__)) == _no_address(inspect.signature(other.__init__)), where
        assert (cls.__hash__ is None) == (other.__hash__ is None), where
        a, b, c = (cls(*_values(cls, s)) for s in ("x", "x", "y"))
        a2, b2, c2 = (other(*_values(other, s)) for s in ("x", "x", "y"))
        assert repr(a).replace("_twin", "") == repr(a2).replace("_twin", ""), where
        assert (a == b, a == c, a != b, a.__eq__(object())) == (a2 == b2, a2 == c2, a2 != b2, a2.__eq__(object())), where
        assert (cls.__hash__ is object.__hash__) == (other.__hash__ is object.__hash__), where
        if other.__hash__ not in (None, object.__hash__):
            assert hash(a) == hash(a2), where
        for f in dataclasses.fields(cls):
            assert _error(setattr, a, f.name, 1) == _error(setattr, a2, f.name, 1), where
            assert _error(delattr, a, f.name) == _error(delattr, a2, f.name), where
        assert _error(setattr, a, "other", 1) == _error(setattr, a2, "other", 1), where
        assert (dataclasses.replace(a) == a) == (dataclasses.replace(a2) == a2), where


def test_defaults_factories_and_options():
    @records.dataclass(frozen=True)
    class Base:
        a: int
        b: list = dataclasses.field(default_factory=list)
        c: str = "c"
        d: object = dataclasses.field(default=None, repr=False, compare=False)

    @records.dataclass(frozen=True)
    class Sub(Base):
        e: int = 5
        f: int = dataclasses.field(default=0, kw_only=True)

    x = Sub(1)
    assert (x.a, x.b, x.c, x.d, x.e, x.f) == (1, [], "c", None, 5, 0)
    assert Sub(1).b is not x.b
    assert repr(x) == "test_defaults_factories_and_options.<locals>.Sub(a=1, b=[], c='c', e=5, f=0)"
    assert Sub(1, d=3) == Sub(1, d=4) and Sub(1, f=1) != Sub(1)
    assert str(inspect.signature(Sub)) == "(a: 'int', b: 'list' = <factory>, c: 'str' = 'c', d: 'object' = None, " \
        "e: 'int' = 5, *, f: 'int' = 0) -> None"
    assert Sub.__doc__ == "Sub(a: 'int', b: 'list' = <factory>, c: 'str' = 'c', d: 'object' = None, e: 'int' = 5, *, " \
        "f: 'int' = 0)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 2
    assert dataclasses.replace(x, a=7).a == 7

    @records.dataclass(frozen=True, order=True)  # any other option: dataclasses' own class
    class Ordered:
        a: int

    assert Ordered(1) < Ordered(2)

    @dataclasses.dataclass(frozen=True)  # dataclasses' own class on one made here, and one made here on that
    class Real(Sub):
        g: int = 1

    @records.dataclass(frozen=True)
    class Again(Real):
        h: int = 2

    assert Again(1, h=3) == Again(1, h=3) and Real(1).g == 1 and _params(Again) == _params(Real)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Again(1).h = 1
    with pytest.raises(TypeError):
        @records.dataclass(frozen=True)
        class Bad:
            def __setattr__(self, name, value):
                pass


def test_equality_with_a_value_not_equal_to_itself_is_the_running_pythons():
    """A NaN is equal to itself inside a tuple (by identity) but not alone: dataclasses compared the fields' tuples up
    to Python 3.12 and compares field by field from 3.13, and a class made here compares as the running Python's own."""
    nan = float("nan")

    @records.dataclass(frozen=True)
    class Ours:
        a: float
        b: int = 0

    @dataclasses.dataclass(frozen=True)
    class Theirs:
        a: float
        b: int = 0

    x, y = Ours(nan), Ours(nan)
    x2, y2 = Theirs(nan), Theirs(nan)
    assert (x == y, x == x, x != y, Ours(1.0, 1) == Ours(1.0, 2)) == \
        (x2 == y2, x2 == x2, x2 != y2, Theirs(1.0, 1) == Theirs(1.0, 2))
    assert (x == y) is (sys.version_info < (3, 13))


def test_the_contract_holds_on_this_python():
    """records_contract.py: what a caller sees of a class made here is what dataclasses makes (pickle, copy, replace,
    NaN equality and hash, repr, fields, the frozen errors, inheritance both ways)."""
    assert records_contract.check(records) > 300


def _other_pythons() -> list:
    """Each other Python 3.10+ (requires-python) on this machine, one per version: pyenv's, or /usr/bin's."""
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = {}
    for path in sorted(glob.glob(os.path.join(pyenv, "versions", "3.*", "bin", "python3"))) + \
            sorted(glob.glob("/usr/bin/python3.1[0-9]")) + sorted(glob.glob("/usr/local/bin/python3.1[0-9]")):
        m = re.search(r"3\.(\d+)", path.split("versions/")[-1] if "versions/" in path else os.path.basename(path))
        minor = int(m.group(1)) if m else 0
        if minor >= 10 and minor != sys.version_info.minor and os.access(path, os.X_OK):
            found.setdefault(f"3.{minor}", path)
    return [pytest.param(version, path, id=version) for version, path in sorted(found.items())]


@pytest.mark.parametrize("version,python", _other_pythons() or [pytest.param("none", "", marks=pytest.mark.skip(
    reason="no other Python 3.10+ here (pyenv's or /usr/bin's): the contract is checked on this one only"))])
def test_the_contract_holds_on_every_python_here(version, python):
    """The same check run by another Python (records.py and the check need the standard library only): 3.13
    compares a dataclass's fields one by one, so a NaN field is not equal to itself there as it is up to 3.12."""
    here = Path(__file__).parent
    run = subprocess.run([python, str(here / "records_contract.py"), records.__file__], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"agree on Python {version}." in run.stdout, run.stdout
