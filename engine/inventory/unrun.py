"""What an inventory source left unread on purpose may still give the run.

A source that is code (an inventory script, a plugin ansible-core runs for us) or that evaluates
templates written in the repository (``constructed``, ``generator``) is read only when running
code is allowed (engine.inventory.manager). Otherwise it adds nothing, and what it would add is
the run's alone: the variable model and the plan must say so, never read its absence as an
answer. What such a source may change is told from what is written:

- a script or another plugin may add any host, put any host in any group and set any variable;
- ``generator`` may add hosts and groups (its layers name them from templates);
- ``constructed`` changes the hosts already read before it only: it sets the variables its
  ``compose`` names and puts hosts in the groups its ``groups`` names, in groups its
  ``keyed_groups`` name from a prefix and a separator, and under their ``parent_group``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONSTRUCTED = "constructed"


class UnrunSource(NamedTuple):
    """One source not run, and what it may change."""

    source: str
    plugin: str
    """``script``, ``constructed``, ``generator`` or the plugin's name."""
    compose: frozenset[str] = frozenset()
    """The variables it may set on the hosts it may change (``constructed``'s ``compose``)."""
    groups: frozenset[str] = frozenset()
    """The groups it may put hosts in, by name."""
    prefixes: tuple[str, ...] = ()
    """It may put hosts in any group whose name starts with one of these."""
    hosts: frozenset[str] | None = None
    """The hosts it may change (None: any host, and hosts of its own)."""

    @property
    def any_name(self) -> bool:
        """Whether it may set any variable and put hosts in any group (not ``constructed``)."""
        return self.plugin != CONSTRUCTED

    @property
    def reason(self) -> str:
        return f"the inventory source {self.source} (not run here)"

    def may_change(self, host: str) -> bool:
        return self.hosts is None or host in self.hosts

    def may_fill(self, group: str) -> bool:
        """Whether it may put a host in ``group``."""
        return self.any_name or group in self.groups or group.startswith(self.prefixes)


def unrun_source(source: str, plugin: str, config: Any, hosts: Iterable[str]) -> UnrunSource:
    """What ``source`` (read by ``plugin``, its YAML ``config`` when it is a plugin's configuration)
    may change; ``hosts``: those read before it."""
    if plugin != CONSTRUCTED or not isinstance(config, Mapping):
        return UnrunSource(source, plugin if plugin != CONSTRUCTED else "unreadable constructed")
    compose = config.get("compose")
    conditional = config.get("groups")
    groups: set[str] = set(conditional) if isinstance(conditional, Mapping) else set()
    prefixes: list[str] = []
    keyed = config.get("keyed_groups")
    for entry in keyed if isinstance(keyed, list) else []:
        if not isinstance(entry, Mapping):
            continue
        prefix, separator = str(entry.get("prefix", "") or ""), str(entry.get("separator", "_"))
        if prefix == "" and config.get("leading_separator", True) is False:
            separator = ""
        if prefix + separator == "":  # a group named by the key's value alone: any group
            return UnrunSource(source, "constructed keyed_groups without a prefix")
        prefixes.append(_sanitized(prefix + separator))
        parent = entry.get("parent_group")
        if isinstance(parent, str):
            if "{{" in parent or "{%" in parent:
                return UnrunSource(source, "constructed keyed_groups with a templated parent_group")
            groups.add(parent)
    return UnrunSource(source, CONSTRUCTED, frozenset(compose) if isinstance(compose, Mapping) else frozenset(),
                       frozenset(map(str, groups)), tuple(prefixes), frozenset(hosts))


def _sanitized(name: str) -> str:
    from engine.inventory.constructed import _sanitize_group_name

    return _sanitize_group_name(name)


def sources_not_run(inventory: Any) -> list[UnrunSource]:
    """The sources of ``inventory`` (an engine.inventory.manager.Inventory) left unread on purpose."""
    return list(getattr(inventory, "unrun", ()))


def may_join(inventory: Any, host: str) -> list[UnrunSource]:
    """The sources not run that may put ``host`` in groups or set its variables."""
    return [unrun for unrun in sources_not_run(inventory) if unrun.may_change(host)]
