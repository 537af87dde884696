"""``playbook-ls diff`` against what ansible-playbook 2.19 lists and does on both sides of each
recorded change (review_cases.py): every difference claimed is one ansible shows, and every
difference ansible shows is claimed; a renamed task is one task (ansible lists it under its new
name, without it under the old one)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from ansible_tools import find_tool, live_sample
from review_cases import (
    SIDES,
    claimed_listing_changes,
    claimed_order_changes,
    listed_names,
    listing_names,
    outcome_class,
    record,
    scenarios,
    selection_label,
    selection_of,
    shown_order_changes,
)
from review_cases import read_case as case_of

from playbook_ls.review.compare import PlaybookReview, matched, paired, review_playbook
from playbook_ls.review.sides import PlaybookView, host_outcomes, inside, listed, read_playbook

SCENARIOS = scenarios()


def _views(scenario: Path, playbook: str) -> dict[str, PlaybookView]:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import SourceCache, files_changed

    case = case_of(scenario)
    views = {}
    for side in SIDES:
        files_changed()  # the sides' files are at other paths, but a cache is kept by what was read
        root = str(scenario / side)
        options = RunOptions(playbook="", inventory=[case["inventory"]] if case.get("inventory") else [])
        with inside(root):
            views[side] = read_playbook(root, playbook, options, SourceCache())
    return views


def _cases() -> list[tuple[Path, str, list[str]]]:
    return [(scenario, playbook, args) for scenario in SCENARIOS for playbook in case_of(scenario)["playbooks"]
            for args in case_of(scenario)["selections"]]


def _id(case: tuple[Path, str, list[str]]) -> str:
    return f"{case[0].name}:{selection_label(case[1], case[2])}"


@pytest.mark.parametrize("case", _cases(), ids=_id)
def test_each_side_lists_what_ansible_lists(case: tuple[Path, str, list[str]]) -> None:
    scenario, playbook, args = case
    expected = json.loads((scenario / "expected.json").read_text())
    views = _views(scenario, playbook)
    for side in SIDES:
        ansible = listing_names(expected[side]["listings"][selection_label(playbook, args)])
        assert listed_names(views[side], listed(views[side], selection_of(args))) == ansible, side


@pytest.mark.parametrize("case", _cases(), ids=_id)
def test_what_now_runs_and_no_longer_runs_is_what_ansible_lists(case: tuple[Path, str, list[str]]) -> None:
    scenario, playbook, args = case
    expected = json.loads((scenario / "expected.json").read_text())
    label = selection_label(playbook, args)
    before, after = (listing_names(expected[side]["listings"][label]) for side in SIDES)
    views = _views(scenario, playbook)
    review = review_playbook(views["old"], views["new"], [(label, selection_of(args))], None, set())
    (selection,) = review.selections
    now, gone = claimed_listing_changes(views["old"], views["new"], selection, selection_of(args))
    assert now == after - before
    assert gone == before - after
    listings = expected["old"]["listings"][label], expected["new"]["listings"][label]
    assert claimed_order_changes(selection) == shown_order_changes(*listings)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if case_of(s).get("inventory")], ids=lambda s: s.name)
def test_outcomes_that_change_per_host_are_those_of_the_runs(scenario: Path) -> None:
    """Each (task, host) whose outcome changes between the two recorded runs is claimed, with
    both outcomes, and nothing else is (a task whose outcome depends on the run is left out on
    both sides: the plan says so instead of deciding)."""
    expected = json.loads((scenario / "expected.json").read_text())
    for playbook in case_of(scenario)["playbooks"]:
        views = _views(scenario, playbook)
        outcomes = {}
        for side in SIDES:
            with inside(str(scenario / side)):
                outcomes[side] = host_outcomes(views[side], views[side].plan)
        review = review_playbook(views["old"], views["new"], [], (outcomes["old"], outcomes["new"]), set())
        claimed = _claimed(review)
        ran = _ran(views, expected, playbook, outcomes)
        undecided = {(name, host) for name, host, *_ in claimed | ran
                     if _depends(outcomes, views, name, host)}
        assert {c for c in claimed if c[:2] not in undecided} == {r for r in ran if r[:2] not in undecided}, playbook


def _claimed(review: PlaybookReview) -> set[tuple[str, str, str, str]]:
    """The claimed changes the recordings can tell: a host new to a play that skips the task
    (absent → skipped) records nothing on either side, as a skip ansible does not report."""
    found = {(change.task.name, host, change.before[0] if change.before else "skipped",
              change.after[0] if change.after else "skipped") for change in review.hosts for host in change.hosts}
    return {claim for claim in found if claim[2] != claim[3]}


def _ran(views: dict[str, PlaybookView], expected: dict[str, Any], playbook: str,
         outcomes: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    """(task, host, old outcome, new outcome) where the recorded runs differ, the tasks paired as
    the review pairs them (those an include loads at run time, which no listing has, by key)."""
    def tasks_of(side: str) -> list[Any]:
        return [*(task for play in views[side].plays for task in play.tasks), *outcomes[side].loaded_at_run.values()]

    places = {side: {f"{task.file}:{task.line}": task for task in tasks_of(side)} for side in SIDES}
    runs = {side: {places[side][where].key: hosts for where, hosts in expected[side]["runs"][playbook].items()
                   if where in places[side]} for side in SIDES}
    tasks = {side: {task.key: task for task in tasks_of(side)} for side in SIDES}
    pairs = {**matched(views["old"], views["new"]),
             **paired(outcomes["old"].loaded_at_run, outcomes["new"].loaded_at_run)}
    found = set()
    for old_key, new_key in [*pairs.items(), *((None, k) for k in tasks["new"] if k not in pairs.values()),
                             *((k, None) for k in tasks["old"] if k not in pairs)]:
        before = runs["old"].get(old_key, {}) if old_key else {}
        after = runs["new"].get(new_key, {}) if new_key else {}
        name = tasks["new"][new_key].name if new_key else tasks["old"][old_key].name  # type: ignore[index]
        for host in set(before) | set(after):
            was, now = outcome_class(before.get(host)), outcome_class(after.get(host))
            if was != now:
                found.add((name, host, was, now))
    return found


def _depends(outcomes: dict[str, Any], views: dict[str, PlaybookView], name: str, host: str) -> bool:
    for side in SIDES:
        by_key = {task.key: task for play in views[side].plays for task in play.tasks}
        for key, hosts in outcomes[side].items():
            if key in by_key and by_key[key].name == name and hosts.get(host, ("",))[0] == "depends":
                return True
    return False


@pytest.mark.ansible
@pytest.mark.skipif(find_tool("ansible-playbook") is None, reason="needs ansible-core 2.19")
@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.name in live_sample([s.name for s in SCENARIOS])],
                         ids=lambda s: s.name)  # PLAYBOOK_LS_LIVE=all: every scenario
def test_recordings_match_ansible(scenario: Path) -> None:
    assert record(scenario, str(find_tool("ansible-playbook"))) == json.loads((scenario / "expected.json").read_text())


def test_the_command_compares_two_git_revisions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`playbook-ls diff HEAD` in a repository: the revision is written out of git's objects, the
    working tree is the new side, and --fail-on never refuses a task that lost its never tag."""
    import shutil
    import subprocess

    from playbook_ls.cli.main import main

    scenario = SCENARIOS[[s.name for s in SCENARIOS].index("values_and_conditions")]
    shutil.copytree(scenario / "old", tmp_path, dirs_exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "old"]):
        subprocess.run(["git", *command], cwd=tmp_path, env=env, check=True)
    shutil.copytree(scenario / "new", tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "HEAD", "-i", "inventory.ini", "--fail-on", "never"]) == 1
    out = capsys.readouterr().out
    assert "rebuild indexes  site.yml:15 — tags -never" in out
    assert "skipped → runs on 2 hosts: d1, d2" in out  # backups, from group_vars/prod.yml
    assert main(["diff", "HEAD", "site.yml", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["playbooks"][0]["path"] == "site.yml"
    # a process of its own ends without the interpreter's teardown: its exit code and its whole
    # output (a pipe's buffer flushed) are the same
    package = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "playbook_ls", "diff", "HEAD", "-i", "inventory.ini", "--fail-on",
                           "never", "--format", "json"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(package)}, timeout=300)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["playbooks"][0]["path"] == "site.yml"


