"""The type names of a failing template's message as ansible 2.19 words them.

ansible's templar hands a template a variable's value tagged with where it is written: a string,
number or float read from a file (or set by a template: ``set_fact``, a templated variable) is an
``_AnsibleTaggedStr``, ``_AnsibleTaggedInt`` or ``_AnsibleTaggedFloat``, and a list or dict is one
of its lazy containers, whose items are tagged alike. Python's own errors name those classes
(``unsupported operand type(s) for +: 'int' and '_AnsibleTaggedStr'``, ``type _AnsibleTaggedStr
doesn't define __round__ method``), and so do the filters that print ``type(value)``. A value no
file holds (a registered result, a fact, a magic variable) is not tagged, nor is what the
expression builds itself (a literal, a concatenation, a filter's result).

The engine renders with plain values. When a rendering fails with a message that names a type,
it is rendered again once with the variables so tagged (:func:`tagged_failure`); that second
failure's message is taken when it is the first one's but for the type names, so that a run never
takes anything else from it. A lookup that may do more than read (``pipe``, ``file``, ``password``)
is not run again then: the second rendering gets what the first one's call gave (:data:`REPLAYED`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

TAGGED_MODULE = "ansible.module_utils._internal._datatag"
LAZY_MODULE = "ansible._internal._templating._lazy_containers"

ERROR_RENDERING = "Error rendering template: "
_TYPE_WORD = re.compile(r"\b(?:str|int|float|list|dict|UnsafeText|builtin_function_or_method)\b")
_TAGGED_NAME = re.compile(rf"(?:{re.escape(TAGGED_MODULE)}\.|{re.escape(LAZY_MODULE)}\.)?"
                          r"_Ansible(?:Tagged(Str|Int|Float)|LazyTemplate(Dict|List))\b")
# the lookups a rendering again runs again: they only read (the environment, variables, their
# terms); any other (one that may run a command, write a file or warn) gives again what it gave the
# first rendering (:data:`REPLAYED`), and a call it did not make then fails the rendering again
READING_LOOKUPS = frozenset({"env", "vars", "items", "list", "dict", "sequence", "together", "nested", "subelements",
                             "indexed_items", "varnames"})


class NotReplayed(Exception):
    """A rendering again called a lookup the first rendering did not: its failure stands."""


class Replayed:
    """The latest results of the lookups that are not run again (by name, terms and options), a
    bounded number, given again while rendering with tagged values or while :meth:`replaying`."""

    LIMIT = 64
    LARGEST = 1 << 20  # characters of text a kept result holds at most
    MISSING = object()

    def __init__(self) -> None:
        self._kept: dict[str, Any] = {}
        self.active = False

    @contextmanager
    def replaying(self) -> Iterator[None]:
        """Templates rendered again (to find which argument failed) get the kept results."""
        saved, self.active = self.active, True
        try:
            yield
        finally:
            self.active = saved

    @staticmethod
    def _key(name: str, terms: Any, kwargs: Any) -> str:
        return repr((name, list(terms), sorted(kwargs.items(), key=str)))

    def keep(self, name: str, terms: Any, kwargs: Any, result: Any) -> None:
        if len(self._kept) >= self.LIMIT:
            self._kept.clear()
        key = self._key(name, terms, kwargs)
        if _size(result) > self.LARGEST:  # not kept: a rendering again runs it again
            self._kept.pop(key, None)
        else:
            self._kept[key] = result

    def drop(self, name: str, terms: Any, kwargs: Any) -> None:
        self._kept.pop(self._key(name, terms, kwargs), None)

    def result(self, name: str, terms: Any, kwargs: Any, tagging: bool) -> Any:
        """The kept result (as ansible hands it on when ``tagging``); :data:`MISSING` when there is
        none, but for ``tagging``, whose rendering then fails (:class:`NotReplayed`)."""
        key = self._key(name, terms, kwargs)
        if key not in self._kept:
            if tagging:
                raise NotReplayed(name)
            return self.MISSING
        return plugin_output(self._kept[key]) if tagging else self._kept[key]


def _size(value: Any, depth: int = 0) -> int:
    """About how many characters ``value`` holds (a large or deep one counts as too large)."""
    if isinstance(value, str | bytes):
        return len(value)
    if depth > 8:
        return Replayed.LARGEST + 1
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list | tuple):
        if len(value) > 10_000:
            return Replayed.LARGEST + 1
        return sum(_size(item, depth + 1) for item in value) + len(value)
    return 8


REPLAYED = Replayed()


def _plain_names(message: str) -> str:
    plain = _TAGGED_NAME.sub(lambda match: (match.group(1) or match.group(2)).lower(), message)
    plain = re.sub(r"\bUnsafeText\b", "str", plain)  # the engine's text no template may render
    return plain.replace("'method'", "'builtin_function_or_method'")  # a lazy container's own method


_LAZY_OUTPUTS: ContextVar[bool] = ContextVar("lazy_outputs", default=False)


def lazy_output(value: Any) -> Any:
    """A filter's or a call's result as ansible hands it on (``_wrap_plugin_output``) while a
    rendering again tags its values, else as it is."""
    return plugin_output(value) if _LAZY_OUTPUTS.get() else value


def tagged_failure(failure: Exception, text: str, render_tagged: Callable[[], Any]) -> Exception:
    """The failure to raise for ``failure`` (of rendering ``text``): when its message names a type
    a tag could change, or it is the failure of a marker met as an operand (an undefined value, a
    variable whose own template failed), the one ``render_tagged`` (the same rendering with tagged
    variables) raises if its message is ``failure``'s but for the type names, or is the error of
    ansible's lazy list meeting that marker; else ``failure`` itself."""
    undefined = _UNDEFINED.search(str(failure)) is not None
    marker = undefined or _marker_failure(failure)  # an undefined value's own words (undef()'s hint), a failure's
    if getattr(failure, "tags_named", False) or not (marker or _TYPE_WORD.search(str(failure))):
        return failure
    failure.tags_named = True  # type: ignore[attr-defined]
    token = _LAZY_OUTPUTS.set(True)
    try:
        render_tagged()
    except type(failure) as again:
        if marker and (worded := _marker_operand(again)) is not None:
            return worded  # ansible's lazy list on the left of + or * fails on the marker itself
        if undefined:
            return failure  # a literal list, a string or a number meets the undefined value's own failure
        if str(again) != str(failure) and (_plain_names(str(again)) == _plain_names(str(failure))
                                           or _lazy_list_added(failure, again)):
            again.tags_named = True  # type: ignore[attr-defined]
            return again
    except Exception:  # noqa: BLE001 - anything else: the first failure stands
        pass
    finally:
        _LAZY_OUTPUTS.reset(token)
    return failure


