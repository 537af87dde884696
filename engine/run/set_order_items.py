"""Whether a set-like filter's order, which could show (engine.run.set_order), is known before
the run from the items themselves: on every host of every play, at every task where the text may be
rendered, its list (evaluated by the bounded templar of the variables report, with what the run
would learn unknown) holds no string to be ordered by ansible's hash seed, or fewer than two items,
or is only read by a ``sort``, ``min``, ``max`` or ``unique`` (without case) whose items hold no two
equal but for case. Then ansible's result is the one the engine computes, whatever the seed.

A list whose items are not known before the run (a registered result, a fact, a loop's item, a name
the template binds itself), a text rendered where the plan cannot say (a play whose hosts only the
run decides), or more places than :data:`MAX_EVALUATIONS`, keep the decline."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.run.set_order import SetOrder, set_orders
from engine.templating.list_order import reads_order
from engine.templating.node_source import NotWritable, expression_source, names_bound, names_read
from engine.values import RunOrdered, unknown_as_shown

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task
    from engine.parsing.source import SourceCache

MAX_EVALUATIONS = 2000
"""Task and host pairs a playbook's set-like filters are evaluated at, at most, before the run."""

Place = tuple["PlayPlan", "Task", "bool | None"]
"""A play, a task of it, and whether the text is the task's action's arguments (not rendered on a
host where the task's conditions are false; :data:`INCLUDED`: a template its template includes)."""


