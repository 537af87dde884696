"""What a host's rescue sees of the task that sent it there: ``ansible_failed_result`` (the
task's result as the action returned it) and ``ansible_failed_task`` (of which only the name is
known before the run)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from engine.booleans import boolean
from engine.flow.loops import loop_of
from engine.variables.module_result import ModuleResult
from engine.variables.shaped_results import RunDecides, assert_result, failed_result
from engine.variables.sources import Layer, RuntimeValue
from engine.variables.task_kinds import ASSERT, FAIL, changed_when_of
from engine.variables.task_results import _decide, _layer, follow

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.parsing.source import SourceCache
    from engine.templating.templar import Templar


def failure_facts(task: Task, templar: Templar, reader: str, by_condition: bool = False,
                  files: tuple[str, SourceCache] | None = None) -> Layer:
    """What ansible gives a host when ``task`` (a ``fail``, or an ``assert`` that does not hold,
    certain to fail there) sends it to a ``rescue`` (``StrategyBase._process_pending_results``: non-
    persistent facts, seen by the rescue and every task after it): ``ansible_failed_result``, the
    task's result, and ``ansible_failed_task``, the task serialized (of which only the name is known:
    the rest holds the run's own ids). ``reader``: the first task of that rescue section;
    ``by_condition``: its ``when`` fails it, with a message naming where the values were written.
    A looped task's result is the loop's (each item's result under ``results``, as ``register``
    keeps it: ``TaskExecutor._run_loop``), followed with ``files`` (the play's directory and the
    source cache)."""
    label = f"task '{task.display_name()}'"
    args = task.args if isinstance(task.args, Mapping) else {}
    no_log = task.data.get("no_log", False) if isinstance(task.data, Mapping) else False
    try:
        if by_condition:  # failed, with a message naming where the values it read are written
            result: Any = ModuleResult({"failed": True}, f"{label}, failed by its condition", frozenset({"results"}))
        elif not isinstance(no_log, bool):
            raise RunDecides(f"the result of {label}, whose no_log only the run decides")
        elif loop_of(task) is not None:
            if files is None:
                raise RunDecides(f"the result of {label}, a loop: its items' results as the run gives them")
            own = [c.value for c in task.effective_when()]
            found = follow(task, templar, files[0], files[1], own, register_as="ansible_failed_result").facts
            looped = next((layer.values["ansible_failed_result"] for layer in found
                           if "ansible_failed_result" in layer.values), RuntimeValue(f"the result of {label}"))
            result = _raw_items(looped, task, templar, no_log)
        elif task.action in FAIL:
            result = failed_result({"msg": templar.template(args.get("msg", "Failed as requested from task"))}, label)
        elif task.action not in ASSERT:  # a module its failed_when fails: what of its result is known
            result = _failed_module(task, templar, label)
        else:
            result = assert_result(args, templar, label)
            if not boolean(args.get("quiet", False)):  # the assert action asks every callback to show it
                result["_ansible_verbose_always"] = True
        # the result as the action returned it, before register's cleaning: with the task's no_log
        if isinstance(result, dict) and loop_of(task) is None:
            result["_ansible_no_log"] = no_log
    except RunDecides as exc:
        result = RuntimeValue(str(exc))
    except Exception as exc:  # noqa: BLE001 - a message only the run knows
        result = RuntimeValue(f"the result of {label}: {exc}")
    name = task.data.get("name") if isinstance(task.data, Mapping) else None
    values = {"ansible_failed_task": FailedTask(name, label), "ansible_failed_result": result}
    return _layer("set_fact / register", f"the failure of {label}, rescued at {reader}", values, task)


def _raw_items(result: Any, task: Task, templar: Templar, no_log: bool) -> Any:
    """A loop's result as the strategy holds it before ``register`` cleans it: each item's with
    ``_ansible_no_log`` and ``_ansible_item_label`` (``loop_control.label`` templated at the item,
    else the item), an ``assert`` that is not quiet's with ``_ansible_verbose_always``."""
    if not isinstance(result, dict) or not isinstance(result.get("results"), list):
        return result
    control = task.data.get("loop_control") if isinstance(task.data, Mapping) else None
    label = control.get("label") if isinstance(control, Mapping) else None
    verbose = task.action in ASSERT and not boolean((task.args if isinstance(task.args, Mapping) else {})
                                                    .get("quiet", False))
    items = []
    for each in result["results"]:
        if not isinstance(each, dict):
            return RuntimeValue(f"the result of task '{task.display_name()}', an item of which only the run knows")
        name = each.get(each.get("ansible_loop_var", "item"))
        try:
            shown = name if label is None else templar.child({k: v for k, v in each.items() if not k.startswith("_")}
                                                             ).template(label)
        except Exception as exc:  # noqa: BLE001 - a label only the run knows
            return RuntimeValue(f"the result of task '{task.display_name()}', whose item labels only the run knows "
                                f"({exc})")
        extra = {"_ansible_verbose_always": True} if verbose and not each.get("skipped") else {}
        items.append({**each, "_ansible_no_log": no_log, "_ansible_item_label": shown, **extra})
    return {**result, "results": items}


def _failed_module(task: Task, templar: Templar, label: str) -> ModuleResult:
    """The result of a module whose ``failed_when`` holds (``TaskExecutor._execute``): failed,
    with ``failed_when_result``, its ``changed`` where ``changed_when`` decides it before the run;
    the module's own keys are the run's."""
    known: dict[str, Any] = {"failed": True, "failed_when_result": True}
    conditions = changed_when_of(task, unregistered=True)
    decided = _decide(conditions, templar, label) if conditions is not None else None
    if decided is not None and not isinstance(decided, RunDecides):
        known["changed"] = decided is True
    return ModuleResult(known, label, frozenset({"results"}))


class FailedTask(Mapping[str, Any]):
    """``ansible_failed_task`` before the run: its ``name`` as written; any other key (the task's
    serialized fields, its run's uuid among them) only the run gives, and so the whole."""

    def __init__(self, name: Any, label: str) -> None:
        self._name, self.unknown_whole = name, f"{label} as the run serializes it (ansible_failed_task)"

    def __getitem__(self, key: str) -> Any:
        from engine.templating.errors import RunTimeOnly

        if key == "name" and self._name is not None:
            return self._name
        raise RunTimeOnly(f"'ansible_failed_task' is known only at run time: the {key!r} of {self.unknown_whole}")

    def __iter__(self) -> Iterator[str]:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly(f"'ansible_failed_task' is known only at run time: {self.unknown_whole}")

    def __len__(self) -> int:
        from engine.templating.errors import RunTimeOnly

        raise RunTimeOnly(f"'ansible_failed_task' is known only at run time: {self.unknown_whole}")