_UNDEFINED = re.compile(r"^(?:Error rendering template: )?'[^']*' is undefined$|has no attribute '[^']*'$")
_MARKER_OPERAND = re.compile(r"(?:Error rendering (?:template|expression): )?"
                             r"""(?:can only concatenate list \(not "(\w+)"\) to list"""
                             r"|'(\w+)' object cannot be interpreted as an integer)")

MARKER_CLASSES = {"ChainedUndefined": "UndefinedMarker", "CapturedFailure": "CapturedExceptionMarker"}
"""The class names of the engine's markers (engine.templating.jinja_environment) and ansible's:
an undefined value, and a variable whose template failed for another reason."""


def _marker_failure(failure: BaseException) -> bool:
    """Whether ``failure`` is a marker's, met where it is used: an undefined value's (with its own
    words: ``undef(hint=...)``), or a captured failure's (a variable whose template failed, or a
    call's error it handed on)."""
    from jinja2.exceptions import UndefinedError

    from engine.templating.errors import inline_if_undefined

    seen = 0
    cause: BaseException | None = failure
    while cause is not None and seen < 4:
        if getattr(cause, "captured", False) or isinstance(cause, UndefinedError) and not inline_if_undefined(cause):
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def _marker_operand(again: Exception) -> Exception | None:
    """``again`` worded with ansible's marker class when it is the error of ansible's lazy list on
    the left of ``+`` or ``*`` meeting a marker (``list.__add__`` raises before the marker's own
    ``__radd__`` is tried): a Python error of the operation alone, chained to nothing, so ansible
    shows neither the marker's message nor where its variable is written; None otherwise."""
    match = _MARKER_OPERAND.fullmatch(str(again))
    if match is None or (match.group(1) or match.group(2)) not in MARKER_CLASSES:
        return None
    engine_name = match.group(1) or match.group(2)
    message = str(again).replace(engine_name, MARKER_CLASSES[engine_name])
    worded = type(again)(message)
    cause = again.__cause__
    if cause is not None:  # the operation's own error, without the marker's failure as its context
        bare = type(cause)(str(cause).replace(engine_name, MARKER_CLASSES[engine_name]))
        bare.__suppress_context__ = True
        worded.__cause__ = bare
    worded.tags_named = True  # type: ignore[attr-defined]
    return worded


def _lazy_list_added(failure: Exception, again: Exception) -> bool:
    """Whether ``again`` is what ansible's lazy list gives for ``failure``'s operation: a list
    on the right of ``+`` with a left operand that cannot add it (``_LazyList.__radd__``)."""
    plain, tagged = str(failure).removeprefix(ERROR_RENDERING), str(again).removeprefix(ERROR_RENDERING)
    return tagged == "'NotImplementedType' object is not iterable" and re.fullmatch(
        r"unsupported operand type\(s\) for \+: '\w+' and 'list'", plain) is not None


_SCALARS: dict[type, type] = {}


