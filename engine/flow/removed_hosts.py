"""``ansible_play_hosts`` and ``ansible_play_batch`` as a task sees them: the play's hosts (its
batch's) less ``play._removed_hosts``, the hosts that failed (not rescued), ended (``end_host``,
``end_batch``, ``end_play``) or failed in an earlier play. The plan knows some removals for
certain, and some only maybe: a list a maybe-removed host may be missing from is the run's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PLAY_LISTS = frozenset({"ansible_play_hosts", "ansible_play_batch", "play_hosts"})


@dataclass(frozen=True)
class RemovedHosts:
    certain: frozenset[str]
    maybe: frozenset[str]
    batches: tuple[tuple[str, ...], ...]

    def value(self, name: str, value: Any, host: str) -> tuple[Any, str | None]:
        """The list ``name`` holds on ``host`` now (its static ``value`` less the removed hosts),
        or why only the run knows it."""
        if name not in PLAY_LISTS or not isinstance(value, list) or not (self.certain or self.maybe):
            return value, None
        if name == "ansible_play_hosts":
            if len(self.batches) > 1:  # other batches remove hosts before or after this one runs
                return None, "the hosts other batches of the play failed or ended (the run's to know)"
            relevant = set(value)
        else:
            relevant = next((set(batch) for batch in self.batches if host in batch), set(value))
        uncertain = sorted(self.maybe & relevant)
        if uncertain:
            return None, f"whether {', '.join(uncertain)} failed or ended earlier in the play (the run's to know)"
        return [item for item in value if item not in self.certain], None
