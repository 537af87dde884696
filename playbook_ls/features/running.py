"""The data side of the ``playbook-ls.checkTasks`` / ``playbook-ls.runTasks`` commands.

Pure functions: the command's arguments as a :class:`RunRequest`, the worker's command line
(:mod:`playbook_ls.features.run_worker` does the run, in its own process), the confirmation
question, the progress text, and the per-task outcomes as hints on the tasks' lines. The LSP
side (the process, progress, cancelling, diagnostics) is in :mod:`playbook_ls.lsp.running`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from typing import Any

from playbook_ls.features import TRUST_NEEDED
from playbook_ls.features.ansible_runs import ENGINES
from playbook_ls.features.convert import uri_to_path

SOURCE = "playbook-ls run"
WORKER = "playbook_ls.features.run_worker"
RUN, CANCEL = "Run", "Cancel"


def refusal(check: bool) -> dict[str, Any]:
    """The result of ``checkTasks`` / ``runTasks`` in a workspace the client did not trust. Check
    mode changes no host, yet it runs code from the repository: lookups such as pipe, its plugins
    and inventory code, and through ansible-playbook whatever ansible.cfg enables."""
    message = f"{'Check' if check else 'Run'} refused: the workspace is not trusted. {TRUST_NEEDED}"
    return {"error": message, "trust_needed": True, "cancelled": False, "exit_code": None, "check": check}


class BadArguments(ValueError):
    """Command arguments of the wrong shape: a client's mistake, answered InvalidParams."""


@dataclass
class RunRequest:
    """What to run: a playbook (or a launch profile's), optionally one play of it (0-based,
    or the play written at ``play_at`` = [file, line]), a tag selection, an inventory."""

    playbook: str | None
    check: bool = True
    play: int | None = None
    play_at: list[Any] | None = None
    tags: list[str] = field(default_factory=list)
    skip_tags: list[str] = field(default_factory=list)
    profile: str | None = None
    inventory: str | None = None
    limit: str | None = None
    engine: str | None = None
    extra_vars: dict[str, Any] | None = None

    @classmethod
    def parse(cls, arguments: Any, check: bool, root: str) -> RunRequest:
        """The command's arguments (``[{playbook, play?, tags?, skip_tags?, profile?,
        inventory?}]`` or that object alone); raises :class:`BadArguments` for arguments of the wrong
        shape and ValueError for what is missing, each saying what is wrong."""
        if isinstance(arguments, (list, tuple)):
            if len(arguments) != 1:
                raise BadArguments("expected one argument: {playbook, play?, tags?, skip_tags?, profile?, inventory?}")
            arguments = arguments[0]
        if not isinstance(arguments, dict):
            raise BadArguments("the argument must be an object {playbook, play?, tags?, skip_tags?, profile?, "
                             "inventory?}")
        playbook = arguments.get("playbook") or arguments.get("uri") or arguments.get("path")
        if playbook is not None and not isinstance(playbook, str):
            raise BadArguments("'playbook' must be a path or a file URI")
        if playbook is None and not arguments.get("profile"):
            raise ValueError("give a 'playbook' or a launch 'profile' that names one")
        if playbook is not None:
            playbook = request_path(playbook, root)
        play = arguments.get("play")
        if play is not None and (not isinstance(play, int) or isinstance(play, bool) or play < 0):
            raise BadArguments("'play' must be a play's number in the playbook, from 0")
        play_at = arguments.get("play_at")
        if play_at is not None and not (isinstance(play_at, list) and len(play_at) == 2
                                        and isinstance(play_at[0], str) and isinstance(play_at[1], int)):
            raise BadArguments("'play_at' must be [file, line]")
        strings = {}
        for name in ("profile", "inventory", "limit", "engine"):
            value = arguments.get(name)
            if value is not None and not isinstance(value, str):
                raise BadArguments(f"'{name}' must be a string")
            strings[name] = value or None
        if strings["engine"] is not None and strings["engine"] not in ENGINES:
            raise BadArguments(f"'engine' must be one of {', '.join(ENGINES)}")
        extra_vars = arguments.get("extra_vars")
        if extra_vars is not None and not isinstance(extra_vars, dict):
            raise BadArguments("'extra_vars' must be an object of variables")
        return cls(playbook, check, play, play_at, _tags(arguments.get("tags"), "tags"),
                   _tags(arguments.get("skip_tags"), "skip_tags"), extra_vars=extra_vars or None, **strings)

    def worker_request(self, mode: str, config: str | None = None,
                       profiles_file: str | None = None) -> dict[str, Any]:
        return {"mode": mode, "playbook": self.playbook, "check": self.check, "play": self.play,
                "play_at": self.play_at, "tags": self.tags, "skip_tags": self.skip_tags,
                "profile": self.profile, "inventory": self.inventory, "limit": self.limit, "config": config,
                "profiles_file": profiles_file, "engine": self.engine, "extra_vars": self.extra_vars}

    def command(self, python: str, mode: str, config: str | None = None,
                profiles_file: str | None = None) -> list[str]:
        """The worker's command line: ``mode`` is ``plan`` (no task runs, the inventory's code
        does) or ``run``; ``config`` and ``profiles_file`` say where the launch profiles are.
        ``-P``: the worker starts in the workspace, whose own ``playbook_ls/`` must not be imported."""
        return [python, "-P", "-m", WORKER, json.dumps(self.worker_request(mode, config, profiles_file))]

    def with_defaults(self, settings: dict[str, Any]) -> RunRequest:
        """The request with the client's run settings (``engine``, ``inventory``, ``limit``,
        ``extraVars``) where the request itself says nothing."""
        extra = settings.get("extraVars")
        return replace(self, engine=self.engine or _setting(settings, "engine", ENGINES),
                       inventory=self.inventory or _setting(settings, "inventory"),
                       limit=self.limit or _setting(settings, "limit"),
                       extra_vars=self.extra_vars or (dict(extra) if isinstance(extra, dict) and extra else None))

    def describe(self) -> str:
        what = f"--tags {','.join(self.tags)}" if self.tags else "all tasks"
        if self.skip_tags:
            what += f" --skip-tags {','.join(self.skip_tags)}"
        play = f", play #{self.play + 1}" if self.play is not None else ""
        name = os.path.basename(self.playbook) if self.playbook else f"profile {self.profile}"
        return f"{'Check' if self.check else 'Run'} {name}{play}: {what}"


