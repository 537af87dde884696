"""What the launch and the play say of how a task runs, for the plan: check mode, and which
strategy runs the play (ansible.cfg's ``strategy`` as ansible reads it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.booleans import boolean
from engine.loading import keywords as kw

if TYPE_CHECKING:
    from engine.flow.plan import Plan, PlayPlan
    from engine.loading.model import Task

ONCE_PER_BATCH = kw._family("add_host")  # BYPASS_HOST_LOOP: run once per batch, as with run_once


def check_mode(plan: Plan, task: Task) -> bool | None:
    """Whether ``task`` runs in check mode: its ``check_mode`` (or one it inherits), else the
    launch's ``-C``; None when a template decides."""
    value = getattr(task.effective("check_mode"), "value", None)
    if value is None:
        return bool(getattr(getattr(plan, "options", None), "check", False))
    try:
        return boolean(value, strict=True)
    except (TypeError, ValueError):
        return None


def play_strategy(play: Any) -> str:
    """``linear`` (ansible.cfg's ``strategy``, else linear), ``free`` (``free`` or
    ``host_pinned``: each host on its own, no ``run_once``, ``any_errors_fatal`` nor
    ``max_fail_percentage``), or ``unknown`` (templated, another plugin)."""
    from engine.config import config_value

    data = play.data if isinstance(play.data, Mapping) else {}
    default = config_value("ANSIBLE_STRATEGY", "defaults", "strategy") or "linear"  # DEFAULT_STRATEGY
    strategy = str(data.get("strategy") or default).rsplit(".", 1)[-1]
    return strategy if strategy in ("linear", "free") else "free" if strategy == "host_pinned" else "unknown"


def force_handlers(plan: Plan, play: Any) -> bool | None:
    """The play's ``force_handlers``, else ``--force-handlers`` or ansible.cfg's; None when a
    template decides."""
    from engine.config import config_value

    data = play.data if isinstance(play.data, Mapping) else {}
    value = data.get("force_handlers")
    if value is None:
        value = getattr(getattr(plan, "options", None), "force_handlers", False) or \
            config_value("ANSIBLE_FORCE_HANDLERS", "defaults", "force_handlers") or False
    try:
        return boolean(value, strict=True)
    except (TypeError, ValueError):
        return None


def runs_once(task: Task) -> bool:
    """Whether ``task`` is certainly ``run_once``: written on it or on a block, a role or an
    include around it (a template is not read here)."""
    value = getattr(task.effective("run_once"), "value", None)
    try:
        return value is not None and boolean(value, strict=True)
    except (TypeError, ValueError):
        return False


def run_once_hosts(play_plan: PlayPlan, task: Task, batches: list[list[str]]) -> tuple[dict[str, str] | None, bool]:
    """For a ``run_once`` task, each host's batch's first host (the one it runs on), and whether
    ``run_once`` is known to hold (not a template); None without it, and with the ``free``
    strategies, which run it on every host."""
    value = getattr(task.effective("run_once"), "value", None)
    if value is None and task.action not in ONCE_PER_BATCH:
        return None, True  # (whatever the strategy: ansible.cfg's not read for every task)
    strategy = play_strategy(play_plan.play)
    if task.action in ONCE_PER_BATCH and strategy == "linear":  # it bypasses the host loop: the batch's first host
        return {name: batch[0] for batch in batches for name in batch}, True
    if value is None or strategy == "free":
        return None, True
    try:
        once = boolean(value, strict=True) if strategy == "linear" else None
    except (TypeError, ValueError):
        once = None  # templated (or a strategy the plan does not know): the run decides
    return ({name: batch[0] for batch in batches for name in batch} if once is not False else None), once is True


def ignores_errors(task: Task, template: Callable[[Any], Any] | None = None) -> bool | None:
    """The task's ``ignore_errors`` (a template given to ``template``): None when only the run
    decides."""
    from engine.templating.templar import TemplateFailure, is_template

    ignored = getattr(task.effective("ignore_errors"), "value", None)
    if template is not None and is_template(ignored):
        try:
            ignored = template(ignored)
        except TemplateFailure:
            return None
    try:
        return ignored is not None and boolean(ignored, strict=True)
    except (TypeError, ValueError):
        return None
