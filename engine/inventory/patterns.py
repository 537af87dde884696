"""Host patterns: which hosts a play's ``hosts:`` and ``--limit`` select, and in what order.

A port of ansible-core 2.19's ``InventoryManager.get_hosts`` and the helpers it uses
(``split_host_pattern``, ``order_patterns``, ``_evaluate_patterns``, ``_match_one_pattern``,
``_split_subscript``, ``_apply_subscript``, ``_enumerate_matches``, ``_match_list`` and
``subset``), with the same quirks, because the order of hosts decides the order of a run:

- a pattern that is exactly a host name selects that host, even when a group has the name;
- regular patterns are applied first, then ``&`` intersections, then ``!`` exclusions,
  whatever order they were written in; a pattern of only ``&``/``!`` parts starts from ``all``;
- a group pattern selects the group's hosts; a glob or regex is also matched against host
  names; ``localhost``-like names give the implicit localhost when nothing else matched;
- ``--limit`` is evaluated the same way and filters the result, keeping the pattern's order.

No ansible import: this runs without ansible-core.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable

from engine import files
from engine.inventory.data import LOCALHOST
from engine.lazy_regex import LazyRegex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine.inventory.data import Host, InventoryData


PATTERN_WITH_SUBSCRIPT = LazyRegex(
    r"""^
        (.+)                    # A pattern expression ending with...
        \[(?:                   # A [subscript] expression comprising:
            (-?[0-9]+)|         # A single positive or negative number
            ([0-9]+)([:-])      # Or an x:y or x: range.
            ([0-9]*)
        )\]
        $
    """,
    re.X,
)
"""ansible's ``PATTERN_WITH_SUBSCRIPT``: ``name[3]``, ``name[-1]``, ``name[1:3]``, ``name[2:]``."""

COLON_SEPARATED_PATTERN = LazyRegex(
    r"""(?:         # something comprising:
        [^\s:\[\]]  # anything other than whitespace or ':[]'
        |           # ...or...
        \[[^\]]*\]  # a single complete bracketed expression
    )+              # occurring once or more
    """,
    re.X,
)

GLOB_OR_REGEX_MARKS = (".", "?", "*", "[")
"""A pattern containing one of these is matched against host names even when it matched groups."""

Subscript = tuple[int, int | None]

NO_HOSTS_TO_TARGET = "Specified inventory, host pattern and/or --limit leaves us with no hosts to target."
EMPTY_INVENTORY_WARNING = ("provided hosts list is empty, only localhost is available. Note that the implicit "
                           "localhost does not match 'all'")


class HostPatternError(ValueError):
    """A pattern or limit ansible refuses (ansible raises ``AnsibleError`` with this meaning)."""


def split_host_pattern(pattern: str | Iterable[str]) -> list[str]:
    """Split ``'a,b[1], c[2:3] , d'`` into ``['a', 'b[1]', 'c[2:3]', 'd']``, as ansible does.

    Commas separate patterns. Without a comma, a single host address (an IPv6 address, a
    ``[x:y]`` range) is kept whole, and otherwise ``:`` separates patterns (the old syntax).
    """
    if not isinstance(pattern, str):
        return [part for item in pattern for part in split_host_pattern(item)]
    if "," in pattern:
        patterns = pattern.split(",")
    elif _is_single_address(pattern):
        patterns = [pattern]
    else:
        patterns = COLON_SEPARATED_PATTERN.findall(pattern)
    return [p.strip() for p in patterns if p.strip()]


def _is_single_address(pattern: str) -> bool:
    """Whether ansible's ``parse_address(pattern, allow_ranges=True)`` accepts ``pattern``."""
    from engine.inventory.addresses import parse_address

    try:
        parse_address(pattern, allow_ranges=True)
    except Exception:  # any refusal means "not one address", exactly as ansible treats it
        return False
    return True


def order_patterns(patterns: list[str]) -> list[str]:
    """Regular patterns first, then ``&`` ones, then ``!`` ones; ``all`` when there is no regular one."""
    regular = [p for p in patterns if p and p[0] not in "!&"]
    intersections = [p for p in patterns if p and p[0] == "&"]
    exclusions = [p for p in patterns if p and p[0] == "!"]
    return (regular or ["all"]) + intersections + exclusions