def test_a_side_that_cannot_be_read_is_said_with_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from playbook_ls.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["diff", "main"]) == 2
    assert "main is not a directory, and" in capsys.readouterr().err
    subprocess_env = {**os.environ, "GIT_DIR": str(tmp_path / ".git")}
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, env=subprocess_env, check=True)
    assert main(["diff", "no-such-branch"]) == 2
    assert "no-such-branch: neither a directory nor a revision of the repository" in capsys.readouterr().err


def test_the_values_a_change_changes_at_a_task_are_given_per_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """A role default and a group_vars flag that changed: each task reading them gets the value
    on each host in both revisions, with where it comes from (hosts alike together); the task
    whose condition was rewritten reads nothing a variables file changed."""
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review

    scenario = SCENARIOS[[s.name for s in SCENARIOS].index("values_and_conditions")]
    monkeypatch.chdir(scenario / "new")
    review = build_review(str(scenario / "old"), str(scenario / "new"), ["site.yml"],
                          RunOptions(playbook="", inventory=["inventory.ini"]), [])
    (playbook,) = review.playbooks
    found = {(v.task.name, v.name, v.before, v.after, tuple(v.hosts)) for v in playbook.values}
    assert found == {
        ("app : high port note", "app_port", "8080 (role 'app' defaults, roles/app/defaults/main.yml)",
         "80 (role 'app' defaults, roles/app/defaults/main.yml)", ("w1", "w2", "d1", "d2")),
        ("backups", "backups", "False (group 'prod', group_vars/prod.yml)",
         "True (group 'prod', group_vars/prod.yml)", ("d1", "d2")),
    }