def _scalar_class(kind: type) -> type:
    if kind not in _SCALARS:
        _SCALARS[kind] = type(f"_AnsibleTagged{kind.__name__.capitalize()}", (kind,),
                              {"__slots__": (), "__module__": TAGGED_MODULE})
    return _SCALARS[kind]


class _LazyDict(dict):  # type: ignore[type-arg]
    __module__ = LAZY_MODULE

    def __init__(self, value: Mapping[Any, Any], tags: bool) -> None:
        super().__init__(value)
        self._tags = tags

    def __getitem__(self, key: Any) -> Any:
        return tag(super().__getitem__(key), self._tags)

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[key] for key in self]

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return [(key, self[key]) for key in self]

    # the other methods ansible's lazy dict defines in Python (their type is 'method')
    def copy(self) -> dict[Any, Any]:  # type: ignore[override]
        return dict(self.items())

    def pop(self, *args: Any) -> Any:
        return tag(super().pop(*args), self._tags)

    def popitem(self) -> tuple[Any, Any]:
        key, value = super().popitem()
        return key, tag(value, self._tags)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return tag(super().setdefault(key, default), self._tags)


class _LazyList(list):  # type: ignore[type-arg]
    __module__ = LAZY_MODULE

    def __init__(self, value: list[Any], tags: bool) -> None:
        super().__init__(value)
        self._tags = tags

    def __getitem__(self, index: Any) -> Any:
        found = super().__getitem__(index)
        return _LazyList(found, self._tags) if isinstance(index, slice) else tag(found, self._tags)

    def __iter__(self) -> Iterator[Any]:
        return (tag(item, self._tags) for item in super().__iter__())

    # the methods ansible's lazy list defines in Python (their type is 'method')
    def copy(self) -> list[Any]:
        return list(self)

    def index(self, *args: Any) -> int:
        return super().index(*args)

    def pop(self, *args: Any) -> Any:
        return tag(super().pop(*args), self._tags)

    def remove(self, value: Any) -> None:
        super().remove(value)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        super().sort(*args, **kwargs)

    def __add__(self, other: Any) -> Any:
        return _LazyList(list.__add__(self, other), self._tags)

    def __mul__(self, other: Any) -> Any:
        return _LazyList(list.__mul__(self, other), self._tags)

    def __rmul__(self, other: Any) -> Any:
        return _LazyList(list.__rmul__(self, other), self._tags)

    def __radd__(self, other: Any) -> Any:
        """ansible's lazy list makes a list of what ``other.__add__`` gives back: a value that
        cannot add a list (``1 + a_list``) fails as "'NotImplementedType' object is not iterable"."""
        other_add = getattr(other, "__add__", None)
        if other_add is None:
            raise TypeError(f"unsupported operand type(s) for +: {type(other).__name__!r} and {type(self).__name__!r}")
        return _LazyList(other_add(self), self._tags)


_LazyDict.__name__ = _LazyDict.__qualname__ = "_AnsibleLazyTemplateDict"
_LazyList.__name__ = _LazyList.__qualname__ = "_AnsibleLazyTemplateList"


def tag(value: Any, scalars: bool) -> Any:
    """``value`` as ansible's templar hands it to a template: a list or dict as a lazy container,
    a string or number tagged when ``scalars`` (a value some file holds)."""
    kind = type(value)
    if kind is dict:
        return _LazyDict(value, scalars)
    if kind is list:
        return _LazyList(value, scalars)
    if isinstance(value, str) and kind is not str:  # UnsafeText: ansible's is a str
        return _scalar_class(str)(value) if scalars else str.__str__(value)
    if scalars and kind in (str, int, float):
        return _scalar_class(kind)(value)
    return value


class TaggedScope(Mapping[str, Any]):
    """A template's variables, each tagged as ansible's are (:func:`tag`): its scalars when
    ``written(name)`` says a file holds the variable's value."""

    def __init__(self, scope: Mapping[str, Any], written: Callable[[str], bool]) -> None:
        self._scope, self._written = scope, written

    def __getitem__(self, name: str) -> Any:
        value = self._scope[name]
        return value if name == "vars" else tag(value, self._written(name))

    def __contains__(self, name: object) -> bool:
        return name in self._scope

    def __iter__(self) -> Iterator[str]:
        return iter(self._scope)

    def __len__(self) -> int:
        return len(self._scope)


def plugin_output(value: Any) -> Any:
    """A lookup's result as ansible's templar hands it on (``_wrap_plugin_output``): a list or
    dict as a lazy container of the items as the plugin gave them, anything else as it is."""
    return tag(value, False) if type(value) in (list, dict) else value


def tagged_text(value: Any) -> Any:
    """A string a plugin tags with its origin (the env lookup's value): an ``_AnsibleTaggedStr``."""
    return _scalar_class(str)(value) if type(value) is str else value

