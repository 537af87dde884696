"""The bundled engine's modules: one file per ansible module, each a function
``run(args, ctx) -> result dict`` that returns what ansible's module (plus its action
plugin, where it has one) returns as seen from a playbook, in check and diff mode too."""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ModuleContext:
    """What a module may know about the task it runs for."""

    check_mode: bool
    diff: bool
    task_vars: Mapping[str, Any]
    """The task's variables as its templates see them: each rendered when read (ansible's are lazy:
    a variable no module reads never runs its lookups)."""
    search_paths: list[str]
    """Directories to look a copy/template ``src`` up in, in ansible's order (role dir, then
    playbook dir); the module appends ``files/`` or ``templates/`` itself."""
    render: Callable[..., Any]
    """``render(text, **overrides)``: the task's templar on ``text``; overrides are the template
    action's trim_blocks, lstrip_blocks and newline_sequence."""
    evaluate: Callable[[Any], bool]
    environment: dict[str, str] = field(default_factory=dict)
    """What the task's ``environment`` keyword adds to the environment of the programs it runs."""
    written: Any = None
    """The module's arguments as the task writes them (with their source positions), if a mapping."""
    written_span: Any = None
    """Where the module's arguments are written (a free-form ``k=v`` string: where it starts)."""
    raw_vars: Any = None
    """The task's variables as written, before templating (``debug: var=`` shows which part of a
    value fails)."""
    no_log: bool = False
    """The task's ``no_log`` (for this item): an action's own diff and invocation hide what it had."""


def action_skip(msg: str) -> dict[str, Any]:
    """The result of an action plugin that raises AnsibleActionSkip: skipped, without ``failed``
    (the marker is ``engine.run.retries.ACTION_SKIP``, removed when the result is judged)."""
    return {"changed": False, "skipped": True, "msg": msg, "_ansible_action_skip": True}


BEFORE_MODULE = "_ansible_before_module"
"""Marks the result of an action plugin that ended before it ran any module (arguments it checks
itself, a source it cannot find, a template that does not render): ansible discovers no Python
interpreter for such a task (engine.run.interpreter_discovery)."""
ACTION_RESULT = "_ansible_action_result"
"""Marks a result an action plugin made itself after its modules ran (copy's answer in check mode,
a directory tree's summary, a file it leaves as it is): the interpreter discovered for the task
is not in it, so the host does not keep it."""


def before_module(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, BEFORE_MODULE: True}


def action_result(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, ACTION_RESULT: True}


def module_exception(message: str, exc: OSError, as_bytes: bool = False) -> dict[str, Any]:
    """What a module's ``fail_json(msg=message, exception=exc)`` adds for the ``[ERROR]`` block:
    the error chain ``Module failed: MESSAGE: [Errno N] STRERROR: 'FILE'`` (the file name as bytes
    where the module had it as bytes), under ``engine.run.error_block.ERROR_KEY``."""
    from engine.run.error_block import ERROR_KEY, Event

    name = os.fsencode(exc.filename) if as_bytes and isinstance(exc.filename, str) else exc.filename
    cause = f"[Errno {exc.errno}] {exc.strerror}: {name!r}" if exc.errno is not None and name is not None else str(exc)
    return {ERROR_KEY: [Event("Module failed."), Event(message), Event(cause)]}


class ModuleError(Exception):
    """The module's arguments are wrong; the message is worded like ansible's. ``result``: the
    other keys of the module's failed result (``fail_json``'s keyword arguments), if any."""

    def __init__(self, message: str, result: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.result = result


ModuleFunction = Callable[[dict[str, Any], ModuleContext], dict[str, Any]]

# short name -> submodule defining ``run``; imported lazily so nothing runs at import.
_SUBMODULES: dict[str, str] = {
    "debug": "debug",
    "assert": "assert_",
    "fail": "fail",
    "set_stats": "set_stats",
    "ping": "ping",
    "command": "command",
    "shell": "shell",
    "copy": "copy",
    "template": "template",
    "file": "file",
    "lineinfile": "lineinfile",
    "stat": "stat",
    "blockinfile": "blockinfile",
    "replace": "replace",
    "find": "find",
    "tempfile": "tempfile",
    "slurp": "slurp",
    "pause": "pause",
    "wait_for": "wait_for",
    "raw": "raw",
    "script": "script",
    "get_url": "get_url",
    "uri": "uri",
    "unarchive": "unarchive",
    "git": "git",
    "assemble": "assemble",
    "fetch": "fetch",
    "archive": "archive",  # ansible-core routes archive to community.general's module
    "community.general.archive": "archive",
    "ini_file": "ini_file",  # ansible-core routes ini_file to the collection's module
    "community.general.ini_file": "ini_file",
    "setup": "setup",
    "gather_facts": "setup:gather_facts",  # the action plugin around setup
}

MODULE_NAMES: frozenset[str] = frozenset(_SUBMODULES)

_PREFIXES = ("ansible.builtin.", "ansible.legacy.")

# Modules that change the system itself (packages, services, accounts, mounts, the kernel...): the
# bundled engine runs unprivileged on the machine it is started on and does not implement them, so
# a run that uses one is refused before anything runs.
SYSTEM_MODULES: frozenset[str] = frozenset({
    "package", "apt", "apt_key", "apt_repository", "deb822_repository", "dnf", "dnf5", "yum", "yum_repository",
    "rpm_key", "pip", "service", "systemd", "systemd_service", "sysvinit",
    "user", "group", "mount", "ansible.posix.mount", "cron", "reboot", "hostname", "sysctl", "ansible.posix.sysctl",
    "iptables", "authorized_key", "ansible.posix.authorized_key", "selinux", "ansible.posix.selinux",
    "seboolean", "ansible.posix.seboolean", "firewalld", "ansible.posix.firewalld", "community.general.ufw", "ufw",
    "community.general.timezone", "timezone", "community.general.modprobe", "modprobe", "community.general.pam_limits",
    "pam_limits", "community.general.alternatives", "alternatives", "community.general.locale_gen", "locale_gen",
    "community.general.snap", "snap", "community.general.npm", "npm", "community.general.pacman", "pacman",
    "community.general.zypper", "zypper", "community.general.apk", "apk", "community.general.homebrew", "homebrew",
    "debconf", "community.general.filesystem", "filesystem", "community.general.lvg", "lvg",
    "community.general.parted", "parted", "community.general.kernel_blacklist", "kernel_blacklist",
})


def _short(action: str) -> str:
    for prefix in _PREFIXES:
        if action.startswith(prefix):
            return action[len(prefix) :]
    return action


def changes_the_system(action: str) -> bool:
    """Whether ``action`` is a module that changes the system itself, which the engine refuses."""
    return _short(action) in SYSTEM_MODULES


def missing_module_message(action: str) -> str:
    """Why the bundled engine cannot run ``action`` (it has no module of that name)."""
    if changes_the_system(action):
        return (f"'{action}' changes the system (packages, services, users, mounts...), which playbook-ls's "
                "engine does not do")
    return f"playbook-ls's engine has no module '{action}'"


def get_module(action: str) -> ModuleFunction | None:
    """The module function for ``action`` ('copy', 'ansible.builtin.copy',
    'ansible.legacy.copy'); None for a module the bundled engine does not have."""
    submodule = _SUBMODULES.get(_short(action))
    if submodule is None:
        return None
    submodule, _, function = submodule.partition(":")
    implementation = importlib.import_module(f"{__name__}.{submodule}")
    found = getattr(implementation, function or "run")
    if getattr(implementation, "NAMED", False):  # its messages name the action as the task wrote it
        return functools.partial(found, action=action)
    return found
