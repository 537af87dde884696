"""The inventory as ``add_host`` and ``group_by`` leave it for the plays after theirs, when what
they do on each host is known before the run.

ansible applies each result to the in-memory inventory (``StrategyBase._add_host`` and
``_add_group``): ``group_by`` puts every host that runs it in the group its ``key`` names (and
the group under its ``parents``), ``add_host`` runs once (on the batch's first host, each loop
item adding a host) and adds a host with its variables to its groups. A later play selects its
hosts again: the plays on those groups have hosts, the added host's variables are its own, and
``groups``/``group_names`` say so. The order of a group two hosts joined in one ``group_by`` is
the order their results came in, which only the run knows: ``groups`` and the play lists of a
play on it are then said to be unknown.

Followed for the plays after the changing one and for the changing play's own later tasks (each
reads the inventory as the tasks before it left it; in a play of several ``serial`` batches, as
the earlier batches and its own batch's earlier tasks left it); a
``--limit`` holds for the hosts added as for the others (ansible's subset is matched at each
play); anything only the run decides (a condition, a key, a loop) leaves the plays after as the
plan has them, and ``groups`` and ``group_names`` unknown to the later tasks of its play. The plan
and the values read one inventory: ``plan_hosts`` selects each play's hosts here as ``vars`` does,
and follows a play's changes before planning its tasks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.flow.play_host_order import ordered_by
from engine.flow.run_settings import runs_once
from engine.flow.unrun_hosts import maybe_hosts
from engine.inventory.graph_copy import copy_graph
from engine.loading import keywords as kw
from engine.templating.read_names import names_recorded
from engine.variables.change_classes import HostClasses
from engine.variables.loop_vars import loop_scopes
from engine.variables.play_order import play_order

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host, InventoryData
    from engine.loading.model import Task
    from engine.templating.templar import Templar

ADD_HOST = kw._family("add_host")
GROUP_BY = kw._family("group_by")
NAME_KEYS = ("name", "hostname", "host")
GROUP_KEYS = ("groupname", "groups", "group")


class InPlay(NamedTuple):
    """The inventory as an add_host or group_by task of a play left it, for the tasks after it in
    that play (``position``: the task's in the play's order); ``inventory`` None when what the task
    did is only the run's."""

    position: int
    inventory: Any
    racy: frozenset[str]
    task: str
    batch: int = 0
    """The ``serial`` batch whose run of the task left it (batches run every task in turn)."""
    hosts: frozenset[str] | None = None
    """The hosts of that batch (None: the play runs in one batch)."""
    joined: tuple[str, ...] = ()
    """The hosts the add_host tasks of the batch so far added or changed, in turn: the strategy adds
    each to the play's hosts (``_hosts_cache_all``) for the rest of the batch, so they are in
    ``ansible_play_hosts_all`` and ``ansible_play_hosts`` there, whatever the play's pattern."""


class _Unknown(Exception):
    """What a task does to the inventory only the run knows."""


