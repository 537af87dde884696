"""Marked string values from YAML tags, and ansible's ``omit``. Apart from the loader so that
templating can recognise them without importing ruamel.yaml."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterator, Mapping


class VaultText(str):
    """An ``!vault`` value. It stays encrypted: playbook-ls never decrypts anything."""


class UnsafeText(str):
    """An ``!unsafe`` value, or one ansible does not trust as a template (a script's variables given
    as a malformed group, ``{"__ansible_unsafe": ...}`` in a script's output, a string a
    ``constructed`` expression makes): never templated, and
    ansible-inventory's ``--list`` JSON writes it as ``{"__ansible_unsafe": ...}``."""


def untrusted(value: object) -> object:
    """``value`` with its plain strings made :class:`UnsafeText`, at any depth: what a module
    returned or a template rendered, which ansible 2.19 never takes for a template again."""
    if type(value) is str:
        return UnsafeText(value)
    if isinstance(value, dict):
        return {key: untrusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [untrusted(item) for item in value]
    return value


def plain_type(value: object) -> type:
    """``type(value)`` as ansible has it: a string it does not trust is a ``str``, a list whose order
    is the run's (:class:`RunOrdered`, a set filter's) a ``list``."""
    return str if isinstance(value, UnsafeText) else list if isinstance(value, RunOrdered) else type(value)


def type_name_of(value: object) -> str:
    """``type(value).__name__`` as ansible names it (:func:`plain_type`)."""
    return plain_type(value).__name__


class SourcedName(str):
    """A variable name with where it was given (ansible's Origin tag on a key): an extra var's
    ``-e k=v`` (``<CLI option '-e'>``) or its file's span; equal to the plain name."""

    origin: object = None

    def __new__(cls, name: str, origin: object) -> SourcedName:
        made = super().__new__(cls, name)
        made.origin = origin
        return made


class YamlTimestamp(str):
    """A YAML 1.1 timestamp (``2024-01-15``, ``2024-03-01 12:30:00``, an explicit ``!!timestamp``):
    ansible's loader makes it a ``date`` or a ``datetime``. The engine keeps its text, so that
    whatever reads strings reads it unchanged; what prints values as ansible prints them (the
    inventory's JSON, YAML and graph) asks :attr:`moment` for the object ansible holds."""

    __slots__ = ()

    @property
    def moment(self) -> datetime.date | datetime.datetime:
        return timestamp_moment(self)


# PyYAML's SafeConstructor.timestamp_regexp, which ansible's loader builds timestamps with.
TIMESTAMP = re.compile(
    r"^(?P<year>[0-9][0-9][0-9][0-9])-(?P<month>[0-9][0-9]?)-(?P<day>[0-9][0-9]?)"
    r"(?:(?:[Tt]|[ \t]+)(?P<hour>[0-9][0-9]?):(?P<minute>[0-9][0-9]):(?P<second>[0-9][0-9])"
    r"(?:\.(?P<fraction>[0-9]*))?(?:[ \t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)"
    r"(?::(?P<tz_minute>[0-9][0-9]))?))?)?$")


def timestamp_moment(text: str) -> datetime.date | datetime.datetime:
    """PyYAML's ``construct_yaml_timestamp``: a ``date``, or a ``datetime`` to the microsecond
    (longer fractions cut), aware when a zone is given. ``ValueError`` where PyYAML fails (no
    match, a 13th month)."""
    match = TIMESTAMP.match(text)
    if match is None:
        raise ValueError(f"not a timestamp: {text!r}")
    parts = match.groupdict()
    year, month, day = int(parts["year"]), int(parts["month"]), int(parts["day"])
    if not parts["hour"]:
        return datetime.date(year, month, day)
    fraction = int((parts["fraction"] or "")[:6].ljust(6, "0"))
    zone = None
    if parts["tz_sign"]:
        delta = datetime.timedelta(hours=int(parts["tz_hour"]), minutes=int(parts["tz_minute"] or 0))
        zone = datetime.timezone(-delta if parts["tz_sign"] == "-" else delta)
    elif parts["tz"]:
        zone = datetime.UTC
    return datetime.datetime(year, month, day, int(parts["hour"]), int(parts["minute"]), int(parts["second"]),
                             fraction, tzinfo=zone)


class YamlSet(list):
    """A YAML ``!!set`` (``{a, b}`` tagged ``!!set``): ansible's loader makes it a Python ``set``, which
    its outputs write in the set's iteration order (a list in JSON and YAML, ``{'a', 'b'}`` in
    ``--graph --vars``). For numbers that order is CPython's and the same on every run, and it is
    the order kept here; for text (and anything else whose hash Python randomises per process) it
    changes from one ansible run to the next, so none is right: the members are kept in the order
    written, and :attr:`by_chance` says ansible's would differ."""

    __slots__ = ("by_chance",)

    def __init__(self, members: list[object]) -> None:
        self.by_chance = not all(type(member) in (int, float, bool) for member in members)
        super().__init__(members if self.by_chance else list(set(members)))

    def holding(self, members: list[object]) -> YamlSet:
        """The same set holding ``members`` (these in this order), as converted for output."""
        same = YamlSet([])
        same.by_chance = self.by_chance
        same.extend(members)
        return same

    def __str__(self) -> str:
        return "{" + ", ".join(repr(member) for member in self) + "}" if self else "set()"

    __repr__ = __str__


class _Omit:
    """ansible's ``omit`` while it loads a playbook (2.19's ``Omit`` sentinel): a field templated
    to it is left unset (a play's hosts become an empty list, its name empty), an item of a list
    templated to it is dropped, and in a string it is empty (``"x{{ omit }}"`` is ``x``)."""

    __slots__ = ()

    def __str__(self) -> str:
        return ""

    def __repr__(self) -> str:
        return "omit"


OMIT = _Omit()

class _OmitType:
    """ansible's ``omit`` while a play runs (2.19's ``_OmitType`` sentinel, not a string): a task's
    arguments, and any list or dict templated, drop what templates to it; a template's text output
    leaves no text for it (``"x{{ omit }}y"`` is ``xy``); ``string`` of it, or ``~``, is ``<<Omit>>``;
    it is no string, mapping or iterable, and has no length. One object: copies are itself."""

    __slots__ = ()

    def __str__(self) -> str:
        return "<<Omit>>"

    __repr__ = __str__

    def __copy__(self) -> _OmitType:
        return self

    def __deepcopy__(self, memo: object) -> _OmitType:
        return self

    def __reduce__(self) -> str:
        return "OMIT_TOKEN"


OMIT_TOKEN = _OmitType()
"""``omit`` while a play runs (:class:`_OmitType`)."""

__all__ = ["OMIT", "OMIT_TOKEN", "Pending", "RunOrdered", "UnsafeText", "VaultText", "YamlSet", "YamlTimestamp",
           "settled", "timestamp_moment",
           "unknown_as_shown"]


class Pending:
    """A value worked out when it is first read, then kept: one that costs much to work out and
    that few readers need (the play's host lists less the hosts the run takes out, which takes
    planning the whole run: a fleet's seconds for a ``vars`` that reads none of them)."""

    __slots__ = ("_make", "_value")

    def __init__(self, make: Callable[[], object]) -> None:
        self._make: Callable[[], object] | None = make
        self._value: object = None

    def get(self) -> object:
        if self._make is not None:
            from engine.templating.bounds import apart

            make, self._make = self._make, None
            with apart():  # the first template to read it does not pay for working it out
                self._value = make()
        return self._value


def settled(value: object) -> object:
    """``value``, worked out if it is :class:`Pending`."""
    return value.get() if isinstance(value, Pending) else value


class RunOrdered(list):  # type: ignore[type-arg]
    """A list whose items are known before the run and whose order is the run's own: made from a
    set of strings (``ansible_role_names``, the ``union`` filter: string hashing is seeded anew in
    every process), or the hosts ``group_by`` put in one group (as their results came in). What
    reads only its items (``in``, ``length``, ``sort``) is known; a report that would show the list
    itself, in an order, says it is unknown instead."""

    why: str | None = None
    """What makes its order the run's, where known (the group_by task that filled a group)."""

    @classmethod
    def made_from(cls, source: object, items: list[object]) -> RunOrdered:
        """``items`` as a run-ordered list made from ``source`` (a filter's result), keeping what
        makes the order of ``source`` the run's (:attr:`why`)."""
        made = cls(items)
        made.why = getattr(source, "why", None)
        return made

    # a list joined to it (``near | map(...) | list + ['x']``, ``['x'] + near``) holds its items in
    # the run's order too: a list of one item has none to lose
    def __add__(self, other: object) -> list:  # type: ignore[override]
        joined = list.__add__(self, other)  # type: ignore[operator]
        return RunOrdered.made_from(self, joined) if len(self) > 1 else joined

    def __radd__(self, other: object) -> list:  # type: ignore[type-arg]
        if not isinstance(other, list):
            return NotImplemented
        joined = [*other, *self]
        return RunOrdered.made_from(self, joined) if len(self) > 1 else joined


def unknown_as_shown(value: object) -> str | None:
    """Why ``value``, shown whole, is known only at run time, though what is read of it may be
    known: a :class:`RunOrdered` list of two items or more, a value with an ``unknown_whole``
    reason (``ansible_failed_task``), or a list or mapping holding one. None when it is known."""
    # walked with a stack and a set of containers seen: a YAML alias can make a value contain itself
    pending, seen = [value], set()
    while pending:
        value = pending.pop()
        if isinstance(value, RunOrdered) and len(value) > 1:
            return getattr(value, "why", None) or RUN_ORDER_UNKNOWN
        whole = getattr(value, "unknown_whole", None)
        if isinstance(whole, str):
            return f"not known before the run: {whole}"
        if isinstance(value, dict | list | tuple) and id(value) not in seen:
            seen.add(id(value))
            pending.extend(reversed(list(value.values() if isinstance(value, dict) else value)))
    return None


RUN_ORDER_UNKNOWN = "not known before the run: a list whose order is the run's own (made from a set of names: " \
    "ansible_role_names, ansible_run_tags and ansible_skip_tags, the union filter and its kin; or the hosts group_by " \
    "put in one group as their results came)"


def strings(value: object) -> Iterator[str]:
    """The strings ``value`` holds, in order: itself, a mapping's values, a list's items, at any
    depth (a task's arguments, a message: where templates may be)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def frozen(value: object, depth: int = 0) -> object:
    """``value`` as a hashable key that tells 1, 1.0, True and "1" apart."""
    if isinstance(value, Mapping) and depth < 50:
        return ("dict", tuple(sorted(((str(k), frozen(v, depth + 1)) for k, v in value.items()), key=repr)))
    if isinstance(value, list | tuple) and depth < 50:
        return ("list", tuple(frozen(item, depth + 1) for item in value))
    if isinstance(value, str | int | float | bool | None):
        return (type(value).__name__, value)
    return ("repr", repr(value))
