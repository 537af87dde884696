"""The ``*_from`` files of an ``include_role`` templated per host. ansible loads one copy of an
included role for the hosts whose include results are equal (``IncludedFile.__eq__``: the role's
name, the other arguments, the loop's variables, the task), and ``tasks_from``, ``vars_from``,
``defaults_from`` and ``handlers_from`` are not compared: every host of such a group runs the
copy made with the files of the host whose result came in first, which is the run's order. Where
hosts name different files that way, which files each host gets is the run's to know: the plan
says their tasks depend, ``vars`` that the values of those files are unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine.loading import keywords as kw

if TYPE_CHECKING:
    from engine.loading.model import Task

FROM_ARGS = {"tasks_from": "tasks", "vars_from": "vars", "defaults_from": "defaults", "handlers_from": "handlers"}


def merged_from_files(include: Task, args_by_host: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """For each host whose ``include`` (an ``include_role`` without a loop) ansible merges with a
    host naming other ``*_from`` files: each sub-directory's files the merged hosts name. Empty
    for any other include, and where the hosts that merge name the same files."""
    if include.action not in kw.INCLUDE_ROLE:
        return {}
    variants: dict[str, dict[tuple[tuple[str, str], ...], list[str]]] = {}
    for host, args in args_by_host.items():
        rest = repr(sorted(((str(k), v) for k, v in args.items() if k not in FROM_ARGS and k != "apply"), key=str))
        named = tuple(sorted((FROM_ARGS[k], str(v)) for k, v in args.items() if k in FROM_ARGS))
        variants.setdefault(rest, {}).setdefault(named, []).append(host)
    found: dict[str, dict[str, list[str]]] = {}
    for named_hosts in variants.values():
        if len(named_hosts) < 2:
            continue
        files: dict[str, list[str]] = {}
        for named in named_hosts:
            for sub, name in named:
                if name not in files.setdefault(sub, []):
                    files[sub].append(name)
        for sub in FROM_ARGS.values():  # a host naming none takes main
            if sub in files and any(sub not in dict(named) for named in named_hosts) and "main" not in files[sub]:
                files[sub].append("main")
        found.update((host, files) for hosts in named_hosts.values() for host in hosts)
    return found


def tasks_differ(files: Mapping[str, list[str]]) -> bool:
    """Whether the hosts merged name other task or handler files (not only other vars or
    defaults files): which tasks each of them runs is then the run's too."""
    return len(files.get("tasks", [])) > 1 or len(files.get("handlers", [])) > 1


def why_merged(include: Task, files: Mapping[str, list[str]]) -> str:
    import os

    span = include.span
    where = f"{os.path.relpath(span.file)}:{span.line + 1}" if span is not None else repr(include.display_name())
    named = "; ".join(f"{sub}: {', '.join(names)}" for sub, names in sorted(files.items()))
    return (f"the include_role at {where} names other files on other hosts ({named}): ansible loads one copy for "
            "them all, with the files of the host whose result comes in first, which is the run's")


def mark_run_from(tasks: Iterable[Task], include: Task, reason: str, files: dict[str, list[str]]) -> None:
    """Give the role ``include`` loads in ``tasks`` the files only the run picks among."""
    for task in tasks:
        role = task.role
        if role is not None and role.via == "include_role" and role.parent is include.role:
            role.run_from = (reason, files)
