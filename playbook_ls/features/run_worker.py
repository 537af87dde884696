"""The process the editor's ``playbook-ls.checkTasks`` / ``runTasks`` commands start.

``python -m playbook_ls.features.run_worker REQUEST`` (REQUEST is the JSON of
:meth:`playbook_ls.features.running.RunRequest.worker_request`) plans the launch like
``playbook-ls run`` (a launch profile through ``resolve_launch``, the tag selection, the
inventory), keeps only the play the request names, then, in ``run`` mode, executes the plan
with the bundled engine. It writes one JSON event per line on stdout:

- ``{"event": "plan", "playbook", "check", "tags", "skip_tags", "plays", "hosts", "tasks", "warnings"}``
  first (what the launch really runs: a launch profile may override the request);
- ``{"event": "log", "text"}`` for each piece of the run's text output (ansible's format);
- ``{"event": "task", "title", "handler"}`` when a task starts;
- ``{"event": "result", "task", "host", "status", "ignored", "msg", "file", "line", "col"}``
  for each task result on each host (``file`` / ``line`` / ``col``: where the task is written);
- ``{"event": "end", "recap", "exit_code", "check"}`` last, or ``{"event": "error", "message",
  "exit_code"}`` when the launch cannot be planned or run.

A separate process keeps the language server out of harm's way (a module that hangs or
crashes takes only this process with it) and makes cancelling a run a matter of killing it.
The play restriction is done here, on the plan, because the engine's plan has no play filter.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import traceback
from typing import Any, TextIO

from playbook_ls.features import ansible_runs

EXIT_ERROR = 1
EXIT_USAGE = 5


class Events:
    """JSON lines on the real stdout, flushed at once so the editor sees them as they happen."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def emit(self, event: str, **fields: Any) -> None:
        self.out.write(json.dumps({"event": event, **fields}, default=str, ensure_ascii=False) + "\n")
        self.out.flush()


class LogStream:
    """A text stream whose writes become ``log`` events (the callback prints through it)."""

    def __init__(self, events: Events) -> None:
        self.events = events

    def write(self, text: str) -> int:
        if text.strip():
            self.events.emit("log", text=text.rstrip("\n"))
        return len(text)

    def flush(self) -> None:
        pass


def launch_options(request: dict[str, Any], cache: Any) -> tuple[Any, list[str]]:
    """The engine's RunOptions for ``request`` and the warnings about it; raises ValueError
    with a message for the user when the launch is not possible."""
    from engine.flow.plan import RunOptions
    from engine.launch.profiles import LaunchProfile
    from engine.launch.prompting import resolve_launch

    warnings: list[str] = []
    tags, skip_tags = list(request.get("tags") or []), list(request.get("skip_tags") or [])
    check = bool(request.get("check", True))
    playbook = request.get("playbook")
    if request.get("profile"):
        from playbook_ls.cli.launch import named_profile

        profile = named_profile(request.get("config") or None, request["profile"],
                                request.get("profiles_file") or None)
        overrides: dict[str, Any] = {}
        if tags:
            overrides["job_tags"] = ",".join(tags)
        if skip_tags:
            overrides["skip_tags"] = ",".join(skip_tags)
        for name in ("inventory", "limit", "extra_vars"):
            if request.get(name):
                overrides[name] = request[name]
        if check:
            overrides["job_type"] = "check"
        launch = resolve_launch(profile, overrides)
        for name in launch.ignored_fields:
            if name == "job_type":
                continue  # check mode is enforced below whatever the profile says
            warnings.append(f"launch profile '{profile.name}' does not prompt for {name}; its own value is used")
        if not playbook and profile.playbook:
            playbook = profile.playbook_path()
    else:
        profile = LaunchProfile("editor")
        profile.playbook, profile.inventory, profile.limit = playbook, request.get("inventory"), request.get("limit")
        profile.job_type = "check" if check else "run"
        profile.job_tags, profile.skip_tags = tags, skip_tags
        profile.extra_vars = dict(request.get("extra_vars") or {})
        launch = resolve_launch(profile, {})
    if not launch.ok:
        raise ValueError("; ".join(problem.human() for problem in launch.errors))
    if not playbook:
        raise ValueError("no playbook given (and the launch profile names none)")
    options = RunOptions.from_launch(launch, playbook, os.getcwd())
    if check and not launch.check_mode:  # the Check lens stays a check whatever the profile says
        options.check = options.option_vars["ansible_check_mode"] = True
    return options, warnings


