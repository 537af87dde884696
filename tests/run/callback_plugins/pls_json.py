"""Test-only ansible notification callback: writes the `playbook-ls run --json` object to a file.

Loaded by tests/run/engine_cases.py through ANSIBLE_CALLBACK_PLUGINS and
ANSIBLE_CALLBACKS_ENABLED=pls_json beside the default stdout callback (whose text is recorded
too), so that ansible-playbook's side of the differential test is recorded in the schema the
bundled engine prints, in the file named by $PLS_JSON_FILE:
``{"recap": {HOST: {ok, changed, unreachable, failed, skipped, rescued, ignored}},
"tasks": [{"task", "host", "status"}, ...]}``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: pls_json
    type: notification
    short_description: the playbook-ls run --json object (test only)
    description:
      - One JSON object in the file $PLS_JSON_FILE at the end of the run, with the recap and one entry per
        task result.
"""


def _task(result: Any) -> Any:
    return getattr(result, "task", None) or result._task


def _host(result: Any) -> str:
    host = getattr(result, "host", None) or result._host
    return str(host.get_name())


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NEEDS_ENABLED = True
    CALLBACK_NAME = "pls_json"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tasks: list[dict[str, str]] = []
        self.printed = False

    def _add(self, result: Any, status: str) -> None:
        task = _task(result)
        self.tasks.append({"task": str(task.get_name()).strip(), "host": _host(result), "status": status})

    def v2_runner_on_ok(self, result: Any) -> None:
        self._add(result, "changed" if result.is_changed() else "ok")

    def v2_runner_on_failed(self, result: Any, ignore_errors: bool = False) -> None:
        self._add(result, "failed")

    def v2_runner_on_skipped(self, result: Any) -> None:
        self._add(result, "skipped")

    def v2_runner_on_unreachable(self, result: Any) -> None:
        self._add(result, "unreachable")

    def v2_playbook_on_stats(self, stats: Any) -> None:
        recap = {}
        for host in sorted(stats.processed):
            s = stats.summarize(host)
            recap[host] = {
                "ok": s["ok"],
                "changed": s["changed"],
                "unreachable": s["unreachable"],
                "failed": s["failures"],
                "skipped": s["skipped"],
                "rescued": s["rescued"],
                "ignored": s["ignored"],
            }
        with open(os.environ["PLS_JSON_FILE"], "w", encoding="utf-8") as out:
            out.write(json.dumps({"recap": recap, "tasks": self.tasks}) + "\n")
        self.printed = True
