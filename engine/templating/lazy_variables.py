"""Variables as ansible's lazy templating shows them to a template, for every templar that
renders with variables (the run-time templar, the ``constructed`` inventory plugin).

ansible-core 2.19 renders a variable whose value is a template when a template reads it, once:
the rendered value replaces the template for later reads. A value that, while it is being
rendered, needs itself (``a: "{{ a }}"``, ``a: "{{ b }}"`` with ``b: "{{ a }}"``) is a loop and an
error, even behind ``default`` or ``is defined``; ansible finds it when Python's recursion limit
is hit, we find it at the second read. How deep distinct variables refer to each other is not
limited. A variable whose rendering needs an undefined one reads as undefined and fails only
where a template uses it: Jinja looks up every name a template mentions before it runs, even
those of an ``{% if %}`` branch not taken, and ansible's markers fail only when used. A list or
dict value one of whose items fails is rendered item by item, as ansible's lazy containers render
what is read: the items that fail stand in for their failures, so that its length, its keys and
its other items are read, and the whole fails where a template gives it whole; a variable that
only names such a variable (``comps: "{{ _comps }}"``) is that container too. Where we differ:
``debug: var=`` of such a container shows the error, where ansible shows the container with the
failing part replaced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator, Mapping
from contextvars import ContextVar

from engine.templating.replacing import replacing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class TemplateLoop(Exception):
    """A variable's value needs itself to be rendered."""


RECURSIVE_TEMPLATE = "Recursive loop detected in template: maximum recursion depth exceeded"
"""ansible's words for a variable read while it renders (``create_template_error`` of the
RecursionError its templar meets, the Python error's message folded in)."""


_RENDERING: ContextVar[tuple[str, ...]] = ContextVar("_RENDERING", default=())
"""The variables being rendered, innermost last (what a template's text came from)."""


def rendering_variable() -> str | None:
    """The variable whose value is being rendered now (the innermost), None outside any."""
    names = _RENDERING.get()
    return names[-1] if names else None


class LazyVariables(Mapping[str, "Any"]):
    """``raw`` variables, each passed through ``render`` (with this mapping as what it sees) on
    its first read; a read of a variable during its own rendering raises ``loop_error`` (of the
    message and the variable's name)."""

    type_name = "dict"
    """The type an error message names for this mapping (ansible's hostvars of a host is a
    ``HostVarsVars``)."""

    def __init__(self, raw: Mapping[str, Any], render: Callable[[Any], Any],
                 loop_error: Callable[[str, str], Exception] = lambda message, _key: TemplateLoop(message),
                 deferred: Callable[[str, Exception], Any] | None = None,
                 data: Container[str] = ()) -> None:
        """``deferred``: what a variable whose rendering failed reads as, instead of the
        failure (None: the failure), so that only a template that uses it fails. ``data``: names
        whose values are read as they are, never rendered (ansible's magic variables: built by
        ansible, not trusted as templates, and as large as the inventory)."""
        self._raw, self._render, self._loop_error, self._deferred = raw, render, loop_error, deferred
        self._data = data
        self._done: dict[str, Any] = {}
        self._busy: set[str] = set()

    def written(self, key: str) -> Any:
        """The value as written, before it is rendered."""
        return self._raw[key]

    def __getitem__(self, key: str) -> Any:
        # a rendering that replaces markers (a task's name, debug's var) renders a variable anew at
        # each read and keeps nothing, as ansible numbers the markers of every read
        done = self._done if replacing() is None else {}
        if key in done:
            return done[key]
        value = self._raw[key]
        if key in self._data:
            return value
        if key in self._busy:
            raise self._loop_error(RECURSIVE_TEMPLATE, key)
        self._busy.add(key)
        token = _RENDERING.set((*_RENDERING.get(), key))
        try:
            try:
                value = self._render(value)
            except Exception as exc:
                stand_in = self._deferred(key, exc) if self._deferred is not None else None
                if stand_in is None or not isinstance(value, dict | list):
                    if stand_in is None:
                        raise
                    return stand_in
            else:
                if isinstance(value, PartlyRendered) and self._deferred is not None:
                    value = self._standing_in(key, value)  # its own template built it around failures
                done[key] = value
                return value
            # a lazy container: only the items that fail do (each failure its own, not this one's context)
            value = self._item_wise(key, value)
            if value is None:
                return stand_in
        finally:
            self._busy.discard(key)
            _RENDERING.reset(token)
        done[key] = value
        return value

    def _standing_in(self, key: str, value: Any) -> Any:
        """A partly rendered value with each undefined item made the variable's own failure (its
        message, and the variable's template as where it came from)."""
        from jinja2 import Undefined

        if isinstance(value, Undefined):
            try:
                value._fail_with_undefined_error()
            except Exception as exc:  # noqa: BLE001 - the item's failure, standing in for it
                stand_in = self._deferred(key, exc) if self._deferred is not None else None
                return value if stand_in is None else stand_in
        if isinstance(value, PartlyRenderedDict):
            return PartlyRenderedDict((name, self._standing_in(key, item)) for name, item in value.items())
        if isinstance(value, PartlyRenderedList):
            return PartlyRenderedList(self._standing_in(key, item) for item in value)
        return value

    def _item_wise(self, key: str, raw: dict[Any, Any] | list[Any]) -> Any:
        """``raw`` rendered item by item, an item that fails standing in for its failure (and a
        list or dict item rendered so in turn), as ansible's lazy containers render what is read;
        None when a failure has no stand-in."""
        assert self._deferred is not None
        pairs = list(raw.items()) if isinstance(raw, dict) else list(enumerate(raw))
        rendered: list[tuple[Any, Any]] = []
        for place, item in pairs:
            name = place
            try:
                if isinstance(raw, dict):
                    name = self._render(place)
                value = self._render(item)
            except Exception as exc:  # noqa: BLE001 - the stand-in fails with it where it is used
                from engine.templating.value_origins import failed_at  # a failure's, not every listing's import

                failed_at(exc, raw, place)  # the item's own place as written, where nothing inside said
                if isinstance(item, dict | list):
                    value = self._item_wise(key, item)
                else:
                    value = self._deferred(key, exc)
                if value is None:
                    return None
            rendered.append((name, value))
        if isinstance(raw, dict):
            return PartlyRenderedDict(rendered)
        return PartlyRenderedList(value for _name, value in rendered)

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