def restrict_to_play(plan: Any, request: dict[str, Any]) -> None:
    """Keep only the play the request names: the one written at ``play_at`` ([file, line]),
    else the ``play``-th (0-based). Raises ValueError when there is no such play."""
    number, at = request.get("play"), request.get("play_at")
    if number is None and not at:
        return
    chosen = None
    if at:
        file, line = os.path.realpath(str(at[0])), int(at[1])
        chosen = next((p for p in plan.plays if p.play.span is not None and p.play.span.line == line
                       and os.path.realpath(p.play.span.file) == file), None)
    if chosen is None and isinstance(number, int) and 0 <= number < len(plan.plays):
        chosen = plan.plays[number]
    if chosen is None:
        raise ValueError(f"the playbook has no play #{number} (it has {len(plan.plays)}); save it and try again")
    plan.plays = [chosen]


def plan_summary(plan: Any) -> dict[str, Any]:
    hosts = list(dict.fromkeys(h.name for p in plan.plays for h in p.hosts))
    tasks = sum(len([t for t in p.tasks if not t.implicit]) for p in plan.plays if p.hosts)
    return {"playbook": plan.options.playbook, "check": plan.options.check, "tags": list(plan.options.tags),
            "skip_tags": list(plan.options.skip_tags), "plays": [p.play.name for p in plan.plays], "hosts": hosts,
            "tasks": tasks,
            "warnings": list(plan.warnings)}


def failure_message(result: dict[str, Any]) -> str:
    message = str(result.get("msg") or "failed")
    stderr = result.get("stderr")
    if isinstance(stderr, str) and stderr.strip():
        message += f" ({stderr.strip().splitlines()[0]})"
    return message[:500]


def execute(plan: Any, events: Events) -> int:
    from engine.run.callback import Callback
    from engine.run.executor import Executor

    class EditorCallback(Callback):
        current: Any = None

        def task_start(self, title: str, handler: bool) -> None:
            super().task_start(title, handler)
            events.emit("task", title=title, handler=handler)

        def result(self, title: str, host: str, action: str, result: dict[str, Any], outcome: Any,
                   *args: Any, **kwargs: Any) -> None:
            super().result(title, host, action, result, outcome, *args, **kwargs)
            span = getattr(self.current, "span", None)
            events.emit("result", task=title, host=host, status=outcome.status, ignored=outcome.ignored,
                        msg=failure_message(result) if outcome.status in ("failed", "unreachable") else None,
                        file=os.path.abspath(span.file) if span else None, line=span.line if span else None,
                        col=span.col if span else None)

    class EditorExecutor(Executor):
        def _run_on_host(self, task: Any, *args: Any, **kwargs: Any) -> Any:
            self.callback.current = task  # type: ignore[attr-defined] - where the results belong
            return super()._run_on_host(task, *args, **kwargs)

    callback = EditorCallback(LogStream(events), plan.options.verbosity, plan.options.diff)  # type: ignore[arg-type]
    for warning in plan.warnings:
        callback.warning(warning)
    code = EditorExecutor(plan, callback).run()
    events.emit("end", recap=callback.as_json()["recap"], exit_code=code, check=plan.options.check)
    return code


def main(argv: list[str]) -> int:
    events = Events(sys.stdout)
    sys.stdout = sys.stderr  # stray prints must not break the event stream
    try:
        request = json.loads(argv[0]) if argv else {}
        if not isinstance(request, dict):
            raise ValueError("the request is not a JSON object")
    except ValueError as exc:
        events.emit("error", message=f"bad request: {exc}", exit_code=EXIT_USAGE)
        return EXIT_USAGE
    try:
        return _main(request, events)
    except Exception as exc:  # noqa: BLE001 - the editor gets a message, the log the traceback
        traceback.print_exc()
        events.emit("error", message=f"internal error: {exc!r}", exit_code=EXIT_ERROR)
        return EXIT_ERROR


