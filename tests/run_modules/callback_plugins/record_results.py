"""Writes every task result, as a playbook sees it, to the JSON file named by
$RECORD_RESULTS_FILE, keyed by task name (the case id)."""

from __future__ import annotations

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "record_results"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self) -> None:
        super().__init__()
        self._results: dict[str, object] = {}

    def _record(self, result, status: str) -> None:  # type: ignore[no-untyped-def]
        dumped = self._dump_results(result._result, keep_invocation=False, serialize=False)
        self._results[result._task.get_name()] = json.loads(json.dumps(dumped, default=str))
        self._results[result._task.get_name()]["_status"] = status
        # _dump_results drops the diff below -vvv; the diff is part of what we compare
        if "diff" in result._result:
            self._results[result._task.get_name()]["diff"] = json.loads(json.dumps(result._result["diff"], default=str))

    def v2_runner_on_ok(self, result) -> None:  # type: ignore[no-untyped-def]
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors: bool = False) -> None:  # type: ignore[no-untyped-def]
        self._record(result, "failed")

    def v2_runner_on_skipped(self, result) -> None:  # type: ignore[no-untyped-def]
        self._record(result, "skipped")

    def v2_playbook_on_stats(self, stats) -> None:  # type: ignore[no-untyped-def]
        with open(os.environ["RECORD_RESULTS_FILE"], "w", encoding="utf-8") as handle:
            json.dump(self._results, handle, indent=1, sort_keys=True)
