"""ansible's ``random`` and ``shuffle`` filters (``plugins/filter/core.py``: ``rand``,
``randomize_list``). With a ``seed`` the choice is the same on every run (Python's ``Random``
seeded with it), which is what playbooks use to spread hosts over ports or minutes; without
one, only the run picks, so static evaluation says so instead of picking."""

from __future__ import annotations

from random import Random, SystemRandom
from typing import Any

from engine.templating.bounds import static_evaluation_in_progress


class RandomFilterError(ValueError):
    """What ansible raises as AnsibleFilterError: its message."""


def _generator(seed: Any, name: str) -> Random:
    if seed is None:
        if static_evaluation_in_progress():
            raise RandomFilterError(f"the {name} filter without a seed gives a value only the run picks")
        return SystemRandom()
    return Random(seed)


def random_filter(end: Any, start: Any = None, step: Any = None, seed: Any = None) -> Any:
    generator = _generator(seed, "random")
    if isinstance(end, int):
        return generator.randrange(start or 0, end, step or 1)
    if hasattr(end, "__iter__"):
        if start or step:
            raise RandomFilterError("start and step can only be used with integer values")
        return generator.choice(end)
    raise RandomFilterError("random can only be used on sequences and integers")


def shuffle_filter(items: Any, seed: Any = None) -> list[Any]:
    try:
        items = list(items)
    except Exception:  # noqa: BLE001 - ansible gives the value back unshuffled
        return items
    if seed:
        Random(seed).shuffle(items)
    elif static_evaluation_in_progress():
        raise RandomFilterError("the shuffle filter without a seed gives an order only the run picks")
    else:
        SystemRandom().shuffle(items)
    return items
