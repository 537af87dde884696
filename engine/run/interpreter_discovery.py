"""ansible's Python interpreter discovery (``ansible.executor.interpreter_discovery``), as the
action plugins of ansible-core 2.19 run it on the local connection.

A host whose ``interpreter_python`` setting (its ``ansible_python_interpreter`` variable, else
``ANSIBLE_PYTHON_INTERPRETER`` or ``[defaults] interpreter_python``, else ``auto``) is empty or an
``auto`` mode has its interpreter discovered the first time one of its tasks runs a Python module:
``command -v`` of each name of ``INTERPRETER_PYTHON_FALLBACK`` (``ansible_interpreter_python_fallback``),
the first absolute path found, with a warning unless the mode ends in ``_silent``. The result
carries it as the fact ``discovered_interpreter_python`` (not for a delegated task without
``delegate_facts``), so that later tasks of the host use it without discovering again.

The engine runs its modules in its own process, so what the interpreter changes is what ansible
shows of it (the warning, the fact, ``ansible_python`` of the facts gathered with it). An
interpreter that does not start would fail every module in ansible: the plan declines such a run
(:func:`broken_interpreters`)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.loading import keywords as kw

AUTO_MODES = frozenset({"", "auto", "auto_legacy", "auto_silent", "auto_legacy_silent"})
FALLBACK = ("python3.13", "python3.12", "python3.11", "python3.10", "python3.9", "python3.8", "/usr/bin/python3",
            "python3")
"""``INTERPRETER_PYTHON_FALLBACK``'s default."""
FALLBACK_INTERPRETER = "/usr/bin/python3"
FACT = "discovered_interpreter_python"
DOC_LINK = "https://docs.ansible.com/ansible-core/2.19/reference_appendices/interpreter_discovery.html"
# what ansible carries out without a Python module on the host: controller-side actions, and
# raw and script, which run their command or script through the shell
NO_PYTHON = kw._family("debug", "assert", "fail", "set_stats", "pause", "add_host", "group_by", "set_fact",
                       "include_vars", "validate_argument_spec", "raw", "script") | kw.META | kw.INCLUDE_TASKS \
    | kw.INCLUDE_ROLE
# action plugins that end a check-mode run before they run their module
CHECK_MODE_SKIPS = kw._family("uri", "fetch")
# action plugins that may end before their first module runs (their own argument checks, a source
# not found, a template that does not render): the run discovers once the module has run
ACTION_FIRST = kw._family("copy", "template", "unarchive", "uri")


def discovery_mode(variables: Mapping[str, Any], template: Callable[[Any], Any]) -> str | None:
    """The host's discovery mode (``auto``..., or "" for an empty setting), None when it names an
    interpreter (ansible's ``_get_shebang``: the setting templated)."""
    value = template(setting(variables))
    if value is None:
        return "auto"
    mode = str(value).strip()
    return mode if mode in AUTO_MODES else None


def setting(variables: Mapping[str, Any]) -> Any:
    """``INTERPRETER_PYTHON`` for a host: its variable, the environment, ansible.cfg, else ``auto``."""
    from engine.config import config_value

    value = variables.get("ansible_python_interpreter")
    if value is None:
        value = config_value("ANSIBLE_PYTHON_INTERPRETER", "defaults", "interpreter_python")
    return "auto" if value is None else value


def runs_python(action: str, check_mode: bool) -> bool:
    """Whether ansible's action for ``action`` runs a Python module (and so needs the interpreter)."""
    return action not in NO_PYTHON and not (check_mode and action in CHECK_MODE_SKIPS)