class Changes:
    """The inventory changes followed so far: the inventory the next plays read, and the groups
    whose hosts' order only the run knows."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.inventory = plan.inventory
        self.racy: set[str] = set()
        self.racy_tasks: dict[str, str] = {}
        """Each group of :attr:`racy` with the group_by task that made its order the run's."""
        self.blocks: dict[str, list[list[str]]] = {}
        """Each group group_by filled, the hosts each of its runs (a task on a batch) added, in turn:
        ansible lists a block's hosts as their results came in, the blocks in the order they ran."""
        self.known = True

    def select(self, play_plan: PlayPlan) -> None:
        """Select ``play_plan``'s hosts again in the inventory as changed so far."""
        from engine.flow.plan import play_order as ordered_hosts
        from engine.inventory.patterns import HostPatternError, select_hosts

        self._start = (play_plan, self.inventory, self.racy, self.known, {g: list(b) for g, b in self.blocks.items()})
        if self.inventory is self.plan.inventory:
            return
        try:
            hosts = select_hosts(self.inventory.data, play_plan.play.hosts, self.plan.options.limit, mismatch="ignore")
        except HostPatternError:
            return
        hosts, play_plan.maybe = maybe_hosts(self.inventory.data, play_plan.play.hosts, self.plan.options.limit, hosts,
                                             self.plan.inventory.unrun)
        ordered, order_known = ordered_hosts(play_plan.play, hosts)
        play_plan.hosts, play_plan.order_known = ordered, order_known
        play_plan.hosts_all = [host.name for host in hosts]
        play_plan.inventory = self.inventory  # type: ignore[attr-defined] - read by engine.variables.report
        if self.racy:
            play_plan.racy_groups = sorted(self.racy)  # type: ignore[attr-defined]
        play_plan.racy_tasks = self.racy_tasks  # type: ignore[attr-defined] - read by engine.variables.report
        racy = ordered_by(play_plan.play.hosts, self.racy)
        if racy:
            play_plan.racy_order = racy  # type: ignore[attr-defined]
            play_plan.racy_blocks = {group: self.blocks.get(group, []) for group in racy}  # type: ignore[attr-defined]

    def follow(self, play_plan: PlayPlan) -> None:
        """Apply what ``play_plan``'s add_host and group_by tasks do, for its later tasks and the
        plays after it; again from the play's start when its order grew (includes loaded)."""
        start = getattr(self, "_start", None)
        if start is not None and start[0] is play_plan:
            self.inventory, self.racy, self.known = start[1:4]
            self.blocks = {group: list(blocks) for group, blocks in start[4].items()}
        if not self.known:
            return
        order = play_order(play_plan.play)
        tasks = [task for task in order.tasks if task.action in ADD_HOST | GROUP_BY]
        if not tasks:
            return
        from engine.variables.report import known_batches

        batches = known_batches(play_plan.play, [h.name for h in play_plan.hosts])
        data = copy_graph(self.inventory.data)
        racy = set(self.racy)
        # the play's own later tasks read the inventory as the tasks before them left it; each
        # task is templated with what the ones before it did, so the list grows as they are applied;
        # a play in serial batches runs every task on one batch before the next batch starts
        after: list[InPlay] = []
        play_plan.changed_in_play = after  # type: ignore[attr-defined] - read by engine.variables.report
        play_plan.racy_tasks = self.racy_tasks  # type: ignore[attr-defined]
        runs = [(index, batch, task) for index, batch in enumerate(batches or [[]]) for task in tasks]
        joined: list[str] = []
        for index, batch, task in runs:
            members = frozenset(batch) if batches is not None and len(batches) > 1 else None
            if after and after[-1].batch != index:
                joined = []  # each batch's run of the play selects its hosts anew
            try:
                if batches is None:
                    raise _Unknown  # serial only the run knows
                joined += self._apply(play_plan, task, data, racy, members)
            except _Unknown:
                self.known = False
                play_plan.changes_unknown_at = InPlay(order.positions[id(task)][0], None,  # type: ignore[attr-defined]
                                                      frozenset(), task.display_name())
                return
            _reconcile(data)
            last = (index, task) == runs[-1][::2]
            after.append(InPlay(order.positions[id(task)][0], self._inventory(data if last else copy_graph(data)),
                                frozenset(racy), task.display_name(), index, members,
                                tuple(dict.fromkeys(joined))))
        self.inventory = after[-1].inventory
        self.racy = racy

    def _inventory(self, data: InventoryData) -> Any:
        from engine.inventory.manager import Inventory

        base = self.plan.inventory
        return Inventory(data, base.sources, base.cache, shared_from=base, playbook_dir=base.playbook_dir,
                         working_dir=base.working_dir, facts_as_vars=base.facts_as_vars)

    def _reached(self, play_plan: PlayPlan, host: Host, task: Task) -> bool:
        """Whether ``task`` runs on ``host``: no ``meta: end_host`` before it in the play ended the
        play there, and the blocks with a ``rescue`` around it let it run (one in a rescue runs only
        where a task of its block failed: engine.variables.block_runs)."""
        from engine.variables.block_runs import play_blocks
        from engine.variables.host_runtime import Follower
        from engine.variables.report import include_item_order, templar_at
        from engine.variables.setters import ends_host_task

        follower = Follower(self.plan, play_order, templar_at, include_item_order)
        order = play_order(play_plan.play)
        at = order.positions.get(id(task), [0])[0]
        for earlier in order.tasks[:at]:
            if ends_host_task(earlier):
                ended = follower._ends_host(play_plan, host, earlier)  # noqa: SLF001
                if isinstance(ended, str):
                    raise _Unknown
                if ended:
                    return False
        blocks = play_blocks(play_plan.play)
        if id(task) not in blocks.paths or not blocks.rescuing:
            return True
        ran = follower._ran(play_plan, host, task, None)  # noqa: SLF001
        if isinstance(ran, str):
            raise _Unknown
        return ran

    def _apply(self, play_plan: PlayPlan, task: Task, data: InventoryData, racy: set[str],
               batch: frozenset[str] | None) -> list[str]:
        """Apply ``task`` as it runs on ``batch`` (None: every host of the play): the hosts an
        add_host added or changed (its result ``changed``), in turn."""
        from engine.variables.report import templar_at

        own = task.data if isinstance(task.data, Mapping) else {}
        if own.get("delegate_to") is not None:
            raise _Unknown
        loaded_on = play_order(play_plan.play).loaded_on.get(id(task))
        hosts = [host for host in play_plan.hosts if (loaded_on is None or host.name in loaded_on)
                 and (batch is None or host.name in batch)]
        if task.action in ADD_HOST or runs_once(task):
            hosts = hosts[:1]  # add_host bypasses the host loop: the batch's first host runs it
        hosts = [host for host in hosts if self._reached(play_plan, host, task)]
        joined: dict[str, int] = {}
        added_to: dict[str, list[str]] = {}  # the hosts this run puts in each group, in turn
        # a parent gains its new child groups, and they their hosts, in the order the hosts' results
        # come in: where it gains two hosts it did not have, its host list is in the run's order
        parent_had: dict[str, set[str]] = {}
        gained: dict[str, set[str]] = {}
        added: list[str] = []
        classes = HostClasses(self.plan, play_plan, task) if task.action in GROUP_BY and len(hosts) > 1 else None
        for host in hosts:
            groups = classes.joined(host) if classes is not None else None
            if groups is None:
                with names_recorded(hostvars_alike=True, memberships=True) as read:
                    templar = templar_at(self.plan, play_plan, host, task)
                    read.clear()  # the host's variables at the task are worked out: what the task's templates read
                    if task.action in GROUP_BY:
                        groups = [_group_key(task, templar.child(scope) if scope else templar)
                                  for scope in _runs(task, play_plan, templar)]
                    else:
                        for scope in _runs(task, play_plan, templar):
                            name, changed = _add_host(task, templar.child(scope) if scope else templar, data)
                            added += [name] if changed else []
                if classes is not None:
                    classes.add(host, read, groups)
            for key, parents in groups or ():
                new = host.name not in getattr(data.groups.get(key.replace(" ", "-")), "_host_names", ())
                for parent in _parent_names(parents):
                    if parent not in parent_had:
                        known = data.groups.get(parent)
                        parent_had[parent] = {h.name for h in known.get_hosts()} if known is not None else set()
                    if host.name not in parent_had[parent]:
                        gained.setdefault(parent, set()).add(host.name)
                group = _group_by(key, parents, host, data)
                joined[group] = joined.get(group, 0) + 1
                if new:
                    added_to.setdefault(group, []).append(host.name)
        for group, block in added_to.items():
            self.blocks.setdefault(group, []).append(block)
        racy.update(group for group, count in joined.items() if count > 1)
        racy.update(parent for parent, hosts_gained in gained.items() if len(hosts_gained) > 1)
        for group in racy:  # the task that first put hosts in it as their results came in
            self.racy_tasks.setdefault(group, task.display_name())
        return added



