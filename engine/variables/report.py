"""The levels of variables a task's run sees on a host, and the templar over them: what
:mod:`engine.variables.task_variables` (``playbook-ls vars``, the editor's variable hover) and the
plan's readers merge and template.

For a task in a play (the plan's play, so with its hosts from the inventory) and a host, the
raw variables are merged by the bundled engine's :class:`VariableManager` (the same merge a run
uses, ``hash_behaviour`` included); each value is templated with them the way a run would, and
:mod:`engine.variables.sources` tells where it was set and what it overrides. Nothing is executed: the
templar has no lookups, so a value that needs one (or a fact, or a registered result) says so
instead of guessing, and it is bounded (``Templar(..., bounded=True)``): a value too large or too
slow to compute, or inside itself, is unknown with the reason rather than a hang or a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from engine.flow.batches import known_batches as known_batches  # re-exported: the API of this module
from engine.flow.batches import play_batches as play_batches
from engine.flow.play_host_order import batch_everywhere, play_order_reason
from engine.flow.removed_hosts import PLAY_LISTS
from engine.inventory.host_order import run_ordered_groups
from engine.parsing.source import files_state
from engine.templating.file_search import search_path_variable, search_paths
from engine.values import Pending, RunOrdered
from engine.values import frozen as frozen  # re-exported: the API of this module
from engine.variables.followed_hostvars import FollowedHostVars
from engine.variables.include_item_order import kept_item_keys, kept_item_order
from engine.variables.manager import PlayContext, VariableManager
from engine.variables.play_context import PlayLists, connection_layer
from engine.variables.play_order import add_loaded_tasks as add_loaded_tasks  # re-exported: the API of this module
from engine.variables.play_order import find_task as find_task
from engine.variables.play_order import play_order
from engine.variables.play_order import task_runs as task_runs
from engine.variables.play_order import tasks_in_order as tasks_in_order
from engine.variables.raw import RawVariables
from engine.variables.run_ordered_lists import one_batch as _one_batch
from engine.variables.run_ordered_lists import ordered as _ordered
from engine.variables.run_ordered_lists import racy_groups as _racy_groups
from engine.variables.run_ordered_lists import racy_reason as _racy_reason
from engine.variables.sources import (
    Layer,
    RuntimeValue,
    any_name_marks,
    earlier_tasks_place,
    fold,
    gathers_facts,
    host_independent_layers,
    inventory_part,
    kept_inventory_layers,
    with_vars_files,
)
from engine.variables.unrun_sources import with_unrun, within_unrun

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task
    from engine.variables.task_results import Effects

@dataclass
class _Scope:
    """What a task's variables are on any host: computed once, then per host only the
    inventory's levels and the magic variables."""

    manager: Any
    context: Any
    below: list[Layer]
    above: list[Layer]
    magic: dict[str, Any] | None = None
    """The magic variables of the first host asked for; other hosts differ only by their names."""

    batches: list[list[str]] = field(default_factory=list)
    """The play's ``serial`` batches of host names (one batch without ``serial``)."""

    batch_of: dict[str, int] = field(default_factory=dict)
    """Each host's batch (the first holding it), by name: the play's, found once for its scopes."""

    lists: PlayLists | None = None
    """The play's host lists, built once for the scopes of its tasks (a plan asks every host)."""

    def magic_for(self, host: Host, task: Task | None) -> dict[str, Any]:
        if self.lists is None:
            self.lists = PlayLists(self.context.hosts_all, self.batches)
        lists = self.lists
        at = self.batch_of.get(host.name)
        if self.magic is None:
            self.context.batch = self.batches[at] if at is not None else None
            self.magic = self.manager.magic_vars(self.context, host, task, lists.magic(at))
            return self.magic
        own = host.get_magic_vars()
        in_batch = lists.left(at)
        return {**self.magic, "inventory_hostname": host.name,
                "inventory_hostname_short": own["inventory_hostname_short"], "group_names": own["group_names"],
                "play_hosts": in_batch, "ansible_play_batch": in_batch}  # one list: templates cannot change it


def inventory_of(plan: Plan, play_plan: PlayPlan, task: Task | None = None, host: str | None = None) -> Any:
    """The inventory ``task`` of ``play_plan`` reads (on ``host``, in a play of several batches): as
    the add_host and group_by tasks before it left it, in earlier plays and in its own
    (engine.variables.inventory_changes), else the plan's."""
    found = getattr(play_plan, "inventory", None) or plan.inventory
    change = _change_before(play_plan, task, host)
    return change.inventory if change is not None else found


