"""Files a playbook's run loads that its reading does not (an ``include_vars``, an include named
from each host's values): with an inventory, what the plans load host by host is what the playbook
reads, so a change to such a file is reviewed; without one, the review says those playbooks may
read it rather than that no playbook loads it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from review_cases import SCENARIOS, SIDES, review_json, write_tree


def _copy(tmp_path: Path, name: str) -> None:
    for side in SIDES:
        shutil.copytree(SCENARIOS / name / side, tmp_path / side)


def test_a_task_file_an_include_names_per_host_is_reviewed_with_an_inventory(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _copy(tmp_path, "loaded_at_run")
    monkeypatch.chdir(tmp_path / "new")
    playbook = json.loads(review_json(tmp_path / "old", tmp_path / "new", "inventory.ini"))["playbooks"][0]
    assert playbook["reaches"] == ["tasks/alpha.yml"]
    assert sorted((change["task"]["name"], change["before"][0], change["after"][0], host)
                  for change in playbook["hosts"] for host in change["hosts"]) == [
        ("alpha extra", "runs", "skipped", "a1"), ("alpha extra", "skipped", "runs", "a2"),
        ("alpha setup", "runs", "skipped", "a1"), ("alpha setup", "runs", "skipped", "a2")]


def test_a_file_include_vars_loads_is_reviewed_with_an_inventory(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    site = ("- name: web\n  hosts: all\n  gather_facts: false\n  tasks:\n    - name: load\n"
            "      include_vars: vars/main.yml\n    - name: open port 80\n      debug: msg=80\n"
            "      when: port == 80\n")
    for side in SIDES:
        write_tree(tmp_path / side, {"site.yml": site, "inventory.ini": "h1\nh2\n",
                                     "vars/main.yml": "port: 80\n" if side == "old" else "port: 8080\n"})
    monkeypatch.chdir(tmp_path / "new")
    playbook = json.loads(review_json(tmp_path / "old", tmp_path / "new", "inventory.ini"))["playbooks"][0]
    assert playbook["reaches"] == ["vars/main.yml"]
    assert [(change["task"]["name"], change["before"][0], change["after"][0], change["hosts"])
            for change in playbook["hosts"]] == [("open port 80", "runs", "skipped", ["h1", "h2"])]


def test_without_an_inventory_the_playbooks_that_may_load_it_are_named(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import NOTHING_REACHED, as_text

    _copy(tmp_path, "loaded_at_run")
    monkeypatch.chdir(tmp_path / "new")
    files_changed()
    review = build_review(str(tmp_path / "old"), str(tmp_path / "new"), [], RunOptions(playbook="", inventory=[]),
                          None, str(tmp_path / "new"))
    assert review.loads_at_run == ["site.yml"]
    text = as_text(review)
    assert NOTHING_REACHED not in text and "but 1 loads files when it runs (site.yml" in text


def test_a_task_loaded_at_run_renamed_is_one_task_renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Paired as a listed task is (same play, action and body): renamed, with no host change,
    not one task gone from every host and another new on them."""
    _copy(tmp_path, "loaded_at_run")
    beta = tmp_path / "new" / "tasks" / "beta.yml"
    beta.write_text(beta.read_text().replace("name: beta setup", "name: beta prepared"))
    monkeypatch.chdir(tmp_path / "new")
    playbook = json.loads(review_json(tmp_path / "old", tmp_path / "new", "inventory.ini"))["playbooks"][0]
    assert [(change["kind"], change["old"]["name"], change["new"]["name"]) for change in playbook["tasks"]] == [
        ("renamed", "beta setup", "beta prepared")]
    assert not [change for change in playbook["hosts"] if "beta" in change["task"]["name"]]
