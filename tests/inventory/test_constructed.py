"""The ``constructed`` plugin compared with ``ansible-inventory``.

Each folder in ``fixtures/constructed/`` (but ``shared``) holds a ``constructed.yml`` applied
after a static source; ``expected.json`` is what
``ansible-inventory -i ../shared/static.yml -i constructed.yml --list`` printed there
(a folder with its own ``static.yml`` uses that instead), plus
the error ansible reported for the constructed source, if any. The ``ansible`` test re-runs
the real tool (``PLAYBOOK_LS_REGENERATE=1`` rewrites the files).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ansible_tools import find_tool, live_sample

from engine.inventory.constructed import ConstructedError, ConstructedTemplar, parse_constructed
from engine.inventory.data import InventoryData
from engine.inventory.manager import Inventory, load_inventory
from playbook_ls.cli.inventory import list_inventory

FIXTURES = Path(__file__).parent / "fixtures" / "constructed"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "constructed.yml").exists())
ANSIBLE_INVENTORY = find_tool("ansible-inventory")


def _sources(case: str) -> list[str]:
    """The static source of the case (its own ``static.yml``, else the shared one), then constructed.yml."""
    static = "static.yml" if (FIXTURES / case / "static.yml").exists() else "../shared/static.yml"
    return [static, "constructed.yml"]


def _error_detail(message: str) -> str:
    """The plugin's own words, after the (machine specific) path of the source, with type names
    as Python's (ansible's are its internal tagged classes, e.g. ``_AnsibleTaggedInt``)."""
    detail = message.split("constructed.yml': ", 1)[-1].strip()
    return re.sub(r"<class '(?:[\w.]*\._AnsibleTagged)?(\w+)'>", lambda m: m.group(1).lower(), detail)


def _list_json(inventory: Inventory) -> dict[str, Any]:
    """``ansible-inventory --list``, as ``playbook-ls inventory --list`` prints it (minus the
    ``profile`` key, which the recorded cases left out)."""
    listed = list_inventory(inventory, inventory.data.groups["all"].get_hosts())
    listed["_meta"].pop("profile", None)
    return listed


def _run_ours(case: str) -> dict[str, Any]:
    folder = FIXTURES / case
    inventory = load_inventory([str(folder / s) for s in _sources(case)], dynamic=True)
    failures = [f.message for f in inventory.failures if f.plugin == "auto"]
    return {"list": _list_json(inventory), "error": _error_detail(failures[0]) if failures else None}


@pytest.mark.parametrize("case", CASES)
def test_constructed_matches_ansible_inventory(case: str) -> None:
    expected = json.loads((FIXTURES / case / "expected.json").read_text())
    assert _run_ours(case) == expected


def test_enough_cases() -> None:
    assert len(CASES) >= 8
    errors = [json.loads((FIXTURES / c / "expected.json").read_text())["error"] for c in CASES]
    assert sum(e is not None for e in errors) >= 3


def _small_inventory() -> InventoryData:
    inventory = InventoryData()
    inventory.add_group("web")
    inventory.add_host("web1", "web")
    inventory.set_variable("web1", "zone", "eu-west 1")
    inventory.add_host("web2", "web")
    inventory.reconcile_inventory()
    return inventory


def test_strict_failure_names_the_file_and_keeps_earlier_hosts() -> None:
    inventory = _small_inventory()
    with pytest.raises(ConstructedError, match=r"Failed to parse 'c.yml': Could not set z for host web2: .*zone"):
        parse_constructed(inventory, "c.yml", {"strict": True, "compose": {"z": "zone | upper"}})
    assert inventory.hosts["web1"].vars["z"] == "EU-WEST 1"


def test_keyed_group_names_are_sanitised_with_force() -> None:
    inventory = _small_inventory()
    parse_constructed(inventory, "c.yml", {"keyed_groups": [{"key": "zone", "prefix": "z", "parent_group": "a-b"}]})
    assert [h.name for h in inventory.groups["z_eu_west_1"].get_hosts()] == ["web1"]
    assert inventory.groups["a_b"].child_groups == [inventory.groups["z_eu_west_1"]]


def test_use_extra_vars_and_sandbox() -> None:
    inventory = _small_inventory()
    parse_constructed(inventory, "c.yml", {"use_extra_vars": True, "compose": {"x": "extra ~ '!'"}},
                      extra_vars={"extra": "hi"})
    assert inventory.hosts["web2"].vars["x"] == "hi!"
    templar = ConstructedTemplar()
    for hostile in ("''.__class__.__mro__", "'a' * 10000000", "range(10 ** 9) | list"):
        with pytest.raises(Exception):  # noqa: B017 - the sandbox refuses in different ways
            templar.evaluate_expression(hostile, {})


def test_conditionals_must_be_boolean() -> None:
    templar = ConstructedTemplar()
    assert templar.evaluate_conditional("x == 1", {"x": 1}) is True
    assert templar.evaluate_conditional("{{ x == 2 }}", {"x": 1}) is False
    with pytest.raises(TypeError, match="Conditionals must have a boolean result"):
        templar.evaluate_conditional("x", {"x": 1})


# --- the real tool -------------------------------------------------------------------------

def _unwrap(value: Any) -> Any:
    """Drop the legacy ``{"__ansible_unsafe": ...}`` wrappers ansible-inventory prints."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return _unwrap(value["__ansible_unsafe"])
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


def _record(case: str) -> dict[str, Any]:
    command = [str(ANSIBLE_INVENTORY), *[arg for s in _sources(case) for arg in ("-i", s)], "--list"]
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_DEPRECATION_WARNINGS": "0"}
    done = subprocess.run(command, cwd=FIXTURES / case, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    listing = _unwrap(json.loads(done.stdout))
    listing["_meta"].pop("profile", None)
    failed = re.search(r"Failed to parse inventory with 'auto' plugin: (.*)", done.stderr)
    return {"list": listing, "error": _error_detail(failed.group(1)) if failed else None}


@pytest.mark.ansible
@pytest.mark.parametrize("case", live_sample(CASES))  # PLAYBOOK_LS_LIVE=all: every case
def test_recorded_cases_match_real_ansible_inventory(case: str) -> None:
    if ANSIBLE_INVENTORY is None:
        pytest.skip("ansible-inventory is not installed")
    recorded = _record(case)
    expected_file = FIXTURES / case / "expected.json"
    if os.environ.get("PLAYBOOK_LS_REGENERATE"):
        expected_file.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    assert json.loads(expected_file.read_text()) == recorded