def host_at(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None) -> Host:
    """``host`` as the inventory ``task`` reads has it: its groups after the add_host and group_by
    tasks before (each inventory they leave holds hosts of its own)."""
    found: Host = inventory_of(plan, play_plan, task, host.name).data.hosts.get(host.name, host)
    return found


def _change_before(play_plan: PlayPlan, task: Task | None, host: str | None = None) -> Any:
    """The last add_host or group_by task of ``task``'s play run before it (an InPlay), if any: in
    a play of several batches, on the earlier batches or on ``host``'s batch before it (no host: none)."""
    changes = getattr(play_plan, "changed_in_play", None)
    if not changes or task is None:
        return None
    at = play_order(play_plan.play).positions.get(id(task))
    if not at:
        return None
    if changes[0].hosts is None:
        return next((change for change in reversed(changes) if change.position < at[0]), None)
    batch = next((change.batch for change in changes if host is not None and host in change.hosts), None)
    if batch is None:
        return None
    return next((change for change in reversed(changes)
                 if change.batch < batch or change.batch == batch and change.position < at[0]), None)


def lists_in_run_order(play_plan: Any, task: Task | None = None, magic: Mapping[str, Any] | None = None,
                       host: str | None = None, data: Any = None) -> dict[str, Any]:
    """The magic lists whose order only the run knows: the batch of a play whose ``order`` is
    ``shuffle`` (or a template); the groups of the inventory ``data`` (the one the task reads)
    whose hosts ansible walks in a set's order (engine.inventory.host_order), and after a group_by
    that put two hosts in one group (engine.variables.inventory_changes), that group, in ``groups``
    (of ``magic``), and the host lists of a play on such a group, as :class:`RunOrdered` lists
    (what reads no order of them is known); after an add_host or group_by of ``task``'s own play
    that only the run can follow, ``groups`` and ``group_names``."""
    found: dict[str, Any] = {}
    if not play_plan.order_known:
        shuffled = RuntimeValue("the play's hosts in the order its 'order' gives them, which only the run knows")
        found.update({"ansible_play_batch": shuffled, "play_hosts": shuffled})
    unknown = getattr(play_plan, "changes_unknown_at", None)
    at = play_order(play_plan.play).positions.get(id(task)) if unknown is not None and task is not None else None
    if at and unknown.position < at[0]:
        changed = RuntimeValue(f"the inventory as task '{unknown.task}' changes it, which only the run knows")
        found.update({"groups": changed, "group_names": changed})
        return found
    change = _change_before(play_plan, task, host)
    if change is not None and change.joined and (change.hosts is None or host in change.hosts):
        for name in ("ansible_play_hosts_all", "ansible_play_hosts"):  # the hosts add_host put in the play
            if isinstance(value := (magic or {}).get(name), list):
                found[name] = value + [added for added in change.joined if added not in value]
    nested = run_ordered_groups(data) if data is not None else {}
    racy = set(change.racy) if change is not None else set(getattr(play_plan, "racy_groups", None) or ())
    groups = (magic or {}).get("groups")
    if (racy or nested) and isinstance(groups, Mapping):
        found["groups"] = within_unrun(groups, lambda known: _racy_groups(play_plan, known, frozenset(racy), nested))
    elif racy:
        found["groups"] = RuntimeValue(_racy_reason(sorted(racy)))
    why = play_order_reason(play_plan, nested)
    if why is not None:
        batches = play_batches(play_plan.play, [h.name for h in play_plan.hosts])
        # the host's serial batch is cut from that order: its own where every order gives it one
        alike = len(batches) > 1 and host is not None and _one_batch(batch_everywhere(play_plan, data, host))
        found.update({name: _ordered(value, why) for name in ("ansible_play_hosts", "ansible_play_hosts_all",
                                                              "ansible_play_batch", "play_hosts")
                      if isinstance(value := found.get(name, (magic or {}).get(name)), list)
                      and not (alike and name in ("ansible_play_batch", "play_hosts"))})
        if len(batches) > 1 and any(len(batch) > 1 for batch in batches) and not alike:
            # which hosts share one is the run's too (a batch of one host is that host's, whatever the order)
            batch = RuntimeValue(f"the hosts of each serial batch of the play, cut from {why}")
            found.update({"ansible_play_batch": batch, "play_hosts": batch})
    return found