class SetOrderItems:
    """The places each text may be rendered at, and which of its set-like filters' orders are
    known there (:func:`orders_known`), for one plan."""

    def __init__(self, plan: Plan, cache: SourceCache | None = None) -> None:
        self.plan = plan
        self.cache = cache
        self._places: dict[str, list[Place]] | None = None
        self._every: list[Place] = []
        self._read_anywhere: set[str] = set()  # a play's or role's variables, rendered where a task reads them
        self._templars: dict[tuple[int, int, str], Any] = {}
        self._spent = 0
        self._unknown: dict[str, set[int]] = {}
        self._unwritten: Callable[[str], bool] | None = None

    def unknown_lines(self, text: str) -> set[int]:
        """The lines of ``text``'s set-like filters whose order could show and is not known."""
        if text not in self._unknown:
            try:
                self._unknown[text] = self._unknown_lines(text)
            except Exception:  # noqa: BLE001 - what the model cannot say keeps every decline
                self._unknown[text] = set(range(text.count("\n") + 2))
        return self._unknown[text]

    def _unknown_lines(self, text: str) -> set[int]:
        found = _findings(text)
        if found is None:
            return {0}
        orders, bound = found
        # what reads a name the template binds is known only where it is a loop's variable over known items
        unknown = {order.line for order in orders if not _loop_bound(order, bound)}
        orders = tuple(order for order in orders if order.line not in unknown)
        if not orders:
            return unknown
        if any(pp.dynamic for pp in self.plan.plays):
            return unknown | {order.line for order in orders}
        places = self.places().get(text, self._every)
        if text in self._read_anywhere:
            places = self._every
        if any(arguments is INCLUDED for _pp, _task, arguments in places):
            return unknown | {order.line for order in orders}
        try:
            for pp, task, arguments in places:
                for host in pp.hosts:
                    templar = self._templar(pp, task, host)
                    if arguments and _skipped(templar, task):
                        continue
                    unknown |= {order.line for order in orders if order.line not in unknown
                                and not _known_at(templar, order)}
        except _OverBudget:
            return unknown | {order.line for order in orders}
        return unknown

    def never_rendered(self) -> set[str]:
        """The texts only of the arguments of tasks whose conditions are false before the run on
        every host of their play (engine.run.declines counts no variable read there)."""
        never: set[str] = set()
        if any(pp.dynamic for pp in self.plan.plays):
            return never
        try:  # what the model cannot say is not known never to render
            for text, places in self.places().items():
                if text not in self._read_anywhere and ("{{" in text or "{%" in text) and all(
                        arguments is True and all(_skipped(self._templar(pp, task, host), task) for host in pp.hosts)
                        for pp, task, arguments in places):
                    never.add(text)
        except Exception:  # noqa: BLE001 - over the bound, or a place the model cannot give
            return set()
        return never

    def places(self) -> dict[str, list[Place]]:
        """Each text of a task's arguments, keywords and template file, with the (play, task) it is
        rendered at; other texts (a play's or role's variables, read wherever a task reads them)
        are rendered at every task (:attr:`_every`)."""
        if self._places is None:
            from engine.parsing.source import SourceCache
            from engine.run.filter_check import _role_var_files, strings

            self._places = {}
            cache = self.cache or SourceCache()
            for pp in self.plan.plays:
                play_data = pp.play.data if isinstance(pp.play.data, Mapping) else {}
                self._read_anywhere.update(strings(play_data.get("vars")))
                for task in _play_tasks(pp):
                    self._every.append((pp, task, False))
                    for text, arguments in _task_texts(task, pp, cache):
                        self._places.setdefault(text, []).append((pp, task, arguments))
                    for path in _role_var_files(task):
                        self._read_anywhere.update(strings(cache.load(path).data))
        return self._places

    def _templar(self, pp: PlayPlan, task: Task, host: Any) -> Any:
        key = (id(pp), id(task), host.name)
        if key not in self._templars:
            self._spent += 1
            if self._spent > MAX_EVALUATIONS:
                raise _OverBudget
            from engine.variables.report import templar_at

            try:
                templar = templar_at(self.plan, pp, host, task)
            except Exception as exc:  # noqa: BLE001 - a place the model cannot say: nothing is known there
                raise _OverBudget from exc
            self._templars[key] = self._with_file_lookups(templar, pp, task)
        return self._templars[key]

    def _with_file_lookups(self, templar: Any, pp: PlayPlan, task: Task) -> Any:
        """``templar`` with the lookups of engine.run.plan_lookups: a file no task writes is read."""
        from engine.run.file_and_command_lookups import task_context
        from engine.run.filter_check import strings
        from engine.run.plan_lookups import PlanLookups, unwritten_names
        from engine.templating.templar import Templar

        if self._unwritten is None:
            self._unwritten = unwritten_names((each for play in self.plan.plays for each in _play_tasks(play)),
                                              strings)
        context = task_context(task.role.path if task.role is not None else None,
                               os.path.abspath(task.span.file) if task.span is not None else None, pp.play.basedir)
        return Templar(templar.raw, PlanLookups(context, self._unwritten), templar.task_scope, templar.bounded,
                       templar.data, templar.origin_of)


class _OverBudget(Exception):
    """More places than :data:`MAX_EVALUATIONS`, or one whose variables the model cannot give."""


