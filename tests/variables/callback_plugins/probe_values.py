"""Test-only ansible callback: what each ``probe`` task's ``msg`` is on each host.

Loaded by tests/variables/var_cases.py with ANSIBLE_CALLBACKS_ENABLED; writes
``{"FILE:LINE": {HOST: [msg, ...]}}`` (FILE relative to the scenario, LINE 1-based, where the
task is written) to the file named by RECORD_OUT at the end of the run. A task file or
role reached several times runs the task written at FILE:LINE several times, each run with its
own values: every run's msg is kept, in run order. A looped probe's run is the list of its items'
msgs (None for an item its ``when`` skipped). Handlers are tasks too (named ``probe...``).
"""

from __future__ import annotations

import json
import os
from typing import Any

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: probe_values
    type: notification
    short_description: the msg of probe tasks per host (test only)
    description:
      - Records the msg of every task whose name starts with probe.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "probe_values"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.values: dict[str, dict[str, list[Any]]] = {}

    def v2_runner_on_ok(self, result: Any) -> None:
        task = getattr(result, "task", None) or result._task
        if not str(task.name or "").startswith("probe"):
            return
        host = (getattr(result, "host", None) or result._host).get_name()
        data = getattr(result, "result", None)
        data = data if isinstance(data, dict) else result._result
        path, _, line = task.get_path().rpartition(":")
        where = f"{os.path.relpath(path, os.environ['RECORD_ROOT'])}:{line}"
        # the scenario's scratch directory is written <ROOT>: recordings hold no machine path
        # a looped probe: one msg per item, in loop order (None for an item its `when` skipped)
        msg = [None if item.get("skipped") else item.get("msg") for item in data["results"]] \
            if isinstance(data.get("results"), list) else data.get("msg")
        text = json.dumps(msg, default=str).replace(json.dumps(os.environ["RECORD_ROOT"])[1:-1], "<ROOT>")
        self.values.setdefault(where, {}).setdefault(host, []).append(json.loads(text))

    def v2_playbook_on_stats(self, stats: Any) -> None:
        with open(os.environ["RECORD_OUT"], "w", encoding="utf-8") as out:
            json.dump(self.values, out, indent=2, sort_keys=True)
            out.write("\n")