def _less_removed(plan: Plan, play_plan: PlayPlan, task: Task | None, host: Host,
                  magic: Mapping[str, Any]) -> dict[str, Any]:
    """The play's host lists at ``task`` less the hosts the plan (engine.flow.host_plan) found
    failed or ended before it, or unknown where only the run knows whether they are. Before the
    run is planned (engine.variables.host_includes.plan_removals), each list is worked out when a
    template first reads it: planning costs as much as ``plan`` and most values read no list."""
    if task is None:
        return {}
    names = PLAY_LISTS & magic.keys()
    if getattr(play_plan, "removed_at", None) is None and getattr(plan, "removals_pending", None) is not None:
        return {name: Pending(partial(_less_removed_one, plan, play_plan, task, host, name, magic[name]))
                for name in names}
    return {name: _less_removed_one(plan, play_plan, task, host, name, magic[name]) for name in names}


def _less_removed_one(plan: Plan, play_plan: PlayPlan, task: Task, host: Host, name: str, value: Any) -> Any:
    pending = getattr(plan, "removals_pending", None)
    if pending is not None:
        pending()
    removed = (getattr(play_plan, "removed_at", None) or {}).get(id(task))
    if removed is None:
        return value
    less, reason = removed.value(name, value, host.name)
    if reason is not None:
        return RuntimeValue(reason)
    return RunOrdered.made_from(value, less) if isinstance(value, RunOrdered) and isinstance(less, list) else less


def _scope(plan: Plan, play_plan: PlayPlan, task: Task | None, occurrence: int = 0, host: str | None = None) -> _Scope:
    play = play_plan.play
    # kept with the play, which an edit replaces: a cache of its own would keep the replaced ones
    scopes: dict[tuple[int, int, int], tuple[int, Any, _Scope]] = play.derived.setdefault("scopes", {})
    inventory = inventory_of(plan, play_plan, task, host)
    key = (id(task), id(inventory), occurrence)
    now = files_state()
    cached = scopes.get(key)
    if cached is not None and cached[0] == now and cached[1] is inventory:
        return cached[2]
    manager = VariableManager(inventory, plan.options, inventory.cache)
    order = play_order(play)
    hosts, batches, batch_of = _play_hosts(play_plan)
    included, conditional, looped = order.included_before(task, occurrence)
    lists = _play_lists(play_plan, hosts, batches)
    context = PlayContext(play, lists.hosts_all, lists.hosts_left, [*order.roles, *included], conditional=conditional,
                          repeats=_include_repeats(plan, play_plan, looped))
    runtime = [earlier_tasks_place()]  # filled in per host (engine.variables.host_runtime)
    below, above = host_independent_layers(manager, context, task, runtime, gathers_facts(play),
                                           order.includers.get(id(task), []) if task is not None else [])
    scope = _Scope(manager, context, below, above, batches=batches, batch_of=batch_of, lists=lists)
    for old in [old for old, (then, _, _) in scopes.items() if then != now]:
        del scopes[old]  # the files changed since: each holds an inventory and layers read from files
    scopes[key] = (now, inventory, scope)
    return scope


def _play_hosts(play_plan: PlayPlan) -> tuple[list[str], list[list[str]], dict[str, int]]:
    """The names of the play's hosts, its ``serial`` batches of them and each one's batch (the first
    holding it): once per list of the play's hosts, not for each task's scope (``serial`` is templated
    with the play's vars)."""
    kept = play_plan.__dict__.get("scope hosts")
    if kept is None or kept[0] is not play_plan.hosts or kept[1] != len(play_plan.hosts):
        hosts = [h.name for h in play_plan.hosts]
        batches = play_batches(play_plan.play, hosts)
        batch_of: dict[str, int] = {}
        for at, batch in enumerate(batches):
            batch_of.update((name, at) for name in batch if name not in batch_of)
        kept = play_plan.__dict__["scope hosts"] = (play_plan.hosts, len(play_plan.hosts), hosts, batches, batch_of)
    return kept[2], kept[3], kept[4]


