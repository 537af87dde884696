"""Host addresses with optional ports and ranges: a port of ansible's ``parsing/utils/addresses.py``.

The regular expressions are ansible's, so ``host:port``, ``[ipv6]:port``, bare IPv6 addresses
and ``web[01:03]`` range patterns are accepted or refused exactly as ansible does.
"""

from __future__ import annotations

import re

_NUMERIC_RANGE = r"""
    \[
        (?:[0-9]+:[0-9]+)               # numeric begin:end
        (?::[0-9]+)?                    # numeric :step (optional)
    \]
"""

_HEXADECIMAL_RANGE = r"""
    \[
        (?:[0-9a-f]+:[0-9a-f]+)         # hexadecimal begin:end
        (?::[0-9]+)?                    # numeric :step (optional)
    \]
"""

_ALPHANUMERIC_RANGE = r"""
    \[
        (?:
            [a-z]:[a-z]|                # one-char alphabetic range
            [0-9]+:[0-9]+               # ...or a numeric one
        )
        (?::[0-9]+)?                    # numeric :step (optional)
    \]
"""

_IPV6_COMPONENT = rf"""
    (?:
        [0-9a-f]{{1,4}}|                # 0..ffff
        {_HEXADECIMAL_RANGE}            # or a numeric range
    )
"""

_IPV4_COMPONENT = rf"""
    (?:
        [01]?[0-9]{{1,2}}|              # 0..199
        2[0-4][0-9]|                    # 200..249
        25[0-5]|                        # 250..255
        {_NUMERIC_RANGE}                # or a numeric range
    )
"""

_LABEL = rf"""
    (?:[\w]|{_ALPHANUMERIC_RANGE})      # Starts with an alphanumeric or a range
    (?:[\w_-]|{_ALPHANUMERIC_RANGE})*   # Then zero or more of the same or [_-]
    (?<![_-])                           # ...as long as it didn't end with [_-]
"""

_SOURCES: dict[str, tuple[str, int]] = {
    "bracketed_hostport": (r"""^
        \[(.+)\]                    # [host identifier]
        :([0-9]+)                   # :port number
        $""", re.X),
    "hostport": (r"""^
        ((?:                        # a non-range character or a complete bracketed expression,
            [^:\[\]]
            |
            \[[^\]]*\]
        )*)                         # repeated as many times as possible
        :([0-9]+)                   # followed by a port number
        $""", re.X),
    "ipv4": (rf"""^
        (?:{_IPV4_COMPONENT}\.){{3}}{_IPV4_COMPONENT}
        $""", re.X | re.I),
    "ipv6": (r"""^
        ((?:{0}:){{7}}{0}|
        (?:{0}:){{1,6}}:|
        (?:{0}:)(?::{0}){{1,6}}|
        (?:{0}:){{2}}(?::{0}){{1,5}}|
        (?:{0}:){{3}}(?::{0}){{1,4}}|
        (?:{0}:){{4}}(?::{0}){{1,3}}|
        (?:{0}:){{5}}(?::{0}){{1,2}}|
        (?:{0}:){{6}}(?::{0})|
        :(?::{0}){{1,6}}|
        {0}?::|
        (?:0:){{6}}(?:{0}\.){{3}}{0}|
        ::(?:ffff:)?(?:{0}\.){{3}}{0}|
        (?:0:){{5}}ffff:(?:{0}\.){{3}}{0})
        $""".format(_IPV6_COMPONENT), re.X | re.I),  # noqa: UP032 - ansible's spelling, kept to compare
    "hostname": (rf"""^
        {_LABEL}
        (?:\.{_LABEL})*
        $""", re.X | re.I | re.UNICODE),
}


class _Patterns(dict[str, "re.Pattern[str]"]):
    """Each pattern compiled when first used: compiling all of them costs more than most runs
    spend matching (the IPv6 one alone is a few milliseconds)."""

    def __missing__(self, kind: str) -> re.Pattern[str]:
        pattern = self[kind] = re.compile(*_SOURCES[kind])
        return pattern


PATTERNS: dict[str, re.Pattern[str]] = _Patterns()


class AddressError(Exception):
    """Not a host identifier (ansible: "Not a valid network hostname: ...")."""