def test_a_changed_inventory_reaches_every_playbook_planned_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """No playbook reads the inventory file, yet every playbook planned with it runs otherwise:
    found without naming them, with the values its own lines (a host's, a group's ``[vars]``) set
    differently; a host added or moved to another play is told by its outcomes, not as a value
    that was undefined."""
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review

    scenario = SCENARIOS[[s.name for s in SCENARIOS].index("inventory_lines_changed")]
    monkeypatch.chdir(scenario / "new")
    review = build_review(str(scenario / "old"), str(scenario / "new"), [],
                          RunOptions(playbook="", inventory=["inventory.ini"]), [])
    (playbook,) = review.playbooks
    assert playbook.path == "site.yml"
    found = {(v.task.name, v.name, v.before.split(" (")[0], v.after.split(" (")[0], tuple(v.hosts))
             for v in playbook.values}
    assert found == {
        ("heavy hosts only", "weight", "3", "8", ("w1",)),
        ("front tier", "tier", "'front'", "'back'", ("d1",)),
        ("web port", "web_port", "80", "8080", ("w1", "w2")),
    }
    claimed = {(change.task.name, host) for change in playbook.hosts for host in change.hosts}
    assert {("heavy hosts only", "w1"), ("front tier", "d1"), ("front tier", "d3"), ("web port", "w1"),
            ("web port", "w2"), ("web port", "w3")} <= claimed


def test_a_task_that_changes_module_is_the_same_task() -> None:
    """A lint change turns `shell` into `command` under the same name: ansible lists the task
    under both revisions alike, so it neither stops nor starts running; it changed."""
    from playbook_ls.review.sides import TaskView

    def view(action: str) -> PlaybookView:
        key = ("play\tall\t1", "audit", action, 1)
        task = TaskView(key, "audit", action, "tasks/main.yml", 3, ("always",), (), (), (), False, action)
        from playbook_ls.review.sides import PlayView

        return PlaybookView("site.yml", [PlayView("play\tall\t1", "play #1 (all): play", [task], [], None)],
                            keys={})

    old, new = view("ansible.builtin.shell"), view("ansible.builtin.command")
    assert list(matched(old, new).values()) == [("play\tall\t1", "audit", "ansible.builtin.command", 1)]
    review = review_playbook(old, new, [], None, set())
    assert [(c.kind, c.details) for c in review.tasks] == [
        ("changed", ["ansible.builtin.command (was ansible.builtin.shell)"])]


def test_a_playbook_neither_revision_can_plan_is_said_not_counted_unchanged(tmp_path: Path) -> None:
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import as_text

    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "site.yml").write_text("- hosts: all\n  tasks:\n    - no.such.module: {}\n")
    (tmp_path / "new" / "extra.yml").write_text("x: 1\n")
    review = build_review(str(tmp_path / "old"), str(tmp_path / "new"), ["site.yml"],
                          RunOptions(playbook="", inventory=[]), None, str(tmp_path / "new"))
    text = as_text(review)
    assert "not compared, 1 playbook that neither revision can plan" in text
    assert "  site.yml: site.yml:3:7: couldn't resolve module/action 'no.such.module'" in text
    assert "no difference in the run" not in text