def _main(request: dict[str, Any], events: Events) -> int:
    from engine.flow.plan import PlanError
    from engine.parsing.source import SourceCache
    from engine.run.modules import get_module
    from engine.run.preflight import make_run_plan, unknown_module_problems

    cache = SourceCache()
    try:
        options, warnings = launch_options(request, cache)
        plan = make_run_plan(options, cache, has_module=lambda action: get_module(action) is not None)
        planned = {id(t) for p in plan.plays for t in p.tasks}
        play_count = len(plan.plays)
        restrict_to_play(plan, request)
    except PlanError as exc:
        events.emit("error", message=str(exc), exit_code=exc.exit_code)
        return exc.exit_code
    except ValueError as exc:
        events.emit("error", message=str(exc), exit_code=EXIT_USAGE)
        return EXIT_USAGE
    plan.warnings = [*warnings, *plan.warnings]
    # what the engine cannot do stops the run, except a module only tasks left out use
    kept = {id(t) for p in plan.plays for t in p.tasks}
    needed = {t.span for t in plan.unknown_modules if id(t) in kept or id(t) not in planned}
    left_out = {t.span for t in plan.unknown_modules} - needed
    in_play = _unsupported_in(plan) if request.get("play") is not None or request.get("play_at") else None
    unknown = [str(problem) for problem in unknown_module_problems(plan)
               if not (problem.code == "unknown-module" and problem.span in left_out)
               and not (problem.code == "unsupported-keyword" and in_play is not None and problem.span not in in_play)]
    engine, reason = ansible_runs.choose_engine(str(request.get("engine") or "auto"), unknown,
                                                ansible_runs.remote_hosts(plan))
    if engine == "ansible":
        return _through_ansible(plan, options, request, events, reason, play_count)
    events.emit("plan", **plan_summary(plan), engine=engine, reason=reason)
    if unknown:
        events.emit("error", message="; ".join(unknown), exit_code=EXIT_ERROR)
        return EXIT_ERROR
    if request.get("mode") == "plan":
        return 0
    return execute(plan, events)


def _through_ansible(plan: Any, options: Any, request: dict[str, Any], events: Events, reason: str,
                     play_count: int) -> int:
    """The run handed to ansible-playbook, with the exact selection where ansible's options can
    say it, and what will differ where they cannot (said in the plan, before anything runs)."""
    executable = ansible_runs.find_ansible_playbook()
    kept = plan.plays[0].play.name if len(plan.plays) == 1 and (request.get("play") is not None
                                                                 or request.get("play_at")) else None
    summary = {**plan_summary(plan), "engine": "ansible", "reason": reason,
               "differences": ansible_runs.differences(play_count, kept, options.playbook)}
    if executable is None:
        events.emit("plan", **summary)
        events.emit("error", message=f"this run needs ansible-playbook ({reason}), which is not installed: "
                    "install ansible-core in playbook-ls's environment or on PATH", exit_code=EXIT_ERROR)
        return EXIT_ERROR
    command = ansible_runs.ansible_command(options, executable)
    events.emit("plan", **summary, command=command)
    if request.get("mode") == "plan":
        return 0
    events.emit("log", text="$ " + " ".join(shlex.quote(part) for part in command))
    return ansible_runs.run_ansible(command, events.emit, bool(options.check))


def _unsupported_in(plan: Any) -> set[Any] | None:
    """Where the kept plays use keywords the engine does not implement (None: not known)."""
    from engine.loading.model import Playbook
    from engine.run.preflight import unsupported_keywords

    subset = Playbook(plan.playbook.path)
    subset.plays, subset.problems = [p.play for p in plan.plays], []
    return {span for _, span in unsupported_keywords(subset)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
