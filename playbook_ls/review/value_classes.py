"""The values a task reads, on every host of its play, read once per class of hosts that see them
alike.

A host's value of a name at a task comes from the levels the plan gives it: the play's, its
roles', the extra vars (the same on every host of the play), the inventory's (its groups' and its
own), its cached facts, what earlier tasks set on it, and the magic variables. Every name a
reading reads is followed to its end (the names each template of a value reads, and theirs), so
a reading knows the whole set of names its values come from. Another host is then given the
first host's values without a reading of its own when

- none of those names is one the run gives each host its own way (``inventory_hostname``,
  ``group_names``, ``hostvars``, the batch, ``vars``), one an earlier task may set
  (``set_fact``, ``register``, ``include_vars``: what they set is followed per host), and no
  template of the reading names a variable by a computed string (``lookup('vars', ...)``);
  ``hostvars`` is no host's own where every host reads the others alike (:func:`others_alike`):
  what it gives is each other host's, whoever reads it;
- the play's vars files are not named per host;
- the inventory gives it those names at the same levels with the same values
  (:func:`engine.variables.report.inventory_keys`), its cached facts are the same, and the
  inventory is the same at the task.

Equal inventory answers for every name read give equal templates, so the same further names and
the same values: the reading of a host of another class is its own. When the names read make
hosts differ in ways no key tells apart, every host is read on its own, up to :data:`MAX_HOSTS`
per task, and the review says which hosts were left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from engine.templating.load_time import is_template
from engine.variables.host_answers import OWN_ANSWERS, others_alike

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

DEPTH = 3
"""Levels of definitions shown from what a task reads to the names they read."""
FOLLOWED = 12
"""Levels of definitions followed to find every name a reading reads (beyond: read per host)."""
MAX_HOSTS = 200
"""Hosts read one by one at a task whose values no class can share."""

PER_HOST = OWN_ANSWERS
"""Names whose values the run gives each host its own way (or fills in as it goes)."""


class TaskValues:
    """The shown values (name → text) of the names a task reads, host by host, for one side."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, task: Task, read: set[str],
                 answers: dict[Any, Any] | None = None) -> None:
        from engine.flow.host_reading import per_host_vars_files
        from engine.variables.names_before import names_set_before
        from engine.variables.play_order import play_order

        self.plan, self.play_plan, self.task, self.read = plan, play_plan, task, read
        self.may_set = names_set_before(plan, play_plan, play_order)
        self.shared = not per_host_vars_files(play_plan)
        self.own = PER_HOST - {"hostvars"} if others_alike(play_plan, task) else PER_HOST
        """The names read that make a reading the host's own."""
        self.classes: dict[tuple[str, ...], _Classes] = {}
        """By the names a reading read: the values of each class of hosts."""
        self.read_alone = 0
        """Hosts read on their own (no class could share theirs)."""
        self.earlier_keys: dict[frozenset[str], Callable[[Host], Any]] = {}
        self.answers = {} if answers is None else answers
        """The inventory's answers and the facts' part of a host's key, by inventory, host and names
        read: the same at every task of the play that reads them (one side's, :func:`values_at`)."""

    def of(self, host: Host) -> dict[str, str] | None:
        """``host``'s values; None when it is beyond :data:`MAX_HOSTS` hosts read on their own."""
        for names, known in self.classes.items():
            twin = self._twin(host, names) if not known.earlier else None
            if twin is not None and twin in known.by_twin:
                return known.by_twin[twin]
            signature, value_key, own = self._key(host, names, known.earlier)
            found = known.signatures.get(signature)
            if found is None and value_key is not None and value_key in known.by_value:
                found = _reworded(known.by_value[value_key], host.name, own)
                if found is not None:
                    known.signatures[signature] = found
            if found is not None:
                if twin is not None:
                    known.by_twin[twin] = found
                return found
        if self.read_alone >= MAX_HOSTS:
            return None
        shown, names, earlier = self._reading(host)
        if names is not None and self.shared:
            known = self.classes.setdefault(names, _Classes(earlier))
            signature, value_key, own = self._key(host, names, known.earlier)
            known.signatures[signature] = shown
            if value_key is not None:
                known.by_value.setdefault(value_key, (host.name, own, shown))
            twin = self._twin(host, names) if not known.earlier else None
            if twin is not None:
                known.by_twin[twin] = shown
        else:
            self.read_alone += 1
        return shown

    def _twin(self, host: Host, names: tuple[str, ...]) -> Any:
        """:func:`~engine.variables.inventory_twins.inventory_twin` for ``names``: a class's values that
        no earlier task's walk tells apart are every twin's."""
        from engine.variables.inventory_twins import inventory_twin

        return inventory_twin(self.plan, self.play_plan, host, self.task, names)

    def _key(self, host: Host, names: tuple[str, ...],
             earlier: frozenset[str] | None) -> tuple[Any, Any, list[tuple[str, str | None]]]:
        """The host's signature for ``names`` (the inventory's answers, its cached facts and
        whether the run gathers them, the inventory at the task, what the tasks before set on it
        for ``earlier``), the same with its own levels told by level rather than by label, and
        those own levels."""
        from engine.variables.report import inventory_of

        inventory = inventory_of(self.plan, self.play_plan, self.task, host.name)
        asked = (id(self.play_plan), id(inventory), host.name, names)
        answered = self.answers.get(asked)
        if answered is None:  # the inventory kept with its answers: its id stays its own
            answered = self.answers[asked] = (*self._inventory_key(host, names, inventory), inventory)
        signature, value_key, own, extra, _ = answered
        if earlier:  # what the tasks before set on the host for the names read, as the plan keys its outcomes
            extra += (self._earlier_key(earlier)(host),)
        return (signature, extra), (value_key, extra) if value_key is not None else None, own

    def _earlier_key(self, names: frozenset[str]) -> Callable[[Host], Any]:
        """What tells hosts apart by what the tasks before set on them for ``names``: the plays
        so far each host is in, where the tasks before set them alike on every host
        (:func:`~engine.variables.earlier_key.earlier_classes`), else each host's walk of them."""
        from engine.variables.earlier_key import earlier_classes, earlier_key

        found = self.earlier_keys.get(names)
        if found is None:
            found = self.earlier_keys[names] = earlier_classes(self.plan, self.play_plan, self.task, names) or \
                partial(earlier_key, self.plan, self.play_plan, task=self.task, names=names)
        return found

    def _inventory_key(self, host: Host, names: tuple[str, ...],
                       inventory: Any) -> tuple[Any, Any, list[tuple[str, str | None]], tuple[Any, ...]]:
        """:func:`~engine.variables.report.inventory_keys` of ``names`` on ``host``, and what
        its cached facts and the inventory at the task add to its key."""
        from engine.variables.host_facts import facts_unknown
        from engine.variables.raw import looks_like_fact
        from engine.variables.report import inventory_keys

        signature, value_key, own = inventory_keys(self.plan, self.play_plan, host, self.task, list(names))
        extra: tuple[Any, ...] = ()
        if any(looks_like_fact(name) or name.startswith("ansible_") for name in names):
            cached = getattr(self.plan, "facts", {}).get(host.name)
            extra += (cached.digest if cached is not None else None, facts_unknown(self.plan, self.play_plan, host))
        if getattr(self.play_plan, "changed_in_play", None):
            extra += (id(inventory),)
        return signature, value_key, own, extra

    def _reading(self, host: Host) -> tuple[dict[str, str], tuple[str, ...] | None, frozenset[str] | None]:
        """The host's values as shown (down to :data:`DEPTH` levels), every name the reading read
        (None when another host's values cannot be told from them), and those of them the tasks
        before may set (:func:`~engine.variables.earlier_key.followed_names`)."""
        from engine.variables.earlier_key import followed_names
        from engine.variables.report import layers_at
        from engine.variables.task_variables import variables_at

        levels = layers_at(self.plan, self.play_plan, host, self.task)
        shown: dict[str, str] = {}
        everything: set[str] = set(self.read)  # the task's uses: its arguments, loop, conditions
        wanted, depth, computed = set(everything), 0, False
        while wanted and depth < FOLLOWED:
            resolved = variables_at(self.plan, self.play_plan, host, self.task, sorted(wanted), levels=levels).variables
            deeper: set[str] = set()
            for name, value in resolved.items():
                if depth < DEPTH:
                    shown[name] = shown_value(value)
                names = _template_names(value, "hostvars" not in self.own)
                if names is None:
                    computed = True
                else:
                    deeper |= names
            wanted = deeper - everything
            everything |= deeper
            depth += 1
        set_before = everything & self.may_set if self.may_set is not None else set()
        earlier = followed_names(self.plan, self.play_plan, everything, set_before) if set_before else None
        alike = not (wanted or computed or everything & self.own or self.may_set is None
                     or (set_before and not earlier))
        return shown, tuple(sorted(everything)) if alike else None, earlier


