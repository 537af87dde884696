"""A looping include whose file (include_tasks) or role (include_role) each item names, recorded
from ansible-playbook: the items and the files they name are known before the run, so each item's
file is followed item by item (engine.variables.item_files), nested ones too: a looping include in
a file an outer item names, looping over that item's list and reading both loop variables, its
own file named from its item and the outer one's."""

from __future__ import annotations

from pathlib import Path

import pytest
from var_values import measure, plan_against_recording

HERE = Path(__file__).resolve().parent / "per_item_includes"
PROJECTS = {"per_item_files": 4, "nested_item_files": 23, "inner_named_item_files": 23}
"""Each project and the values its probes print."""


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_values(name: str) -> None:
    compared, wrong = measure(HERE / name, as_written=True)
    assert compared == PROJECTS[name]
    assert wrong == []


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_plan(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan_against_recording(HERE / name, "inventory.ini", monkeypatch)
    assert result.wrong == []
    assert result.decided == result.compared


def test_a_loop_longer_than_the_items_followed_is_left_to_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Each item's copy of a file joins the play's order: past ``MAX_ITEMS`` items the files are
    the run's, and what they set is unknown, with why, never undefined."""
    import json

    from engine.variables.item_files import MAX_ITEMS
    from playbook_ls.cli.main import main

    monkeypatch.chdir(tmp_path)
    names = json.dumps(["a"] * (MAX_ITEMS + 1))
    (tmp_path / "hosts.ini").write_text(f"[app]\nh1 steps='{names}'\n")
    (tmp_path / "step-a.yml").write_text("- name: count\n  set_fact:\n"
                                         "    done: \"{{ done | default(0) | int + 1 }}\"\n")
    (tmp_path / "site.yml").write_text("- hosts: app\n  gather_facts: false\n  tasks:\n"
                                       "    - include_tasks: \"step-{{ item }}.yml\"\n      loop: \"{{ steps }}\"\n"
                                       "    - debug: var=done\n")
    assert main(["vars", "-i", "hosts.ini", "--host", "h1", "--format", "json", "--task", "site.yml:6",
                 "site.yml", "done"]) == 0
    found = json.loads(capsys.readouterr().out)[0]["variables"]["done"]
    assert found["value"] is None  # followed item by item it would be MAX_ITEMS + 1
    assert "only the run knows" in found["unknown"]
