"""Which variable names the templates rendered meanwhile read: the record that lets a review take
one revision's reading of a playbook for the other's (``playbook_ls/review/reuse.py``) when none of
the names it read differ. Both templating paths note here, the load-time one
(:mod:`engine.templating.load_time`) and the run-time templar, so it depends on neither."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

READS_ALL = "*"
"""Recorded for a rendering whose names cannot be told (a template refused before it is compiled,
a run-time templar's, which can name variables by computed strings)."""

DYNAMIC_NAMES = frozenset({"vars", "hostvars", "lookup", "query", "q", "self", "context"})
"""Names through which a template reaches variables by a computed string (``vars[name]``,
``lookup('vars', name)``, ``hostvars[host][name]``)."""

HOSTVARS_ALIKE = "hostvars (alike for every reader)"
"""Recorded, for a recorder that asks for it (:class:`names_recorded`), instead of :data:`READS_ALL`
for a rendering whose only name reaching variables by a computed string is ``hostvars``, where its
templar's ``hostvars`` is one object for every host reading it at the task (every host reads the
others' variables alike there: engine.variables.followed_hostvars). What such a rendering gives is
then a function of the other names it read: the hosts it reads are named by them, and what each
host's variables give is the same for every reader. Not a variable's name (it holds spaces)."""

MEMBERSHIP = "group_names has "
"""Noted, for a recorder that asks for it (:class:`names_recorded`), instead of ``group_names`` (or
``inventory_hostname``) for a rendering that reads it only in tests of membership of groups it names
(``'web' in group_names``, ``inventory_hostname not in groups['db']``: :data:`TESTED_NAMES`): one
``group_names has web`` per group. What such a rendering gives is the same on hosts in the same of
those groups, whatever other groups (a rack, a datacenter) they are in. Not a variable's name (it
holds spaces)."""

LOOKUP_CALLS = frozenset({"lookup", "query", "q"})
TERMS_ONLY_LOOKUPS = frozenset({
    "items", "list", "dict", "sequence", "together", "nested", "subelements", "indexed_items", "file", "fileglob",
    "first_found", "env", "pipe", "lines", "random_choice", "password", "unvault", "ini", "csvfile", "url"})
"""ansible-core 2.19's lookups that read no variable but the terms they are given (and the task's
search path, the same on every host): a call of one reads what its arguments read. The others
(``vars``, ``varnames``, ``template``, ``config``, ``inventory_hostnames``, a collection's) may read
any variable."""

NAMING_LOOKUPS = frozenset({"vars"})
"""Lookups that read the variables their terms name, each noted as it is read (a run-time templar's
``lookup('vars', ...)``, engine.templating.pure_lookups)."""

_recorders: list[set[str]] = []
_alike_told: list[bool] = []
"""For each recorder of :data:`_recorders`: whether it is told :data:`HOSTVARS_ALIKE`."""
_members_told: list[bool] = []
"""For each recorder of :data:`_recorders`: whether it is told :data:`MEMBERSHIP` names."""
_names_of_text: dict[tuple[str, bool], tuple[frozenset[str], tuple[frozenset[str], frozenset[str]] | None]] = {}
_NAMES_MEMORY = 4096


class names_recorded:  # noqa: N801 - used as a context manager, named as one
    """Every variable name the templates rendered meanwhile read (with :data:`READS_ALL` when that
    cannot be told): a resolution that read none of the names two revisions set differently is
    the same resolution on both. Recorders nest; each sees the names of what it encloses.
    ``hostvars_alike``: a reading of ``hostvars`` that is the same for every reader is recorded as
    :data:`HOSTVARS_ALIKE` (for a recorder whose names tell hosts of one task and plan apart, where the
    other hosts' variables are the same: not one comparing two revisions, whose other hosts differ).
    ``memberships``: a reading of ``group_names`` only in tests of membership of named groups is
    recorded as those tests (:data:`MEMBERSHIP`), for a recorder whose names tell hosts apart."""

    def __init__(self, hostvars_alike: bool = False, memberships: bool = False) -> None:
        self.hostvars_alike = hostvars_alike
        self.memberships = memberships

    def __enter__(self) -> set[str]:
        self.names: set[str] = set()
        _recorders.append(self.names)
        _alike_told.append(self.hostvars_alike)
        _members_told.append(self.memberships)
        return self.names

    def __exit__(self, *_exc: object) -> None:
        _recorders.pop()
        _alike_told.pop()
        _members_told.pop()


def recording() -> bool:
    return bool(_recorders)


def note_names(names: Iterable[str]) -> None:
    """``names`` read, for every :class:`names_recorded` open."""
    for found in _recorders:
        found.update(names)


def membership_names(groups: Iterable[str]) -> frozenset[str]:
    """The :data:`MEMBERSHIP` names of tests of membership of ``groups``."""
    return frozenset(MEMBERSHIP + group for group in groups)


def tested_groups(names: Iterable[str]) -> tuple[str, ...]:
    """The groups whose membership :data:`MEMBERSHIP` names among ``names`` test, sorted."""
    return tuple(sorted(name[len(MEMBERSHIP):] for name in names if name.startswith(MEMBERSHIP)))


def note_loaded(names: frozenset[str], hostvars_alike: Callable[[], bool] | None = None,
                members: tuple[frozenset[str], frozenset[str]] | None = None) -> None:
    """A template that loads ``names`` was rendered: it reads all of them, or every variable when it
    can reach one by a computed string. ``hostvars_alike``: whether the ``hostvars`` it reads is one
    object for every host reading it (then :data:`HOSTVARS_ALIKE` for the recorders asking for it).
    ``members``: the names it reads only in tests of membership of named groups, and those groups
    (:func:`membership_tests`; :data:`MEMBERSHIP` names for the recorders asking for them)."""
    if members is not None and any(_members_told):
        tested = (names - members[0]) | membership_names(members[1])
        for found, told in zip(_recorders, _members_told, strict=True):
            if told:
                with _only(found):
                    note_loaded(tested, hostvars_alike)
            else:
                with _only(found):
                    note_loaded(names, hostvars_alike)
        return
    dynamic = DYNAMIC_NAMES.intersection(names)
    if not dynamic:
        note_names(names)
        return
    if dynamic != {"hostvars"} or hostvars_alike is None or not any(_alike_told) or not hostvars_alike():
        note_names((READS_ALL,))
        return
    told = (names - {"hostvars"}) | {HOSTVARS_ALIKE}
    for found, alike in zip(_recorders, _alike_told, strict=True):
        found.update(told if alike else (READS_ALL,))


def note_template(text: str, parse: Callable[[str], Any], named_reads: bool = False,
                  hostvars_alike: Callable[[], bool] | None = None) -> None:
    """``text``, rendered by a templar whose environment parses with ``parse``, read what it loads
    (:data:`READS_ALL` when it does not parse: what it reads is not told). ``named_reads``: the
    templar's ``vars`` is a :class:`NamedReads` and its ``vars`` lookup notes its terms, so a
    template reading variables through them reads the names those give as it runs, not every one.
    ``hostvars_alike``: :func:`note_loaded`'s."""
    kept = _names_of_text.get((text, named_reads))
    if kept is None:
        members = None
        try:
            from jinja2 import nodes

            tree = parse(text)
            # every name read, a loop's or a {% set %}'s included: more than it depends on is safe
            names = frozenset(node.name for node in tree.find_all(nodes.Name) if node.ctx == "load")
            if names & LOOKUP_CALLS and terms_only_lookups(tree, NAMING_LOOKUPS if named_reads else frozenset()):
                names -= LOOKUP_CALLS  # each call reads its arguments, whose names are among names
            if named_reads:
                names -= {"vars"}  # noted name by name as the rendering reads them
            if names & TESTED_NAMES:
                members = membership_tests(tree)
        except Exception:  # noqa: BLE001 - any failure to parse here: what it reads is not told
            names = frozenset((READS_ALL,))
        if len(_names_of_text) >= _NAMES_MEMORY:
            _names_of_text.clear()
        kept = _names_of_text[(text, named_reads)] = (names, members)
    note_loaded(kept[0], hostvars_alike, kept[1])


TESTED_NAMES = frozenset({"group_names", "inventory_hostname"})
"""The names a template may read only in tests of membership of named groups: ``'web' in group_names``,
``inventory_hostname in groups['web']`` (``not in`` too). Both ask whether the host is in the group
(a parent group's hosts are its children's too, as ``group_names`` lists a host's ancestors)."""


def membership_tests(tree: Any) -> tuple[frozenset[str], frozenset[str]] | None:
    """The names of :data:`TESTED_NAMES` a parsed template reads only in tests of membership of
    groups it names, with those groups; None when it reads none of them so (one also read otherwise,
    or set by a ``{% set %}``, is left as it is)."""
    from jinja2 import nodes

    names = [node for node in tree.find_all(nodes.Name) if node.name in TESTED_NAMES]
    if not names:
        return None
    tested: dict[str, int] = {}
    groups: dict[str, set[str]] = {}
    for compare in tree.find_all(nodes.Compare):
        found = _tested(compare, nodes)
        if found is not None:
            tested[found[0]] = tested.get(found[0], 0) + 1
            groups.setdefault(found[0], set()).add(found[1])
    replaced = frozenset(name for name, count in tested.items()
                         if count == sum(1 for node in names if node.name == name and node.ctx == "load") and
                         not any(node.name == name and node.ctx != "load" for node in names))
    if not replaced:
        return None
    return replaced, frozenset().union(*(groups[name] for name in replaced))


def _tested(compare: Any, nodes: Any) -> tuple[str, str] | None:
    """The name a comparison tests membership of a named group with, and that group (``'web' in
    group_names``: ``group_names``, ``web``; ``inventory_hostname not in groups['db']``:
    ``inventory_hostname``, ``db``); None for any other comparison (a chain ``a in b in c`` too)."""
    if len(compare.ops) != 1 or compare.ops[0].op not in ("in", "notin"):
        return None
    left, right = compare.expr, compare.ops[0].expr
    if isinstance(right, nodes.Name) and right.name == "group_names" and isinstance(left, nodes.Const) and \
            isinstance(left.value, str):
        return "group_names", left.value
    if isinstance(left, nodes.Name) and left.name == "inventory_hostname":
        group = right.arg.value if isinstance(right, nodes.Getitem) and isinstance(right.arg, nodes.Const) else \
            right.attr if isinstance(right, nodes.Getattr) else None
        if isinstance(group, str) and isinstance(right.node, nodes.Name) and right.node.name == "groups":
            return "inventory_hostname", group
    return None


class _only:  # noqa: N801 - used as a context manager, named as one
    """Only ``names`` among the recorders open (:func:`note_loaded`'s, one recorder at a time)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def __enter__(self) -> None:
        self.saved = (_recorders[:], _alike_told[:], _members_told[:])
        at = next(index for index, found in enumerate(_recorders) if found is self.names)
        _recorders[:], _alike_told[:], _members_told[:] = [self.names], [_alike_told[at]], [_members_told[at]]

    def __exit__(self, *_exc: object) -> None:
        _recorders[:], _alike_told[:], _members_told[:] = self.saved


class NamedReads(Mapping[str, "Any"]):
    """A task's ``vars`` (every variable, by a computed name): each name looked up is noted as read
    (:func:`note_names`), and every variable when all of them are listed (iterated, counted)."""

    __slots__ = ("_variables",)

    def __init__(self, variables: Mapping[str, Any]) -> None:
        self._variables = variables

    def __getitem__(self, key: str) -> Any:
        if isinstance(key, str):
            note_names((key,))
        return self._variables[key]

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            note_names((key,))
        return key in self._variables

    def __iter__(self) -> Iterator[str]:
        note_names((READS_ALL,))
        return iter(self._variables)

    def __len__(self) -> int:
        note_names((READS_ALL,))
        return len(self._variables)


def terms_only_lookups(tree: Any, naming: frozenset[str] = frozenset()) -> bool:
    """Whether every ``lookup``/``query``/``q`` the parsed template names is a call of a lookup
    named by a constant among :data:`TERMS_ONLY_LOOKUPS` (``ansible.builtin.`` or not), or among
    ``naming`` (lookups that note the names they read themselves)."""
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
        if prefix not in ("", "ansible.builtin", "ansible.legacy") or short not in TERMS_ONLY_LOOKUPS | naming:
            return False
        calls += 1
    return calls == named