class _Classes:
    """The classes of hosts for one set of names read: by signature, the values shown; by value
    key, the first host with those own values, its own levels and its values."""

    def __init__(self, earlier: frozenset[str] | None) -> None:
        self.earlier = earlier
        """The names read that the tasks before may set, whose definitions by them
        (:func:`~engine.variables.earlier_key.earlier_key`) tell hosts apart too."""
        self.signatures: dict[Any, dict[str, str]] = {}
        self.by_value: dict[Any, tuple[str, list[tuple[str, str | None]], dict[str, str]]] = {}
        self.by_twin: dict[Any, dict[str, str]] = {}
        """The values by :func:`~engine.variables.inventory_twins.inventory_twin` token (no earlier names)."""


def _reworded(first: tuple[str, list[tuple[str, str | None]], dict[str, str]], host: str,
              own: list[tuple[str, str | None]]) -> dict[str, str] | None:
    """The first host's values, their places naming ``host``'s own levels (which give the same
    values at the same levels); None when a value names the first host otherwise."""
    from engine.flow.provenance import with_provenance

    name, first_own, shown = first
    found: dict[str, str] = {}
    for key, text in shown.items():
        worded = with_provenance(text, name, first_own, own)
        if worded is None:
            return None
        found[key] = worded
    return found


