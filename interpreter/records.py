"""Frozen dataclasses made without compiling five methods per class when their module is imported.

The contract: a class made by `dataclass(frozen=True)` here is, to any caller, the class
`dataclasses.dataclass(frozen=True)` makes: the same fields (dataclasses collects them, so `fields`, `replace`,
`asdict`, `astuple`, `is_dataclass`, `__match_args__` and `__dataclass_params__` are its own), constructor, signature
and doc; the same repr (a recursive one too); equality as the running Python's dataclasses compares (the fields'
tuples up to 3.12, field by field from 3.13: a NaN field equals itself in a tuple, so up to 3.12 only); the same
hash (of the compared fields as a tuple), FrozenInstanceError messages, pickling, copy and deepcopy, `copy.replace`
(3.13) and weak references. A class made by either may derive from the other's. What is not promised: the methods
are shared functions of this module, not source dataclasses wrote. Any other option (order, slots, unsafe_hash, a
non-frozen class, a __post_init__) goes to dataclasses unchanged, and a type checker reads `dataclass` as the
standard library's. tests/records_contract.py checks the contract with the standard library alone (tests/test_records.py
runs it here and on each other Python 3.10+ it finds), and tests/test_records.py compares every class made here
with its twin made by dataclasses.

Why: `dataclasses.dataclass(frozen=True)` writes the source of __init__, __repr__, __eq__, __hash__, __setattr__ and
__delattr__ for each class and compiles each with `exec` at import, and a load imports some 70 such classes (the
AST's nodes, the model's definitions). Here only `__init__` is compiled (the constructor stays as fast as
dataclasses' own) and the other methods are small shared functions over the class's field names. Importing
rulecraft.loader.build takes 509 million instructions so, 744 million with dataclasses (frozen=True) and 753
million with frozen=True, slots=True (cachegrind, 2026-11-28): dataclasses would make that import 46% dearer,
about 80 ms of CPU on this machine.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
import sys
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from typing import TYPE_CHECKING

__all__ = ["dataclass"]

if TYPE_CHECKING:  # a type checker reads the classes as the standard library's decorator makes them (the same classes)
    from dataclasses import dataclass
else:
    def dataclass(cls=None, /, *, frozen: bool = False, eq: bool = True, repr: bool = True, **options):
        """`dataclasses.dataclass`, made cheaply at import for the frozen case (see the module's docstring)."""
        def wrap(c):
            if not frozen or options or hasattr(c, "__post_init__"):
                return dataclasses.dataclass(c, frozen=frozen, eq=eq, repr=repr, **options)
            return _frozen(c, eq, repr)
        return wrap if cls is None else wrap(cls)


def _frozen(cls, eq: bool, repr_: bool):
    own = cls.__dict__
    had_doc = own.get("__doc__") is not None
    for name in ("__setattr__", "__delattr__"):
        if name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    if not had_doc:
        cls.__doc__ = "-"  # dataclasses would work a doc out from an __init__ not made yet; it is set below
    # dataclasses is asked for the fields only (frozen=False: no methods), which it refuses on a frozen base: the
    # frozen bases say so only around this call
    bases = [p for b in cls.__mro__[1:] if (p := b.__dict__.get("__dataclass_params__")) is not None and p.frozen]
    for params in bases:
        params.frozen = False
    try:
        dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False)
    finally:
        for params in bases:
            params.frozen = True
    flds = dataclasses.fields(cls)
    cls.__init__ = _init(cls, flds)
    if repr_ and "__repr__" not in own:
        cls.__repr__ = _repr(cls, tuple(f.name for f in flds if f.repr))
    if eq and "__eq__" not in own:
        cls.__eq__ = _eq(cls, _getter(tuple(f.name for f in flds if f.compare)))
    if eq and not explicit_hash:
        cls.__hash__ = _hash(cls, _getter(tuple(f.name for f in flds if (f.compare if f.hash is None else f.hash))))
    names = frozenset(f.name for f in flds)
    cls.__setattr__, cls.__delattr__ = _frozen_attrs(cls, names)
    params = cls.__dataclass_params__  # what the class is, as dataclasses would have said it
    params.init, params.repr, params.eq, params.frozen = True, repr_, eq, True
    if not had_doc:
        shown = [_param_text(f) for f in flds if f.init and not f.kw_only]
        keywords = [_param_text(f) for f in flds if f.init and f.kw_only]
        cls.__doc__ = cls.__name__ + "(" + ", ".join(shown + (["*", *keywords] if keywords else [])) + ")"
    return cls


def _init(cls, flds):
    """The constructor dataclasses would write for a frozen class (one small exec)."""
    params: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    env = {"__setattr": object.__setattr__, "__factory": _HAS_FACTORY}
    for f in flds:
        if not f.init:  # as dataclasses does: a factory's value is made, a plain default stays on the class
            if f.default_factory is not MISSING:
                env[f"__d_{f.name}"] = f.default_factory
                body.append(f"__setattr(self, {f.name!r}, __d_{f.name}())")
            continue
        into = keywords if f.kw_only else params
        if f.default_factory is not MISSING:
            env[f"__d_{f.name}"] = f.default_factory
            into.append(f"{f.name}=__factory")
            body.append(f"__setattr(self, {f.name!r}, __d_{f.name}() if {f.name} is __factory else {f.name})")
        else:
            if f.default is not MISSING:
                env[f"__d_{f.name}"] = f.default
                into.append(f"{f.name}=__d_{f.name}")
            else:
                into.append(f.name)
            body.append(f"__setattr(self, {f.name!r}, {f.name})")
    signature = ", ".join(["self", *params, *(["*", *keywords] if keywords else [])])
    src = f"def __init__({signature}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    ns: dict = {}
    exec(src, env, ns)
    fn = ns["__init__"]
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    fn.__module__ = cls.__module__
    fn.__annotations__ = {**{f.name: f.type for f in flds if f.init}, "return": None}
    return fn


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()


def _param_text(f) -> str:
    """One parameter as inspect.signature prints it (the doc dataclasses gives a class without one)."""
    ann = inspect.formatannotation(f.type)
    if f.default_factory is not MISSING:
        return f"{f.name}: {ann} = <factory>"
    if f.default is not MISSING:
        return f"{f.name}: {ann} = {f.default!r}"
    return f"{f.name}: {ann}"


def _getter(names: tuple[str, ...]):
    """self -> the tuple of these fields' values (a tuple even of one or none, as dataclasses compares)."""
    if len(names) > 1:
        return attrgetter(*names)
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return lambda self: ()


def _repr(cls, names: tuple[str, ...]):
    @reprlib.recursive_repr("...")
    def __repr__(self):
        return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"
    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _eq(cls, values):
    # dataclasses compares the fields' tuples up to Python 3.12 and field by field from 3.13 (after `self is other`);
    # the two differ where a field's value is not equal to itself (NaN: equal in a tuple, by identity, but not
    # alone). The method written here is the one the running Python's dataclasses would write.
    if sys.version_info < (3, 13):
        def __eq__(self, other):
            if other.__class__ is self.__class__:
                return values(self) == values(other)
            return NotImplemented
    else:
        def __eq__(self, other):
            if self is other:
                return True
            if other.__class__ is self.__class__:
                result = True
                for mine, theirs in zip(values(self), values(other)):
                    result = mine == theirs
                    if not result:
                        break
                return result
            return NotImplemented
    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    return __eq__


def _hash(cls, values):
    def __hash__(self):
        return hash(values(self))
    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    return __hash__


def _frozen_attrs(cls, names: frozenset):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__
