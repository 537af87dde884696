"""The names each host answers in its own way, which no reading of one host's inventory answers for
another: the one list the mechanisms that class hosts by equal inventory answers start from (the
plan's shared outcomes, engine.flow.host_outcome; the classes of a ``group_by`` or a setter,
engine.variables.change_classes; the review's value classes, playbook_ls.review.value_classes).
Each tells some of them apart by a key part of its own (the name, the groups) and reads the
hosts one by one for the rest."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine.templating.read_names import MEMBERSHIP, tested_groups

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.loading.model import Task

NAME = frozenset({"inventory_hostname", "inventory_hostname_short"})
"""The host's name."""
GROUPS = frozenset({"group_names"})
"""The groups the host is in."""
BATCH = frozenset({"play_hosts", "ansible_play_batch"})
"""The host's batch, less the hosts failed or ended by then."""
PLAY_LISTS = frozenset({"ansible_play_hosts", "ansible_play_hosts_all"})
"""The play's hosts: the same on every host of a batch, not across batches or ended hosts."""
BY_COMPUTED_NAME = frozenset({"vars", "hostvars"})
"""Every variable at once, reached by a computed name (``hostvars``: other hosts' too)."""
RESCUE = frozenset({"ansible_failed_task", "ansible_failed_result"})
"""Set on the host when a rescue section starts."""
SOURCE = frozenset({"inventory_dir", "inventory_file"})
"""The inventory source that named the host: host variables of its own level (an inventory key tells them)."""

OWN_ANSWERS = NAME | GROUPS | BATCH | BY_COMPUTED_NAME | RESCUE | SOURCE
"""Every name a host answers in its own way (or the run fills in as it goes)."""


def variable_names(names: Iterable[str]) -> set[str]:
    """``names`` less those of the groups the host is in (``group_names``, and the tests of membership
    a reading made of it, engine.templating.read_names.MEMBERSHIP): what the inventory's levels say."""
    return {name for name in names if name not in GROUPS and not name.startswith(MEMBERSHIP)}


def groups_part(names: Collection[str], groups: Callable[[], list[str]]) -> tuple[Any, ...] | None:
    """What tells hosts apart by their groups for a reading of ``names``: the groups (``groups()``,
    the host's ``group_names``) where it read ``group_names``; where it only tested membership of some
    groups (engine.templating.read_names.MEMBERSHIP), whether the host is in each; else None."""
    if "group_names" in names:
        return tuple(groups())
    tested = tested_groups(names)
    if not tested:
        return None
    own = set(groups())
    return (MEMBERSHIP, *(group in own for group in tested))


def others_alike(play_plan: PlayPlan, task: Task) -> bool:
    """Whether every host of the play reads the other hosts' variables (``hostvars``) alike at
    ``task``: the linear strategy in one batch (each host has run the tasks before, and no later
    one: engine.variables.followed_hostvars.FollowedHostVars), outside any looping include (whose
    items tell how far each host is)."""
    from engine.flow.batches import known_batches
    from engine.flow.run_settings import play_strategy
    from engine.variables.play_order import play_order

    play = play_plan.play
    if play_strategy(play) != "linear":
        return False
    if isinstance(play.data, Mapping) and play.data.get("serial") is not None:
        batches = known_batches(play, [host.name for host in play_plan.hosts])
        if batches is None or len(batches) != 1:  # several batches, or as many as only the run knows
            return False
    return not bool(play_order(play).looping(task))
