"""With an inventory, the old side's outcomes of a task taken from the new side's
(engine.flow.outcome_log, playbook_ls.review.reuse.paired_tasks) never change a review: each kind
of input that can make them differ keeps the task's answer from being taken."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_cases import SIDES, review_json, write_tree

from engine.flow import outcome_log

INVENTORY = """\
[web]
w1 weight=3
w2 weight=9
[db]
d1
d2
"""
PLAYBOOK = """\
- name: first
  hosts: all
  gather_facts: false
  roles: [app]
  tasks:
    - name: remember
      set_fact:
        remembered: "{{ app_mode }}"
      when: flip | default(false) | bool
- name: second
  hosts: all
  gather_facts: false
  vars_files: ["{{ settings_name }}.yml"]
  tasks:
    - name: heavy
      debug: msg=heavy
      when: weight | default(0) | int > 5
    - name: by level
      debug: msg=level
      when: level == 'high'
    - name: by remembered
      debug: msg=remembered
      when: remembered | default('none') == 'on'
    - name: by another host
      debug: msg=other
      when: hostvars['w1']['level'] == 'high'
    - name: by a setting
      debug: msg=setting
      when: setting == 'a'
    - name: by the play's hosts
      debug: msg=hosts
      when: ansible_play_hosts | length > 2
"""
ROLE_TASKS = """\
- name: role task
  debug: msg=role
  when: app_mode == 'on'
- name: by the port
  debug: msg=port
  when: app_port_note | int > 1000
"""
DEFAULTS = "app_mode: 'on'\napp_port: 8080\napp_port_note: \"{{ app_port }}\"\n"


def _project(root: Path) -> None:
    write_tree(root, {"hosts.ini": INVENTORY, "group_vars/web.yml": "level: high\n",
                      "group_vars/db.yml": "level: low\nunread: 1\n", "group_vars/all.yml": "settings_name: settings\n",
                      "settings.yml": "setting: a\n", "roles/app/tasks/main.yml": ROLE_TASKS,
                      "roles/app/defaults/main.yml": DEFAULTS, "site.yml": PLAYBOOK})


CONDITIONED = ["app : role task", "app : by the port", "heavy", "by level", "by remembered", "by another host",
               "by a setting", "by the play's hosts"]


@pytest.mark.parametrize(("change", "not_taken"), [
    # a variables file's value no task reads: every answer is taken
    (("group_vars/db.yml", "unread: 1", "unread: 2"), []),
    # read by conditions directly: those tasks, and the one reading it through another host's variables
    (("group_vars/web.yml", "level: high", "level: medium"), ["by level", "by another host"]),
    # read by a role's condition, and by a set_fact an earlier play runs on the hosts
    (("roles/app/defaults/main.yml", "app_mode: 'on'", "app_mode: 'off'"), ["app : role task", "by remembered"]),
    # read through the template of another variable
    (("roles/app/defaults/main.yml", "app_port: 8080", "app_port: 80"), ["app : by the port"]),
    # a value whose type alone changes
    (("roles/app/defaults/main.yml", "app_port: 8080", "app_port: 8080.0"), ["app : by the port"]),
    # a host's own line in the inventory: nothing is taken
    (("hosts.ini", "w2 weight=9", "w2 weight=1"), CONDITIONED),
    # a task file: nothing is taken
    (("roles/app/tasks/main.yml", "app_mode == 'on'", "app_mode != 'on'"), CONDITIONED),
    # a variables file added: nothing is taken
    (("group_vars/web_extra.yml", "", ""), CONDITIONED),
    # a file of variables outside a variables directory, named by each host's values: nothing is taken
    (("settings.yml", "setting: a", "setting: b"), CONDITIONED),
])
def test_an_answer_is_taken_only_when_nothing_it_read_differs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: tuple[str, str, str], not_taken: list[str]) -> None:
    path, old_text, new_text = change
    for side in SIDES:
        _project(tmp_path / side)
    target = tmp_path / "new" / path
    target.write_text(target.read_text().replace(old_text, new_text) if target.exists() else "extra: 1\n")
    answers = _spy_answers(monkeypatch)
    monkeypatch.chdir(tmp_path / "new")
    with_sharing = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    refused = {name for name, taken in answers if not taken}
    # what a set_fact sets, other hosts' values, the play's lists: the run's
    always = {"by remembered", "by another host", "by the play's hosts"}
    assert refused == (set(not_taken) | always if answers else set())
    assert bool(answers) == (set(not_taken) != set(CONDITIONED))
    assert with_sharing == review_json(tmp_path / "old", tmp_path / "new", "hosts.ini", reuse=False)


# The same playbook with its settings in group_vars (no file named per host): a change to the
# structure of one play leaves the other plays' answers to be taken.
STATIC_PLAYBOOK = PLAYBOOK.replace('  vars_files: ["{{ settings_name }}.yml"]\n', "")
SECOND_PLAY = ["heavy", "by level", "by remembered", "by another host", "by a setting", "by the play's hosts"]
FIRST_PLAY = ["app : role task", "app : by the port", "remember"]


def _static_project(root: Path) -> None:
    _project(root)
    write_tree(root, {"site.yml": STATIC_PLAYBOOK, "group_vars/all.yml": "setting: a\n"})


@pytest.mark.parametrize(("change", "not_taken"), [
    # a role's task file, read by the first play only: the second play's answers are taken
    (("roles/app/tasks/main.yml", "app_mode == 'on'", "app_mode != 'on'"), FIRST_PLAY),
    # a task's own vars in it change its outcome though its condition is written alike
    (("roles/app/tasks/main.yml", "  when: app_port_note", "  vars:\n    app_port_note: 1\n  when: app_port_note"),
     FIRST_PLAY),
    # the first play now fails a host: the second play asks about other hosts, nothing of it is taken
    (("roles/app/tasks/main.yml", "- name: by the port\n",
      "- name: fail one\n  fail: msg=no\n  when: inventory_hostname == 'w2'\n- name: by the port\n"),
     FIRST_PLAY + SECOND_PLAY),
    # the first play now sets a fact a task of the second reads: that task's answer is not taken
    (("roles/app/tasks/main.yml", "- name: by the port\n",
      "- name: set weight\n  set_fact:\n    weight: 1\n- name: by the port\n"),
     [*FIRST_PLAY, "heavy"]),
    # the playbook itself, which every play reads: no task is paired
    (("site.yml", "debug: msg=heavy", "debug: msg=heavier"), None),
    # a setting: no task is paired
    (("ansible.cfg", "", ""), None),
])
def test_a_play_reading_no_changed_structure_is_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: tuple[str, str, str],
        not_taken: list[str] | None) -> None:
    path, old_text, new_text = change
    for side in SIDES:
        _static_project(tmp_path / side)
        (tmp_path / side / "ansible.cfg").write_text("[defaults]\n")
    target = tmp_path / "new" / path
    target.write_text(target.read_text().replace(old_text, new_text) if old_text else "[defaults]\nforks = 3\n")
    answers = _spy_answers(monkeypatch)
    monkeypatch.chdir(tmp_path / "new")
    with_sharing = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    refused = {name for name, taken in answers if not taken}
    always = {"by remembered", "by another host", "by the play's hosts"}
    assert refused == (set() if not_taken is None else set(not_taken) | always)
    assert bool(answers) == (not_taken is not None)
    assert with_sharing == review_json(tmp_path / "old", tmp_path / "new", "hosts.ini", reuse=False)


def _spy_answers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """(task, whether its answer was taken) for each task the old side asks the replay about."""
    answers: list[tuple[str, bool]] = []
    original = outcome_log.OutcomeReplay.answer

    def spied(self: outcome_log.OutcomeReplay, plan: object, task: object, question: object) -> object:
        found = original(self, plan, task, question)  # type: ignore[arg-type]
        answers.append((task.display_name(), found is not None))  # type: ignore[attr-defined]
        return found

    monkeypatch.setattr(outcome_log.OutcomeReplay, "answer", spied)
    return answers


PREFIX_PLAYBOOK = """\
- name: early
  hosts: all
  gather_facts: false
  tasks:
    - name: early by another host
      debug: msg=early
      when: hostvars['w1']['level'] == 'high'
    - name: early by weight
      debug: msg=early
      when: weight | default(0) | int > 5
    - name: early by another host's default
      debug: msg=early
      when: hostvars['w1']['mark_default'] | default('no') == 'no'
