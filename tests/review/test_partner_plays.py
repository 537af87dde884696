"""Without an inventory, the old side's resolvers take the new side's plays where nothing their
resolution reads differs (engine.loading.shared_plays.PartnerPlays, playbook_ls.review.reuse.
partner_plays): the review is the same as with every play of both sides resolved, and each kind
of change keeps the plays it can reach from being taken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_cases import SIDES, write_tree

from engine.loading import shared_plays

PROJECT = {
    "ansible.cfg": "[defaults]\nroles_path = roles\n",
    "site.yml": "- import_playbook: playbooks/app.yml\n- import_playbook: playbooks/db.yml\n  tags: [db]\n",
    "other.yml": "- import_playbook: playbooks/db.yml\n- name: own\n  hosts: all\n  gather_facts: false\n  tasks:\n"
                 "    - name: own\n      debug: msg=own\n",
    "playbooks/app.yml": "- name: app\n  hosts: web\n  gather_facts: false\n  roles: [app]\n",
    "playbooks/db.yml": "- name: db\n  hosts: db\n  gather_facts: false\n  roles: [db]\n"
                        "- name: db again\n  hosts: db\n  gather_facts: false\n  tasks:\n"
                        "    - import_tasks: ../roles/db/tasks/extra.yml\n",
    "roles/app/tasks/main.yml": "- name: install app\n  debug: msg=app\n  tags: ['{{ app_tag }}']\n"
                                "- import_tasks: more.yml\n",
    "roles/app/tasks/more.yml": "- name: more app\n  debug: msg=more\n",
    "roles/app/defaults/main.yml": "app_tag: deploy\napp_port: 80\n",
    "roles/db/tasks/main.yml": "- name: install db\n  debug: msg=db\n  tags: ['{{ db_tag }}']\n",
    "roles/db/tasks/extra.yml": "- name: extra db\n  debug: msg=extra\n",
    "roles/db/defaults/main.yml": "db_tag: data\ndb_port: 5432\n",
    "docs/notes.yml": "notes: []\n",
}
EVERY_PLAY = {"app", "db", "db again", "own"}
"""The plays the old side resolves: app (site.yml), db and db again (site.yml, other.yml), own."""
PLAY_AT = {("app.yml", 0): "app", ("db.yml", 0): "db", ("db.yml", 1): "db again", ("other.yml", 1): "own"}


@pytest.mark.parametrize(("changes", "taken", "resolved"), [
    # a role's task file: the plays of that role only (other.yml, which reads none, is taken whole)
    ({"roles/app/tasks/more.yml": "- name: more app\n  debug: msg=changed\n"}, {"db", "db again"}, {"app"}),
    # a variables file, by a name a tag is templated from: the plays that read it
    ({"roles/db/defaults/main.yml": "db_tag: storage\ndb_port: 5432\n"}, {"app", "db again", "own"}, {"db"}),
    # ... and by a name no resolution reads (a task's argument): both playbooks taken whole
    ({"roles/db/defaults/main.yml": "db_tag: data\ndb_port: 5433\n"}, set(), set()),
    # the imported playbook itself: the play that changed, wherever imported; the same entry at the
    # same place, though at another line, is taken
    ({"playbooks/db.yml": PROJECT["playbooks/db.yml"].replace("roles: [db]", "roles: [db]\n  tags: [dbplay]")},
     {"app", "own", "db again"}, {"db"}),
    # a play added at its end: the file's other plays are the same entries at the same places
    ({"playbooks/db.yml": PROJECT["playbooks/db.yml"] + "- name: db last\n  hosts: db\n  tasks: []\n"},
     {"app", "own", "db", "db again"}, set()),
    # a play added before them: each other entry is at another place
    ({"playbooks/db.yml": "- name: db first\n  hosts: db\n  tasks: []\n" + PROJECT["playbooks/db.yml"]},
     {"app", "own"}, {"db", "db again"}),
    # the importing playbook's import keywords: the plays it leads to there; its unchanged import is taken
    ({"site.yml": PROJECT["site.yml"].replace("tags: [db]", "tags: [database]")}, {"app"}, {"db", "db again"}),
    # a file added where a play looks for it (the role's included file), and a task file naming it
    ({"roles/app/tasks/added.yml": "- name: added\n  debug: msg=added\n",
      "roles/app/tasks/more.yml": "- import_tasks: added.yml\n"}, {"db", "db again", "own"}, {"app"}),
    # a file added that no resolution asks about: both playbooks are taken whole, no play offered
    ({"docs/more.yml": "more: []\n"}, set(), set()),
    # ... and with a change a play reads: the other plays are taken
    ({"docs/more.yml": "more: []\n", "roles/app/tasks/more.yml": "- name: more app\n  debug: msg=changed\n"},
     {"db", "db again"}, {"app"}),
    # the settings: no play is offered
    ({"ansible.cfg": "[defaults]\nroles_path = roles\nprivate_role_vars = true\n",
      "roles/app/tasks/more.yml": "- name: more app\n  debug: msg=changed\n"}, set(), set()),
])
def test_the_old_side_takes_the_plays_no_change_reaches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        changes: dict[str, str], taken: set[str],
                                                        resolved: set[str]) -> None:
    for side in SIDES:
        write_tree(tmp_path / side, PROJECT)
    write_tree(tmp_path / "new", changes)
    asked = _spy_taken(monkeypatch)
    monkeypatch.chdir(tmp_path / "new")
    with_partner = _review(tmp_path, reuse=True)
    assert with_partner == _review(tmp_path, reuse=False)
    assert {name for name, was_taken in asked if was_taken} == taken
    assert {name for name, was_taken in asked if not was_taken} == resolved


def test_an_entry_whose_alias_names_a_changed_anchor_is_not_the_same(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The same text, other data: the second play's tags come from the first play's anchor."""
    anchored = ("- name: db\n  hosts: db\n  gather_facts: false\n  roles: [db]\n  tags: &shared [one]\n"
                "- name: db again\n  hosts: db\n  gather_facts: false\n  tags: *shared\n  tasks:\n"
                "    - import_tasks: ../roles/db/tasks/extra.yml\n")
    for side in SIDES:
        write_tree(tmp_path / side, {**PROJECT, "playbooks/db.yml": anchored})
    write_tree(tmp_path / "new", {"playbooks/db.yml": anchored.replace("[one]", "[two]")})
    asked = _spy_taken(monkeypatch)
    monkeypatch.chdir(tmp_path / "new")
    assert _review(tmp_path, reuse=True) == _review(tmp_path, reuse=False)
    assert {name for name, was_taken in asked if was_taken} == {"app", "own"}
    assert {name for name, was_taken in asked if not was_taken} == {"db", "db again"}


