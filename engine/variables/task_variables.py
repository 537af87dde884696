"""The variables a task sees on a host, each with its value and where it was set: what
``playbook-ls vars``, the variable hovers and the plan's readers ask for.

:mod:`engine.variables.report` works out the levels (the inventory's, the play's, what earlier
tasks set) of a task's run on a host; :func:`variables_at` merges them, templates each asked name
the way a run would (pure lookups only), and says why a value is unknown when only the run knows
it: per loop item when a looped task is asked without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.templating.templar import RECURSIVE_VALUE, TemplateFailure, is_template, too_large_reason
from engine.values import Pending, settled, unknown_as_shown
from engine.variables.host_facts import facts_unknown
from engine.variables.loop_vars import loop_names
from engine.variables.raw import looks_like_fact, runtime_reason, wild_layer
from engine.variables.report import _loop_layer, _loop_layers, _raw_over, frozen, layers_at, static_templar
from engine.variables.sources import Definition, Layer, RuntimeValue, definitions, is_runtime
from engine.variables.task_results import with_repository_lookups

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.inventory.data import Host
    from engine.loading.model import Play, Task


@dataclass
class Resolved:
    """One variable at the task: its value (templated when it can be), the definitions (winning
    first), and why the value is not known when it is not."""

    name: str
    value: Any
    definitions: list[Definition]
    template: Any = None
    """The raw value when it is a template (the value is then its result)."""
    unknown: str | None = None
    """Why the value cannot be known before the run (a fact, a registered result, a lookup...)."""
    magic: bool = False
    per_item: list[Resolved] | None = None
    """In a looped task asked without an item, when the value differs from item to item: each
    item's (``unknown`` then says so)."""
    kept: Any = None
    """A value the run alone could show whole (``unknown`` says why), of which a template may read
    what is known (a run-ordered list's length, a module result's ``changed``): kept for that."""


@dataclass
class TaskVariables:
    play: Play
    task: Task | None
    host: Host
    variables: dict[str, Resolved] = field(default_factory=dict)
    templar: Any = None
    """The templar over these variables (pure lookups only): renders other templates of the task."""
    occurrence: int = 0
    """Which run of the task (a handler flushed twice, say): 0 for the first."""


