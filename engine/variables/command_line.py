"""The ``cmd`` a ``command`` or ``shell`` module reports, known before the run from its arguments
(ansible-core 2.19 ``modules/command.py``): the module sets it before it runs anything, so a
result that did not fail before the module (its arguments templated) holds it whatever the
command does. ``command`` splits its free-form line or ``cmd`` as a POSIX shell would
(``shlex.split``), or takes ``argv`` as given, each item as text; ``shell`` keeps its line whole.
What the command printed, its ``rc`` and its times are the run's."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.loading import keywords as kw

if TYPE_CHECKING:
    from engine.loading.model import Task
    from engine.templating.templar import Templar

SHELL = kw._family("shell")


def command_line(task: Task, args: Mapping[str, Any], templar: Templar) -> list[str] | str | None:
    """The ``cmd`` of ``task``'s result (a ``command`` or ``shell``), None when only the run knows it."""
    line = args.get("_raw_params") or args.get("cmd")
    try:
        if line:
            line = templar.template(line)
            if not isinstance(line, str):
                return None
            return line if task.action in SHELL else shlex.split(line)
        argv = templar.template(args.get("argv")) if task.action not in SHELL else None
    except Exception:  # noqa: BLE001 - a line only the run templates (or one that does not split)
        return None
    if not isinstance(argv, list) or not argv:
        return None
    return [item if isinstance(item, str) else str(item) for item in argv]
