"""A looping include whose file each item names (``include_tasks: "{{ outer.name }}.yml"`` with
``loop_control: loop_var: outer``): ansible templates the include's arguments with each item
bound (``TaskExecutor._run_loop``) and loads each item's file with that item
(``IncludedFile.process_include_results``), so the files and every value in them are known where
the host's items are. Each item's file is loaded for that item alone, a copy whose tasks run at
that item only (``Frame.item_index``, engine.variables.loop_vars.copy_items), shared by the hosts
that name the same file with the same item; the plan and the values place the same copies
(engine.flow.host_includes, engine.variables.host_includes). A host whose items, or the files
they name, only the run knows is left to the files the include could name
(engine.variables.run_named_loads), with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Block, Task
    from engine.templating.templar import Templar


@dataclass
class ItemCopy:
    """The file one item of a looping include names, loaded for that item, and the hosts whose
    item it is."""

    index: int
    target: str
    blocks: list[Block]
    handlers: list[Task]
    hosts: list[str] = field(default_factory=list)


MAX_ITEMS = 100
"""Items of a looping include whose files are loaded one copy per item; a longer loop is left to
the run (each copy's tasks join the play's order, which every host's walk reads)."""

Loads = list[tuple[int, str, list[Any], list[Any]]]
"""What one host's items load: each item's place, the file it names, its blocks and handlers."""


def item_copies(
    plan: Plan, play_plan: PlayPlan, include: Task, hosts: Iterable[Host], loader: Any
) -> tuple[list[ItemCopy], dict[str, str]]:
    """The copies ``include`` loads on those of ``hosts`` that load it, in item order, and the hosts
    whose items or files only the run knows, with why. Hosts whose variables answer what the first
    host's items and file names read alike load what it loaded (engine.variables.change_classes),
    without their variables at the include being worked out again."""
    from engine.templating.read_names import names_recorded
    from engine.variables.change_classes import HostClasses
    from engine.variables.play_order import play_order

    loaded_on = play_order(play_plan.play).loaded_on.get(id(include))  # a copy some hosts' items load
    hosts = [host for host in hosts if loaded_on is None or host.name in loaded_on]
    classes = HostClasses(plan, play_plan, include) if len(hosts) > 1 else None
    copies: dict[tuple[int, int], ItemCopy] = {}
    unknown: dict[str, str] = {}
    for host in hosts:
        found = classes.joined(host) if classes is not None else None
        if found is None:
            with names_recorded() as read:
                templar = _templar(plan, play_plan, host, include)
                read.clear()  # the host's variables at the include are worked out: what its items read
                found = _host_loads(include, templar, play_plan, loader) if not isinstance(templar, str) else templar
            if classes is not None and not isinstance(found, str):
                classes.add(host, read, found)
        if isinstance(found, str):
            unknown[host.name] = found
            continue
        for index, target, blocks, handlers in found:
            copies.setdefault((index, id(blocks)), ItemCopy(index, target, blocks, handlers)).hosts.append(host.name)
    return sorted(copies.values(), key=lambda copy: copy.index), unknown


def _templar(plan: Plan, play_plan: PlayPlan, host: Host, include: Task) -> Templar | str:
    """The host's templar at ``include``, before its loop: inside a looping include, at the item
    whose copy of the file holds it (a copy for every item of it: the run's which)."""
    from engine.variables.loop_vars import copy_items
    from engine.variables.play_order import play_order
    from engine.variables.report import templar_at

    loops = play_order(play_plan.play).looping(include)
    if not loops:
        return templar_at(plan, play_plan, host, include)  # type: ignore[no-any-return]
    outer = copy_items(include, loops)
    if any(index is None for index in outer):
        return f"each item of its loop, at each item of the looping include '{loops[-1].display_name()}' around it"
    return templar_at(plan, play_plan, host, include, 0, tuple(index for index in outer if index is not None))  # type: ignore[no-any-return]


def _host_loads(include: Task, templar: Templar, play_plan: PlayPlan, loader: Any) -> Loads | str:
    """What each item of ``include``'s loop loads on the host (``templar``: its variables at the
    include), the items whose ``when`` is false left out; why only the run knows, else. A loop
    known not to be a list fails the include: it loads nothing."""
    from engine.templating.errors import RunTimeOnly, TemplateFailure, cause_of
    from engine.variables.loop_vars import LoopFails, loop_scopes
    from engine.variables.report import item_loads

    scopes = loop_scopes(include, templar)
    if isinstance(scopes, LoopFails):
        return []
    if not isinstance(scopes, list):
        return scopes or "its loop's items, which only the run knows"
    if len(scopes) > MAX_ITEMS:
        return f"each of the {len(scopes)} items of its loop, which playbook-ls follows up to {MAX_ITEMS} items"
    found: Loads = []
    for index, scope in enumerate(scopes):
        at_item = templar.child(dict(scope))
        if not item_loads(at_item, include):
            continue
        try:
            blocks, result = loader.load(include, at_item, play_plan.play, index)
        except TemplateFailure as exc:
            if cause_of(exc, RunTimeOnly) is not None:
                return f"item {index + 1} of its loop, which names its file from what only the run knows ({exc})"
            return f"item {index + 1} of its loop, whose file does not load on this host ({exc})"
        handlers = [task for block in loader.handlers for task in block.tasks() if not task.implicit]
        found.append((index, str(result.get("include", "")), blocks, handlers))
    return found
