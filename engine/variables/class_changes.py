"""When what is worked out from the setters' classes of hosts must be worked out again: a count
every change of them adds to (engine.variables.change_classes, engine.variables.walk_classes), and
the setters followed on a host without classes, whose classes then say nothing of what they read.
A module of its own, below everything that follows setters or reads their classes."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.model import Task

CHANGES = [0]
"""How many times the classes of setters' hosts changed: what is kept from them is kept with it."""

READS = [0]
"""How many times classes of setters' hosts were made, read more names or stopped being usable (or a
setter was followed without them): what is worked out from those alone, not from which classes there
are (engine.variables.walk_classes._read), is kept with it. Every change of it is one of :data:`CHANGES`."""


def followed_unshared(memo: dict[Any, Any], task: Task) -> None:
    """Mark ``task`` as followed on a host without classes of its hosts (a plan not sharing them, or
    sharing switched off): what it gave the host is kept for the plans after too, which then make no
    classes of it, so its classes say nothing of what it reads (engine.variables.walk_classes)."""
    if ("followed unshared", id(task)) not in memo:
        memo[("followed unshared", id(task))] = True
        CHANGES[0] += 1  # (what is worked out from every setter's classes is worked out again)
        READS[0] += 1


def followed_without_classes(memo: dict[Any, Any], task: Task) -> bool:
    """Whether ``task`` was followed on a host without classes (:func:`followed_unshared`)."""
    return bool(memo.get(("followed unshared", id(task))))
