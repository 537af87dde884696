"""``delegate_to``, ``delegate_facts`` and ``local_action``: a task run for one host on another.

As ``TaskExecutor._calculate_delegate_to`` does it: the keyword is templated with the task's
variables (per loop item), the delegated host is looked up in the inventory (by name, then by
address; ``localhost`` and its aliases give the implicit localhost) and the result carries
``_ansible_delegated_vars``, from which the callback shows ``ok: [web1 -> localhost]``. The
engine runs only on the local machine, so the delegated host must be local: a localhost name,
or an inventory host whose connection is ``local``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.loading.model import Task
from engine.templating.templar import Templar, TemplateFailure
from engine.variables.manager import OMIT

if TYPE_CHECKING:
    from engine.inventory.data import Host, InventoryData
    from engine.inventory.manager import Inventory

DELEGATED = "_ansible_delegated_vars"


class DelegationError(Exception):
    """The task cannot be delegated as written: it fails with this message."""


def delegate_to(task: Task, templar: Templar) -> str | None:
    """The templated ``delegate_to`` of ``task`` (``local_action`` sets it to localhost), or None."""
    from engine.run.task_runner import keyword

    raw = keyword(task, "delegate_to")
    if raw is None:
        return None
    value = templar.template(raw)
    if value == OMIT:
        return None
    if not value:
        raise DelegationError(f'Empty hostname produced from delegate_to: "{raw}"')
    return str(value)


def written_delegate_to(task: Task) -> str | None:
    """``delegate_to`` as written (ansible labels a loop's own result with it: only the copy of
    the task each item runs with templates it)."""
    from engine.run.task_runner import keyword

    raw = keyword(task, "delegate_to")
    return None if raw is None else str(raw)


def delegate_facts(task: Task, templar: Templar) -> bool:
    from engine.run.task_runner import keyword, truth

    try:
        return truth(keyword(task, "delegate_facts"), templar)
    except (TemplateFailure, TypeError, ValueError):
        return False


def find_host(inventory: InventoryData, name: str) -> Host | None:
    """``get_delegated_vars_and_hostname``'s lookup: by name, then by address."""
    host = inventory.get_host(name)
    if host is None:
        host = next((h for h in inventory.hosts.values() if getattr(h, "address", None) == name), None)
    return host


def delegated_vars(name: str, host_vars: dict[str, Any]) -> dict[str, Any]:
    """What the result carries about the delegation (``_ansible_delegated_vars``)."""
    found = {"ansible_delegated_host": name}
    for key in ("ansible_host", "ansible_port", "ansible_user", "ansible_connection"):
        if key in host_vars:
            found[key] = host_vars[key]
    return found


def delegation_of(task: Task, templar: Templar, has_loop: bool) -> tuple[str, dict[str, Any] | None, bool] | None:
    """(delegated host, failed result, per item) for a delegated task: the host templated with the
    host's variables, or per loop item when it needs the item; None when not delegated."""
    from engine.run.task_runner import keyword

    if keyword(task, "delegate_to") is None:
        return None
    try:
        name = delegate_to(task, templar)
    except (DelegationError, TemplateFailure) as exc:
        if has_loop and not isinstance(exc, DelegationError):
            return "", None, True
        return "", delegation_failure(task, exc), False
    return (name, None, False) if name else None


def delegation_failure(task: Task, exc: Exception) -> dict[str, Any]:
    """The failed result of a ``delegate_to`` that does not give a host: raised out of
    ``TaskExecutor._calculate_delegate_to`` before the task's delegate_to is replaced, so the
    callback labels the host with the keyword as written; the error is chained to the keyword's
    value (or to the variable a template error comes from)."""
    from engine.run.error_block import CONTEXT_KEY, ERROR_KEY, Event
    from engine.templating.errors import undefined_cause, value_origin

    span = (getattr(task.data, "value_spans", None) or {}).get("delegate_to")
    result = {"failed": True, "changed": False, "msg": f"Task failed: {exc}", CONTEXT_KEY: "task",
              DELEGATED: {"ansible_delegated_host": written_delegate_to(task)}}
    if isinstance(exc, TemplateFailure):  # an empty name is the task's own error, at the task
        origin = value_origin(exc) if undefined_cause(exc) else None
        result[ERROR_KEY] = [Event(str(exc), origin or span)]
    return result


def delegate_host_vars(inventory: Inventory, name: str) -> dict[str, Any]:
    """The delegated host's inventory variables (none for a host the inventory lacks)."""
    host = find_host(inventory.data, name)
    return dict(inventory.host_variables(host)) if host is not None else {}
