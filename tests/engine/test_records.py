"""The run-time NamedTuple builds what typing.NamedTuple builds, without importing typing."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing

import pytest

from engine import records


def _declare(base: type) -> type:
    class Point(base):  # type: ignore[misc, valid-type]
        """A point."""

        x: int
        y: int
        label: str = "origin"
        tags: tuple[str, ...] = ()

        def moved(self, dx: int) -> Point:
            return self._replace(x=self.x + dx)

        @property
        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

        @classmethod
        def at(cls, x: int) -> Point:
            return cls(x, 0)

    return Point


def test_it_builds_the_class_typing_builds() -> None:
    ours, theirs = _declare(records.NamedTuple), _declare(typing.NamedTuple)
    assert ours._fields == theirs._fields == ("x", "y", "label", "tags")
    assert ours._field_defaults == theirs._field_defaults
    assert ours.__doc__ == theirs.__doc__ == "A point."
    assert ours.__module__ == theirs.__module__ and ours.__qualname__ == theirs.__qualname__
    assert list(ours.__annotations__) == list(theirs.__annotations__)
    assert ours.__mro__[1:] == theirs.__mro__[1:] == (tuple, object)
    a, b = ours(1, 2), theirs(1, 2)
    assert tuple(a) == tuple(b) and repr(a).replace("ours", "") == repr(b)
    assert a.moved(3) == b.moved(3) == (4, 2, "origin", ())
    assert a.norm == b.norm == 3 and ours.at(5) == theirs.at(5)
    assert a._asdict() == b._asdict()
    assert hash(a) == hash(b) and a == b


def test_it_refuses_what_typing_refuses() -> None:
    for base in (records.NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError, match="Non-default namedtuple field y cannot follow default field x"):
            type(base)("Bad", (base,), {"__annotations__": {"x": "int", "y": "int"}, "x": 0, "__module__": "m"}) \
                if base is records.NamedTuple else _bad_typing_class()
        with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):
            _overwriting(base)


def _bad_typing_class() -> None:
    class Bad(typing.NamedTuple):
        x: int = 0
        y: int  # type: ignore[misc]


def _overwriting(base: type) -> None:
    class Bad(base):  # type: ignore[misc, valid-type]
        x: int

        def _replace(self) -> None:  # type: ignore[override]
            pass


class Pickled(records.NamedTuple):
    x: int
    label: str = ""


def test_its_values_pickle() -> None:
    point = Pickled(1, "p")
    assert pickle.loads(pickle.dumps(point)) == point


def test_it_neither_imports_typing_nor_compiles_annotations() -> None:
    """typing.NamedTuple compiles each string annotation in 'eval' mode (modules without their
    .pyc are compiled in 'exec' mode)."""
    code = ("import builtins, sys\ncompiled = []\noriginal = builtins.compile\n"
            "builtins.compile = lambda *a, **k: compiled.append(a[2]) or original(*a, **k)\n"
            "from engine.span import Span\nfrom engine.parsing.loaded import Loaded\n"
            "print('typing' in sys.modules, compiled.count('eval'), Span._fields)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split(" ", 2)[:2] == ["False", "0"]
