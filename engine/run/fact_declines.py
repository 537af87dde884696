"""The facts ansible's ``setup`` gathers that the engine's does not (virtualization, mounts,
devices, lvm...; engine.run.facts): a playbook that gathers facts and reads
one would differ from ansible-playbook (undefined where ansible has a value), so the plan
declines it, naming the fact, before the run."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from engine.loading import keywords as kw
from engine.loading.model import Playbook

# ansible 2.19's fact names (without "ansible_") the engine does not gather
UNGATHERED = frozenset({
    "device_links", "devices", "fibre_channel_wwn", "hostnqn", "iscsi_iqn", "lvm",
    "mounts", "system_capabilities", "system_capabilities_enforced", "virtualization_role",
    "virtualization_tech_guest", "virtualization_tech_host", "virtualization_type", "facter", "ohai",
})
GATHERING_ACTIONS = kw._family("setup") | kw._family("gather_facts")


@cache
def _pattern() -> re.Pattern[str]:
    names = "|".join(sorted(UNGATHERED, key=len, reverse=True))
    return re.compile(rf"\bansible_(?:facts\s*(?:\.\s*|\[\s*['\"]))?({names})\b")


def ungathered_facts(text: str) -> Iterator[tuple[str, int]]:
    """Each (fact, line) ``text`` names that the engine does not gather; lines count from 1."""
    for match in _pattern().finditer(text):
        yield match.group(1), text.count("\n", 0, match.start()) + 1


def gathers_facts(book: Playbook, tasks: list[Any]) -> bool:
    """Whether a play may gather facts (its ``gather_facts`` is not false) or a task runs ``setup``."""
    from engine.booleans import boolean

    for play in book.plays:
        value = play.data.get("gather_facts") if isinstance(play.data, dict) else None
        try:
            if value is None or not isinstance(value, (bool, str, int)) or boolean(value):
                return True
        except (TypeError, ValueError):
            return True
    return any(task.action in GATHERING_ACTIONS for task in tasks)
