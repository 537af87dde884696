"""Runs through ``ansible-playbook``: which engine a run uses, the equivalent command line, what
it cannot express, and the run itself with progress from a callback plugin.

The bundled engine runs on this machine only and lacks some modules and keywords; a playbook
that targets real hosts or needs those is handed to ansible-playbook with the same selection,
expressed with ansible's own options. ``engine: auto`` (the default in the editor and for
``playbook-ls run --engine auto``) picks the bundled engine when its plan supports every
selected task and host, and ansible-playbook otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.run.local import LOCAL_CONNECTIONS, LOCAL_NAMES, is_local
from engine.vault import command_line_arguments

ENGINES = ("auto", "bundled", "ansible")
MARKER = "\x1e"  # what the callback plugin's event lines start with
CALLBACK = "playbook_ls_events"
CALLBACK_DIR = Path(__file__).resolve().parent.parent / "data" / "ansible_callback"


def find_ansible_playbook() -> str | None:
    """ansible-playbook beside this Python (the same virtualenv), else on PATH."""
    return find_ansible_tool("ansible-playbook")


def find_ansible_tool(name: str) -> str | None:
    """The ansible command ``name`` beside this Python (the same virtualenv), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.isfile(beside) and os.access(beside, os.X_OK) else shutil.which(name)


def ansible_command(options: Any, executable: str) -> list[str]:
    """The ansible-playbook command line equivalent to the engine's RunOptions ``options``."""
    command = [executable, options.playbook]
    for source in options.inventory:
        command += ["-i", source]
    if options.check:
        command.append("--check")
    if options.diff:
        command.append("--diff")
    if options.tags:
        command += ["--tags", ",".join(options.tags)]
    if options.skip_tags:
        command += ["--skip-tags", ",".join(options.skip_tags)]
    if options.limit:
        command += ["--limit", options.limit]
    if getattr(options, "forks", None) is not None:
        command += ["--forks", str(options.forks)]
    if options.extra_vars:
        command += ["-e", json.dumps(options.extra_vars)]
    if options.verbosity:
        command.append("-" + "v" * options.verbosity)
    if getattr(options, "force_handlers", False):
        command.append("--force-handlers")
    if getattr(options, "remote_user", None):
        command += ["--user", options.remote_user]
    if getattr(options, "start_at_task", None):
        command += ["--start-at-task", options.start_at_task]
    return command + command_line_arguments()  # the secrets the command line gives ansible-playbook


def remote_hosts(plan: Any) -> list[str]:
    """The hosts the bundled engine cannot reach: planned hosts and hosts a selected task is
    delegated to (``delegate_to``; a templated name counts, as it is not known to be local) that
    are neither a local name nor on the local connection (the play's ``connection`` keyword or
    the inventory's ``ansible_connection``)."""
    found: dict[str, None] = {}
    for play_plan in plan.plays:
        data = play_plan.play.data if isinstance(play_plan.play.data, dict) else {}
        if str(data.get("connection")) in LOCAL_CONNECTIONS:
            continue
        for host in play_plan.hosts:
            if not _is_local(plan, host.name):
                found[host.name] = None
        for task in play_plan.tasks:
            delegated = task.data.get("delegate_to") if isinstance(task.data, dict) else None
            if delegated is not None and not _is_local(plan, str(delegated)):
                found[str(delegated)] = None
    return list(found)


def _is_local(plan: Any, name: str) -> bool:
    if name in LOCAL_NAMES:
        return True
    host = plan.inventory.data.get_host(name) if "{{" not in name else None
    if host is None:
        return False
    try:
        return is_local(name, plan.inventory.host_variables(host))
    except Exception:  # noqa: BLE001 - a host whose variables cannot be read is not known local
        return False


def choose_engine(requested: str, problems: list[str], remote: list[str]) -> tuple[str, str]:
    """(engine, why) for a run: ``requested`` is auto, bundled or ansible; ``problems`` are what
    the bundled engine lacks for the selected tasks, ``remote`` the hosts it cannot reach."""
    if requested == "ansible":
        return "ansible", "the ansible engine was asked for"
    if requested == "bundled":
        return "bundled", "the bundled engine was asked for"
    if problems:
        return "ansible", problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    if remote:
        names = ", ".join(remote[:3]) + (f" and {len(remote) - 3} more" if len(remote) > 3 else "")
        return "ansible", f"{names} {'is' if len(remote) == 1 else 'are'} not on this machine"
    return "bundled", "the bundled engine supports every selected task and host"


def differences(play_count: int, kept_play: str | None, playbook: str) -> list[str]:
    """What ansible-playbook will run beyond what the lens means: it has no option that runs one
    play of a playbook, so every play runs, with the same tags."""
    if kept_play is None or play_count <= 1:
        return []
    others = play_count - 1
    which = "the other play of" if others == 1 else f"the other {others} plays of"
    return [f"ansible-playbook has no option to run one play: {which} {os.path.basename(playbook)} "
            f"{'runs' if others == 1 else 'run'} too (with the same tags and limit), not only play '{kept_play}'"]


def ansible_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of an editor run: the default stdout callback, plus ours for the events."""
    env = dict(os.environ if base is None else base)
    enabled = [c for c in env.get("ANSIBLE_CALLBACKS_ENABLED", "").split(",") if c.strip()]
    plugins = [p for p in env.get("ANSIBLE_CALLBACK_PLUGINS", "").split(os.pathsep) if p]
    env.update({
        "ANSIBLE_CALLBACKS_ENABLED": ",".join([*enabled, CALLBACK]),
        "ANSIBLE_CALLBACK_PLUGINS": os.pathsep.join([*plugins, str(CALLBACK_DIR)]),
        "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0", "PYTHONUNBUFFERED": "1",
    })
    return env


def run_ansible(command: list[str], emit: Callable[..., None], check: bool, cwd: str | None = None) -> int:
    """Run ``command`` (ansible-playbook) with the events callback: its text becomes ``log``
    events, the callback's lines ``task``/``result`` events, and ``end`` carries the recap and
    ansible-playbook's exit code."""
    recap: dict[str, Any] = {}
    process = subprocess.Popen(command, cwd=cwd, env=ansible_environment(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               encoding="utf-8", errors="replace", bufsize=1)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith(MARKER):
            try:
                event = json.loads(line[1:])
            except ValueError:
                continue
            if event.get("event") == "recap":
                recap = event.get("recap") or {}
            elif isinstance(event, dict) and event.get("event") in ("task", "result"):
                kind = event.pop("event")
                emit(kind, **event)
            continue
        if line.strip():
            emit("log", text=line.rstrip("\n"))
    code = process.wait()
    emit("end", recap=recap, exit_code=code, check=check)
    return code
