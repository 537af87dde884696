"""The engine's ports of ``community.general`` filters give what the collection's own give, as
ansible renders them (community_filter_table.json, recorded by community_filter_table.py): the
same value of the same type, or a failure (its wording compared where it names no ansible-internal
type)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from community_filter_table import CASES, TABLE, engine_renderer, record
from filter_table import outcome

TABLE_ROWS: dict[str, dict[str, Any]] = json.loads(TABLE.read_text())


@pytest.mark.parametrize("expression", CASES)
def test_engine_gives_what_the_collection_gives(expression: str) -> None:
    expected, got = TABLE_ROWS[expression], outcome(engine_renderer(), expression)
    if "error" not in expected:
        assert got == expected
        return
    assert "error" in got
    if "_Ansible" not in expected["error"]:  # an ansible-internal type's name is ansible's own
        assert got["error"] == expected["error"]
    else:
        assert re.sub(r"'_Ansible\w+'", "", expected["error"]).split(" - ")[0] in got["error"]


def test_every_case_is_recorded() -> None:
    assert set(TABLE_ROWS) == set(CASES)


def test_table_is_what_ansible_gives() -> None:
    pytest.importorskip("ansible_collections.community.general.plugins.filter.counter")
    assert record() == TABLE_ROWS
