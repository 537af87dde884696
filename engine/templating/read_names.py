"""Which variable names the templates rendered meanwhile read: the record that lets a review take
one revision's reading of a playbook for the other's (``playbook_ls/review/reuse.py``) when none of
the names it read differ. Both templating paths note here, the load-time one
(:mod:`engine.templating.load_time`) and the run-time templar, so it depends on neither."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

READS_ALL = "*"
"""Recorded for a rendering whose names cannot be told (a template refused before it is compiled,
a run-time templar's, which can name variables by computed strings)."""

DYNAMIC_NAMES = frozenset({"vars", "hostvars", "lookup", "query", "q", "self", "context"})
"""Names through which a template reaches variables by a computed string (``vars[name]``,
``lookup('vars', name)``, ``hostvars[host][name]``)."""

LOOKUP_CALLS = frozenset({"lookup", "query", "q"})
TERMS_ONLY_LOOKUPS = frozenset({
    "items", "list", "dict", "sequence", "together", "nested", "subelements", "indexed_items", "file", "fileglob",
    "first_found", "env", "pipe", "lines", "random_choice", "password", "unvault", "ini", "csvfile", "url"})
"""ansible-core 2.19's lookups that read no variable but the terms they are given (and the task's
search path, the same on every host): a call of one reads what its arguments read. The others
(``vars``, ``varnames``, ``template``, ``config``, ``inventory_hostnames``, a collection's) may read
any variable."""

_recorders: list[set[str]] = []
_names_of_text: dict[str, frozenset[str]] = {}
_NAMES_MEMORY = 4096


class names_recorded:  # noqa: N801 - used as a context manager, named as one
    """Every variable name the templates rendered meanwhile read (with :data:`READS_ALL` when that
    cannot be told): a resolution that read none of the names two revisions set differently is
    the same resolution on both. Recorders nest; each sees the names of what it encloses."""

    def __enter__(self) -> set[str]:
        self.names: set[str] = set()
        _recorders.append(self.names)
        return self.names

    def __exit__(self, *_exc: object) -> None:
        _recorders.pop()


def recording() -> bool:
    return bool(_recorders)


def note_names(names: Iterable[str]) -> None:
    """``names`` read, for every :class:`names_recorded` open."""
    for found in _recorders:
        found.update(names)


def note_loaded(names: frozenset[str]) -> None:
    """A template that loads ``names`` was rendered: it reads all of them, or every variable when it
    can reach one by a computed string."""
    note_names((READS_ALL,) if DYNAMIC_NAMES.intersection(names) else names)


def note_template(text: str, parse: Callable[[str], Any]) -> None:
    """``text``, rendered by a templar whose environment parses with ``parse``, read what it loads
    (:data:`READS_ALL` when it does not parse: what it reads is not told)."""
    names = _names_of_text.get(text)
    if names is None:
        try:
            from jinja2 import nodes

            tree = parse(text)
            # every name read, a loop's or a {% set %}'s included: more than it depends on is safe
            names = frozenset(node.name for node in tree.find_all(nodes.Name) if node.ctx == "load")
            if names & LOOKUP_CALLS and _terms_only_lookups(tree):
                names -= LOOKUP_CALLS  # each call reads its arguments, whose names are among names
        except Exception:  # noqa: BLE001 - any failure to parse here: what it reads is not told
            names = frozenset((READS_ALL,))
        if len(_names_of_text) >= _NAMES_MEMORY:
            _names_of_text.clear()
        _names_of_text[text] = names
    note_loaded(names)


def _terms_only_lookups(tree: Any) -> bool:
    """Whether every ``lookup``/``query``/``q`` the parsed template names is a call of a lookup
    named by a constant among :data:`TERMS_ONLY_LOOKUPS` (``ansible.builtin.`` or not)."""
    from jinja2 import nodes

    named = sum(1 for node in tree.find_all(nodes.Name) if node.ctx == "load" and node.name in LOOKUP_CALLS)
    calls = 0
    for call in tree.find_all(nodes.Call):
        if not (isinstance(call.node, nodes.Name) and call.node.name in LOOKUP_CALLS):
            continue
        plugin = call.args[0].value if call.args and isinstance(call.args[0], nodes.Const) else None
        if not isinstance(plugin, str):
            return False
        prefix, _, short = plugin.rpartition(".")
        if prefix not in ("", "ansible.builtin", "ansible.legacy") or short not in TERMS_ONLY_LOOKUPS:
            return False
        calls += 1
    return calls == named