@pytest.mark.parametrize(("removed", "taken", "resolved"), [
    # no resolution asked about it: it is no input of any play
    ("docs/notes.yml", {"db", "db again"}, {"app"}),
    # a role's defaults, which the db role's plays read on the old side and look for on the new:
    # every play that may have looked for it is resolved again (here: none is offered)
    ("roles/db/defaults/main.yml", set(), set()),
])
def test_a_file_removed_keeps_the_plays_that_asked_about_it_from_being_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, removed: str, taken: set[str], resolved: set[str]) -> None:
    """A file only the old side has changes a play's resolution only if the new side's asked about it
    (tested it, opened it, listed its directory for its name): engine.parsing.probes records that."""
    for side in SIDES:
        write_tree(tmp_path / side, PROJECT)
    (tmp_path / "new" / removed).unlink()
    write_tree(tmp_path / "new", {"roles/app/tasks/more.yml": "- name: more app\n  debug: msg=changed\n"})
    asked = _spy_taken(monkeypatch)
    monkeypatch.chdir(tmp_path / "new")
    assert _review(tmp_path, reuse=True) == _review(tmp_path, reuse=False)
    assert {name for name, was_taken in asked if was_taken} == taken
    assert {name for name, was_taken in asked if not was_taken} == resolved


def _spy_taken(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """(play, whether the old side took it) for each play the old side offers to take."""
    asked: list[tuple[str, bool]] = []
    original = shared_plays.PartnerPlays.get

    def spied(self: shared_plays.PartnerPlays, key: tuple, position: tuple) -> object:
        found = original(self, key, position)
        path, index = position[-1]
        asked.append((PLAY_AT[(Path(path).name, index)], found is not None))
        return found

    monkeypatch.setattr(shared_plays.PartnerPlays, "get", spied)
    return asked


def _review(root: Path, reuse: bool) -> str:
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import as_json

    files_changed()
    review = build_review(str(root / "old"), str(root / "new"), ["site.yml", "other.yml"],
                          RunOptions(playbook="", inventory=[]), None, str(root / "new"), reuse=reuse)
    return as_json(review).replace(str(root / "old"), "OLD").replace(str(root / "new"), "NEW")


def test_with_an_inventory_a_removed_file_a_host_looks_for_is_reviewed(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan asks each host for its first found vars file after the reading: the reading never
    asked about ``vars/alpha.yml``, yet the host that found it there now takes the default."""
    from review_cases import review_json

    files = {"inventory.ini": "h1 flavour=alpha\nh2 flavour=beta\n",
             "vars/alpha.yml": "port: 80\n", "vars/default.yml": "port: 8080\n",
             "site.yml": "- name: web\n  hosts: all\n  gather_facts: false\n"
                         "  vars_files:\n    - ['vars/{{ flavour }}.yml', 'vars/default.yml']\n"
                         "  tasks:\n    - name: open port 80\n      debug: msg=80\n      when: port == 80\n"}
    for side in SIDES:
        write_tree(tmp_path / side, files)
    (tmp_path / "new" / "vars/alpha.yml").unlink()
    monkeypatch.chdir(tmp_path / "new")
    playbook = json.loads(review_json(tmp_path / "old", tmp_path / "new", "inventory.ini"))["playbooks"][0]
    assert playbook["reaches"] == ["vars/alpha.yml"]
    assert [(change["task"]["name"], change["before"][0], change["after"][0], change["hosts"])
            for change in playbook["hosts"]] == [("open port 80", "runs", "skipped", ["h1"])]