def _runs(task: Task, play_plan: PlayPlan, templar: Templar) -> list[dict[str, Any]]:
    """The item scopes of the task's runs on the host whose ``templar`` it is, those its
    conditions (and the includes' around it) let run."""
    scopes = loop_scopes(task, templar)
    if isinstance(scopes, str):
        raise _Unknown
    conditions = [c.value for include in play_order(play_plan.play).includers.get(id(task), [])
                  for c in include.effective_when()] + [c.value for c in task.effective_when()]
    kept = []
    for scope in scopes if scopes is not None else [{}]:
        here = templar.child(scope) if scope else templar
        try:
            if all(here.evaluate(condition) for condition in conditions):
                kept.append(scope)
        except Exception as exc:  # noqa: BLE001 - a condition only the run decides
            raise _Unknown from exc
    return kept


def _template(templar: Templar, value: Any) -> Any:
    try:
        return templar.template(value)
    except Exception as exc:  # noqa: BLE001 - a value only the run knows
        raise _Unknown from exc


def _group_key(task: Task, templar: Templar) -> tuple[str, list[Any]]:
    """The group a run of ``task`` (a group_by) puts its host in, and that group's parents."""
    args = task.args if isinstance(task.args, Mapping) else {}
    key = _template(templar, args.get("key"))
    parents = _template(templar, args.get("parents", ["all"]))
    if not isinstance(key, str) or not key:
        raise _Unknown
    parents = [parents] if isinstance(parents, str) else parents
    if not isinstance(parents, list):
        raise _Unknown
    return key, parents