def test_copies_of_a_task_exchanging_a_selection_change_no_listing(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A task file imported twice, whose imports swap their tags: under either tag ansible lists
    the one task as before (another copy of it), so neither copy is claimed to now run or no
    longer run; the copies' tags still show as changed."""
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review
    from playbook_ls.review.compare import _selection

    imports = "- hosts: localhost\n  gather_facts: false\n  tasks:\n" \
              "    - import_tasks: warn.yml\n      tags: [{}]\n    - import_tasks: warn.yml\n      tags: [{}]\n"
    for side, tags in (("old", ("cat1", "cat2")), ("new", ("cat2", "cat1"))):
        (tmp_path / side).mkdir()
        (tmp_path / side / "site.yml").write_text(imports.format(*tags))
        (tmp_path / side / "warn.yml").write_text("- name: warn\n  debug: {msg: manual}\n")
    monkeypatch.chdir(tmp_path / "new")
    review = build_review(str(tmp_path / "old"), str(tmp_path / "new"), ["site.yml"],
                          RunOptions(playbook="", inventory=[]), [("--tags cat1", _selection(["cat1"], []))])
    (playbook,) = review.playbooks
    assert [(s.now_runs, s.no_longer_runs) for s in playbook.selections] == [([], [])]
    assert len(playbook.tasks) == 2  # each copy's tags changed


def test_a_playbook_only_the_old_revision_has_is_reviewed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The new side's playbooks are found by reading every file, the old side's by reading only
    the changed ones again (the others are alike): a file that stopped being a playbook is still one
    of the old side's, and one that became a playbook is one of the new side's."""
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review

    for side, (was, becomes) in {"old": ("- hosts: all\n  tasks:\n    - debug: msg=x\n", "- debug: msg=y\n"),
                                 "new": ("- debug: msg=x\n", "- hosts: all\n  tasks:\n    - debug: msg=y\n")}.items():
        (tmp_path / side).mkdir()
        (tmp_path / side / "was_a_playbook.yml").write_text(was)
        (tmp_path / side / "becomes_one.yml").write_text(becomes)
        (tmp_path / side / "site.yml").write_text("- hosts: all\n  tasks:\n    - debug: msg=z\n")
    monkeypatch.chdir(tmp_path / "new")
    review = build_review(str(tmp_path / "old"), str(tmp_path / "new"), [], RunOptions(playbook="", inventory=[]),
                          None)
    assert sorted(playbook.path for playbook in review.playbooks) == ["becomes_one.yml", "was_a_playbook.yml"]


def test_a_change_to_group_vars_alone_reaches_the_playbooks_planned_with_the_inventory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No playbook reads group_vars/db.yml while it is resolved (the inventory's hosts read it when
    their values are asked for): the review still finds the playbook the change reaches, and a
    value no file defined before is undefined there, not a value only the run knows."""
    from engine.flow.plan import RunOptions
    from playbook_ls.review.build import build_review

    scenario = SCENARIOS[[s.name for s in SCENARIOS].index("group_vars_reach")]
    monkeypatch.chdir(scenario / "new")
    review = build_review(str(scenario / "old"), str(scenario / "new"), [],
                          RunOptions(playbook="", inventory=["inventory.ini"]), None)
    (playbook,) = review.playbooks
    assert playbook.reaches == ["group_vars/db.yml"]
    assert {(change.task.name, change.before[0], change.after[0], tuple(change.hosts))
            for change in playbook.hosts if change.before and change.after} == {
        ("backup window", "skipped", "runs", ("d1",)), ("vacuum", "runs", "skipped", ("d1", "d2"))}
    assert {(v.task.name, v.name, v.before, v.after) for v in playbook.values} == {
        ("backup window", "backup_enabled", "undefined", "True (group 'db', group_vars/db.yml)"),
        ("vacuum", "backup_enabled", "undefined", "True (group 'db', group_vars/db.yml)")}


def test_only_files_that_can_hold_a_play_are_parsed_to_find_the_playbooks(tmp_path: Path) -> None:
    """A YAML file none of whose text names a play key is no playbook, and is not parsed to say so;
    a key written through an escape still makes one."""
    from engine.parsing.source import SourceCache
    from playbook_ls.review.build import _playbooks_in

    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "all.yml").write_text("ntp_servers: [a, b]\n")
    (tmp_path / "site.yml").write_text("- hosts: all\n  tasks: []\n")
    (tmp_path / "escaped.yml").write_text('- "\\x68osts": all\n  tasks: []\n')
    cache = SourceCache()
    assert _playbooks_in(str(tmp_path), cache) == ["escaped.yml", "site.yml"]
    assert cache.parsed == 2