def read_limit(limit: str | list[str], basedir: str | None = None) -> list[str]:
    """The ``--limit`` patterns, with each ``@file`` replaced by the lines of that file.

    ansible reads the file relative to the working directory; ``basedir`` stands for it here.
    """
    results: list[str] = []
    for item in split_host_pattern(limit):
        if item[0] != "@":
            results.append(item)
            continue
        path = os.path.join(basedir or os.getcwd(), item[1:])
        if not os.path.exists(path):
            raise HostPatternError(f"Unable to find limit file {item[1:]}: give an existing file of host names "
                                   "after '@', one per line")
        if not os.path.isfile(path):
            raise HostPatternError(f'Limit starting with "@" must be a file, not a directory: {item[1:]}')
        try:
            text = files.read_text(path, errors="surrogateescape")
        except OSError as exc:
            raise HostPatternError(f"cannot read limit file {item[1:]}: {exc.strerror or exc}") from None
        results.extend(line.strip() for line in text.split("\n"))
    return results


class HostSelector:
    """Evaluates patterns against one inventory, caching each single pattern like ansible does."""

    def __init__(self, inventory: InventoryData, warnings: list[str] | None = None,
                 mismatch: str = "warning") -> None:
        self.inventory = inventory
        self.warnings = warnings if warnings is not None else []
        self.mismatch = mismatch  # ansible's HOST_PATTERN_MISMATCH: warning, error or ignore
        self._pattern_cache: dict[str, list[Host]] = {}

    def evaluate(self, patterns: list[str]) -> list[Host]:
        """Hosts matching already split patterns, with ``&`` and ``!`` applied (``_evaluate_patterns``)."""
        hosts: list[Host] = []
        for pattern in order_patterns(patterns):
            if pattern in self.inventory.hosts:  # a plain host name is not matched against groups
                hosts.append(self.inventory.hosts[pattern])
                continue
            matched = self.match_one(pattern)
            if pattern[0] == "!":
                excluded = {id(h) for h in matched}
                hosts = [h for h in hosts if id(h) not in excluded]
            elif pattern[0] == "&":
                kept = {id(h) for h in matched}
                hosts = [h for h in hosts if id(h) in kept]
            else:
                existing = {h.name for h in hosts}
                hosts.extend(h for h in matched if h.name not in existing)
        return hosts

    def match_one(self, pattern: str) -> list[Host]:
        """Hosts matching one pattern, ignoring its ``&``/``!`` prefix (``_match_one_pattern``)."""
        if pattern[0] in "&!":
            pattern = pattern[1:]
        if pattern not in self._pattern_cache:
            expression, subscript = self._split_subscript(pattern)
            hosts = self._enumerate_matches(expression)
            try:
                hosts = _apply_subscript(hosts, subscript)
            except IndexError:
                raise HostPatternError(f"No hosts matched the subscripted pattern '{pattern}'") from None
            self._pattern_cache[pattern] = hosts
        return self._pattern_cache[pattern]

    def _split_subscript(self, pattern: str) -> tuple[str, Subscript | None]:
        """``'web[1:3]'`` -> ``('web', (1, 3))``; regexes (``~...``) never have a subscript."""
        if pattern[0] == "~" or "]" not in pattern:  # the expression ends with "]": no need to run it
            return pattern, None
        match = PATTERN_WITH_SUBSCRIPT.match(pattern)
        if not match:
            return pattern, None
        expression, index, start, separator, end = match.groups()
        if index:
            return expression, (int(index), None)
        if separator == "-":
            self.warnings.append("Use [x:y] inclusive subscripts instead of [x-y] which has been removed")
        return expression, (int(start), int(end) if end else -1)

    def _enumerate_matches(self, pattern: str) -> list[Host]:
        """Hosts of the groups ``pattern`` names, plus hosts it names when it is a glob or regex."""
        results: list[Host] = []
        matching_groups = _match_list(self.inventory.groups, pattern)
        for name in matching_groups:
            results.extend(self.inventory.groups[name].get_hosts())
        if not matching_groups or pattern[0] == "~" or any(mark in pattern for mark in GLOB_OR_REGEX_MARKS):
            results.extend(self.inventory.hosts[name] for name in _match_list(self.inventory.hosts, pattern))
        if not results and pattern in LOCALHOST:
            implicit = self.inventory.get_host(pattern)
            if implicit:
                results.append(implicit)
        if not results and not matching_groups and pattern != "all":
            message = f"Could not match supplied host pattern, ignoring: {pattern}"
            if self.mismatch == "warning":
                self.warnings.append(message)
            elif self.mismatch == "error":
                raise HostPatternError(message)
        return results


