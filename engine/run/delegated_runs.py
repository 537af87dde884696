"""How :class:`~engine.run.executor.Executor` runs a task delegated to another host: the
delegated host's variables beside the delegating host's ``inventory_hostname``, its address for a
loop item that names it, and the facts ``delegate_facts`` gives it (ansible-core 2.19:
VariableManager.get_delegated_vars_and_hostname, TaskExecutor)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.inventory.data import Host
from engine.loading.model import Task
from engine.run.actions import HostRun, Step
from engine.run.delegation import (
    DELEGATED,
    DelegationError,
    delegate_facts,
    delegate_host_vars,
    delegate_to,
    delegated_vars,
    delegation_failure,
    delegation_of,
)
from engine.run.local import LOCAL_NAMES, delegated_address, is_local
from engine.run.run_once import task_hosts
from engine.run.task_runner import failed_result, keyword
from engine.templating.templar import Templar, TemplateFailure


class DelegatedRuns:
    """Delegation in :class:`~engine.run.executor.Executor` (a mixin: it holds no state of its own)."""

    kept: dict[str, Any]
    """The variables of each host the running task may store facts on, as they were before it: the
    strategy stores none of a failed result's, so they are restored (a host a loop item delegates
    to with ``delegate_facts`` is added when the item names it)."""

    def _delegation(self, task: Task, templar: Templar) -> tuple[str, dict[str, Any] | None, bool] | None:
        return delegation_of(task, templar, _has_loop(task))

    def _delegate_is_local(self, name: str) -> bool:
        return is_local(name, self._delegate_vars(name), None)

    def _is_local(self, host: Host, task: Task, templar: Templar) -> bool:
        if host.name in LOCAL_NAMES:
            return True
        try:
            connection = keyword(task, "connection") or templar.variables.get("ansible_connection")
            connection = templar.template(connection)
        except TemplateFailure:
            return False
        return connection in ("local", "ansible.builtin.local")

    def _delegate_vars(self, name: str) -> dict[str, Any]:
        return delegate_host_vars(self.variables.inventory, name)

    def _delegated_host_vars(self, task: Task, run: HostRun, name: str) -> dict[str, Any]:
        """What the delegated host ``name`` sees of ``task`` (an inventory host, or one made up
        for a name the inventory lacks), with the delegating host's ``inventory_hostname``."""
        from engine.inventory.data import Host as InventoryHost
        from engine.run.delegation import find_host

        data = self.variables.inventory.data
        host = find_host(data, name) or InventoryHost(name, merge_hashes=data.merge_hashes)
        found = self.variables.task_vars(self.context, host, task, self.includes.params.get(id(task)))
        found["inventory_hostname"] = run.host.name
        return found

    def _delegated_action(self, task: Task, run: HostRun, templar: Templar, step: Step,
                          delegation: tuple[str, dict[str, Any] | None, bool] | None, once: bool,
                          connection: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The action, run for ``run``'s host on the delegated one: facts go to the delegated
        host with ``delegate_facts``, to the whole batch with ``run_once``. A host delegated to
        per item gives the item its address (the ``connection`` variables that name it)."""
        name = None
        if delegation is not None:
            name, error, per_item = delegation
            if per_item:
                try:
                    name = delegate_to(task, templar)
                except (TemplateFailure, DelegationError) as exc:
                    return delegation_failure(task, exc)
                if name and not self._delegate_is_local(name):
                    return failed_result(f"playbook-ls's engine only runs on the local machine; '{name}' is not "
                                         "local. Run with --engine ansible to reach it.")
            elif error is not None:
                return dict(error)
        if name and "ansible_delegated_vars" not in templar.raw:  # the task's variables name the
            # delegated host's (get_delegated_vars_and_hostname), a loop item's when it names it
            delegated = self._delegated_host_vars(task, run, name)
            address = delegated_address(name, delegated, templar)
            templar = templar.child({"ansible_delegated_vars": {name: delegated},
                                     **{key: address for key in ("ansible_host", "ansible_ssh_host")
                                        if key in (connection or {})}})
        if name and delegate_facts(task, templar):
            self.kept.setdefault(name, self.variables.state(name).copy())
            self.fact_hosts = [name]
        else:
            self.fact_hosts = task_hosts(run.host.name, once, self.batch_order,
                                         self.unreachable_hosts)
        result = self._action(task, run, templar, step)
        if name:
            result[DELEGATED] = delegated_vars(name, self._delegate_vars(name))
        return result


def _has_loop(task: Task) -> bool:
    from engine.flow.loops import loop_of

    return loop_of(task) is not None