@lru_cache(maxsize=1024)
def _findings(text: str) -> tuple[tuple[SetOrder, ...], frozenset[str]] | None:
    """The set-like filters of ``text`` whose order could show, and the names the template binds;
    None when it does not parse."""
    from jinja2 import TemplateSyntaxError

    from engine.run.filter_check import _parser

    try:
        tree = _parser().parse(text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return None
    return tuple(set_orders(tree)), frozenset(names_bound(tree))


def _loop_bound(order: SetOrder, bound: frozenset[str]) -> bool:
    """Whether what ``order`` reads of the names the template binds is only the variables of the
    loops around it, whose lists read none."""
    read = names_read(order.node).union(*(names_read(reader) for reader in order.readers))
    targets: set[str] = set()
    for loop in order.loops:
        if names_read(loop.iter) & bound - targets or loop.recursive:
            return False
        targets |= {name.name for name in _target_names(loop.target)}
    return not read & bound - targets


def _target_names(target: Any) -> list[Any]:
    from jinja2 import nodes

    return [target] if isinstance(target, nodes.Name) else [name for name in target.find_all(nodes.Name)]


def _known_at(templar: Any, order: SetOrder) -> bool:
    """Whether ``order``'s list, evaluated by ``templar`` (at every item of the loops around it),
    shows no order of the run's own."""
    try:
        lists = _evaluated(templar, order.node, order.loops)
        if all(not isinstance(items, RunOrdered) or len(items) < 2 for items in lists):
            return True  # no string to order by the seed (numbers: the same order in both), or one item
        for reader in order.readers:
            args = [_constant(arg) for arg in reader.args]
            kwargs = {keyword.key: _constant(keyword.value) for keyword in reader.kwargs}
            if any(reads_order(reader.name, items, args, kwargs)
                   for items in _evaluated(templar, reader.node, order.loops)):
                return False
        return bool(order.readers)
    except Exception:  # noqa: BLE001 - not known before the run (undefined, a runtime value, too large)
        return False


def _evaluated(templar: Any, node: Any, loops: tuple[Any, ...]) -> list[list[Any]]:
    """The value of ``node`` at each item of ``loops`` (one, without loops): lists known before the run."""
    expression = expression_source(node)
    if not loops:
        values = [templar.template("{{ " + expression + " }}")]
    else:
        heads = "".join("{% for " + _target_source(loop.target) + " in " + expression_source(loop.iter) + " %}"
                        for loop in loops)
        found = "pls_set_order"  # a namespace the values are gathered in
        values = templar.template("{% set " + found + " = namespace(found=[]) %}" + heads
                                  + "{% set " + found + ".found = " + found + ".found + [(" + expression + ")] %}"
                                  + "{% endfor %}" * len(loops) + "{{ " + found + ".found }}")
        if not isinstance(values, list):
            raise ValueError("not the values of a loop")
    for value in values:
        if not isinstance(value, list) or unknown_as_shown(list(value)) is not None:
            raise ValueError("not a list known before the run")
    return values


def _target_source(target: Any) -> str:
    names = _target_names(target)
    return names[0].name if len(names) == 1 else ", ".join(name.name for name in names)


def _constant(node: Any) -> Any:
    from jinja2 import nodes

    if not isinstance(node, nodes.Const):
        raise NotWritable("an argument that is not written out")
    return node.value


def _play_tasks(pp: PlayPlan) -> Iterator[Task]:
    from engine.flow.plan import play_tasks

    return play_tasks(pp.play)


INCLUDED = None
"""The place of a template another template includes, imports or extends (never relieved)."""


def _task_texts(task: Task, pp: PlayPlan, cache: SourceCache) -> Iterator[tuple[str, bool | None]]:
    """The texts of ``task`` as engine.run.filter_check.scanned_texts finds them, each with whether
    it is of the action's arguments (a template file the action renders too): ansible renders them
    only where the task's conditions hold (its loop and name before them)."""
    from engine.run.filter_check import CONDITION_KEYWORDS, strings, template_files

    data = task.data if isinstance(task.data, Mapping) else {}
    for key, value in data.items():
        arguments = key in (task.action, "args") and key not in CONDITION_KEYWORDS
        for text in strings(value):
            yield ("{{ " + text + " }}" if key in CONDITION_KEYWORDS and "{{" not in text else text), arguments
    for index, source in enumerate(template_files(task, pp.play.basedir, cache.read_text)):
        try:
            text = cache.read_text(source)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        # an included template reads the names its includer binds: only the rendering knows them
        yield text, True if index == 0 else INCLUDED


def _skipped(templar: Any, task: Task) -> bool:
    """Whether a condition of ``task`` (its own or inherited) is false on the host of ``templar``
    before the run (a looped task's are the items', which only its loop knows)."""
    data = task.data if isinstance(task.data, Mapping) else {}
    if "loop" in data or any(str(key).startswith("with_") for key in data):
        return False
    for condition in task.effective_when():
        try:
            if templar.evaluate(condition.value) is False:
                return True
        except Exception:  # noqa: BLE001 - a condition only the run decides: the task may run
            return False
    return False
