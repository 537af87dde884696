"""The included files a task's hosts announce once the task ran on every host, as
``IncludedFile.process_include_results`` groups them, and the files that are not there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine.run.callback import Callback


def announce_includes(pending: list[tuple[str, str, dict[str, Any], str | None]], callback: Callback,
                      warnings: Mapping[str, list[str]]) -> list[str]:
    """``v2_playbook_on_include`` for ``pending`` (host, file, item vars, why it is missing):
    equal file and item vars share a line and its hosts; a host that includes the same again
    starts another. A file that is not there is an error instead, and its hosts fail: returns
    them. Loading a file shows the ``warnings`` it met (by file) before its line. ``pending``
    is emptied."""
    files = grouped_includes(pending)
    pending.clear()
    failed: list[str] = []
    for path, special, hosts, missing in files:
        if missing is not None:
            callback.error(f"[ERROR]: {missing}\n\n")  # Display.error of the exception
            failed += [host for host in hosts if host not in failed]
            continue
        for warning in warnings.get(path, ()):
            callback.warning(warning)
        label = special.get("_ansible_item_label", special.get("item"))
        callback.included(path, hosts, label if label else None)
    return failed


def grouped_includes(pending: list[tuple[str, str, dict[str, Any], str | None]]
                     ) -> list[tuple[str, dict[str, Any], list[str], str | None]]:
    """``IncludedFile.process_include_results``: the includes of ``pending`` (host, file, item vars,
    why it is missing) in the order they first appear, each with its hosts; equal file and item
    vars share an include, and a host that includes the same again starts another."""
    files: list[tuple[str, dict[str, Any], list[str], str | None]] = []
    for host, path, special, missing in pending:
        start = 0
        while True:
            match = next((i for i in range(start, len(files)) if files[i][:2] == (path, special)), None)
            if match is None:
                files.append((path, special, [host], missing))
                break
            if host not in files[match][2]:
                files[match][2].append(host)
                break
            start = match + 1
    return files


def blocks_in_include_order(pending: list[tuple[str, str, dict[str, Any], str | None]],
                            chunks: Mapping[str, list[tuple[tuple[str, dict[str, Any]], list[Any]]]]
                            ) -> tuple[dict[str, list[Any]], list[Any]] | None:
    """Each host's included blocks in the order of the includes (:func:`grouped_includes`), as the
    linear strategy adds them (include after include, to the hosts of each), not in the order the
    host's own loop items came: a host whose first item names a file another host included
    earlier runs that file first. ``chunks``: per host, (file, item vars) and the blocks loaded
    for it, in the host's order. Also the blocks in the play's task list, each include's once,
    in that order. None when a host's chunks do not all match an include."""
    ordered: dict[str, list[Any]] = {host: [] for host in chunks}
    left = {host: list(own) for host, own in chunks.items()}
    sequence: list[Any] = []
    for path, special, hosts, _missing in grouped_includes(list(pending)):
        first = True
        for host in (host for host in hosts if host in left):
            index = next((i for i, (key, _) in enumerate(left[host]) if key == (path, special)), None)
            if index is None:
                continue
            blocks = left[host].pop(index)[1]
            ordered[host] += blocks
            if first:  # the include's blocks, loaded once for its hosts
                sequence += blocks
                first = False
    return None if any(left.values()) else (ordered, sequence)