def _template_names(resolved: Any, hostvars_alike: bool = False) -> set[str] | None:
    """The names the templates of a resolved value read (each item's too); None when one names
    a variable by a computed string (``hostvars`` not, with ``hostvars_alike``: another host's
    variables, whoever reads them) or does not parse."""
    from engine.flow.host_reading import strings
    from engine.templating.variable_uses import names_read

    found: set[str] = set()
    for one in [resolved, *(resolved.per_item or ())]:
        for text in strings(one.template):
            if not is_template(text):
                continue
            names = names_read(text, expression=False)
            if names is None or _computed(text, hostvars_alike):
                return None
            found |= names
    return found


@lru_cache(maxsize=4096)
def _computed(text: str, hostvars_alike: bool = False) -> bool:
    """Whether the template loads a name through which variables are reached by a computed string
    (``lookup('vars', ...)``, ``query``, ``vars[...]``: the review's record of names read treats
    them alike, engine.templating.read_names.DYNAMIC_NAMES)."""
    from jinja2 import nodes

    from engine.templating.read_names import DYNAMIC_NAMES
    from engine.templating.templar import parsing_environment

    dynamic = DYNAMIC_NAMES - {"hostvars"} if hostvars_alike else DYNAMIC_NAMES
    tree = parsing_environment().parse(text)
    return any(node.name in dynamic for node in tree.find_all(nodes.Name) if node.ctx == "load")


def names_in(value: Any) -> set[str]:
    """The names the templates in ``value`` read."""
    from engine.flow.host_reading import strings
    from engine.templating.variable_uses import names_read

    found: set[str] = set()
    for text in strings(value):
        if is_template(text):
            found |= names_read(text, expression=False) or set()
    return found


def shown_value(resolved: Any) -> str:
    """A value as the review shows it: its text and where it comes from."""
    where = resolved.definitions[0] if resolved.definitions else None
    origin = f" ({where.label}{', ' + os.path.relpath(where.path) if where.path else ''})" if where else ""
    if resolved.unknown and not resolved.definitions:  # nothing on the way to the task defines it
        return "undefined"
    if resolved.unknown:
        return f"known at run time{origin}"
    text = repr(resolved.value)
    return (text if len(text) <= 80 else text[:79] + "…") + origin
