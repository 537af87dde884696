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
