"""``add_host`` and ``group_by``: the in-memory inventory changed for the rest of the run.

The action plugins only describe the change (``add_host``: host name, groups, variables;
``group_by``: a group and its parents); the strategy applies it to the inventory
(``InventoryManager.add_dynamic_host`` / ``add_dynamic_group``) once the whole task ran, and only
when its result did not fail: a loop with one failed item adds nothing, not even its other items.
It decides ``changed`` from what it really changed, then evaluates ``changed_when`` and
``failed_when`` again on each item; the worker shows no line for an item that succeeded (the
strategy shows it after applying it), so a failed loop shows its failed and skipped items alone.
``add_host`` bypasses the host loop: the first host of the batch runs
it (each loop item adds a host); ``group_by`` runs for every host, putting it in the group.
Later plays select their hosts from the changed inventory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.flow.loops import loop_of
from engine.inventory.combine import combine_vars
from engine.inventory.data import InventoryData, InventoryError
from engine.loading import keywords as kw
from engine.loading.model import Task
from engine.run.modules._args import invalid_options
from engine.templating.templar import Templar
from engine.templating.type_names import tagged

ADD_HOST = kw._family("add_host")
GROUP_BY = kw._family("group_by")
CHANGES_INVENTORY = kw.CHANGES_INVENTORY
SPECIAL_ARGS = frozenset(("name", "hostname", "groupname", "groups"))


class ActionFailed(Exception):
    """The action fails the task with this message; ``argument``: the argument whose value it
    blames (``AnsibleActionFail(..., obj=value)``), its origin chained to the task's."""

    def __init__(self, message: str, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


def add_host_request(args: Mapping[str, Any]) -> dict[str, Any]:
    """What ``add_host``'s action plugin returns (``add_host`` key), or raises ActionFailed."""
    args = dict(args)
    raw = args.pop("_raw_params", {})
    if not isinstance(raw, Mapping):
        raise ActionFailed(f"Invalid raw parameters passed, requires a dictionary/mapping got a  {type(raw)}")
    args = {**raw, **args}
    new_name = args.get("name", args.get("hostname", args.get("host")))
    if new_name is None:
        raise ActionFailed("name, host or hostname needs to be provided")
    name, port = _parse_address(str(new_name))
    if port:
        args["ansible_ssh_port"] = port
    groups = args.get("groupname", args.get("groups", args.get("group", "")))
    new_groups: list[str] = []
    if groups:
        if isinstance(groups, list):
            group_list = groups
        elif isinstance(groups, str):
            group_list = groups.split(",")
        else:
            raise ActionFailed("Groups must be specified as a list.", "groups" if "groups" in args else None)
        for group_name in group_list:
            if group_name not in new_groups:
                new_groups.append(str(group_name).strip())
    host_vars = {k: v for k, v in args.items() if k not in SPECIAL_ARGS}
    return {"host_name": name, "groups": new_groups, "host_vars": host_vars}


def _parse_address(address: str) -> tuple[str, int | None]:
    """``parse_address`` for the common forms: ``name``, ``name:port``, ``[v6]:port``."""
    if address.startswith("[") and "]:" in address:
        host, _, port = address[1:].partition("]:")
        return host, int(port) if port.isdigit() else None
    if address.count(":") == 1:
        host, _, port = address.partition(":")
        if port.isdigit():
            return host, int(port)
    return address, None


def add_dynamic_host(data: InventoryData, info: Mapping[str, Any]) -> bool:
    """``InventoryManager.add_dynamic_host``: whether the inventory changed."""
    changed = False
    host_name = info["host_name"]
    if host_name not in data.hosts:
        data.add_host(host_name, "all")
        changed = True
    host = data.hosts[host_name]
    combined = combine_vars(host.vars, info.get("host_vars", {}), data.merge_hashes)
    if combined != host.vars:
        host.vars = combined
        changed = True
    for group_name in info.get("groups", []):
        if group_name not in data.groups:
            group_name = data.add_group(group_name)
            changed = True
        if data.groups[group_name].add_host(host):
            changed = True
    if changed:
        data.reconcile_inventory()
    data._groups_dict_cache = {}
    return changed


def group_by_request(args: Mapping[str, Any]) -> dict[str, Any]:
    """What ``group_by``'s action plugin returns, or raises ActionFailed."""
    if "key" not in args:
        raise ActionFailed("the 'key' param is required when using group_by")
    parents = args.get("parents", ["all"])
    if isinstance(parents, str):
        parents = [parents]
    # the action's own ``name.replace(' ', '-')`` on the values its templar hands back (tagged):
    # one that is no string fails the task with Python's words
    try:
        names = list(tagged(parents))
    except TypeError as exc:
        raise ActionRaised(str(exc)) from exc
    return {"changed": False, "add_group": _dashed(args["key"]), "parent_groups": [_dashed(name) for name in names]}


def _dashed(name: Any) -> str:
    if not isinstance(name, str):
        raise ActionRaised(f"{type(tagged(name)).__name__!r} object has no attribute 'replace'")
    return name.replace(" ", "-")


class ActionRaised(Exception):
    """The action raised an exception of Python's own (the task fails with "Task failed: ...")."""


def add_dynamic_group(data: InventoryData, host_name: str, result: Mapping[str, Any]) -> bool:
    """``InventoryManager.add_dynamic_group``: whether the inventory changed."""
    changed = False
    host = data.get_host(host_name)
    if host is None:
        raise InventoryError(f"{host_name} cannot be matched in inventory")
    group_name = result["add_group"]
    if group_name not in data.groups:
        group_name = data.add_group(group_name)
    for name in result.get("parent_groups", []):
        if name not in data.groups:
            data.add_group(name)
            changed = True
    group = data.groups[group_name]
    for parent_name in result.get("parent_groups", []):
        if data.groups[parent_name].add_child_group(group) and not changed:
            changed = True
    if host not in group.get_hosts():
        changed = group.add_host(host)
    if group not in host.get_groups():
        changed = host.add_group(group)
    if changed:
        data.reconcile_inventory()
    data._groups_dict_cache = {}
    return changed


def change_inventory(task: Task, args: Mapping[str, Any], templar: Templar) -> dict[str, Any]:
    """What the action of ``add_host`` or ``group_by`` returns for ``task`` (its ``args``
    templated): the change, not applied yet (:func:`apply_inventory_changes` applies it once the
    task ran)."""
    from engine.run.error_block import CONTEXT_KEY, ERROR_KEY, Event
    from engine.run.task_runner import NO_TRACEBACK

    try:
        if task.action in ADD_HOST:
            return {"changed": False, "add_host": add_host_request(args)}
        if refused := invalid_options(task.action, args, frozenset(("key", "parents"))):  # its _VALID_ARGS
            return refused
        return group_by_request(args)
    except ActionFailed as exc:
        result = {"failed": True, "msg": str(exc), "changed": False}
        if exc.argument is not None:  # the value's origin: where it is written, or the variable it reads
            from engine.run.keyword_types import _origin

            written = task.data.get(task.action) if isinstance(task.data, Mapping) else None
            raw = written.get(exc.argument) if isinstance(written, Mapping) else None
            span = (getattr(written, "value_spans", None) or {}).get(exc.argument)
            result.update({CONTEXT_KEY: "task", ERROR_KEY: [Event("Task failed.", task.span),
                                                            Event(str(exc), _origin(raw, span, templar) or span)]})
        return result
    except ActionRaised as exc:
        return {"failed": True, "msg": f"Task failed: {exc}", "changed": False, CONTEXT_KEY: "task",
                "exception": NO_TRACEBACK}


def apply_inventory_changes(data: InventoryData, task: Task, result: dict[str, Any], host: str,
                            templar: Templar) -> None:
    """What the strategy does with the result of an ``add_host`` or ``group_by`` task that did not
    fail (``_process_pending_results``): each item's change applied in order, its ``changed`` what
    the inventory says, then ``changed_when`` and ``failed_when`` again with the item's result
    registered; a loop's result changed (failed) when an item is."""
    if task.action not in CHANGES_INVENTORY or result.get("failed") or result.get("unreachable"):
        return
    looped = isinstance(result.get("results"), list) and loop_of(task) is not None
    for item in result["results"] if looped else [result]:
        if not isinstance(item, dict) or not ("add_host" in item or "add_group" in item):
            continue
        try:
            item["changed"] = add_dynamic_host(data, item["add_host"]) if "add_host" in item else \
                add_dynamic_group(data, host, item)
        except InventoryError as exc:
            item.update(failed=True, msg=str(exc))
        _judge_again(task, item, templar.child(_item_vars(item) if looped else {}))
        if looped and item.get("changed"):
            result["changed"] = True
        if looped and item.get("failed"):
            result["failed"] = True


def _item_vars(item: Mapping[str, Any]) -> dict[str, Any]:
    """``_get_item_vars``: what of an item's result its conditions see again."""
    found: dict[str, Any] = {}
    for key_name in ("ansible_loop_var", "ansible_index_var"):
        name = item.get(key_name, "item" if key_name == "ansible_loop_var" else None)
        if name is not None and name in item:
            found.update({name: item[name], key_name: name})
    if "ansible_loop" in item:
        found["ansible_loop"] = item["ansible_loop"]
    return found


def _judge_again(task: Task, item: dict[str, Any], templar: Templar) -> None:
    data = task.data if isinstance(task.data, Mapping) else {}
    register = data.get("register")
    scope = templar.child({register: item} if isinstance(register, str) else {})
    for name in ("changed_when", "failed_when"):
        whens = data.get(name)
        if whens in (None, [], ""):
            continue
        holds = all(scope.evaluate(c) for c in (whens if isinstance(whens, list) else [whens]))
        if name == "changed_when":
            item["changed"] = holds
        else:
            item["failed_when_result"] = item["failed"] = holds


def shown_items(action: str, items: list[Any], failed: bool) -> list[int]:
    """The indexes of a loop's items the default callback shows, in its order: an inventory
    task's worker shows its skipped and failed items as they run, the strategy the others after
    applying them (none when the task failed)."""
    if action not in CHANGES_INVENTORY:
        return list(range(len(items)))
    early = [i for i, item in enumerate(items) if not isinstance(item, dict) or item.get("skipped")
             or item.get("failed") or item.get("unreachable")]
    return early if failed else early + [i for i in range(len(items)) if i not in early]