def _play_lists(play_plan: PlayPlan, hosts: list[str], batches: list[list[str]]) -> PlayLists:
    """The play's host lists for every task's scope: once per list of its hosts in the inventory's
    order (``ansible_play_hosts(_all)``, not in the play's; an add_host replaces it) and batches."""
    in_inventory = play_plan.hosts_all or hosts
    kept = play_plan.__dict__.get("scope lists")
    if kept is None or kept[0] is not in_inventory or kept[1] != len(in_inventory) or kept[2] is not batches:
        lists = PlayLists(play_plan.hosts_all or list(hosts), batches)  # (not the play's order's list itself)
        kept = play_plan.__dict__["scope lists"] = (in_inventory, len(in_inventory), batches, lists)
    return kept[3]  # type: ignore[no-any-return]


def _include_repeats(plan: Plan, play_plan: PlayPlan, looped: Mapping[int, Task]) -> dict[int, int]:
    """How many items each looping include_role of ``looped`` (by the id of the role it brought
    in) runs, templated on the play's first host (a loop only the run knows: once)."""
    from engine.variables.loop_vars import loop_scopes

    found: dict[int, int] = {}
    for role, include in looped.items():
        scopes = loop_scopes(include, templar_at(plan, play_plan, play_plan.hosts[0], include)) \
            if play_plan.hosts and id(include) in play_order(play_plan.play).positions else None
        if isinstance(scopes, list) and scopes:
            found[role] = len(scopes)
    return found


InventoryKeys = tuple[tuple[Any, ...], "tuple[Any, ...] | None", list[tuple[str, "str | None"]]]


def inventory_keys(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None, names: list[str]) -> InventoryKeys:
    """What the inventory says of ``names`` on ``host``, the only levels in which two hosts
    differ for one task besides the magic variables, in one reading of its levels:

    - every level that sets one of ``names``, with its label and value as JSON: two hosts with
      equal answers see equal values of these names, from the same places;
    - the same with the host's own levels (its inventory line, its host_vars files) told by
      level, not by label (which names the host), or None when they set none of ``names``: two
      hosts with equal keys see equal values, each from its own line or file;
    - the label and path of each of those own levels that sets one of ``names``."""
    inventory = inventory_of(plan, play_plan, task, host.name)  # the task's scope's (_scope)
    layers = host_layers(plan, play_plan, host, task, inventory)
    shared = getattr(layers, "shared_count", None)
    # the groups' part is the same for every host in the same groups: worked out once for them
    kept: dict[tuple[Any, ...], tuple[Any, ...]] = inventory.derived.setdefault("group definitions", {})
    groups_key = getattr(layers, "groups_key", None)
    key = (groups_key, tuple(names))
    groups_part = kept.get(key) if groups_key is not None else None
    if groups_part is None:
        groups_part = tuple((name, layer.label, frozen(layer.values[name]))
                            for name in names for layer in layers[:shared or 0] if name in layer.values)
        if groups_key is not None:
            kept[key] = groups_part
    # a level that may set any name sets no value to compare: the hosts' levels of that kind, told apart
    marks = getattr(layers, "any_names", None)
    if marks is None:
        marks = any_name_marks(layers)
    if marks and names:
        groups_part += (marks,)
    own = [layer for layer in layers[shared or 0:] if any(name in layer.values for name in names)]
    if not own:
        return groups_part, None, []
    values = [(name, layer, frozen(layer.values[name])) for name in names for layer in own if name in layer.values]
    return (groups_part + tuple((name, layer.label, value) for name, layer, value in values),
            (groups_part, tuple((name, layer.level, value) for name, layer, value in values)) if shared is not None
            else None,
            [(layer.label, layer.path) for layer in own])


def host_layers(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None, inventory: Any) -> list[Layer]:
    """``host``'s inventory levels (its groups', then its own) as ``inventory``, the one ``task``
    reads, gives them (:func:`~engine.variables.sources.kept_inventory_layers`)."""
    host = inventory.data.hosts.get(host.name, host)  # its groups as the inventory is at the task
    playbook_dir = _playbook_dir(play_plan.play.basedir)
    layers = inventory.derived.get("host layers", {}).get((host.name, playbook_dir))  # kept_inventory_layers'
    if layers is None:
        layers = kept_inventory_layers(_scope(plan, play_plan, task, host=host.name).manager, host, playbook_dir)
    return layers  # type: ignore[no-any-return]


