"""The ``environment`` keyword: what a task adds to the environment of the programs it runs.

ansible's ``environment`` is a list keyword that extends outer-first (play, role, block, task):
``Task._post_validate_environment`` templates each dictionary value by value (an omitted value
drops its key) and a non-dictionary entry as a whole, which must then be a dictionary (else a
warning, and the entry is skipped). Later entries override earlier ones. The module process gets
each value as text (``env_prefix`` quotes ``str(value)``), so ``3`` arrives as ``"3"`` and
``true`` as ``"True"``. A dictionary's value whose undefined variable's message names
``ansible_env`` (facts not gathered) leaves its key out instead of failing the task. A failure
names the entry's YAML as the cause's origin: the value of a dictionary's key, else the item of
the keyword's list, else the keyword's value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine.loading.model import Task
from engine.span import Span
from engine.templating.errors import undefined_cause
from engine.templating.templar import Templar, TemplateFailure
from engine.variables.manager import OMIT
from engine.variables.play_context import raw_environment

# C._ACTION_FACT_GATHERING
FACT_GATHERING = frozenset(f"{prefix}{name}" for prefix in ("", "ansible.builtin.", "ansible.legacy.")
                           for name in ("setup", "gather_facts"))
# posixpath.expandvars' pattern: $NAME or ${NAME}
_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})", re.ASCII)


def task_environment(task: Task, templar: Templar, warn: Callable[[str], None]) -> dict[str, str]:
    """The variables ``task`` sets for its programs. Raises TemplateFailure worded as ansible's
    task failure when an entry cannot be templated; ``warn`` gets ansible's warning for an entry
    that is not a dictionary."""
    entries = raw_environment(task)
    merged: dict[str, Any] = {}
    where = None  # the span of the value being templated, for the error's source context
    try:
        for entry, where in _written(task):
            if isinstance(entry, Mapping):
                for key, value in entry.items():
                    where = getattr(entry, "value_spans", {}).get(key)
                    try:
                        rendered = templar.template(value)
                    except TemplateFailure as exc:
                        if _about_facts(exc, task.action):
                            continue
                        raise
                    if rendered != OMIT:
                        merged[key] = rendered
                continue
            rendered = templar.template(entry)
            if isinstance(rendered, Mapping):
                merged.update(rendered)
            elif rendered != OMIT:
                warn(f"could not parse environment value, skipping: {entries!r}")
    except TemplateFailure as exc:
        from engine.run.error_block import UNKNOWN, Event
        from engine.templating.errors import undefined_cause, value_origin

        # an undefined value of another variable (``environment: "{{ proxy_env }}"``) is chained to
        # where that variable's template is written, as ansible does
        origin = value_origin(exc) if undefined_cause(exc) else None
        failure = TemplateFailure(f"Task failed: Error processing keyword 'environment': {exc}")
        failure.events = [Event("Error processing keyword 'environment'.", UNKNOWN, value=repr(entries)),  # type: ignore[attr-defined]
                          Event(str(exc), origin or where)]
        raise failure from exc
    return {str(key): str(value) for key, value in merged.items()}


def _written(task: Task) -> Iterator[tuple[Any, Span | None]]:
    """Each entry of :func:`raw_environment` with where it is written: its item of the list a
    level's keyword holds, else that keyword's value."""
    seen: dict[int, int] = {}  # a level's entries so far
    for sourced in task.effective("environment") or []:  # type: ignore[union-attr]
        frame = sourced.frame
        value, span = frame.keywords["environment"], frame.keyword_spans.get("environment")
        if isinstance(value, list):
            index = seen[id(frame)] = seen.get(id(frame), -1) + 1
            spans = getattr(value, "item_spans", None) or []
            span = spans[index] if index < len(spans) and spans[index] is not None else span
        yield sourced.value, span


def _about_facts(exc: TemplateFailure, action: str) -> bool:
    """``_post_validate_environment``'s exception to an undefined variable: skipped (the key
    left out) when its message names ``ansible_env``, or ``ansible_facts.env`` on a task that
    gathers facts."""
    if not undefined_cause(exc):
        return False
    message = str(exc)
    return "ansible_env" in message or (action in FACT_GATHERING and "ansible_facts.env" in message)


def expand_variables(text: str, environment: Mapping[str, str]) -> str:
    """``os.path.expandvars`` against ``environment`` (the module process's own environment,
    which has the task's variables): unknown names are left as written."""
    if "$" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("{") and name.endswith("}"):
            name = name[1:-1]
        return environment.get(name, match.group(0))

    return _VARIABLE.sub(replace, text)


def expand_user(text: str, environment: Mapping[str, str]) -> str:
    """``os.path.expanduser`` for the current user, with ``HOME`` read from ``environment``."""
    import os

    if text != "~" and not text.startswith("~/"):
        return os.path.expanduser(text)
    home = environment.get("HOME")
    if home is None:
        return os.path.expanduser(text)
    return (home.rstrip("/") + text[1:]) or "/"


def current_user() -> str:
    """The user running the engine (the local connection's remote user), "" when it has no name."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def remote_expand_user(path: str) -> str:
    """ansible's ``ActionBase._remote_expand_user`` on the local connection: the paths an action
    plugin reads itself (copy's and template's ``dest``, unarchive's ``dest`` and ``creates``, fetch's ``src``, the
    ``async_status`` job file) have a leading ``~`` expanded by ``echo ~USER`` for the remote user,
    the user running ansible: that user's home in the password database, not ``$HOME``, which a
    module's own expansion reads. ``~name`` is that user's home; a name no user has stays as
    written, as the shell leaves it; nothing else of the path is expanded."""
    import os

    if not path.startswith("~"):
        return path
    first, slash, rest = path.partition("/")
    if first == "~":
        first += current_user()
    home = os.path.expanduser(first)
    return os.path.join(home, rest) if slash else home