def variables_at(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None,
                 names: list[str] | None = None, occurrence: int = 0, item: int | None = None,
                 outer: tuple[int, ...] = (), levels: tuple[list[Layer], dict[str, Any]] | None = None,
                 items: list[Mapping[str, Any]] | None = None, kept: dict[Any, Any] | None = None) -> TaskVariables:
    """The variables ``task`` of ``play_plan`` sees on ``host`` (``task`` None: the play's), at
    its ``occurrence``-th run (:func:`task_runs`), under the ``outer`` items of the looped includes
    around it (:func:`include_loop_runs`), at ``item`` of its own loop (None: the names the loop
    binds are said to be set per item). ``levels``: :func:`layers_at` of the same run, when a
    caller asking for several lists of names in turn has it already (neither is changed here);
    ``items``: the loop's item variables worked out from those levels (each item's reading here).
    ``kept``: with ``levels``, a dict the caller keeps with them (and drops with them) and gives
    at each call for them: what is worked out of the levels whatever the names (the merged raw
    values, the loop's items, the levels with the loops' items) is worked out once for them."""
    if levels is None:
        levels, kept = layers_at(plan, play_plan, host, task, occurrence, outer), None  # each item's too
    if kept is None or items is not None and items is not kept.get("items"):
        kept = {} if items is None else {"items": items}  # (what is kept holds the items it was worked out at)
    _, magic = levels
    if item is None and task is not None and loop_names(task):
        scopes = _loop_items(plan, play_plan, host, task, outer, levels, kept)
        if isinstance(scopes, list) and 0 < len(scopes) <= ITEMS_SHOWN:
            return _per_item([variables_at(plan, play_plan, host, task, names, occurrence, index, outer, levels,
                                           scopes, kept) for index in range(len(scopes))])
    if ("layers", item) not in kept:
        kept["layers", item] = _item_layers(plan, play_plan, host, task, item, outer, levels, kept)
    layers, raw, any_wild = kept["layers", item]
    found = definitions(layers, names)
    facts = facts_unknown(plan, play_plan, host)
    templar = with_repository_lookups(task, static_templar(raw, magic, layers), play_plan.play.basedir)
    result = TaskVariables(play_plan.play, task, host, templar=templar, occurrence=occurrence)
    wanted = names if names is not None else list(found)
    for name in wanted:
        defs = found.get(name, [])
        if not defs and facts is not None and looks_like_fact(name):
            defs = [Definition(name, RuntimeValue(facts), "host facts", "gathered facts", None, None, True)]
        wild = wild_layer(layers, name) if any_wild else None
        if wild is not None:
            defs = [Definition(name, RuntimeValue(wild.any_name or ""), wild.level, wild.label, wild.path, None, True),
                    *defs]
        if not defs:
            result.variables[name] = Resolved(name, None, [], unknown="defined nowhere on the way to this task")
            continue
        winner = defs[0]
        if isinstance(winner.value, Pending) and names is not None:  # asked for by name: worked out now
            winner = defs[0] = replace(winner, value=settled(winner.value))
        resolved = Resolved(name, None, defs, magic=winner.level == "magic variables")
        if is_runtime(winner.value):
            resolved.unknown = runtime_reason(winner.value, winner.label)
        elif isinstance(winner.value, Pending):  # a play list not asked for: left to whoever reads it
            resolved.value = winner.value
        elif resolved.magic and name != "hostvars":  # ansible's own data, never a template
            resolved.value = raw.get(name, winner.value)
        else:
            try:
                value = raw.get(name, winner.value)
            except TemplateFailure as exc:  # a value only the run knows, folded into a merged one
                resolved.unknown = str(exc)
                result.variables[name] = resolved
                continue
            found_template = None if unknown_as_shown(value) else is_template(value) or _has_template(value)
            if found_template is None:
                resolved.unknown = unknown_as_shown(value) or RECURSIVE_VALUE
                resolved.kept = value if resolved.unknown != RECURSIVE_VALUE else None
            elif found_template:
                resolved.template = value
                try:
                    resolved.value = templar.template(value)
                except TemplateFailure as exc:
                    resolved.unknown = too_large_reason(exc) or f"not known before the run: {exc}"
                except RecursionError:
                    resolved.unknown = "not known before the run: the value refers to itself"
            else:
                resolved.value = value
        shown = (_magic_shown(resolved.value) if resolved.magic else unknown_as_shown(resolved.value)) \
            if resolved.unknown is None else None
        if shown is not None:
            resolved.kept, resolved.value, resolved.unknown = resolved.value, None, shown
        result.variables[name] = resolved
    return result



def _base(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None, outer: tuple[int, ...],
          levels: tuple[list[Layer], dict[str, Any]], kept: dict[Any, Any]) -> tuple[list[Layer], Any]:
    """The levels with the items of the looped includes around the task, and the raw values of
    the levels without them (what the task's own loop is templated with)."""
    if "base" not in kept:
        layers, magic = levels
        kept["base"] = ([*layers, *_loop_layers(plan, play_plan, host, task, outer)],
                        _raw_over(plan, play_plan, host, layers, magic))
    return kept["base"]  # type: ignore[no-any-return]


def _loop_items(plan: Plan, play_plan: PlayPlan, host: Host, task: Task, outer: tuple[int, ...],
                levels: tuple[list[Layer], dict[str, Any]], kept: dict[Any, Any]) -> Any:
    """The item variables of the task's own loop (loop_scopes), templated with its levels: once for
    them (``kept``)."""
    from engine.variables.loop_vars import loop_scopes

    if "items" not in kept:
        raw = _base(plan, play_plan, host, task, outer, levels, kept)[1]
        kept["items"] = loop_scopes(task, with_repository_lookups(task, static_templar(raw, levels[1]),
                                                                  play_plan.play.basedir))
    return kept["items"]