def host_part(plan: Plan, play_plan: PlayPlan, host: Host, inventory: Any) -> tuple[tuple[Any, ...], frozenset[Any]]:
    """The key of ``host``'s groups' levels and every name its own levels set, as :func:`host_layers`
    gives them: from its levels where they are kept, else without building them
    (:func:`~engine.variables.sources.inventory_part`)."""
    host = inventory.data.hosts.get(host.name, host)
    playbook_dir = _playbook_dir(play_plan.play.basedir)
    layers = inventory.derived.get("host layers", {}).get((host.name, playbook_dir))
    if layers is not None:
        return layers.groups_key, frozenset((*(name for layer in layers[layers.shared_count:] for name in layer.values),
                                             *layers.any_names))
    return inventory_part(_scope(plan, play_plan, None, host=host.name).manager, host, playbook_dir)


def _playbook_dir(basedir: str) -> str:
    """``playbook_dir`` of a play in ``basedir``: an absolute directory is made so once (asked for
    each host's levels at each task), a relative one against the working directory of the moment."""
    return _normalized(basedir) if os.path.isabs(basedir) else os.path.abspath(basedir)


@lru_cache(maxsize=256)
def _normalized(path: str) -> str:
    return os.path.normpath(path)


def layers_at(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None,
              occurrence: int = 0, outer: tuple[int, ...] = (),
              names: frozenset[str] | None = None) -> tuple[list[Layer], dict[str, Any]]:
    """Every level that sets variables for ``task`` on ``host`` (lowest first, the magic
    variables last), and the magic variables (``hostvars`` among them, which no layer shows).
    ``outer``: the item of each looped include around the task this run is under
    (engine.variables.include_runs.include_loop_runs). ``names``: of what earlier tasks set, only
    the layers that may set these names (Follower.earlier_layers); the other levels whole."""
    from engine.variables.host_runtime import Follower

    scope = _scope(plan, play_plan, task, occurrence, host.name)
    host = scope.manager.inventory.data.hosts.get(host.name, host)  # its groups as the inventory is at the task
    follower = Follower(plan, play_order, templar_at, include_item_order)
    own = with_unrun(plan.inventory, host, scope.magic_for(host, task), play_plan)
    magic = {**own, **lists_in_run_order(play_plan, task, own, host.name, scope.manager.inventory.data),
             "hostvars": FollowedHostVars(scope.manager, scope.context, follower, play_plan, task, occurrence, host)}
    magic.update(_less_removed(plan, play_plan, task, host, magic))
    if task is not None:  # the task executor's, over any variable of that name
        magic["ansible_search_path"] = _search_path(task, play_plan.play.basedir)
    playbook_dir = _playbook_dir(play_plan.play.basedir)
    magic_layer = Layer("magic variables", "set by ansible", {k: v for k, v in magic.items() if k != "hostvars"})
    levels = follower.fill_in(play_plan, host, task, occurrence, outer,
                     [*connection_layer(host, task, partial(_inventory_names, scope.manager, playbook_dir),
                                       plan.remote_user),
                      *scope.below,
                      *kept_inventory_layers(scope.manager, host, playbook_dir), *scope.above], names)
    layers = with_vars_files(scope.manager, play_plan.play, levels, {**plan.options.extra_vars, **magic})
    return [*layers, magic_layer], magic


def _search_path(task: Task, basedir: str) -> list[str]:
    task_file = os.path.abspath(task.span.file) if task.span is not None else None
    return search_path_variable(search_paths(task.role.path if task.role is not None else None, task_file), basedir)


def _inventory_names(manager: Any, playbook_dir: str, name: str | None) -> frozenset[str] | None:
    """The names the inventory levels of the host ``name`` define (None: no inventory host); of
    None, those any inventory host's define (worked out once per inventory and directory)."""
    hosts = manager.inventory.data.hosts
    if name is not None:
        found = hosts.get(name)
        if found is None:
            return None
        # asked at every task of every host (its play context's user): once per host and directory
        own: dict[tuple[str, str], frozenset[str]] = manager.inventory.derived.setdefault("names a host defines", {})
        if (playbook_dir, name) not in own:
            own[(playbook_dir, name)] = frozenset(
                key for layer in kept_inventory_layers(manager, found, playbook_dir) for key in layer.values)
        return own[(playbook_dir, name)]
    kept: dict[str, frozenset[str]] = manager.inventory.derived.setdefault("names any host defines", {})
    if playbook_dir not in kept:
        kept[playbook_dir] = frozenset().union(*(_inventory_names(manager, playbook_dir, each) or () for each in hosts))
    return kept[playbook_dir]