def probe(fallback: Iterable[str]) -> list[str]:
    """The absolute paths ``command -v`` finds of ``fallback``, in order, as the discovery's
    shell bootstrap prints them between FOUND and ENDFOUND."""
    commands = "; ".join(f"command -v '{name}'" for name in fallback)
    try:
        out = subprocess.run(["/bin/sh", "-c", f"echo FOUND; {commands}; echo ENDFOUND"], capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    _, _, found = out.partition("FOUND")
    found, _, _ = found.partition("ENDFOUND")
    return [line.strip() for line in found.splitlines() if line.startswith("/")]


def fallback_list(variables: Mapping[str, Any]) -> list[str]:
    value = variables.get("ansible_interpreter_python_fallback")
    if isinstance(value, str):
        return [part.strip() for part in value.split(",")]
    return [str(item) for item in value] if isinstance(value, list | tuple) else list(FALLBACK)


def discover(variables: Mapping[str, Any], mode: str, warn: Callable[[str], None],
             deprecate: Callable[[str], None]) -> str:
    """``discover_interpreter``: the interpreter found for the host of ``variables``, with ansible's
    warnings (none in a ``_silent`` mode)."""
    host = variables.get("inventory_hostname", "unknown")
    silent = mode.endswith("_silent")
    if mode.startswith("auto_legacy"):
        deprecate(f"The '{mode}' option for 'INTERPRETER_PYTHON' now has the same effect as 'auto'. "
                  "This feature will be removed from ansible-core version 2.21.")
    tried = fallback_list(variables)
    found = probe(tried)
    if not found:
        if not silent:
            warn(f"No python interpreters found for host {host!r} (tried {tried!r}).")
        return FALLBACK_INTERPRETER
    if not silent:
        warn(f"Host {host!r} is using the discovered Python interpreter at {found[0]!r}, but future installation "
             "of another Python interpreter could cause a different interpreter to be discovered. "
             f"See {DOC_LINK} for more information.")
    return found[0]


def starts(interpreter: str) -> bool:
    """Whether ``interpreter`` runs a Python 3 program, as a module needs it to."""
    try:
        return subprocess.run([interpreter, "-c", "import sys; sys.exit(sys.version_info < (3, 8))"],
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def broken_interpreters(plan: Any) -> list[tuple[str, Any]]:
    """What the plan declines: a local host of the plays whose modules ansible would run with an
    interpreter (set, or discovered now as the run would discover it) that does not start, where a
    play gathers facts or a task runs a Python module. A setting only a template gives is left
    to the run."""
    import sys

    from engine.flow.plan import every_task
    from engine.run.delegation import delegate_host_vars
    from engine.run.local import is_local
    from engine.variables.sources import gathers_facts

    if not any(gathers_facts(play) for play in plan.playbook.plays) and \
            not any(runs_python(task.action, False) for task in every_task(plan.playbook)):
        return []
    checked: dict[Any, bool] = {}
    declined: list[tuple[str, Any]] = []
    unset = False  # a local host the inventory gives no interpreter: a role's default reaches it
    for name in dict.fromkeys(host.name for play in plan.plays for host in play.hosts):
        # the extra vars (-e) are above every host's own, as in ansible's variable precedence
        variables = {**delegate_host_vars(plan.inventory, name), **plan.options.extra_vars}
        if not is_local(name, variables, None):
            continue
        unset = unset or variables.get("ansible_python_interpreter") is None
        written = setting(variables)
        if isinstance(written, str) and "{" in written:
            continue
        mode = discovery_mode(variables, lambda value: value)
        interpreter = str(written).strip()
        fallback = tuple(fallback_list(variables))
        key: Any = interpreter if mode is None else fallback
        if key not in checked:
            if mode is None:
                checked[key] = interpreter == sys.executable or starts(interpreter)
                path = interpreter
            else:
                path = (probe(fallback) or [FALLBACK_INTERPRETER])[0]
                checked[key] = starts(path)
            if not checked[key]:
                declined.append((f"modules run with {path}, which does not start (the Python of host '{name}')", None))
    # a local host runs modules: the interpreters the playbook and its roles set too, unless -e sets one above them
    if checked and "ansible_python_interpreter" not in plan.options.extra_vars:
        for value, where, default in written_in_playbook(plan):
            if default and not unset:  # below the inventory's, which every local host has
                continue
            if value not in checked:
                checked[value] = value == sys.executable or starts(value)
            if not checked[value]:
                declined.append((f"modules run with {value}, which does not start (ansible_python_interpreter "
                                 f"in {where})", None))
    return declined


DISCOVERY_MODES = ("auto", "auto_silent", "auto_legacy", "auto_legacy_silent")


def written_in_playbook(plan: Any) -> list[tuple[str, str, bool]]:
    """Each literal ``ansible_python_interpreter`` the run's playbooks, task files and roles'
    defaults and vars write (play, block or task vars, ``set_fact``, a role's files), with the
    file and whether it is a role's default (which an inventory's value overrides): a host's
    interpreter may come from any of them, wherever the run reaches it. A value only a template
    gives is left to the run, as an inventory's is."""
    import os

    from engine.flow.plan import every_task

    paths = dict.fromkeys([plan.playbook.path, *(play.span.file for play in plan.playbook.plays
                                                 if play.span is not None)], False)
    roles: set[str] = set()
    for task in every_task(plan.playbook):
        if task.span is not None:
            paths.setdefault(task.span.file, False)
        if task.role is not None and task.role.path:
            roles.add(task.role.path)
    for role in sorted(roles):
        for section in ("defaults", "vars"):
            for directory, _, names in os.walk(os.path.join(role, section)):
                for name in sorted(names):
                    paths.setdefault(os.path.join(directory, name), section == "defaults")
    found: dict[tuple[str, bool], str] = {}
    for path, default in paths.items():  # the plan's parse of each file, which the variables share
        for value in _interpreter_values(plan.inventory.cache.load(path).data, 0):
            found.setdefault((value, default), path)
    return [(value, path, default) for (value, default), path in found.items()]


def _interpreter_values(data: Any, depth: int) -> list[str]:
    if depth > 50:
        return []
    if isinstance(data, Mapping):
        written = data.get("ansible_python_interpreter")
        literal = isinstance(written, str) and "{" not in written and written.strip() not in DISCOVERY_MODES
        values = [str(written).strip()] if literal else []
        return values + [v for item in data.values() for v in _interpreter_values(item, depth + 1)]
    if isinstance(data, list):
        return [v for item in data for v in _interpreter_values(item, depth + 1)]
    return []
