"""Which hosts ran a role already, so that an equal use of it later in the play is skipped
(``Role.has_run``, ``_had_task_run`` and ``_completed`` as the strategy keeps them).

Equal uses of a role (``Role._get_hash_dict``: name, path, params, when, tags, files, vars,
whether an import or include brought it) share one record, as ansible's role cache makes them
share one Role object. A role has run on a host once one of its tasks ran there (any result
but skipped) and its implicit ``role_complete`` meta task was reached. Then an equal use
skips its tasks on that host, silently, unless it allows duplicates: a role whose every task
was skipped (a ``when``, check mode) runs again when it comes back. That holds for the
dependencies of an included role too (only the included role itself allows duplicates by
default).
"""

from __future__ import annotations

from typing import Any

from engine.loading.model import RoleInstance, Task


class RoleRuns:
    def __init__(self) -> None:
        self.had_task_run: dict[tuple[Any, ...], set[str]] = {}
        self.completed: dict[tuple[Any, ...], set[str]] = {}
        self._keys: dict[int, tuple[RoleInstance, tuple[Any, ...]]] = {}

    def key(self, role: RoleInstance) -> tuple[Any, ...]:
        known = self._keys.get(id(role))
        if known is None:  # the role is kept with its key: its id is not reused while the run lasts
            known = self._keys[id(role)] = (role, role.identity())
        return known[1]

    def skips(self, task: Task, host: str) -> bool:
        """Whether the linear strategy leaves ``task`` out on ``host``: its role is an equal use
        of one that has run there. Handlers are never left out."""
        role = task.role
        if role is None or task.handler or role.allow_duplicates:
            return False
        return host in self.completed.get(self.key(role), ())

    def task_done(self, task: Task, host: str, status: str) -> None:
        if task.role is not None and status != "skipped":
            self.had_task_run.setdefault(self.key(task.role), set()).add(host)

    def role_complete(self, task: Task, host: str) -> None:
        if task.role is None:
            return
        key = self.key(task.role)
        if host in self.had_task_run.get(key, ()):
            self.completed.setdefault(key, set()).add(host)
