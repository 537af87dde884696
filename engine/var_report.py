"""Which value each variable has at a task on a host, and why: the model behind ``playbook-ls
vars`` and the editor's variable hover.

For a task in a play (the plan's play, so with its hosts from the inventory) and a host, the
raw variables are merged by the bundled engine's :class:`VariableManager` (the same merge a run
uses, ``hash_behaviour`` included); each value is templated with them the way a run would, and
:mod:`engine.var_sources` tells where it was set and what it overrides. Nothing is executed: the
templar has no lookups, so a value that needs one (or a fact, or a registered result) says so
instead of guessing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.var_sources import RUNTIME_RESULT, Definition, Layer, definitions, fold, task_layers

if TYPE_CHECKING:
    from engine.inventory.data import Host
    from engine.model import Play, Task
    from engine.run.plan import Plan, PlayPlan

MAGIC_SHOWN_BY_DEFAULT = False


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


@dataclass
class TaskVariables:
    play: Play
    task: Task | None
    host: Host
    variables: dict[str, Resolved] = field(default_factory=dict)
    templar: Any = None
    """The run's templar over these variables (no lookups): renders other templates of the task."""


def tasks_in_order(play: Play) -> Iterator[Task]:
    """The play's tasks as a run reaches them, with the statically known tasks of includes after
    the include (implicit ones left out)."""
    def walk(blocks: list[Any]) -> Iterator[Task]:
        for block in blocks:
            for task in block.tasks():
                if not task.implicit:
                    yield task
                yield from walk(task.children)

    yield from walk(play.compile())


def includers_of(play: Play, task: Task | None) -> list[Task]:
    """The include tasks that load ``task`` (statically known children), outermost first."""
    if task is None:
        return []

    def search(blocks: list[Any], outer: list[Task]) -> list[Task] | None:
        for block in blocks:
            for candidate in block.tasks():
                if candidate is task:
                    return outer
                found = search(candidate.children, [*outer, candidate]) if candidate.children else None
                if found is not None:
                    return found
        return None

    return search(play.compile(), []) or []


def find_task(play: Play, path: str, line: int) -> Task | None:
    """The task of ``play`` written at 0-based ``line`` of ``path`` (any line of the task)."""
    real = os.path.realpath(path)
    best: Task | None = None
    for task in tasks_in_order(play):
        span = task.span
        if span is None or os.path.realpath(span.file) != real or not span.line <= line <= span.end_line:
            continue
        if best is None or span.line >= best.span.line:  # type: ignore[union-attr] - the innermost task
            best = task
    return best


def variables_at(plan: Plan, play_plan: PlayPlan, host: Host, task: Task | None,
                 names: list[str] | None = None) -> TaskVariables:
    """The variables ``task`` of ``play_plan`` sees on ``host`` (``task`` None: the play's)."""
    from engine.run.variables import PlayContext, VariableManager

    play = play_plan.play
    manager = VariableManager(plan.inventory, plan.options, plan.inventory.cache)
    roles = list({id(t.role): t.role for b in play.compile() for t in b.tasks() if t.role}.values())
    hosts = [h.name for h in play_plan.hosts]
    context = PlayContext(play, hosts, hosts, roles)
    earlier = _before(play, task)
    gathers = _gathers_facts(play)
    layers = task_layers(manager, context, host, task, earlier, gathers, includers_of(play, task))
    magic = manager.magic_vars(context, host, task.role if task is not None else None)
    layers.append(Layer("magic variables", "set by ansible", {k: v for k, v in magic.items() if k != "hostvars"}))
    found = definitions(layers)
    raw = fold(layers, plan.inventory.data.merge_hashes)
    raw["hostvars"] = magic["hostvars"]
    raw = {name: (None if value is RUNTIME_RESULT else value) for name, value in raw.items()}
    from engine.run.templar import Templar, TemplateFailure, is_template

    templar = Templar(raw)
    result = TaskVariables(play, task, host, templar=templar)
    wanted = names if names is not None else list(found)
    for name in wanted:
        defs = found.get(name, [])
        if not defs:
            result.variables[name] = Resolved(name, None, [], unknown="defined nowhere on the way to this task")
            continue
        winner = defs[0]
        resolved = Resolved(name, None, defs, magic=winner.level == "magic variables")
        if winner.value is RUNTIME_RESULT:
            resolved.unknown = f"set at run time ({winner.label})"
        else:
            value = raw.get(name, winner.value)
            if is_template(value) or _has_template(value):
                resolved.template = value
                try:
                    resolved.value = templar.template(value)
                except TemplateFailure as exc:
                    resolved.unknown = f"not known before the run: {exc}"
                except RecursionError:
                    resolved.unknown = "not known before the run: the value refers to itself"
            else:
                resolved.value = value
            if winner.runtime and resolved.unknown is None:
                resolved.unknown = None  # known, but only if the run reaches the task: said by the definition
        result.variables[name] = resolved
    return result


def _has_template(value: Any) -> bool:
    from engine.run.templar import is_template

    if isinstance(value, Mapping):
        return any(_has_template(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_template(v) for v in value)
    return is_template(value)


def _before(play: Play, task: Task | None) -> list[Task]:
    if task is None:
        return []
    earlier = []
    for candidate in tasks_in_order(play):
        if candidate is task:
            break
        earlier.append(candidate)
    return earlier


def _gathers_facts(play: Play) -> bool:
    from engine.booleans import boolean

    data = play.data if isinstance(play.data, Mapping) else {}
    value = data.get("gather_facts", True)
    try:
        return bool(boolean(value))
    except (TypeError, ValueError):
        return True
