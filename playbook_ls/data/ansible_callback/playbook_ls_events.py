"""ansible-playbook callback for runs started from the editor (loaded only for those runs).

It prints nothing for people: beside the default callback's text, it writes one line per event
on stdout, each starting with the ASCII record separator (0x1e) and followed by JSON, which the
playbook-ls run worker reads and turns into progress reports and per-task outcomes:
``{"event": "task", "title", "handler"}``, ``{"event": "result", "task", "host", "status",
"ignored", "msg", "file", "line"}`` (file and 0-based line where the task is written) and
``{"event": "recap", "recap": {host: counters}}``. It needs nothing but ansible-core.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: playbook_ls_events
    type: notification
    short_description: task progress and outcomes for playbook-ls editor runs
    description:
      - Machine-readable events on stdout, one per line after the record separator character.
    requirements:
      - enabled only by playbook-ls for the runs it starts
"""

MARKER = "\x1e"


def _parts(result: Any) -> tuple[Any, Any, dict[str, Any]]:
    """(task, host, result dict) of a task result, in ansible-core 2.19's API and the older one."""
    task = getattr(result, "task", None) or result._task
    host = getattr(result, "host", None) or result._host
    data = getattr(result, "result", None)
    if not isinstance(data, dict):
        data = result._result
    return task, host, data


def _where(task: Any) -> tuple[str | None, int | None]:
    path = task.get_path() if hasattr(task, "get_path") else None
    if not path or ":" not in path:
        return None, None
    file, _, line = path.rpartition(":")
    return (file, int(line) - 1) if line.isdigit() else (None, None)


def _message(data: dict[str, Any]) -> str:
    # the run worker's failure_message, repeated: this file runs inside ansible-playbook's own
    # Python, which need not have playbook-ls installed
    message = str(data.get("msg") or "failed")
    stderr = data.get("stderr")
    if isinstance(stderr, str) and stderr.strip():
        message += f" ({stderr.strip().splitlines()[0]})"
    return message[:500]


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "playbook_ls_events"
    CALLBACK_NEEDS_ENABLED = True

    def _emit(self, event: str, **fields: Any) -> None:
        sys.stdout.write(MARKER + json.dumps({"event": event, **fields}, default=str) + "\n")
        sys.stdout.flush()

    def v2_playbook_on_task_start(self, task: Any, is_conditional: Any) -> None:
        self._emit("task", title=task.get_name().strip(), handler=False)

    def v2_playbook_on_handler_task_start(self, task: Any) -> None:
        self._emit("task", title=task.get_name().strip(), handler=True)

    def _result(self, result: Any, status: str, ignored: bool = False) -> None:
        task, host, data = _parts(result)
        if status == "ok" and data.get("changed"):
            status = "changed"
        file, line = _where(task)
        self._emit("result", task=task.get_name().strip(), host=host.get_name(), status=status, ignored=ignored,
                   msg=_message(data) if status in ("failed", "unreachable") else None, file=file, line=line)

    def v2_runner_on_ok(self, result: Any) -> None:
        self._result(result, "ok")

    def v2_runner_on_failed(self, result: Any, ignore_errors: bool = False) -> None:
        self._result(result, "failed", ignored=bool(ignore_errors))

    def v2_runner_on_skipped(self, result: Any) -> None:
        self._result(result, "skipped")

    def v2_runner_on_unreachable(self, result: Any) -> None:
        self._result(result, "unreachable")

    def v2_playbook_on_stats(self, stats: Any) -> None:
        recap = {}
        for host in sorted(stats.processed):
            counters = stats.summarize(host)
            recap[host] = {"ok": counters["ok"], "changed": counters["changed"],
                           "unreachable": counters["unreachable"], "failed": counters["failures"],
                           "skipped": counters["skipped"], "rescued": counters["rescued"],
                           "ignored": counters["ignored"]}
        self._emit("recap", recap=recap)
