"""``playbook-ls inventory`` (and ``list-tasks``'s host checks) against recorded ``ansible-inventory``,
``ansible --list-hosts`` and ``ansible-playbook --list-tasks`` output, byte for byte."""

from __future__ import annotations

import json

import pytest
from ansible_tools import live_sample
from inventory_cases import (
    ansible_inventory,
    load_cases,
    needs_tomli_w,
    read_expected,
    run_ansible,
    run_ours,
    tomli_w_installed,
)

CASES = load_cases()
CALLS = [(case, name, call) for case in CASES for name, call in case.invocations().items()]
IDS = [f"{case.name}:{name}" for case, name, _ in CALLS]


def test_enough_cases() -> None:
    assert len(CASES) >= 25


@pytest.mark.parametrize(("case", "name", "call"), CALLS, ids=IDS)
def test_same_as_ansible_inventory(case, name, call) -> None:
    if case.needs_ansible_core and ansible_inventory() is None:
        pytest.skip("the case's plugin is run by ansible-core, which is not installed")
    if needs_tomli_w(case, call) and not tomli_w_installed():
        pytest.skip("--toml needs tomli-w (in the test extra), which is not installed")
    expected = read_expected(case)[name]
    ours = run_ours(case, call)
    as_json = not {"--yaml", "--toml"} & set(call.args)
    if (name in ("list",) or name.startswith("host-")) and expected.exit_code == 0 and as_json:
        assert json.loads(ours.stdout) == json.loads(expected.stdout)
    assert ours.stdout == expected.stdout
    assert ours.exit_code == expected.exit_code
    assert ours.warnings == expected.warnings


LIVE = set(live_sample([case.name for case in CASES]))  # PLAYBOOK_LS_LIVE=all: every case


@pytest.mark.ansible
@pytest.mark.skipif(ansible_inventory() is None, reason="ansible-inventory not installed")
@pytest.mark.parametrize("case", [c for c in CASES if c.name in LIVE], ids=[c.name for c in CASES if c.name in LIVE])
def test_recordings_match_ansible(case) -> None:
    """The recorded files are what ansible-inventory prints today (re-record with inventory_cases.py)."""
    expected = read_expected(case)
    for name, call in case.invocations().items():
        if needs_tomli_w(case, call) and not tomli_w_installed():
            continue
        assert run_ansible(case, call) == expected[name], name
