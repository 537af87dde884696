"""The old side's reading taken from the new side's (playbook_ls.review.reuse) never changes a
review, and is not taken when any input it read differs; tasks in another order are reported as
ansible's listings show them, in every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_cases import SIDES, scenarios, shown_order_changes
from review_cases import read_case as case_of

from playbook_ls.review.report import FORMATS

SCENARIOS = scenarios()


def _review(old: Path, new: Path, reuse: bool, playbooks: list[str] | None = None,
            inventory: list[str] | None = None) -> tuple[str, list[str]]:
    """The review as JSON, and the playbooks whose old reading was the new one."""
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import as_json

    files_changed()
    taken: list[str] = []
    review = build_review(str(old), str(new), playbooks or [], RunOptions(playbook="", inventory=inventory or []),
                          None, str(new), reuse=reuse, taken=taken)
    return as_json(review).replace(str(old), "OLD").replace(str(new), "NEW"), taken


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_reuse_changes_no_recorded_review(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = case_of(scenario)
    monkeypatch.chdir(scenario / "new")
    for inventory in ([], [case["inventory"]] if case.get("inventory") else []):
        with_reuse = _review(scenario / "old", scenario / "new", True, case["playbooks"], inventory)[0]
        assert with_reuse == _review(scenario / "old", scenario / "new", False, case["playbooks"], inventory)[0]


ROLE_TASKS = """\
- name: install
  debug: msg=install
  tags: ["{{ app_tag }}"]
- import_tasks: "{{ app_extra }}"
- include_tasks: "{{ app_late }}"
"""
DEFAULTS = """\
app_tag: deploy
app_extra: extra.yml
app_late: "{{ app_late_base }}.yml"
app_late_base: late
app_port: 8080
app_port_note: "{{ app_port }}"
"""


def _project(root: Path, defaults: str = DEFAULTS) -> None:
    (root / "roles/app/tasks").mkdir(parents=True)
    (root / "roles/app/defaults").mkdir(parents=True)
    (root / "roles/app/tasks/main.yml").write_text(ROLE_TASKS)
    (root / "roles/app/tasks/extra.yml").write_text("- name: extra\n  debug: msg=extra\n")
    (root / "roles/app/tasks/late.yml").write_text("- name: late\n  debug: msg=late\n")
    (root / "roles/app/tasks/other.yml").write_text("- name: other\n  debug: msg=other\n")
    (root / "roles/app/defaults/main.yml").write_text(defaults)
    (root / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  roles: [app]\n"
                                   "  tasks:\n    - name: port\n      debug: msg={{ app_port_note }}\n")


@pytest.mark.parametrize(("old_line", "new_line", "taken"), [
    ("app_port: 8080", "app_port: 80", True),  # read by a task's arguments only: the run's values, not the plan
    ("app_tag: deploy", "app_tag: release", False),  # templated into a tag
    ("app_extra: extra.yml", "app_extra: other.yml", False),  # an import's path
    ("app_late_base: late", "app_late_base: other", False),  # read through another variable's template
    ("app_port: 8080", "app_port: 8080.0", True),  # its type changes, but no resolution reads it
    ("app_tag: deploy", "app_tag: 'deploy'", True),  # written otherwise, the same value
])
def test_the_old_reading_is_taken_only_when_no_name_it_read_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old_line: str, new_line: str, taken: bool) -> None:
    for side in SIDES:
        _project(tmp_path / side, DEFAULTS if side == "old" else DEFAULTS.replace(old_line, new_line))
    monkeypatch.chdir(tmp_path / "new")
    with_reuse, reused = _review(tmp_path / "old", tmp_path / "new", True)
    assert reused == (["site.yml"] if taken else [])
    assert with_reuse == _review(tmp_path / "old", tmp_path / "new", False)[0]


@pytest.mark.parametrize("change", ["task file", "added file", "a mapping that is not variables", "inventory"])
def test_no_reading_is_taken_across_a_change_of_structure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          change: str) -> None:
    for side in SIDES:
        _project(tmp_path / side)
    new = tmp_path / "new"
    inventory = None
    if change == "task file":
        (new / "roles/app/tasks/extra.yml").write_text("- name: extra\n  debug: msg=changed\n")
    elif change == "added file":
        (new / "roles/app/defaults/main.yml").write_text(DEFAULTS.replace("8080", "80"))
        (new / "roles/app/vars").mkdir()  # where the role's resolution looks for its variables
        (new / "roles/app/vars/main.yml").write_text("unused: 1\n")
    elif change == "a mapping that is not variables":
        for side in SIDES:
            (tmp_path / side / "roles/app/meta").mkdir()
            (tmp_path / side / "roles/app/meta/main.yml").write_text(f"galaxy_info: {{author: {side}}}\n")
    else:
        for side in SIDES:
            (tmp_path / side / "hosts.ini").write_text("h1\n")
        (new / "roles/app/defaults/main.yml").write_text(DEFAULTS.replace("8080", "80"))
        inventory = ["hosts.ini"]
    monkeypatch.chdir(new)
    with_reuse, reused = _review(tmp_path / "old", new, True, inventory=inventory)
    assert reused == []
    assert with_reuse == _review(tmp_path / "old", new, False, inventory=inventory)[0]


def test_a_name_a_template_reaches_by_a_computed_string_is_read_by_it() -> None:
    """``vars[...]`` and ``lookup('vars', ...)`` name a variable by a string: whoever templates
    them may read any, and no reading that did is taken."""
    from engine.templating.load_time import READS_ALL, names_recorded, render, resolve_variables

    variables = resolve_variables({"which": "a", "a": "{{ b }}", "b": 1})
    with names_recorded() as names:
        assert render("{{ a }}", variables) == 1
    assert {"a", "b"} <= names
    with names_recorded() as names:  # read again from what was templated before: recorded again
        render("{{ a }}", variables)
    assert {"a", "b"} <= names
    from engine.templating.read_names import note_template
    from engine.templating.templar import environment

    for text in ("{{ vars[which] }}", "{{ lookup('vars', which) }}", "{{ hostvars['h'][which] }}", "{{ broken"):
        with names_recorded() as names:  # as the run-time templar notes what it renders
            note_template(text, environment().parse)
        assert READS_ALL in names, text
    with names_recorded() as names:
        note_template("{{ a ~ b }}", environment().parse)
    assert names == {"a", "b"}
    with names_recorded() as names:
        render("{{ vars[which] | default(1) }}", resolve_variables({"which": "a", "vars": {"a": 2}}))
    assert READS_ALL in names


def test_tasks_in_another_order_show_in_every_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorded reorder (three prelim tasks moved up, two rules swapped): each format names
    the tasks ansible's default listing shows in another order, and nothing else changes."""
    scenario = SCENARIOS[[s.name for s in SCENARIOS].index("tasks_reordered")]
    expected = json.loads((scenario / "expected.json").read_text())
    shown = shown_order_changes(expected["old"]["listings"]["site.yml"], expected["new"]["listings"]["site.yml"])
    assert sorted(name for _, name in shown) == ["cis : 5.2.3 | Disable root login",
                                                 "cis : PRELIM | Check for rhnsd service",
                                                 "cis : PRELIM | Find the interactive users"]
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review

    monkeypatch.chdir(scenario / "new")
    review = build_review(str(scenario / "old"), str(scenario / "new"), ["site.yml"],
                          RunOptions(playbook="", inventory=[]), None)
    (playbook,) = review.playbooks
    assert not playbook.tasks and review.differs()
    default = playbook.selections[0]
    assert [(entry.task.name, entry.why) for entry in default.reordered] == [
        ("cis : PRELIM | Check for rhnsd service", "now after 'cis : PRELIM | Set the bootloader password' "
                                                   "(was after 'cis : PRELIM | Gather the package facts')"),
        ("cis : PRELIM | Find the interactive users",
         "now after 'cis : PRELIM | Check for rhnsd service' (was after 'cis : PRELIM | Check for rhnsd service')"),
        ("cis : 5.2.3 | Disable root login", "now after 'cis : 5.2.1 | Set the sshd_config permissions' "
                                             "(was after 'cis : 5.2.2 | Set the ssh private key permissions')")]
    outputs = {name: render(review) for name, render in FORMATS.items()}
    assert "(no --tags): now runs 0, no longer runs 0, in another order 3" in outputs["text"]
    assert "↕ cis : 5.2.3 | Disable root login  roles/cis/tasks/section_5.yml:8 — now after" in outputs["text"]
    assert "| `site.yml` | 0 | 0 | 3 |" in outputs["markdown"]
    assert outputs["github"].count("runs in another order") == sum(len(s.reordered) for s in playbook.selections)
    assert len(json.loads(outputs["json"])["playbooks"][0]["selections"][0]["reordered"]) == 3