def _plain_hostname(address: str) -> bool:
    """Dot-separated labels of ASCII letters, digits, ``-`` and ``_``, each starting and ending
    with a letter or digit: ansible's hostname pattern accepts every such name (``localhost``,
    ``web-1.example.com``), so the patterns, a few milliseconds to compile, are not needed."""
    if not address.isascii():
        return False
    for label in address.split("."):
        if not (label and label[0].isalnum() and label[-1].isalnum()
                and label.replace("-", "").replace("_", "").isalnum()):
            return False
    return True


_IPV4_CHARACTERS = frozenset("0123456789.[]:")  # numbers, dots, numeric ranges
_IPV6_CHARACTERS = frozenset("0123456789abcdefABCDEF.[]:")


def _may_match(kind: str, address: str) -> bool:
    """False where the pattern cannot match ``address``: its last part is no port number, or it
    holds a character the pattern never accepts. Host patterns (``web:&db``) are tried as
    addresses first, and the IPv6 pattern alone takes milliseconds to compile."""
    if kind in ("bracketed_hostport", "hostport"):
        port = address.rpartition(":")[2]
        return ":" in address and port.isascii() and port.isdigit()
    if kind == "ipv4":
        return _IPV4_CHARACTERS.issuperset(address)
    if kind == "ipv6":
        return ":" in address and _IPV6_CHARACTERS.issuperset(address)
    return ":" not in address or "[" in address  # a hostname has colons only in its [a:b] ranges


def parse_address(address: str, allow_ranges: bool = False) -> tuple[str, int | None]:
    """``(host, port)`` from ``host``, ``host:port``, ``[host]:port`` or an IPv4/IPv6 address."""
    port: int | None = None
    if ":" not in address and _plain_hostname(address):
        return address, None  # what the patterns below conclude, without compiling them
    for kind in ("bracketed_hostport", "hostport"):
        match = PATTERNS[kind].match(address) if _may_match(kind, address) else None
        if match:
            address, port_text = match.groups()
            port = int(port_text)
    host = None
    for kind in ("ipv4", "ipv6", "hostname"):
        if _may_match(kind, address) and PATTERNS[kind].match(address):
            host = address
    if not host:
        raise AddressError(f"Not a valid network hostname: {address}")
    if not allow_ranges and "[" in host:
        raise AddressError("Detected range in host but was asked to ignore ranges")
    return host, port


def detect_range(line: str) -> bool:
    """Whether a host name holds a ``[x:y]`` range (ansible only looks for ``[``)."""
    return "[" in line


def expand_hostname_range(line: str) -> list[str]:
    """``web[01:03]`` -> ``web01 web02 web03``; ranges may be numeric (zero padding kept) or single
    letters, with an optional ``:step``; several ranges expand left to right. A port of ansible's
    function, raising the same exceptions (``ValueError`` for a malformed bracket) and messages."""
    if not line:
        return []
    head, nrange, tail = line.replace("[", "|", 1).replace("]", "|", 1).split("|")
    bounds = nrange.split(":")
    if len(bounds) not in (2, 3):
        raise AddressError("host range must be begin:end or begin:end:step")
    beg, end = bounds[0] or "0", bounds[1]
    step = bounds[2] if len(bounds) == 3 else 1
    if not end:
        raise AddressError("host range must specify end value")
    width = 0
    if beg[0] == "0" and len(beg) > 1:
        width = len(beg)
        if width != len(end):
            raise AddressError("host range must specify equal-length begin and end formats")
    import string  # only for ranges

    letters = string.ascii_letters
    seq: list[str] | range
    try:  # ansible looks the bounds up as substrings of ascii_letters; anything else is numeric
        i_beg, i_end = letters.index(beg), letters.index(end)
        if i_beg > i_end:
            raise AddressError("host range must have begin <= end")
        seq = list(letters[i_beg:i_end + 1:int(step)])
    except ValueError:
        seq = range(int(beg), int(end) + 1, int(step))
    hosts: list[str] = []
    for item in seq:
        name = f"{head}{str(item).zfill(width) if width else item}{tail}"
        hosts.extend(expand_hostname_range(name) if detect_range(name) else [name])
    return hosts


def expand_hostpattern(pattern: str) -> tuple[list[str], int | None]:
    """Host names and an optional port from one inventory host entry (ansible's ``_expand_hostpattern``)."""
    try:
        host, port = parse_address(pattern, allow_ranges=True)
    except Exception:  # not a recognisable address (even a non-string): ansible keeps the pattern as given
        host, port = pattern, None
    return (expand_hostname_range(host) if detect_range(host) else [host]), port
