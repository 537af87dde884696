"""The hosts of a task whose outcome reads only each host's name and groups (``inventory_hostname
is search('9$')``, ``'web' in group_names``): each host's reading is the first one's with those
swapped (engine.flow.host_outcome), and a condition of theirs is rendered once for all of them,
one letter per host, not once per host (:meth:`~engine.templating.templar.Templar.evaluate_each`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