def _parent_names(parents: list[Any]) -> list[str]:
    return [str(name).replace(" ", "-") for name in parents]


def _group_by(key: str, parents: list[Any], host: Host, data: InventoryData) -> str:
    group = data.add_group(key.replace(" ", "-"))
    for parent in _parent_names(parents):
        data.add_group(parent)
        data.add_child(parent, group)
    data.add_child(group, host.name)
    return group


def _add_host(task: Task, templar: Templar, data: InventoryData) -> tuple[str, bool]:
    """Add the host a run of ``task`` names; its name and whether the action reports a change
    (``InventoryManager.add_dynamic_host``: a new host, new variables, a new group or membership)."""
    args = task.args if isinstance(task.args, Mapping) else {}
    name = _template(templar, next((args[key] for key in NAME_KEYS if key in args), None))
    groups = _template(templar, next((args[key] for key in GROUP_KEYS if key in args), ""))
    if not isinstance(name, str) or not name or ":" in name:
        raise _Unknown  # a port after the name is parsed by the action: left to the run
    groups = [g.strip() for g in groups.split(",")] if isinstance(groups, str) else groups
    if not isinstance(groups, list):
        raise _Unknown
    host_vars = {str(key): _template(templar, value) for key, value in args.items()
                 if key not in (*NAME_KEYS, *GROUP_KEYS)}
    changed = name not in data.hosts
    data.add_host(name, "all")
    before = dict(data.hosts[name].vars)
    for key, value in host_vars.items():
        data.hosts[name].set_variable(key, value)
    changed = changed or dict(data.hosts[name].vars) != before
    for group in [str(g) for g in groups if g]:
        changed = group not in data.groups or changed
        changed = data.add_child(data.add_group(group), name) or changed
    if len(data.hosts[name].get_groups()) <= 1:  # reconcile_inventory: a host in no group is ungrouped
        data.add_child("ungrouped", name)
    return name, changed


def _reconcile(data: InventoryData) -> None:
    """``reconcile_inventory``: a host in a group of its own is no longer ungrouped."""
    ungrouped = data.groups.get("ungrouped")
    if ungrouped is None:
        return
    for host in list(ungrouped.get_hosts()):
        if any(group.name not in ("all", "ungrouped") for group in host.get_groups()):
            ungrouped.remove_host(host)
            data._groups_dict_cache = {}  # noqa: SLF001 - the groups changed
