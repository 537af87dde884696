"""Which hosts ran a role already, so that an equal use of it later in the play is skipped
(``Role.has_run``, ``_had_task_run`` and ``_completed`` as the strategy keeps them).

A role has run on a host once one of its tasks ran there (any result but skipped) and its
implicit ``role_complete`` meta task was reached. Only then does an equal use (one the loader
marked ``duplicate_of``, unless ``allow_duplicates``) skip its tasks on that host, silently: a
role whose every task was skipped (a ``when``, check mode) runs again when it comes back.
"""

from __future__ import annotations

from engine.model import RoleInstance, Task


def _cached(role: RoleInstance) -> RoleInstance:
    """``Play._get_cached_role``: the first use of an equal role stands for every use of it."""
    return role.duplicate_of or role


class RoleRuns:
    def __init__(self) -> None:
        self.had_task_run: dict[int, set[str]] = {}
        self.completed: dict[int, set[str]] = {}

    def skips(self, task: Task, host: str) -> bool:
        """Whether the linear strategy leaves ``task`` out on ``host``: its role is an equal use
        of one that has run there. Handlers are never left out."""
        role = task.role
        if role is None or task.handler or task.dynamic or role.duplicate_of is None:
            return False
        return host in self.completed.get(id(_cached(role)), set())

    def task_done(self, task: Task, host: str, status: str) -> None:
        if task.role is not None and status != "skipped":
            self.had_task_run.setdefault(id(_cached(task.role)), set()).add(host)

    def role_complete(self, task: Task, host: str) -> None:
        if task.role is None:
            return
        key = id(_cached(task.role))
        if host in self.had_task_run.get(key, set()):
            self.completed.setdefault(key, set()).add(host)
