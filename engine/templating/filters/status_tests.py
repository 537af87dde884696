"""ansible-core's ``finished`` and ``started`` tests (plugins/test/core.py) and its URI tests
(plugins/test/uri.py), as they run there."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlparse

from engine.templating.errors import TemplateFailure
from engine.templating.plugin_reports import warn


def _async_state(key: str, verb: str) -> Callable[[Any], bool]:
    """An async result's ``finished``/``started``; another result (not async) warns and counts
    as done."""
    def test(result: Any) -> bool:
        if not isinstance(result, Mapping):
            raise TemplateFailure(f"The '{key}' test expects a dictionary")
        if key in result:
            return bool(result.get(key))
        warn(f"The '{key}' test expects an async task, but a non-async task was tested")
        return True

    test.__name__ = verb
    return test


def is_uri(value: Any, schemes: Any = None) -> bool:
    try:
        parsed = urlparse(value)
        return all([parsed.scheme is not None, parsed.path is not None, not schemes or parsed.scheme in schemes])
    except Exception:  # noqa: BLE001 - ansible's own catch-all: not a URI
        return False


def is_url(value: Any, schemes: Any = None) -> bool:
    if not is_uri(value, schemes):
        return False
    parsed = urlparse(value)
    return bool(parsed.netloc or parsed.scheme == "file")


def is_urn(value: Any) -> bool:
    return is_uri(value, ["urn"])


TESTS: dict[str, Callable[..., bool]] = {
    "finished": _async_state("finished", "finished"),
    "started": _async_state("started", "started"),
    "uri": is_uri,
    "url": is_url,
    "urn": is_urn,
}
