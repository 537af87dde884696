"""When a play gathers facts: ansible's implicit "Gathering Facts" task (``PlayIterator``).

Every play gets the task ``gather_facts`` named "Gathering Facts", with the play's
``gather_subset``, ``gather_timeout`` and ``fact_path`` as arguments. It is tagged ``always``
unless the play has tags (then it inherits the play's, like any task), and it is tag-filtered
like the play's tasks. Whether a host runs it depends on ``[defaults] gathering``
(``ANSIBLE_GATHERING``): implicit (unless ``gather_facts: false``), explicit (only with
``gather_facts: true``) or smart (as implicit, but not when the run has gathered the host's
facts already: this engine's fact cache is the run's memory, like ansible's default cache).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.booleans import boolean
from engine.config import config_value
from engine.loading.model import Block, Frame, Play, Task

GATHER_TASK_NAME = "Gathering Facts"
GATHER_OPTIONS = ("gather_subset", "gather_timeout", "fact_path")
POLICIES = ("implicit", "explicit", "smart")


def gathering_policy() -> str:
    """DEFAULT_GATHERING; ansible refuses a value outside its choices, this falls back to implicit."""
    value = (config_value("ANSIBLE_GATHERING", "defaults", "gathering") or "implicit").strip().lower()
    return value if value in POLICIES else "implicit"


def gather_block(play: Play) -> Block:
    """The implicit setup block of ``play``, its one task carrying the play's frame chain so that
    tags and an ``import_playbook``'s ``when`` reach it as they reach the play's tasks."""
    data = play.data if isinstance(play.data, Mapping) else {}
    chain = list(play.flush.block[0].chain[:-1]) if play.flush is not None and play.flush.block \
        else [play.frame]  # type: ignore[union-attr]
    frame = Frame("implicit", "implicit task: Gathering Facts", None)
    if not play.tags:  # "Unless play is specifically tagged, gathering should 'always' run"
        frame.keywords["tags"] = ["always"]
    args = {option: data[option] for option in GATHER_OPTIONS if data.get(option) is not None}
    task = Task(GATHER_TASK_NAME, "gather_facts", args, None, [*chain, frame])
    task.implicit = True
    block = Block(Frame("block", "implicit setup block", None), implicit=True)
    block.block.append(task)
    return block


def gathers(play: Play, policy: str, gathered_before: bool, templar: Any = None) -> bool:
    """Whether a host gathers facts at the start of ``play`` (``_get_next_task_from_state``)."""
    data = play.data if isinstance(play.data, Mapping) else {}
    value = data.get("gather_facts")
    if isinstance(value, str) and "{{" in value and templar is not None:
        value = templar.template(value)
    implied = value is None or boolean(value)
    if policy == "explicit":
        return value is not None and boolean(value)
    if policy == "smart":
        return implied and not gathered_before
    return implied