- name: changing
  hosts: all
  gather_facts: false
  roles: [late]
- name: after
  hosts: all
  gather_facts: false
  tasks:
    - name: after by another host
      debug: msg=after
      when: hostvars['w1']['marked'] | default('no') == 'yes'
    - name: after by weight
      debug: msg=after
      when: weight | default(0) | int > 5
"""


@pytest.mark.parametrize(("changed", "taken"), [
    # a change of structure alone (the role's task): its play is planned again
    ({"roles/late/tasks/main.yml": "'no'"}, {"early by another host", "early by another host's default",
                                            "early by weight", "after by weight"}),
    # a role's default, seen only by the play using the role (and by the arguments of its task, which
    # a host whose value is missing would fail on: not taken)
    ({"roles/late/defaults/main.yml": "'no'"}, {"early by another host", "early by another host's default",
                                                "early by weight", "after by weight"}),
    # a group's value, seen by every play: another host's variables are read again everywhere
    ({"group_vars/all.yml": "'no'"}, {"early by weight", "after by weight"}),
])
def test_the_plays_before_the_first_changed_one_are_taken_whatever_they_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: dict[str, str], taken: set[str]) -> None:
    """A change of structure, or of a role's variables only: the plays before the first play it
    reaches run alike on both sides, other hosts' variables included; after it, only what no run
    can have changed."""
    for side in SIDES:
        write_tree(tmp_path / side, {"hosts.ini": INVENTORY, "group_vars/web.yml": "level: high\n",
                                     "group_vars/db.yml": "level: low\n", "site.yml": PREFIX_PLAYBOOK,
                                     "group_vars/all.yml": "mark_default: 'no'\n",
                                     "roles/late/defaults/main.yml": "mark_value: 'no'\n",
                                     "roles/late/tasks/main.yml": "- name: mark\n  set_fact:\n"
                                                                  "    marked: \"{{ mark_value if mark_default == 'no' "
                                                                  "else 'yes' }}\"\n  when: level == 'high'\n"})
    for path, old_text in changed.items():
        target = tmp_path / "new" / path
        target.write_text(target.read_text().replace(old_text, "'yes'") if "tasks" not in path else
                          target.read_text().replace("mark_value if", "'yes' if"))
    answers = _spy_answers(monkeypatch)
    monkeypatch.chdir(tmp_path / "new")
    with_sharing = review_json(tmp_path / "old", tmp_path / "new", "hosts.ini")
    assert {name for name, was_taken in answers if was_taken} == taken
    assert with_sharing == review_json(tmp_path / "old", tmp_path / "new", "hosts.ini", reuse=False)
    assert '"after by another host"' in with_sharing  # the change shows where the run shows it