def test_order_changes_keep_the_longest_run_in_order() -> None:
    from playbook_ls.review.compare import order_changes

    def names(text: str) -> list[tuple[str, str]]:
        return [("p", letter) for letter in text]

    assert order_changes(names("abcde"), names("abcde")) == []
    assert order_changes(names("abcde"), names("eabcd")) == [0]
    assert order_changes(names("abcde"), names("abxcde")) == []  # an added task moves none
    assert order_changes(names("aab"), names("aba")) == [1]  # copies alike: by their count
    assert order_changes(names("abcdef"), names("fedcba")) == [0, 1, 2, 3, 4]  # one stays: the last


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_reading_compared_with_itself_is_a_fresh_reading_compared(scenario: Path) -> None:
    """review_playbook answers a reading compared with itself (a reading taken across sides) without
    describing its tasks: the same review as comparing it with another reading of the same files,
    under the default selections and under given ones."""
    from engine.flow.plan import RunOptions
    from engine.flow.tags import Selection
    from engine.parsing.source import SourceCache, files_changed
    from playbook_ls.review.compare import review_playbook
    from playbook_ls.review.sides import inside, read_playbook

    case = case_of(scenario)
    root = str(scenario / "new")
    for playbook in case["playbooks"]:
        files_changed()
        with inside(root):
            for selections in (None, [("--tags web", Selection.from_options(["web"], [])),
                                      ("--skip-tags never", Selection.from_options([], ["never"]))]):
                one, two = (read_playbook(root, playbook, RunOptions(playbook="", inventory=[]), SourceCache())
                            for _ in range(2))
                alone = review_playbook(one, one, selections, None, {playbook})
                assert all(play.given_tasks is None for play in one.plays)  # never described
                assert alone == review_playbook(one, two, selections, None, {playbook})
