"""``serial`` and ``max_fail_percentage``: a play run in batches of hosts.

``PlaybookExecutor._get_serialized_batches``: ``serial`` is a number, a percentage of the
play's hosts (``"30%"``, rounded down, at least 1) or a list of them, the last one repeating
until every host is in a batch; 0 or less puts the rest in one batch. Each batch runs the whole
play (its header, tasks and handlers). The playbook stops after a batch whose hosts all failed,
or when a task leaves more than ``max_fail_percentage`` of the batch failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from engine.loading.model import Play
from engine.templating.templar import Templar, TemplateFailure

if TYPE_CHECKING:
    from engine.flow.plan import PlayPlan
    from engine.inventory.data import Host

T = TypeVar("T")


class BatchError(Exception):
    """``serial`` or ``max_fail_percentage`` has a value ansible refuses."""


def _keyword(play: Play, name: str) -> Any:
    data = play.data if isinstance(play.data, Mapping) else {}
    return data.get(name)


def pct_to_int(value: Any, num_items: int, min_value: int = 1) -> int:
    """``ansible.utils.helpers.pct_to_int``."""
    if isinstance(value, str) and value.endswith("%"):
        return int((int(value.replace("%", "")) / 100.0) * num_items) or min_value
    return int(value)


def serial_of(play: Play, templar: Templar) -> list[Any]:
    """The play's ``serial`` as the list ansible validates it into (empty: no batches)."""
    raw = _keyword(play, "serial")
    if raw is None:
        return []
    try:
        value = templar.template(raw)
    except TemplateFailure as exc:
        raise BatchError(str(exc)) from None
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def serialized_batches(hosts: list[T], serial: list[Any]) -> list[list[T]]:
    """``_get_serialized_batches`` over ``hosts`` (the play's hosts, in order)."""
    remaining = list(hosts)
    total = len(remaining)
    sizes = serial or [-1]
    batches: list[list[T]] = []
    current = 0
    while remaining:
        try:
            size = pct_to_int(sizes[current], total)
        except (TypeError, ValueError):
            raise BatchError(f"the field 'serial' has an invalid value ({sizes[current]}), "
                             "and could not be converted to an int") from None
        if size <= 0:
            batches.append(remaining)
            break
        batches.append(remaining[:size])
        remaining = remaining[size:]
        current = min(current + 1, len(sizes) - 1)
    return batches


def max_fail_percentage(play: Play, templar: Templar) -> float | None:
    """The play's ``max_fail_percentage`` (isa percent: ``"30%"`` or ``30``), or None."""
    raw = _keyword(play, "max_fail_percentage")
    if raw is None:
        return None
    try:
        value = templar.template(raw)
        if isinstance(value, str):
            value = value.replace("%", "")
        return float(value)
    except (TemplateFailure, TypeError, ValueError):
        raise BatchError(f"the field 'max_fail_percentage' has an invalid value ({raw}), "
                         "and could not be converted to a percent") from None


def too_many_failed(failed: int, batch_size: int, percentage: float | None) -> bool:
    """The linear strategy's check after each task: more than the percentage of the batch failed."""
    return percentage is not None and batch_size > 0 and failed / batch_size > percentage / 100.0


def play_batches(play: Play, hosts: list[str]) -> list[list[str]]:
    """The play's hosts in its ``serial`` batches (templated with the play's vars), as a run
    makes them; one batch when ``serial`` is not set or cannot be known."""
    known = known_batches(play, hosts)
    return [hosts] if known is None else known


def known_batches(play: Play, hosts: list[str]) -> list[list[str]] | None:
    """:func:`play_batches`, None when ``serial`` cannot be known before the run."""
    try:
        return serialized_batches(hosts, serial_of(play, Templar(play.vars, bounded=True)))
    except BatchError:
        return None


def _places(play_plan: PlayPlan) -> tuple[list[list[Host]], dict[int, int], dict[str, int]]:
    """The play's ``serial`` batches (their hosts), and each host's batch by the host and by its
    name: once per list of the play's hosts, not per reading (each made them again: hosts x hosts)."""
    kept = play_plan.__dict__.get("batches run")
    if kept is None or kept[0] is not play_plan.hosts or kept[1] != len(play_plan.hosts):
        by_name = {h.name: h for h in play_plan.hosts}
        batches = [[by_name[name] for name in batch if name in by_name]
                   for batch in play_batches(play_plan.play, list(by_name))]
        batches = [batch for batch in batches if batch]
        places = {id(h): at for at, batch in enumerate(batches) for h in batch}
        named: dict[str, int] = {}
        for at, batch in enumerate(batches):
            named.update((h.name, at) for h in batch if h.name not in named)
        kept = play_plan.__dict__["batches run"] = (play_plan.hosts, len(play_plan.hosts), batches, places, named)
    return kept[2], kept[3], kept[4]


def batches_run(play_plan: PlayPlan, reader: Host | None, earlier: bool) -> list[list[Host]]:
    """The play's ``serial`` batches (their hosts) that have run by the time ``reader`` reads: its
    own and those before (``earlier``: only those before); every batch for a host out of the play."""
    batches, places, _ = _places(play_plan)
    upto = places.get(id(reader)) if reader is not None else None
    if upto is None:
        return [] if earlier else batches
    return batches[: upto if earlier else upto + 1]


def batch_place(play_plan: PlayPlan, host: Host, reader: Host) -> int:
    """Where ``host``'s ``serial`` batch comes against ``reader``'s: -1 before, 0 the same (or
    either in none), 1 after."""
    _, _, named = _places(play_plan)
    mine, theirs = named.get(host.name), named.get(reader.name)
    return 0 if mine is None or theirs is None else (mine > theirs) - (mine < theirs)


def host_batch(play_plan: PlayPlan, name: str) -> list[Host]:
    """The hosts of the ``serial`` batch of the host named ``name`` (the play's hosts when it is in
    none)."""
    batches, _, named = _places(play_plan)
    at = named.get(name)
    return play_plan.hosts if at is None else batches[at]
