"""What a looping include over a list whose order only the run knows (a list ansible makes from a
set of strings, :class:`engine.values.RunOrdered`) leaves on a host once all its items ran, when
that does not depend on the order. The file runs whole for each item, each run building on what the
one before left (engine.variables.accumulating): a count, a sum, a maximum come out the same in
every order, a list appended to holds the same items in another order. The file's ``set_fact``
tasks are followed with the items in every order they can come in (up to
:data:`~engine.variables.order_free_loops.MAX_ITEMS` items): a value every order agrees on is
known after the include, a list of the same items in other orders is a run-ordered list, anything
else stays the run's. Only files whose tasks that set something are plain ``set_fact`` tasks (no
``when``, loop, register or delegation of their own) are followed so; inside the include, at
one of its items, the values stay the run's (which items came before is)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.accumulating import unknown_names
from engine.variables.order_free_loops import _agreed, every_order
from engine.variables.setters import sets_something
from engine.variables.sources import SET_FACT, Layer
from engine.variables.task_results import Effects

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Task

_PLAIN_KEYS = frozenset({"name", "action", "args", "tags", "vars"})
_DIFFER = object()  # the orders do not agree on the name's value


def settled_names(effects: Effects, unordered: Callable[[str], bool], known: Mapping[str, Any] | None,
                  reason: str) -> Effects:
    """``effects`` of a run of a task the include loads, read after the include: each name it
    builds from the runs before (``unordered``) with the value every order agrees on (``known``,
    :func:`after_every_order`), else unknown (``reason``)."""
    agreed = {name: value for name, value in (known or {}).items() if value is not _DIFFER}
    effects = unknown_names(effects, lambda name: unordered(name) and name not in agreed, reason)
    if not agreed:
        return effects

    def layer_of(layer: Layer) -> Layer:
        names = [name for name in layer.values if name in agreed and unordered(name)]
        if not names:
            return layer
        values = layer.values.copy() if hasattr(layer.values, "copy") else dict(layer.values)
        for name in names:
            values[name] = agreed[name]
        return Layer(layer.level, layer.label, values, layer.path, layer.default_line, layer.runtime)

    return Effects([layer_of(layer) for layer in effects.included], [layer_of(layer) for layer in effects.facts],
                   effects.delegated_to, effects.delegated_each, effects.changed)


def after_every_order(follower: Any, play_plan: PlayPlan, host: Host, include: Task) -> Mapping[str, Any] | None:
    """What the ``set_fact`` tasks of the file ``include`` loads leave on ``host`` after its last item,
    by name (a value, or one the orders differ on), followed in every order of its run-ordered items;
    None when the file or the items cannot be followed so. Kept per include and host."""
    memo = follower.memo(play_plan)
    key = ("include orders", id(include), host.name, id(follower.plan.inventory),
           id(getattr(play_plan, "planned_runs", None)))
    if key not in memo:
        memo[key] = _followed(follower, play_plan, host, include)
    return memo[key]  # type: ignore[no-any-return]


def _setters_of(follower: Any, play_plan: PlayPlan,
                include: Task) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]] | None:
    """The args and task vars of the ``set_fact`` tasks the include loads, in order; None when a
    task of the file sets something otherwise, or is loaded by a deeper include."""
    order = follower.order_of(play_plan.play)
    found = []
    for task in order.tasks:
        chain = order.includers.get(id(task), [])
        if include not in chain:
            continue
        if chain[-1] is not include or task.children:
            return None
        if not sets_something(task):
            continue
        data = task.data if isinstance(task.data, Mapping) else {}
        own_vars = data.get("vars") or {}
        if task.action not in SET_FACT or not isinstance(task.args, Mapping) or task.effective_when() or \
                any(key not in _PLAIN_KEYS and key != task.action for key in data) or \
                not isinstance(own_vars, Mapping) or set(own_vars) & set(task.args):
            return None
        found.append(({key: value for key, value in task.args.items() if key != "cacheable"}, own_vars))
    return found


def _followed(follower: Any, play_plan: PlayPlan, host: Host, include: Task) -> Mapping[str, Any] | None:
    from engine.templating.load_time import is_template
    from engine.variables.loop_vars import run_ordered_items

    data = include.data if isinstance(include.data, Mapping) else {}
    if include.effective_when() or data.get("vars"):
        return None
    setters = _setters_of(follower, play_plan, include)
    if not setters or any(not isinstance(name, str) or is_template(name) for args, _ in setters for name in args):
        return None
    extra = follower.plan.options.extra_vars or {}
    if any(name in extra for args, _ in setters for name in args):
        return None  # an extra var wins over what set_fact sets
    try:
        templar = follower.templar_at(follower.plan, play_plan, host, include, 0, None)
        found = run_ordered_items(include, templar)
    except Exception:  # noqa: BLE001 - items only the run knows
        return None
    if found is None or found[0].extended:
        return None
    control, items, why = found
    orders = every_order(items)
    if orders is None:
        return None
    finals = []
    for order in orders:
        state: dict[str, Any] = {}
        try:
            for place, index in enumerate(order):
                scope = {control.loop_var: items[index], **({control.index_var: place} if control.index_var else {})}
                for args, own_vars in setters:
                    child = templar.child({**scope, **state})
                    if own_vars:  # the task's vars, below what set_fact set and the item
                        child = templar.child({**{name: child.template(value) for name, value in own_vars.items()},
                                               **scope, **state})
                    state.update({name: child.template(value) for name, value in args.items()})
        except Exception:  # noqa: BLE001 - a value only the run knows, or one ansible fails on
            return None
        finals.append(state)
    result: dict[str, Any] = {}
    for name, value in finals[0].items():
        for other in finals[1:]:
            theirs = other.get(name, _DIFFER)
            if value is _DIFFER or value is None and theirs is None:
                continue
            agreed = _agreed(value, theirs, why) if theirs is not _DIFFER else None
            value = _DIFFER if agreed is None else agreed
        result[name] = value
    return result
