"""The results of the actions whose shape ansible fixes before the run, on one host: ``debug``
(plugins/action/debug.py), ``assert`` (plugins/action/assert.py), a failed result and what
``failed_when`` makes of it (executor/task_executor.py). What only the run knows raises
:class:`RunDecides`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.variables.failing import fails_evaluating
from engine.variables.module_result import ModuleResult

if TYPE_CHECKING:
    from engine.templating.templar import Templar


class RunDecides(Exception):
    """Only the run knows (the message says why)."""

    fails = False
    """The task fails in the run too: a ``when`` whose evaluation fails it
    (engine.variables.failing.condition_fails), an ``include_vars`` whose action fails on its files."""


def failed_when_applied(result: dict[str, Any], failed: bool, label: str) -> dict[str, Any]:
    """A known result with what its ``failed_when`` decided (``TaskExecutor._execute``): ``failed``
    and ``failed_when_result`` as it says; a failure it turns off keeps its exception as
    ``failed_when_suppressed_exception``."""
    if failed:
        found = {**result, "failed_when_result": True}
        return found if result.get("failed") else failed_result(found, label)
    found = {key: value for key, value in result.items() if key != "exception"}
    found.update(failed=False, failed_when_result=False)
    if result.get("exception"):
        found["failed_when_suppressed_exception"] = result["exception"]
    return found


def failed_result(result: dict[str, Any], label: str) -> dict[str, Any]:
    """A failed result as the run registers it (a host that stops there reads it no more; one
    whose errors are ignored, or a rescue, does): with 2.19's ``exception``, which without a
    traceback setting says none is available."""
    if not tracebacks_off():
        raise RunDecides(f"the result of {label}, which fails with the traceback the run's settings show")
    return {"changed": False, **result, "exception": "(traceback unavailable)", "failed": True}


def tracebacks_off() -> bool:
    """Whether ansible's ``DISPLAY_TRACEBACK`` is its default (``never``), as the configuration
    file and environment a run reads say."""
    import configparser

    from engine.config import find_config_file

    if "ANSIBLE_DISPLAY_TRACEBACK" in os.environ:
        return os.environ["ANSIBLE_DISPLAY_TRACEBACK"].strip().lower() in ("", "never")
    path = find_config_file()
    if path is None:
        return True
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path)
    except (configparser.Error, OSError, UnicodeDecodeError):
        return False
    value = parser.get("defaults", "display_traceback", fallback=None)
    return value is None or value.strip().strip("'\"").lower() in ("", "never")


def debug_result(args: Mapping[str, Any], templar: Templar, label: str) -> Any:
    if args.get("verbosity") not in (None, 0, "0"):
        raise RunDecides(f"the result of {label} (shown only at a verbosity the run has)")
    result: dict[str, Any] = {}
    try:
        if args.get("var") is not None:
            name = str(args["var"])
            result[name] = templar.template("{{ " + name + " }}")
        else:
            result["msg"] = templar.template(args.get("msg", "Hello world!"))
    except Exception as exc:  # noqa: BLE001 - only the run knows, or (undefined) ansible shows a marker
        if args.get("var") is None or not fails_evaluating(exc):
            return shown_by_the_run([exc], label)
        # ansible 2.19's ReplacingMarkerBehavior: the undefined value replaced, with a warning
        result[str(args["var"])] = f"<< error 1 - {exc} >>"
        result["warnings"] = [f"Encountered 1 template error.\nerror 1 - {exc}"]
    return {**result, "failed": False, "changed": False}


def set_fact_key(name: Any, templar: Templar, label: str) -> Any:
    """A ``set_fact`` key as the action makes it: templated (ansible-core 2.19's set_fact templates
    its keys, for names made at run time)."""
    from engine.templating.templar import is_template

    if not isinstance(name, str) or not is_template(name):
        return name
    try:
        return str(templar.template(name))
    except Exception as exc:  # noqa: BLE001 - a name only the run knows
        raise RunDecides(f"the result of {label}, which sets a name only the run knows ({exc})") from exc


def shown_by_the_run(errors: list[Exception], label: str, why: str | None = None) -> ModuleResult:
    """The result of a ``debug``, ``set_fact`` or holding ``assert`` whose message or values only the run knows
    (``errors`` say why): its ``changed`` is false (``TaskExecutor._execute`` then applies
    ``changed_when``, whatever the result); it does not fail when only the order of a list the run
    orders is unknown (the value is then made all the same); otherwise whether it fails is the
    run's too, and a value undefined for ansible as well leaves the whole result to the run."""
    from engine.templating.errors import RunTimeOnly, order_only

    for exc in errors:
        if fails_evaluating(exc) or not isinstance(exc, RunTimeOnly) and not order_only(exc):
            raise RunDecides(why or f"the result of {label}: {exc}") from exc
    known = {"changed": False, **({"failed": False} if all(order_only(exc) for exc in errors) else {})}
    return ModuleResult(known, label, frozenset({"results", "skipped"}), why=why or str(errors[0]),
                        shaped="failed" in known)


def assert_result(args: Mapping[str, Any], templar: Templar, label: str) -> Any:
    that = args.get("that")
    for condition in that if isinstance(that, list) else [that]:
        try:
            holds = templar.evaluate(condition)
        except Exception as exc:  # noqa: BLE001 - a condition only the run decides
            if fails_evaluating(exc):  # TaskExecutor's result of the error: the task fails with its message
                return failed_result({"msg": f"Task failed: {exc}"}, label)
            raise RunDecides(f"the result of {label}: {exc}") from exc
        if not holds:
            try:
                message = templar.template(args.get("fail_msg", args.get("msg", "Assertion failed")))
            except Exception as exc:  # noqa: BLE001 - a message only the run knows
                raise RunDecides(f"the result of {label}, whose assertion {condition!r} fails: {exc}") from exc
            return failed_result({"assertion": condition, "evaluated_to": False, "msg": message}, label)
    try:
        message = templar.template(args.get("success_msg", "All assertions passed"))
    except Exception as exc:  # noqa: BLE001 - a message only the run knows (or one that fails the task)
        return shown_by_the_run([exc], label)
    return {"changed": False, "msg": message, "failed": False}