def _item_layers(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None, item: int | None,
                 outer: tuple[int, ...], levels: tuple[list[Layer], dict[str, Any]],
                 kept: dict[Any, Any]) -> tuple[list[Layer], Any, bool]:
    """The levels of the run at ``item`` of the task's loop (the loop's items on top), their raw
    values, and whether a level may set any name."""
    base, raw = _base(plan, play_plan, host, task, outer, levels, kept)
    layers = list(base)
    bound = loop_names(task) if task is not None else []
    if bound:
        scopes = _loop_items(plan, play_plan, host, task, outer, levels, kept)  # type: ignore[arg-type]
        if isinstance(scopes, list) and item is not None and item < len(scopes):
            layers.append(_loop_layer(task, scopes[item], item))  # type: ignore[arg-type]
        else:
            reason = scopes if isinstance(scopes, str) else \
                f"set per item by the task's loop ({len(scopes or [])} items: pick one)"
            layers.append(Layer("loop item", f"the loop of task '{task.display_name()}'",  # type: ignore[union-attr]
                                {name: RuntimeValue(reason) for name in bound}, runtime=True))
    # (the loop items' levels are those put on top of the task's levels here)
    if any(layer.level == "loop item" and layer.values for layer in layers[len(levels[0]):]):
        raw = _raw_over(plan, play_plan, host, layers, levels[1])
    return layers, raw, wild_layer(layers) is not None  # (none at which any name may be set: no name's is)


_MAGIC_SHOWN: dict[int, tuple[Any, str | None]] = {}


def _magic_shown(value: Any) -> str | None:
    """:func:`unknown_as_shown` of a magic variable's value, once per value: ``groups`` and the
    play lists are one object for every host of a play (a fleet's thousands of names walked once,
    not once per host). The value is kept with its answer, so its id is not reused meanwhile;
    ansible's magic values are built anew, never changed in place."""
    if not isinstance(value, dict | list):
        return unknown_as_shown(value)
    found = _MAGIC_SHOWN.get(id(value))
    if found is None or found[0] is not value:
        if len(_MAGIC_SHOWN) >= 256:
            _MAGIC_SHOWN.clear()
        found = _MAGIC_SHOWN[id(value)] = (value, unknown_as_shown(value))
    return found[1]


ITEMS_SHOWN = 20
"""A looped task's items each given their values when asked without one, up to this many."""


def _per_item(runs: list[TaskVariables]) -> TaskVariables:
    """The first item's variables, with each name whose value differs from item to item given per item."""
    from dataclasses import replace

    result = runs[0]
    for name, first in list(result.variables.items()):
        each = [run.variables[name] for run in runs]
        if any(other.unknown != first.unknown or (other.value is not first.value
                                                  and frozen(other.value) != frozen(first.value))
               for other in each[1:]):
            defs = [replace(d, label=d.label.partition(" of ")[2] or d.label) if d.level == "loop item" else d
                    for d in first.definitions]  # "item 1 of the loop of task X": the loop of task X
            result.variables[name] = replace(first, value=None, definitions=defs, per_item=each,
                                             unknown=f"one value per item of the task's loop ({len(each)} items)")
    return result


def _has_template(value: Any) -> bool | None:
    """Whether a template is somewhere in ``value``; None when ``value`` is inside itself (``x: &a
    [*a]``), which neither a template nor a JSON text can show. Nested as deep as it may be."""
    from engine.templating.templar import is_template

    found = False
    stack: list[Any] = [value]
    on_path: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, _Leave):
            on_path.discard(item.identity)
        elif isinstance(item, Mapping | list):
            if id(item) in on_path:
                return None
            on_path.add(id(item))
            stack.append(_Leave(id(item)))
            stack.extend(dict.values(item) if isinstance(item, dict) else  # as written, not templated
                         item.values() if isinstance(item, Mapping) else item)
        elif not found and is_template(item):
            found = True
    return found


class _Leave:
    __slots__ = ("identity",)

    def __init__(self, identity: int) -> None:
        self.identity = identity
