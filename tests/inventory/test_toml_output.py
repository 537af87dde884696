"""``--toml`` as ansible-inventory writes it: through the tomli-w library, whose refusal of a value
TOML cannot hold (a null, a set) ansible-inventory reports as an unexpected exception (exit 250)."""

from __future__ import annotations

import sys
import types

import pytest

from playbook_ls.cli.inventory_output import OutputError, dump


def test_a_value_toml_cannot_hold_stops_as_ansible_inventory_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    refusing = types.ModuleType("tomli_w")

    def dumps(data: object) -> str:  # tomli-w's own words for a null
        raise TypeError("Object of type 'NoneType' is not TOML serializable")

    refusing.dumps = dumps  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tomli_w", refusing)
    with pytest.raises(OutputError) as raised:
        dump({"all": {"vars": {"x": None}}}, as_toml=True)
    assert raised.value.exit_code == 250
    assert str(raised.value) == ("Unexpected Exception, this is probably a bug: "
                                 "Object of type 'NoneType' is not TOML serializable")


def test_without_tomli_w_toml_output_says_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tomli_w", None)  # an import of it fails
    with pytest.raises(OutputError, match='The Python library "tomli-w" is required'):
        dump({}, as_toml=True)