class PartlyRendered:
    """A list or dict variable some of whose items failed to render: they stand in for their
    failures, and the whole fails where a template gives it whole."""

    __slots__ = ()


class PartlyRenderedDict(PartlyRendered, dict):  # type: ignore[type-arg]
    __slots__ = ()


class PartlyRenderedList(PartlyRendered, list):  # type: ignore[type-arg]
    __slots__ = ()


def _rendered(value: Any) -> Any:
    """A lazy container's value as ansible renders it when it is read: a failed one fails."""
    from jinja2 import Undefined

    if isinstance(value, Undefined):
        value._fail_with_undefined_error()
    return value


class ReadDict(PartlyRenderedDict):
    """A partly rendered dict as a plugin or a method reads it: ansible's lazy dict renders each
    value its ``items()``, ``values()`` and ``get()`` give (a generator, as ansible's), so a failed
    one fails there, even when the reader keeps only the keys (``dict2items``, ``combine``)."""

    __slots__ = ()

    def items(self) -> Any:  # type: ignore[override]
        return ((key, _rendered(value)) for key, value in dict.items(self))

    def values(self) -> Any:  # type: ignore[override]
        return (_rendered(value) for value in dict.values(self))

    def get(self, key: Any, default: Any = None) -> Any:
        return _rendered(dict.get(self, key, default))

    def __getitem__(self, key: Any) -> Any:
        return _rendered(dict.__getitem__(self, key))

    def __iter__(self) -> Iterator[Any]:  # no fast copy (dict(d), {**d}, update) past the values' rendering
        return dict.__iter__(self)

    def copy(self) -> dict[Any, Any]:
        return {key: self[key] for key in self}


def as_read(value: Any) -> Any:
    """A partly rendered dict given to a plugin, as the plugin reads it (:class:`ReadDict`)."""
    return ReadDict(dict.items(value)) if type(value) is PartlyRenderedDict else value


class Layered(Mapping[str, "Any"]):
    """``front`` over ``back`` without copying either (a loop item over the task's variables,
    variables over the environment's globals in a shared Jinja context)."""

    def __init__(self, front: Mapping[str, Any], back: Mapping[str, Any]) -> None:
        self._front, self._back = front, back

    def __getitem__(self, key: str) -> Any:
        return self._front[key] if key in self._front else self._back[key]

    def __contains__(self, key: object) -> bool:
        return key in self._front or key in self._back

    def __iter__(self) -> Iterator[str]:
        yield from self._front
        yield from (k for k in self._back if k not in self._front)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# a call of a method that changes a list, a dict or a set in place
_MUTATING_CALL = re.compile(r"\.\s*(?:append|extend|insert|pop|popitem|remove|clear|update|setdefault|sort|reverse|add|"
                            r"discard)\s*\(")


def own_copies(text: str, scope: Mapping[str, Any]) -> Mapping[str, Any]:
    """What a template reads: ``scope`` itself, or, when the template changes a list or dict in
    place (``{% set _ = r.update(...) %}``, ``{{ out.append(x) }}``), each variable's lists and
    dicts copied once for this rendering. ansible's sandbox allows these calls and its lazy
    containers hand each template its own copies: what one rendering changes stays in it."""
    return _CopiedOnRead(scope) if _MUTATING_CALL.search(text) else scope


class _CopiedOnRead(Mapping[str, "Any"]):
    def __init__(self, scope: Mapping[str, Any]) -> None:
        self._scope, self._copies = scope, {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._copies:
            self._copies[key] = _copied(self._scope[key])
        return self._copies[key]

    def __contains__(self, key: object) -> bool:
        return key in self._scope

    def __iter__(self) -> Iterator[str]:
        return iter(self._scope)

    def __len__(self) -> int:
        return len(self._scope)


def _copied(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


__all__ = ["Layered", "LazyVariables", "PartlyRendered", "TemplateLoop", "own_copies"]
