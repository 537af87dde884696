"""The hosts of a task whose outcome reads only each host's name and groups (``inventory_hostname
is search('9$')``, ``'web' in group_names``): each host's reading is the first one's with those
swapped (engine.flow.host_outcome), and a condition of theirs is rendered once for all of them,
one letter per host, not once per host (:meth:`~engine.templating.templar.Templar.evaluate_each`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.flow.host_needs import HostNeeds
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.templating.templar import Templar

IDENTITY = ("inventory_hostname", "group_names", "inventory_hostname_short")
_CHUNK = 1000  # hosts per rendering: each rendering's result stays far below a template's bounds


class Identities:
    """The task's hosts, each one's name and groups at the task, and each condition's value on
    all of them once asked for one."""

    def __init__(self, plan: Plan, play_plan: PlayPlan, task: Task, hosts: list[Host]) -> None:
        self.plan, self.play_plan, self.task, self.hosts = plan, play_plan, task, hosts
        self._own: dict[str, dict[str, Any]] = {}
        self._values: dict[str, dict[str, bool | None]] = {}

    def of(self, host: Host) -> dict[str, Any]:
        """``host``'s name, groups and short name at the task, as its reading binds them."""
        found = self._own.get(host.name)
        if found is None:
            found = self._own[host.name] = identity(self.plan, self.play_plan, host, self.task)
        return found

    def value(self, templar: Templar, condition: str, host: str) -> bool | None:
        """``condition`` on ``host`` (None: a value :meth:`Templar.evaluate` alone words, or a
        rendering that must be the host's own), rendered with ``templar`` for every host at once
        the first time it is asked."""
        values = self._values.get(condition)
        if values is None:
            values = self._values[condition] = {}
            scopes = [self.of(other) for other in self.hosts]
            plain = [scope for scope in scopes if not any(_marked(value) for value in scope.values())]
            for start in range(0, len(plain), _CHUNK):
                chunk = plain[start:start + _CHUNK]
                for scope, found in zip(chunk, templar.evaluate_each(condition, chunk), strict=True):
                    values[scope["inventory_hostname"]] = found
        return values.get(host)


def identity(plan: Plan, play_plan: PlayPlan, host: Host, task: Task) -> dict[str, Any]:
    """``host``'s name, groups and short name at ``task`` (its groups as the inventory is there)."""
    from engine.variables.report import host_at

    own = host_at(plan, play_plan, host, task).get_magic_vars()
    return {"inventory_hostname": host.name, "group_names": own["group_names"],
            "inventory_hostname_short": own["inventory_hostname_short"]}


def _marked(value: Any) -> bool:
    """Whether ``value`` (a name, a list of group names) holds what a rendering of its own would
    template (a reading binds it as a variable, which is templated when read)."""
    if isinstance(value, list):
        return any(_marked(item) for item in value)
    return not isinstance(value, str) or "{" in value or "%" in value


# what a condition may read besides the names it reads: a lookup's file or variable (a template file
# reads the host's name), the time
_BEYOND_NAMES = re.compile(r"\b(?:lookup|query|q|now|undef)\b")


def name_free(first: HostNeeds, condition: str) -> bool:
    """Whether ``condition`` has on every host whose reading is ``first`` rebound by its name
    (engine.flow.host_outcome's ``for_host`` with ``names``) the value it has on ``first``'s host.
    Such a reading renders with ``first``'s variables, its own name, short name and groups put over
    them: a condition that reads none of those, only names whose values are plain (no template,
    which the other name renders anew) and not one host's own (magic variables but the play's, a
    computed ``vars``/``hostvars``, the play's hosts less the failed ones), and no lookup, evaluates
    alike (kept per reading and condition)."""
    kept = first._name_free  # noqa: SLF001
    found = kept.get(condition)
    if found is None:
        from engine.flow.removed_hosts import PLAY_LISTS
        from engine.flow.shared_outcomes import _HOST_IDENTITY, _SAME_ON_EVERY_HOST
        from engine.templating.templar import conditional_expression
        from engine.templating.variable_uses import names_read
        from engine.variables import host_answers as answers

        text = conditional_expression(condition)
        names = names_read(text, expression=True)
        own = _HOST_IDENTITY | set(IDENTITY) | answers.OWN_ANSWERS | PLAY_LISTS
        found = kept[condition] = names is not None and not _BEYOND_NAMES.search(text) and all(
            name not in own and (resolved := first._resolved.get(name)) is not None and  # noqa: SLF001
            resolved.template is None and resolved.per_item is None and
            (not resolved.magic or name in _SAME_ON_EVERY_HOST) for name in names)
    return found


def renamed_values(resolved: dict[str, Any], templar_of: Callable[[], Any]) -> dict[str, Any]:
    """The variables of one host's reading as another host's with the same values for them but its
    own name (``templar_of``: that host's templar, made when a value is a template): each value that
    is a template rendered again with it. Raises _ReadsMore when one does not render as plainly as
    the first host's did (the other host is read on its own)."""
    from engine.flow.shared_outcomes import _ReadsMore
    from engine.templating.templar import TemplateFailure
    from engine.values import unknown_as_shown

    renamed, templar = dict(resolved), None
    for name, found in resolved.items():
        if found.per_item is not None and (found.template is not None or
                                           any(item.template is not None for item in found.per_item)):
            raise _ReadsMore
        if found.template is None:
            continue
        if found.unknown is not None:
            raise _ReadsMore
        templar = templar_of() if templar is None else templar
        try:
            value = templar.template(found.template)
        except (TemplateFailure, RecursionError):
            raise _ReadsMore from None
        if unknown_as_shown(value) is not None:
            raise _ReadsMore
        renamed[name] = replace(found, value=value)
    return renamed
