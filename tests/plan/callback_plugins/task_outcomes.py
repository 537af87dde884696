"""Test-only ansible callback: what each task did on each host.

Loaded by tests/plan/plan_cases.py with ANSIBLE_CALLBACKS_ENABLED; writes ``{"FILE:LINE":
{HOST: [STATUS, ...]}}`` (FILE relative to the scenario, LINE 1-based, where the task is
written; STATUS ``ok``, ``changed``, ``skipped``, ``failed`` or ``unreachable``) to the file named
by RECORD_OUT at the end of the run. A task written once and run several times on a host
(a task file included twice) keeps every run, in run order. A host a task never reached (not
selected by tags, not notified, ``run_once`` on another host) has no entry. The implicit
``Gathering Facts`` task is left out.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: task_outcomes
    type: notification
    short_description: the status of every task on every host (test only)
    description:
      - Records ok, changed, skipped, failed or unreachable per task and host.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "task_outcomes"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outcomes: dict[str, dict[str, list[str]]] = {}

    def _record(self, result: Any, status: str) -> None:
        task = getattr(result, "task", None) or result._task
        if task.action == "gather_facts" and task.name == "Gathering Facts" and not task._parent.block[1:]:
            return  # the play's implicit fact gathering (PlayIterator's setup task, alone in its block)
        host = (getattr(result, "host", None) or result._host).get_name()
        path, _, line = task.get_path().rpartition(":")
        where = f"{os.path.relpath(path, os.environ['RECORD_ROOT'])}:{line}"
        self.outcomes.setdefault(where, {}).setdefault(host, []).append(status)

    def v2_runner_on_ok(self, result: Any) -> None:
        data = getattr(result, "result", None)
        data = data if isinstance(data, dict) else result._result
        self._record(result, "changed" if data.get("changed") else "ok")

    def v2_runner_on_failed(self, result: Any, ignore_errors: bool = False) -> None:
        self._record(result, "failed")

    def v2_runner_on_skipped(self, result: Any) -> None:
        self._record(result, "skipped")

    def v2_runner_on_unreachable(self, result: Any) -> None:
        self._record(result, "unreachable")

    def v2_playbook_on_stats(self, stats: Any) -> None:
        with open(os.environ["RECORD_OUT"], "w", encoding="utf-8") as out:
            json.dump(self.outcomes, out, indent=2, sort_keys=True)
            out.write("\n")
