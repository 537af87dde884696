"""The ``version`` test gives what ansible-core's ``version_compare`` gives: on fixed cases, and
compared with ansible-core itself where it is installed."""

from __future__ import annotations

import pytest

from engine.templating.filters.version import VersionError, version_compare

CASES = [
    ("3.6.14", "3.5", ">=", {}, True),
    ("1.10", "1.9", "gt", {}, True),
    ("1.2.3", "1.2.3", "==", {}, True),
    ("2.0b1", "2.0", "<", {"strict": True}, True),
    ("2.0", "2.0.0", "eq", {"strict": True}, True),
    ("1.2.3", "1.2.3", "eq", {"version_type": "pep440"}, True),
    ("1.0rc1", "1.0", "lt", {"version_type": "pep440"}, True),
    ("5.5.kw", "5.5.kw", "==", {}, True),
    ("2g6", "11g", "lt", {}, True),
    ("1.10.0-beta.1", "1.10.0", "<", {"version_type": "semver"}, True),
    ("1.0.0-alpha", "1.0.0-alpha.1", "<", {"version_type": "semver"}, True),
    ("1.0.0-alpha.1", "1.0.0-alpha.beta", "<", {"version_type": "semver"}, True),
    ("1.0.0-beta.11", "1.0.0-beta.2", ">", {"version_type": "semantic"}, True),
    ("1.0.0-rc.1+build.5", "1.0.0-rc.1", "==", {"version_type": "semver"}, True),
    ("15.3.0", "15.3.0-rc.1", "gt", {"version_type": "semver"}, True),
    ("2.0.0", "10.0.0", "ge", {"version_type": "semver"}, False),
]


@pytest.mark.parametrize(("value", "version", "operator", "options", "expected"), CASES)
def test_version_compare(value: str, version: str, operator: str, options: dict, expected: bool) -> None:
    assert version_compare(value, version, operator, **options) is expected


@pytest.mark.parametrize(("value", "version", "operator", "options"), [
    ("1.0", "", "eq", {}), ("", "1.0", "eq", {}), ("1.0", "1.0", "~", {}), ("1.0", "1.0", "eq", {"version_type": "x"}),
    ("1.0", "1.0", "eq", {"strict": True, "version_type": "loose"}), ("1.0.x", "1.0", "eq", {"strict": True}),
    ("1.0", "1.a", "lt", {}), ("5.5.kw", "5.5.3", "!=", {}), ("1.0", "1.0.0", "lt", {"version_type": "semver"}),
    ("01.0.0", "1.0.0", "eq", {"version_type": "semver"}),
])
def test_errors_as_ansible_words_them(value: str, version: str, operator: str, options: dict) -> None:
    with pytest.raises(VersionError):
        version_compare(value, version, operator, **options)


@pytest.mark.parametrize(("value", "version", "operator", "options", "expected"), CASES)
def test_same_as_ansible_core(value: str, version: str, operator: str, options: dict, expected: bool) -> None:
    core = pytest.importorskip("ansible.plugins.test.core")
    assert core.version_compare(value, version, operator, **options) is version_compare(value, version, operator,
                                                                                          **options)