def task_effects(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, occurrence: int = 0) -> Effects:
    """What the ``occurrence``-th run of ``task`` (outside a looped include) sets on ``host`` and
    whether it reports a change, as the values at the tasks after it have it."""
    from engine.variables.host_runtime import Follower

    return Follower(plan, play_order, templar_at, include_item_order).effects_of(play_plan, host, task, occurrence)


def _raw_over(plan: Plan, play_plan: PlayPlan, host: Host, layers: list[Layer],
              magic: Mapping[str, Any]) -> Mapping[str, Any]:
    from engine.variables.host_facts import facts_unknown

    facts = facts_unknown(plan, play_plan, host)
    if plan.inventory.data.merge_hashes:
        any_name = next((layer.any_name for layer in layers if layer.any_name is not None), None)
        return RawVariables([Layer("merged", "merged", fold(layers, True))], {"hostvars": magic["hostvars"]}, facts,
                            any_name)
    return RawVariables(layers, {"hostvars": magic["hostvars"]}, facts)


def _loop_layers(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None,
                 outer: tuple[int, ...] | None, names: frozenset[str] | None = None) -> list[Layer]:
    """The item variables of the looped includes around ``task`` at the ``outer`` items (None:
    none; an item not given, or -1, an item whose place only the run knows: unknown, with why);
    ``names``: the includes' templars walked for these alone (:func:`templar_at`)."""
    from engine.variables.loop_vars import loop_names, loop_scopes

    if task is None or outer is None:
        return []
    loops = play_order(play_plan.play).looping(task)
    layers = []
    for position, include in enumerate(loops):
        index = outer[position] if position < len(outer) else None
        scopes = loop_scopes(include, include_templar(plan, play_plan, host, include, task, 0, outer[:position],
                                                      names=names))
        if isinstance(scopes, list) and index is not None and 0 <= index < len(scopes):
            layers.append(_loop_layer(include, scopes[index], index))
            continue
        name = include.display_name()
        reason = scopes if isinstance(scopes, str) else \
            f"set per item by the loop of include task '{name}', whose items run in an order only the run knows " \
            "(another host loads an equal item at another place)" if index == -1 else \
            f"set per item by the loop of include task '{name}' ({len(scopes or [])} items: pick one)"
        layers.append(Layer("loop item", f"the loop of task '{name}'",
                            {bound: RuntimeValue(reason) for bound in loop_names(include)}, runtime=True))
    return layers


def _loop_layer(task: Task, scope: Mapping[str, Any], index: int) -> Layer:
    return Layer("loop item", f"item {index + 1} of the loop of task '{task.display_name()}'", dict(scope),
                 task.span.file if task.span else None, task.span.line if task.span else None)


def static_templar(raw: Mapping[str, Any], magic: Mapping[str, Any], layers: list[Layer] | None = None) -> Any:
    """The bounded templar of a value shown before the run: ``raw`` variables, lookups without
    side effects, the magic variables read as they are (ansible builds them and never templates
    them; ``groups`` alone holds every host name) but ``hostvars``, whose values are templated.
    With the ``layers`` ``raw`` comes from, its failures name where a value is written, as the
    run's do (a broken conditional's origin); what set_fact or include_vars set is not named."""
    from engine.templating.pure_lookups import PureLookups
    from engine.templating.templar import Templar
    from engine.variables.origins import written_origin

    def origin_of(name: str, follow: bool) -> Any:
        return written_origin(layers or [], magic, name, follow, lambda _level, _name: None)

    return Templar(raw, PureLookups(), bounded=True, data=frozenset(magic).difference(("hostvars",)),
                   origin_of=origin_of if layers is not None else None)


def templar_at(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None, occurrence: int = 0,
               outer: tuple[int, ...] | None = (), names: frozenset[str] | None = None) -> Any:
    """The templar of ``task`` on ``host`` (the items of the looped includes around it at
    ``outer``; None: without them), before its own loop. ``names``: what earlier tasks set is
    walked for these names alone (:func:`layers_at`): the templar is the task's only for them and
    the names no task sets."""
    layers, magic = layers_at(plan, play_plan, host, task, occurrence, outer or (), names)
    # (with them, the raw values of the levels are theirs)
    items = _loop_layers(plan, play_plan, host, task, outer, names)
    return static_templar(_raw_over(plan, play_plan, host, [*layers, *items] if items else layers, magic), magic)


