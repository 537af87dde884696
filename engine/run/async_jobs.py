"""``async``/``poll`` and ``async_status``: a module run in the background, as ansible runs it.

ansible wraps the module in ``async_wrapper``, which answers at once (``started``, not
``finished``, a job id and its results file, ``changed: true``) and writes the module's result
to the file when it ends. With ``poll`` > 0 the task executor sleeps ``poll`` seconds, asks
``async_status``, prints "ASYNC POLL on HOST: jid=.. started=True finished=False" while the job
runs, and "ASYNC OK on HOST: jid=.." (or "ASYNC FAILED") when it is done: the task's result is
then ``async_status``'s, the module's result merged over the status fields. With ``poll: 0`` the
task's result is the wrapper's answer, and ``async_status`` asks later. The engine runs the
module in a thread and keeps its jobs in memory (a job outlives neither the run nor its process).
"""

from __future__ import annotations

import copy
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.loading import keywords as kw

ASYNC_STATUS = kw._family("async_status")
# action plugins that refuse async (``_supports_async`` is False): every plugin of ansible-core but
# command/shell, the normal one (plain modules), uri, package, service and dnf
NO_ASYNC = kw._family("add_host", "assemble", "assert", "async_status", "copy", "debug", "fail", "fetch",
                      "gather_facts", "group_by", "include_vars", "pause", "raw", "reboot", "script", "set_fact",
                      "set_stats", "template", "unarchive", "validate_argument_spec", "wait_for_connection",
                      "meta", "include_tasks", "include_role", "import_tasks", "import_role")
ASYNC_DIR = "~/.ansible_async"
CENSORED_DISPLAY = "_ansible_display_censored"
"""The ``_ansible_display`` lines a no_log task shows (engine.run.censoring)."""
DEFAULT_POLL = 15  # DEFAULT_POLL_INTERVAL
STATUS_ROUND_TRIP = 0.3  # seconds: running async_status locally, which the engine does not need


class AsyncError(Exception):
    """The task fails with this message (``async``/``poll`` that are not numbers)."""


class Job:
    def __init__(self, jid: str, run: Callable[[], dict[str, Any]]) -> None:
        self.jid = jid
        self.result: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._run, args=(run,), daemon=True)
        self.thread.start()

    def _run(self, run: Callable[[], dict[str, Any]]) -> None:
        try:
            result = dict(run())
        except Exception as exc:  # noqa: BLE001 - the wrapper records a module that died
            result = {"failed": True, "msg": str(exc)}
        if "started" not in result:  # async_status: a finished job's result
            result["finished"] = True
        result["ansible_job_id"] = self.jid
        self.result = result


