"""``ansible_play_hosts`` and ``ansible_play_batch`` as a task sees them: the play's hosts (its
batch's) less ``play._removed_hosts``, the hosts that failed (not rescued), ended (``end_host``,
``end_batch``, ``end_play``) or failed in an earlier play. The plan knows some removals for
certain, and some only maybe: a list a maybe-removed host may be missing from is the run's."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

PLAY_LISTS = frozenset({"ansible_play_hosts", "ansible_play_batch", "play_hosts"})
_LAST_KEPT = 64


@dataclass(frozen=True)
class RemovedHosts:
    certain: frozenset[str]
    maybe: frozenset[str]
    batches: tuple[tuple[str, ...], ...]
    settled: tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]] | None = None
    """Once the whole play is planned: the hosts out (certainly, maybe) before the play, and those
    the play fails (certainly, maybe). A ``serial`` batch runs every task before the next batch
    starts, with the play's hosts less the failed ones (ansible's task queue manager marks them
    failed again in each batch): a host of an earlier batch is out by then if the play failed it
    anywhere (one a meta action ended is back), one of a later batch only if it was out before the
    play."""
    _made: dict[tuple[str, int, type, tuple[Any, ...]], tuple[Any, tuple[Any, str | None]]] = field(
        default_factory=dict, init=False, compare=False, repr=False)
    """What :meth:`value` gave, per list, batch and the list's items: every host of a batch reads the
    same list, so each is made once per batch, not once per host (thousands of hosts, each list as
    long); a task's values make their lists anew, so one made for an earlier task with the same
    items (the hosts removed being the same while this object is) is that task's too."""
    _last: dict[tuple[str, int, int], tuple[Any, tuple[Any, str | None]]] = field(
        default_factory=dict, init=False, compare=False, repr=False)
    """The list objects given lately per list and batch (by id, each kept with its answer): no key
    made of its items. The hosts of a task ask with one or two list objects, which the play's tasks
    share (engine.variables.play_context.PlayLists)."""

    def value(self, name: str, value: Any, host: str) -> tuple[Any, str | None]:
        """The list ``name`` holds on ``host`` now (its static ``value`` less the removed hosts),
        or why only the run knows it."""
        if name not in PLAY_LISTS or not isinstance(value, list):
            return value, None
        if not (self.certain or self.maybe) and (name != "ansible_play_hosts" or len(self.batches) < 2 or
                                                 self.settled is None):
            return value, None  # nothing removed: the list itself (:meth:`_value`)
        batch = self._batch_of.get(host, -1)
        last = self._last.get((name, batch, id(value)))
        if last is not None and last[0] is value:
            return last[1]
        # its items decide the answer (host names: equal ones are alike), and its type what the caller makes of it
        key = (name, batch, type(value), tuple(value))
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = (value, self._value(name, value, host))
        less, reason = made[1]
        found = (value if less is made[0] else less, reason)  # an unchanged list: the one asked with
        if len(self._last) >= _LAST_KEPT:  # lists made for one reading (a run-ordered one) come and go
            self._last.clear()
        self._last[(name, batch, id(value))] = (value, found)
        return found

    @cached_property
    def _batch_of(self) -> dict[str, int]:
        """Each host's batch (the first that holds it)."""
        return {member: index for index, batch in reversed(list(enumerate(self.batches))) for member in batch}

    def _value(self, name: str, value: list[Any], host: str) -> tuple[Any, str | None]:
        if name == "ansible_play_hosts" and len(self.batches) > 1 and self.settled is not None:
            return self._across_batches(value, host)
        if not (self.certain or self.maybe):
            return value, None
        if name == "ansible_play_hosts":
            if len(self.batches) > 1:  # other batches remove hosts before or after this one runs
                return None, "the hosts other batches of the play failed or ended (the run's to know)"
            relevant = frozenset(value)
        else:
            at = self._batch_of.get(host)
            relevant = frozenset(self.batches[at] if at is not None else value)
        uncertain = _uncertain(self.maybe, relevant)
        if uncertain is not None:
            return None, uncertain
        return [item for item in value if item not in self.certain], None

    def _across_batches(self, value: list[Any], host: str) -> tuple[Any, str | None]:
        """``ansible_play_hosts`` on ``host`` of a play in several batches (:attr:`settled`)."""
        assert self.settled is not None
        before_certain, before_maybe, play_certain, play_maybe = self.settled
        at = self._batch_of.get(host, 0)
        earlier = {name for batch in self.batches[:at] for name in batch}
        own = set(self.batches[at])
        out: set[str] = set()
        uncertain: set[str] = set()
        for name in value:
            if name in own:
                certain, maybe = name in self.certain, name in self.maybe
            elif name in earlier:
                certain, maybe = name in play_certain or name in before_certain, name in play_maybe | before_maybe
            else:
                certain, maybe = name in before_certain, name in before_maybe
            out.update([name] if certain else [])
            uncertain.update([name] if maybe and not certain else [])
        if uncertain:
            return None, f"whether {', '.join(sorted(uncertain))} failed or ended before (the run's to know)"
        return [name for name in value if name not in out], None


@lru_cache(maxsize=_LAST_KEPT)
def _uncertain(maybe: frozenset[str], relevant: frozenset[str]) -> str | None:
    """Why a list of the ``relevant`` hosts is the run's to know, when some of them ``maybe`` failed
    or ended: the same for the play's lists (its hosts, its batch's) and for the tasks while the
    hosts removed stay the same (thousands of names sorted and joined once, not per list and task)."""
    uncertain = sorted(maybe & relevant)
    return f"whether {', '.join(uncertain)} failed or ended earlier in the play (the run's to know)" if uncertain \
        else None
