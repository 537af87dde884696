"""The regular-expression work of ansible's regex filters and tests and of the ``varnames``
lookup, as plain functions of plain values over Python's ``re``.

A run calls them in-process; static evaluation has :mod:`engine.templating.filters.regex_guard` call them in a
helper process, whose program is this file's source: so it imports nothing but the standard
library, and its functions take and give only what ``marshal`` carries (str, bytes, numbers,
None, lists, tuples). Arguments arrive prepared: the text already ``str()``-ed, the flags an int.
"""

from __future__ import annotations

import re
from typing import Any


class ResultTooLarge(ValueError):
    """A substitution would build more than the static evaluation's size limit."""


def regex_replace(text: str, pattern: Any, replacement: Any, flags: int, count: Any, limit: int | None) -> str:
    """``re.sub``; with a ``limit``, refused before it builds a longer result than that."""
    regex = re.compile(pattern, flags)
    if limit is not None:
        _refuse_large_replacement(regex, text, replacement, count, limit)
    return regex.sub(replacement, text, count=count)


def _refuse_large_replacement(regex: re.Pattern[str], text: str, replacement: Any, count: Any, limit: int) -> None:
    """An empty pattern over a long string with a long replacement multiplies the two."""
    references = len(re.findall(r"\\(?:\d|g<)", replacement))
    size = len(text)
    for found, match in enumerate(regex.finditer(text), start=1):
        size += len(replacement) + references * (match.end() - match.start())
        if size > limit:
            raise ResultTooLarge(f"regex_replace would make more than {limit:,} characters")
        if found == count:
            break


def regex_search(text: str, pattern: Any, groups: Any, flags: int) -> Any:
    """The match, or with groups (``'\\\\1'``, ``'\\\\g<name>'``) the list of those groups; None if no match."""
    wanted: list[Any] = []
    for group in groups:  # ansible's: \\g<name> by name, \\N by number, read before the search
        named = re.match(r"\\g<(\S+)>", group) if group.startswith("\\g") else None
        numbered = re.match(r"\\(\d+)", group) if group.startswith("\\") and named is None else None
        if named is None and numbered is None:
            raise ValueError("Unknown argument")
        wanted.append(named.group(1) if named is not None else int(numbered.group(1)))  # type: ignore[union-attr]
    match = re.compile(pattern, flags).search(text)
    if match is None:
        return None
    return [match.group(group) for group in wanted] if wanted else match.group()


def regex_findall(text: str, pattern: Any, flags: int) -> list[Any]:
    return re.findall(pattern, text, flags)


def regex_test(finder: str, text: str, pattern: Any, flags: int) -> bool:
    """The ``match`` (finder "match") and ``search`` (finder "search") tests."""
    return getattr(re.compile(pattern, flags), finder)(text) is not None


def names_searched(pattern: Any, names: list[str]) -> list[str]:
    """The ``varnames`` lookup's names matching ``pattern`` (``re.search``), in order."""
    compiled = re.compile(pattern)
    return [name for name in names if compiled.search(name)]


OPERATIONS = {function.__name__: function
              for function in (regex_replace, regex_search, regex_findall, regex_test, names_searched)}


def serve(requests: Any, replies: Any) -> None:
    """The helper's loop: a request is ``marshal((operation, args))`` after its length (4 bytes,
    big-endian), a reply ``("ok", result)``, ``("re.error", msg, pattern, pos)`` or ``("raise",
    type name, message)``, framed the same way. Ends when the requests do. An empty frame first
    says it is ready: its start-up is not a regex's running time."""
    import marshal

    replies.write(bytes(4))
    replies.flush()
    while True:
        head = requests.read(4)
        if len(head) < 4:
            return
        operation, args = marshal.loads(requests.read(int.from_bytes(head, "big")))
        try:
            reply: tuple[Any, ...] = ("ok", OPERATIONS[operation](*args))
        except re.error as exc:
            reply = ("re.error", exc.msg, exc.pattern, exc.pos)
        except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - every error goes back
            reply = ("raise", type(exc).__name__, str(exc))
        try:
            data = marshal.dumps(reply)
        except (ValueError, MemoryError) as exc:
            data = marshal.dumps(("raise", type(exc).__name__, str(exc)))
        replies.write(len(data).to_bytes(4, "big") + data)
        replies.flush()


def _limit_memory(limit: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


if __name__ == "__main__":
    import sys

    _limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30)
    serve(sys.stdin.buffer, sys.stdout.buffer)