class Jobs:
    """The run's background jobs, by job id."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}

    @staticmethod
    def results_file(jid: str, async_dir: Any = None) -> str:
        """Where ansible's job writes its result: ``ansible_async_dir`` (the shell's option),
        by default ~/.ansible_async."""
        return os.path.join(os.path.expanduser(str(async_dir or ASYNC_DIR)), jid)

    @staticmethod
    def status_file(jid: str, async_dir: Any = None) -> str:
        """Where ansible's ``async_status`` action looks for the job: it expands a leading ``~``
        as the remote user's home (``~USER``: on the local connection the user running it), not
        as ``$HOME``, which the wrapper that writes the file expands it with."""
        from engine.run.environment import remote_expand_user

        return os.path.join(os.path.expanduser(remote_expand_user(str(async_dir or ASYNC_DIR))), jid)

    def start(self, run: Callable[[], dict[str, Any]], async_dir: Any = None) -> dict[str, Any]:
        """Start ``run`` in the background; async_wrapper's answer."""
        jid = f"j{random.randint(0, 999999999999)}.{os.getpid()}"
        self.jobs[jid] = Job(jid, run)
        return {"failed": False, "started": True, "finished": False, "ansible_job_id": jid,
                "results_file": self.results_file(jid, async_dir), "changed": True}

    def status(self, jid: str, mode: str = "status", async_dir: Any = None) -> dict[str, Any]:
        """The ``async_status`` action's result for ``jid`` (a job whose file the wrapper wrote
        elsewhere than the action looks is not found, as in ansible: ``$HOME`` is not the user's home)."""
        result: dict[str, Any] = {"started": False, "finished": False, "stdout": "", "stderr": "",
                                  "stdout_lines": [], "stderr_lines": [], "ansible_job_id": jid}
        path = self.status_file(jid, async_dir)
        job = self.jobs.get(jid) if path == self.results_file(jid, async_dir) or os.path.exists(path) else None
        if mode == "cleanup":
            result["erased"] = path
        else:
            result["results_file"] = path
            result["started"] = True
        if job is None:
            data: dict[str, Any] = {"failed": True, "msg": "could not find job", "ansible_job_id": jid,
                                    "started": True, "finished": True}
        elif mode == "cleanup":
            del self.jobs[jid]
            data = {"ansible_job_id": jid, "erased": path}
        elif job.result is None:
            data = {"started": True, "finished": False, "ansible_job_id": jid}
        else:
            data = copy.deepcopy(job.result)
        result.update(data)
        for key in ("stdout", "stderr"):  # _execute_module splits them into lines when it has to
            if f"{key}_lines" not in data and isinstance(result.get(key), str):
                result[f"{key}_lines"] = result[key].splitlines()
        for key in ("started", "finished"):
            result[key] = bool(result[key])
        return result

    def poll(self, answer: Mapping[str, Any], time_limit: int, interval: int,
             report: Callable[[dict[str, Any]], None], async_dir: Any = None) -> dict[str, Any]:
        """``TaskExecutor._poll_async_result``: sleep, ask, report each unfinished status."""
        jid = str(answer.get("ansible_job_id"))
        status: dict[str, Any] = {}
        time_left = time_limit
        while time_left > 0:
            time.sleep(interval)
            job = self.jobs.get(jid)
            if job is not None and job.result is None:  # the time ansible's async_status round trip takes
                job.thread.join(STATUS_ROUND_TRIP)
            status = self.status(jid, async_dir=async_dir)
            if status.get("finished") or (status.get("failed")) or status.get("skipped"):
                break
            time_left -= interval
            report(status)
        if not status.get("finished"):
            return {"failed": True, "msg": f"async task did not complete within the requested time - {time_limit}s",
                    "async_result": status}
        return status


    def run(self, module: Callable[[], dict[str, Any]], host: str, seconds: int, interval: int,
            async_dir: Any = None) -> dict[str, Any]:
        """A task's module with ``async``: polled to its end (its ASYNC lines handed to the
        callback under ``_ansible_display``, shown before the result or item line), or left running."""
        answer = self.start(module, async_dir)
        if interval <= 0:
            return answer
        lines: list[str] = []
        censored: list[str] = []  # under no_log the callback gets censored results: no job id, no state

        def poll_line(status: Mapping[str, Any]) -> str:
            return (f"ASYNC POLL on {host}: jid={status.get('ansible_job_id')} started={status.get('started')} "
                    f"finished={status.get('finished')}")

        def report(status: dict[str, Any]) -> None:
            lines.append(poll_line(status))
            censored.append(poll_line({}))

        result = self.poll(answer, seconds, interval, report, async_dir)
        jid = result.get("ansible_job_id") or (result.get("async_result") or {}).get("ansible_job_id")
        outcome = "FAILED" if result.get("failed") else "OK"
        lines.append(f"ASYNC {outcome} on {host}: jid={jid}")
        censored.append(f"ASYNC {outcome} on {host}: jid=None")
        return {**result, "_ansible_display": lines, CENSORED_DISPLAY: censored}

    def status_action(self, args: Mapping[str, Any], async_dir: Any = None,
                      action: str = "async_status") -> dict[str, Any]:
        """The ``async_status`` task: its arguments checked (the action's validate_argument_spec,
        which raises: "Task failed: ..."), then :meth:`status`."""
        from engine.run.error_block import CONTEXT_KEY
        from engine.run.modules._args import action_spec_name

        unknown = sorted(set(args) - {"jid", "mode", "_raw_params"})
        refused = None
        mode = args.get("mode") or "status"
        if unknown:
            refused = (f"Unsupported parameters for ({action_spec_name(action)}) module: {', '.join(unknown)}. "
                       "Supported parameters include: jid, mode.")
        elif args.get("jid") in (None, ""):
            refused = "missing required arguments: jid"
        elif mode not in ("status", "cleanup"):
            refused = f"value of mode must be one of: status, cleanup, got: {mode}"
        if refused is not None:
            return {**_failed(refused), CONTEXT_KEY: "task"}
        return self.status(str(args["jid"]), str(mode), async_dir)


def _failed(message: str) -> dict[str, Any]:
    return {"failed": True, "msg": message, "changed": False}


def async_settings(task_async: Any, task_poll: Any) -> tuple[int, int]:
    """(async seconds, poll seconds) from the templated keywords."""
    try:
        seconds = int(task_async or 0)
        interval = DEFAULT_POLL if task_poll is None else int(task_poll)
    except (TypeError, ValueError) as exc:
        raise AsyncError(f"async and poll must be integers: {exc}") from None
    return seconds, interval