"""Hosts whose looped include items are compared to order a host's runs (more: in item order)."""


def include_templar(plan: Plan, play_plan: PlayPlan, host: Host, include: Task, task: Task, occurrence: int,
                     outer: tuple[int, ...] = (), *, names: frozenset[str] | None = None) -> Any:
    """The templar a looped ``include`` around ``task`` templates its items with on ``host`` (at the
    ``outer`` items of the looped includes around it): the include's own, where it is in the play's
    order (else, an include the order does not hold, the task's without the items). ``names``:
    walked for these alone (:func:`templar_at`)."""
    if id(include) in play_order(play_plan.play).positions:
        return templar_at(plan, play_plan, host, include, 0, outer or None, names)
    return templar_at(plan, play_plan, host, task, occurrence, None, names)


def item_loads(templar: Any, include: Task) -> bool:
    """Whether an item of a looped include loads its file on the host (``templar``: the host's at
    the include, with the item): not where its ``when`` is false; unknown conditions may load it."""
    for condition in include.effective_when():
        try:
            if templar.evaluate(condition.value) is False:
                return False
        except Exception:  # noqa: BLE001 - a condition only the run decides
            continue
    return True


ORDERED_HOSTS = 50


def include_item_order(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, include: Task,
                       occurrence: int = 0) -> list[int] | None:
    """The order ``host`` runs the items of the looped ``include`` in (None: its items only the
    run knows; -1 for each when their order is the run's). ansible loads one file per distinct
    (file, item variables), in the order the hosts' results come in, which is the run's
    (``IncludedFile.process_include_results``), a host joining an earlier host's equal one: a
    host's items equal to another host's, other than the first ones in the same order, may run
    in another order."""

    def order() -> list[int] | None:
        found = include_items(plan, play_plan, host, task, include, occurrence)
        if not isinstance(found, list):
            return None
        mine = [key for key, _loads, _value in found]
        ambiguous = [-1] * len(mine)  # the results' order (which host's comes first) decides: the run's
        if len(set(mine)) < len(mine):
            return ambiguous
        loaded = [key for key, loads, _value in found if loads]
        own = set(loaded)
        for other in play_plan.hosts[:ORDERED_HOSTS]:
            theirs = include_items(plan, play_plan, other, task, include, occurrence) if other.name != host.name \
                else None
            if not isinstance(theirs, list) or not theirs:
                continue
            common = [key for key, loads, _value in theirs if loads and key in own]
            if common != loaded[: len(common)]:  # an earlier host's result would move this host's items
                return ambiguous
        return list(range(len(mine)))

    return kept_item_order(plan, play_plan, host, include, order)


def include_items(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, include: Task,
                  occurrence: int = 0) -> list[tuple[Any, bool, Any]] | str | None:
    """Each item of the looped ``include`` on ``host`` (asked at ``task``): its variables as ansible
    compares included files, whether it loads the file there, and its variables as every template
    sees them (engine.variables.value_keys.value_key: mappings' order and types kept); why only
    the run knows them if so (engine.variables.loop_vars.loop_scopes). ansible templates the items
    once, at the include, with what the host has there: not with what the included tasks set from
    item to item (each host's once: engine.variables.include_item_order); an item its `when` skips
    gives no included file."""
    from engine.variables.host_runtime import narrow_reading
    from engine.variables.loop_vars import loop_scopes
    from engine.variables.value_keys import value_key

    def items(templar: Any) -> list[Any] | str | None:
        scopes = loop_scopes(include, templar)
        if not isinstance(scopes, list):
            return scopes
        return [(frozen(scope), item_loads(templar.child(dict(scope)), include), value_key(scope))
                for scope in scopes]

    def made() -> list[Any] | str | None:  # (the loop and its conditions read a few names: walked for those)
        return narrow_reading(play_plan, ("narrow include items", id(include)), lambda names: include_templar(
            plan, play_plan, host, include, task, occurrence, names=names), items)

    return kept_item_keys(plan, play_plan, host, include, made)
