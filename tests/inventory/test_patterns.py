"""Host patterns and ``--limit`` compared with ansible's own selection.

``fixtures/patterns/cases.json`` holds, for each inventory/pattern/limit, what
``ansible PATTERN -i INVENTORY --list-hosts [--limit LIMIT]`` printed (run in that folder).
The offline test checks :func:`select_hosts` against it, order included; the ``ansible`` test
re-runs the real tool and fails on any difference (``PLAYBOOK_LS_REGENERATE=1`` rewrites the file).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from ansible_tools import find_tool, live_sample

from engine.inventory.data import InventoryData
from engine.inventory.manager import load_inventory
from engine.inventory.patterns import (
    EMPTY_INVENTORY_WARNING,
    HostPatternError,
    hosts_to_target,
    order_patterns,
    select_hosts,
    split_host_pattern,
)

FIXTURES = Path(__file__).parent / "fixtures" / "patterns"
CASES_FILE = FIXTURES / "cases.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text())
ANSIBLE = find_tool("ansible")
NO_HOSTS_ERROR = "Specified inventory, host pattern and/or --limit leaves us with no hosts to target."


def _case_id(case: dict[str, Any]) -> str:
    limit = f" --limit {case['limit']}" if case["limit"] is not None else ""
    return f"{case['inventory']}:{case['pattern']}{limit}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_selection_matches_ansible(case: dict[str, Any]) -> None:
    # a fresh inventory per case, as each ansible run has: the implicit localhost is created
    # once per inventory, named after the first localhost-like pattern that asks for it
    inventory = load_inventory([str(FIXTURES / case["inventory"])]).data
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(HostPatternError) as raised:
            select_hosts(inventory, case["pattern"], case["limit"], basedir=str(FIXTURES))
        assert str(raised.value).startswith(expected["error"])
    else:
        hosts = select_hosts(inventory, case["pattern"], case["limit"], basedir=str(FIXTURES))
        assert [h.name for h in hosts] == expected["hosts"]


def test_fixture_covers_every_syntax() -> None:
    patterns = [c["pattern"] for c in CASES] + [c["limit"] for c in CASES if c["limit"]]
    for marker in (":", ",", "&", "!", "~", "*", "?", "[0]", "[-1]", "[1:3]", "[1:]", "@", "::"):
        assert any(marker in p for p in patterns), marker
    assert len(CASES) >= 40
    assert sum("error" in c["expected"] for c in CASES) >= 3


@pytest.mark.parametrize(("pattern", "expected"), [
    ("a,b[1], c[2:3] , d", ["a", "b[1]", "c[2:3]", "d"]),
    ("web:db:!web1", ["web", "db", "!web1"]),
    ("fe80::1", ["fe80::1"]),
    ("web[1:3]", ["web[1:3]"]),
    ("web[1:3]:db", ["web[1:3]", "db"]),
    (["a:b", "c,d"], ["a", "b", "c", "d"]),
    ("", []),
])
def test_split_host_pattern(pattern: str | list[str], expected: list[str]) -> None:
    assert split_host_pattern(pattern) == expected


def test_order_patterns_puts_intersections_then_exclusions_last() -> None:
    assert order_patterns(["!a", "&b", "c", "", "d"]) == ["c", "d", "&b", "!a"]
    assert order_patterns(["!a"]) == ["all", "!a"]


def test_unmatched_pattern_warns_like_ansible() -> None:
    inventory = InventoryData()
    inventory.add_group("web")
    inventory.add_host("web1", "web")
    inventory.reconcile_inventory()
    warnings: list[str] = []
    assert [h.name for h in select_hosts(inventory, "nosuch:web", warnings=warnings)] == ["web1"]
    assert warnings == ["Could not match supplied host pattern, ignoring: nosuch"]


def test_empty_pattern_list_selects_nothing_and_empty_string_selects_all() -> None:
    inventory = InventoryData()
    inventory.add_host("solo")
    inventory.reconcile_inventory()
    assert select_hosts(inventory, []) == []
    assert [h.name for h in select_hosts(inventory, "")] == ["solo"]


# --- the real tool -------------------------------------------------------------------------

def _ansible_list_hosts(case: dict[str, Any], limit: str | None) -> tuple[list[str] | None, str | None]:
    command = [str(ANSIBLE), case["pattern"], "-i", case["inventory"], "--list-hosts"]
    if limit is not None:
        command += ["--limit", limit]
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0"}
    done = subprocess.run(command, cwd=FIXTURES, capture_output=True, text=True, env=env, timeout=120)
    errors = re.findall(r"^\[ERROR\]: (.*)$", done.stderr, re.M)
    if done.returncode != 0:
        return None, errors[0] if errors else done.stderr.strip()
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"^  hosts \(\d+\):$", line))
    return [line.strip() for line in lines[start + 1:] if line.startswith("    ")], None


def _record(case: dict[str, Any]) -> dict[str, Any]:
    """What ansible selects, or the error it raises for the pattern.

    Without ``--limit`` the ad-hoc command hides pattern errors behind "no hosts", so an empty
    result is re-checked with ``--limit all``, which reports them and changes nothing else.
    """
    hosts, error = _ansible_list_hosts(case, case["limit"])
    if hosts == [] and case["limit"] is None:
        _, error = _ansible_list_hosts(case, "all")
    if error is None or error == NO_HOSTS_ERROR:
        return {"hosts": hosts or []}
    return {"error": re.sub(r"b'([^']*)'", r"\1", error)}


@pytest.mark.ansible
def test_recorded_cases_match_real_ansible() -> None:
    if ANSIBLE is None:
        pytest.skip("ansible is not installed")
    regenerate = bool(os.environ.get("PLAYBOOK_LS_REGENERATE"))
    sampled = set(live_sample([_case_id(case) for case in CASES]))  # PLAYBOOK_LS_LIVE=all: every case
    cases = CASES if regenerate else [case for case in CASES if _case_id(case) in sampled]
    with ThreadPoolExecutor(max_workers=2) as pool:
        recorded = list(pool.map(_record, cases))
    if regenerate:
        updated = [{**case, "expected": result} for case, result in zip(cases, recorded, strict=True)]
        CASES_FILE.write_text(json.dumps(updated, indent=1) + "\n")
    differences = [(_case_id(c), c["expected"], r) for c, r in zip(cases, recorded, strict=True) if c["expected"] != r]
    assert differences == []


# --- the hosts a command targets (ansible's CLI.get_host_list) ------------------------------

def _web_inventory() -> InventoryData:
    inventory = InventoryData()
    inventory.add_group("web")
    for name in ("web1", "web2", "web3"):
        inventory.add_host(name, "web")
    inventory.reconcile_inventory()
    return inventory


@pytest.mark.parametrize(("pattern", "limit", "error"), [
    ("all", "web[10]", "No hosts matched the subscripted pattern 'web[10]'"),
    ("all", "web[5:20]", NO_HOSTS_ERROR),  # a slice past the end is empty, not an error
    ("all", "nomatch", NO_HOSTS_ERROR),
    ("web[10]", None, "No hosts matched the subscripted pattern 'web[10]'"),
])
def test_targets_fail_as_ansible_when_nothing_is_selected(pattern: str, limit: str | None, error: str) -> None:
    with pytest.raises(HostPatternError) as raised:
        hosts_to_target(_web_inventory(), pattern, limit)
    assert str(raised.value) == error


def test_targets_of_an_empty_inventory_only_warn() -> None:
    warnings: list[str] = []
    assert hosts_to_target(InventoryData(), "all", "nomatch", warnings) == []
    assert warnings == [EMPTY_INVENTORY_WARNING, "Could not match supplied host pattern, ignoring: nomatch"]
    quiet: list[str] = []
    assert hosts_to_target(InventoryData(), "all", None, quiet, localhost_warning=False) == []
    assert quiet == []


def test_targets_keep_the_implicit_localhost_a_limit_leaves_out() -> None:
    warnings: list[str] = []
    hosts = hosts_to_target(_web_inventory(), "localhost", "web1", warnings)
    assert [h.name for h in hosts] == ["localhost"] and warnings == []
