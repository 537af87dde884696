"""``human_to_bytes`` and ``human_readable`` give what ansible-core's filters give, and fail where
they fail: on fixed cases, and compared with ansible-core itself where it is installed."""

from __future__ import annotations

from typing import Any

import pytest

from engine.templating.errors import TemplateFailure
from engine.templating.filters.sizes import human_readable, human_to_bytes

TO_BYTES: list[tuple[Any, dict[str, Any], int]] = [
    ("1GB", {}, 1 << 30), ("512MB", {}, 512 << 20), ("10", {}, 10), (1, {"default_unit": "G"}, 1 << 30),
    ("1.5K", {}, 1536), ("2 kilobyte", {}, 2048), ("1Mb", {"isbits": True}, 1 << 20), ("3b", {}, 3),
]
READABLE: list[tuple[Any, dict[str, Any], str]] = [
    (8 << 30, {}, "8.00 GB"), (1, {}, "1.00 Bytes"), (1536, {}, "1.50 KB"), (8 << 30, {"unit": "M"}, "8192.00 MB"),
    (8 << 30, {"isbits": True, "unit": "G"}, "8.00 Gb"), (0, {}, "0.00 Bytes"),
]
FAILING_TO_BYTES: list[tuple[Any, dict[str, Any]]] = [("12 XB", {}), ("1.5Mb", {}), ("1MB", {"isbits": True}),
                                                      ("lots", {}), ("", {})]


@pytest.mark.parametrize(("value", "options", "expected"), TO_BYTES)
def test_human_to_bytes(value: Any, options: dict[str, Any], expected: int) -> None:
    assert human_to_bytes(value, **options) == expected


@pytest.mark.parametrize(("value", "options", "expected"), READABLE)
def test_human_readable(value: Any, options: dict[str, Any], expected: str) -> None:
    assert human_readable(value, **options) == expected


@pytest.mark.parametrize(("value", "options"), FAILING_TO_BYTES)
def test_human_to_bytes_fails_as_ansible(value: Any, options: dict[str, Any]) -> None:
    with pytest.raises(TemplateFailure, match=r"human_to_bytes\(\) can't interpret the input"):
        human_to_bytes(value, **options)


def test_human_readable_of_text_fails() -> None:
    with pytest.raises(TemplateFailure, match=r"human_readable\(\) failed on bad input"):
        human_readable("1024")


@pytest.mark.parametrize(("value", "options", "expected"), TO_BYTES)
def test_to_bytes_same_as_ansible_core(value: Any, options: dict[str, Any], expected: int) -> None:
    core = pytest.importorskip("ansible.plugins.filter.mathstuff")
    assert core.human_to_bytes(value, **options) == human_to_bytes(value, **options)


@pytest.mark.parametrize(("value", "options", "expected"), READABLE)
def test_readable_same_as_ansible_core(value: Any, options: dict[str, Any], expected: str) -> None:
    core = pytest.importorskip("ansible.plugins.filter.mathstuff")
    assert core.human_readable(value, **options) == human_readable(value, **options)


@pytest.mark.parametrize(("value", "options"), FAILING_TO_BYTES)
def test_failures_same_as_ansible_core(value: Any, options: dict[str, Any]) -> None:
    core = pytest.importorskip("ansible.plugins.filter.mathstuff")
    with pytest.raises(Exception) as theirs:  # noqa: PT011 - ansible's own error class
        core.human_to_bytes(value, **options)
    with pytest.raises(TemplateFailure) as ours:
        human_to_bytes(value, **options)
    assert f"{ours.value}: {ours.value.__cause__}".rstrip() == str(theirs.value)  # ansible strips its message