def _match_list(names: Iterable[str], pattern: str) -> list[str]:
    """Names matching a shell glob, or a regex after ``~`` (anchored at the start only, as ansible)."""
    try:
        compiled = re.compile(pattern[1:] if pattern[0] == "~" else fnmatch.translate(pattern))
    except re.error as exc:
        raise HostPatternError(f"Invalid host list pattern: {pattern} ({exc}); fix the regular expression "
                               "after '~'") from None
    return [name for name in names if compiled.match(name)]


def _apply_subscript(hosts: list[Host], subscript: Subscript | None) -> list[Host]:
    """ansible's inclusive slice: ``[1:3]`` is hosts 1, 2 and 3; ``[2:]`` runs to the end.

    Like ansible, an end of ``0`` (``[1:0]``) is read as "no end" and selects one host.
    """
    if not hosts or not subscript:
        return hosts
    start, end = subscript
    if end:
        if end == -1:
            end = len(hosts) - 1
        return hosts[start:end + 1]
    return [hosts[start]]


def _deduplicated(hosts: list[Host]) -> list[Host]:
    seen: set[int] = set()
    unique = []
    for host in hosts:
        if id(host) not in seen:
            seen.add(id(host))
            unique.append(host)
    return unique


def select_hosts(inventory: InventoryData, pattern: str | list[str], limit: str | list[str] | None = None,
                 basedir: str | None = None, warnings: list[str] | None = None,
                 mismatch: str = "warning") -> list[Host]:
    """The hosts a play with ``hosts: pattern`` runs on under ``--limit limit``, in ansible's order.

    ``basedir`` is where ``@file`` limits are looked up (the working directory by default).
    Warnings ansible would display (unmatched patterns) are appended to ``warnings``; with
    ``mismatch`` (ansible's ``host_pattern_mismatch``) ``"ignore"`` they are not, with ``"error"``
    an unmatched pattern raises.
    Raises :class:`HostPatternError` for an invalid regex, a subscript out of range, a
    missing limit file, or an unmatched pattern under ``mismatch="error"``.
    """
    pattern_list = list(pattern) if isinstance(pattern, list) else [pattern]
    if not pattern_list:
        return []
    selector = HostSelector(inventory, warnings, mismatch)
    hosts = selector.evaluate(split_host_pattern(pattern))
    subset = read_limit(limit, basedir) if limit is not None else []
    if subset:  # an empty limit restricts nothing, as in ansible
        allowed = {id(h) for h in selector.evaluate(subset)}
        hosts = [h for h in hosts if id(h) in allowed]
    return _deduplicated(hosts)


def hosts_to_target(inventory: InventoryData, pattern: str = "all", limit: str | None = None,
                    warnings: list[str] | None = None, mismatch: str = "warning",
                    localhost_warning: bool = True, basedir: str | None = None) -> list[Host]:
    """The hosts a command targets, checked as ansible's ``CLI.get_host_list`` checks them (the
    ad-hoc command's pattern, or ``all`` for ansible-playbook, under ``--limit``).

    An inventory without hosts only warns (``localhost_warning``, ansible's ``LOCALHOST_WARNING``,
    unless the pattern names localhost) and may select nothing; otherwise selecting nothing raises
    :class:`HostPatternError` with ansible's "leaves us with no hosts" message. Pattern errors
    (a subscript out of range, a mismatch under ``mismatch="error"``) raise as in :func:`select_hosts`.
    """
    warnings = warnings if warnings is not None else []
    empty_inventory = not select_hosts(inventory, "all")  # 'all' never warns
    if empty_inventory and localhost_warning and pattern not in LOCALHOST:
        warnings.append(EMPTY_INVENTORY_WARNING)
    hosts = select_hosts(inventory, pattern, limit, basedir, warnings, mismatch)
    if not hosts and pattern in LOCALHOST:  # ansible's list_hosts: the implicit localhost, limit or not
        implicit = inventory.get_host(pattern)
        hosts = [implicit] if implicit else []
    if not hosts and not empty_inventory:
        raise HostPatternError(NO_HOSTS_TO_TARGET)
    return hosts