def _setting(settings: dict[str, Any], name: str, allowed: tuple[str, ...] | None = None) -> str | None:
    value = settings.get(name)
    if not isinstance(value, str) or not value.strip() or (allowed and value not in allowed):
        return None
    return value.strip()


def profile_summaries(profiles: list[Any]) -> list[dict[str, Any]]:
    """The launch profiles as ``playbook-ls.listProfiles`` returns them, for a client's picker."""
    return [{"name": p.name, "playbook": p.playbook_path(), "job_type": p.job_type, "inventory": p.inventory,
             "limit": p.limit, "job_tags": list(p.job_tags), "skip_tags": list(p.skip_tags), "source": p.source}
            for p in profiles]


def request_path(value: str, root: str) -> str:
    """A command's file argument (a file URI, or a path relative to the workspace root) as a path."""
    return os.path.join(root, uri_to_path(value) if value.startswith("file:") else value)


def _tags(value: Any, name: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadArguments(f"'{name}' must be a string (a,b) or a list of strings")
    return [tag.strip() for each in value for tag in each.split(",") if tag.strip()]


def confirmation(plan: dict[str, Any]) -> str:
    """The question asked before a real run, from the worker's ``plan`` event."""
    count = int(plan.get("tasks") or 0)
    hosts = ", ".join(plan.get("hosts") or []) or "no hosts"
    plays = ", ".join(str(p) for p in plan.get("plays") or [])
    question = f"Run {count} task{'s' if count != 1 else ''} on {hosts} for real? ({plays})"
    if plan.get("engine") == "ansible":
        question += f" With ansible-playbook: {plan.get('reason')}."
        for difference in plan.get("differences") or []:
            question += f" Note: {difference}."
    return question


def progress_message(done: int, total: int, title: str) -> tuple[str, int | None]:
    """The text and percentage of a progress report when task ``done`` of ``total`` starts."""
    percentage = min(99, int(100 * (done - 1) / total)) if total > 0 else None
    return (f"{done}/{total} {title}" if total > 0 else title), percentage


@dataclass(frozen=True)
class Hint:
    """One task's outcome on one host, where the task is written (0-based, code points)."""

    path: str
    line: int
    col: int
    message: str
    status: str


def outcome_message(event: dict[str, Any], check: bool) -> str:
    status, host = str(event.get("status")), str(event.get("host"))
    message = f"{status} on {host}"
    if event.get("msg") and status in ("failed", "unreachable"):
        message += f": {event['msg']}"
    if event.get("ignored"):
        message += " (ignored)"
    return message + (" (check mode)" if check and status == "changed" else "")


def hints(results: list[dict[str, Any]], check: bool) -> dict[str, list[Hint]]:
    """The worker's ``result`` events as hints by real path; results without a place are left out."""
    found: dict[str, list[Hint]] = {}
    for event in results:
        file, line = event.get("file"), event.get("line")
        if not isinstance(file, str) or not isinstance(line, int):
            continue
        path = os.path.realpath(file)
        hint = Hint(path, line, int(event.get("col") or 0), outcome_message(event, check), str(event.get("status")))
        if hint not in found.get(path, []):
            found.setdefault(path, []).append(hint)
    return found


def summary(request: RunRequest, results: list[dict[str, Any]], end: dict[str, Any] | None,
            error: str | None, cancelled: bool, exit_code: int | None,
            plan: dict[str, Any] | None = None) -> dict[str, Any]:
    """The command's result: what ran (as the worker planned it, when it got that far: a launch
    profile may change the playbook, the tags and the mode), the recap per host, the exit code,
    each task's outcome."""
    ran = plan or {}
    result: dict[str, Any] = {
        "playbook": ran.get("playbook") or request.playbook, "check": ran.get("check", request.check),
        "tags": ran.get("tags", request.tags), "skip_tags": ran.get("skip_tags", request.skip_tags),
        "play": request.play, "cancelled": cancelled, "engine": ran.get("engine"),
        "exit_code": end.get("exit_code") if end else exit_code,
        "recap": end.get("recap", {}) if end else {},
        "tasks": [{key: event.get(key) for key in ("task", "host", "status", "msg", "file", "line")}
                  for event in results],
    }
    if error:
        result["error"] = error
    return result
