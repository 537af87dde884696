"""The first index resolves what reaches the open files first: their answers then are those of the
whole index, and the whole index that follows is the one built without a first pass."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from playbook_ls.features.first_pass import Reaching
from playbook_ls.features.hover import hover_markdown
from playbook_ls.features.workspace import WorkspaceIndex

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "random_playbooks"))
from generator import generate  # noqa: E402
from test_workspace_refresh import snapshot  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tag-inheritance"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def reaching_in(root: Path, files: dict[str, str], opened: str) -> Reaching:
    """What leads to ``opened`` among ``files`` (written under ``root`` already)."""
    return Reaching([opened], {opened}, sorted(str(root / rel) for rel in files), lambda path: Path(path).read_text())


def reached(index: WorkspaceIndex, path: str) -> list[Any]:
    """What a hover on ``path`` is made of: each context reaching each of its lines."""
    return sorted((r.book.path, r.play.position, r.task.display_name() if r.task else "<play>",
                   sorted(map(str, r.task.tag_set())) if r.task else []) for r in index.reaches(path))


def hovers(index: WorkspaceIndex, path: str) -> list[str | None]:
    return [hover_markdown(index, path, line) for line in range(len(index.text(path).splitlines()))]


def first_then_whole(root: Path, opened: str) -> tuple[dict[str, Any], WorkspaceIndex]:
    """Index ``root`` with ``opened`` open: what the first pass answered for it (and how much of
    the workspace it had resolved), then the whole index."""
    index = WorkspaceIndex(str(root))
    index.set_document(opened, Path(opened).read_text())
    early: dict[str, Any] = {}

    def first() -> None:
        early.update(reached=reached(index, opened), hovers=hovers(index, opened), early=index.early,
                     plays=sum(len(book.playbook.plays) for book in index.books.values()))

    index.index(first=first)
    return early, index


def old_way(root: Path, opened: str) -> WorkspaceIndex:
    index = WorkspaceIndex(str(root))
    index.set_document(opened, Path(opened).read_text())
    index.index()
    return index


@pytest.mark.parametrize("seed", [*range(10), 14])  # 14: a role imports the playbook's decoy
def test_the_first_pass_answers_as_the_whole_index_on_random_repositories(tmp_path: Path, seed: int) -> None:
    """Roles reached through meta dependencies, import_role and include_role with and without
    tasks_from, task files imported from playbooks and roles: for every task file opened, the
    first pass finds every context the whole index finds, and the whole index is the old one."""
    case = generate(seed)
    case.write(tmp_path)
    task_files = sorted(rel for rel, data in case.files.items() if "tasks/" in rel and isinstance(data, list) and data)
    answered = 0
    for rel in task_files:
        opened = str(tmp_path / rel)
        early, index = first_then_whole(tmp_path, opened)
        assert early["early"] in ({opened}, frozenset())  # or not sure: its queries wait for the whole index
        if early["early"]:
            answered += 1
            assert early["reached"] == reached(index, opened), rel
            assert early["hovers"] == hovers(index, opened), rel
        assert snapshot(index) == snapshot(old_way(tmp_path, opened)), rel
        assert index.early == frozenset()
    print(f"seed {seed}: {answered}/{len(task_files)} answered early")
    assert answered >= len(task_files) // 2


def test_a_play_with_an_alias_inside_itself_is_resolved_in_the_first_pass(tmp_path: Path) -> None:
    """Searching ``vars: &v {a: *v}`` for names went on forever (RecursionError), the play was left
    out and the open role answered early as used by no playbook."""
    files = {"site.yml": "- hosts: all\n  vars: &v {a: *v, b: [*v]}\n  roles: [web]\n",
             "roles/web/tasks/main.yml": "- name: Install\n  ansible.builtin.debug:\n    msg: x\n"}
    write(tmp_path, files)
    opened = str(tmp_path / "roles/web/tasks/main.yml")
    early, index = first_then_whole(tmp_path, opened)
    site = str(tmp_path / "site.yml")
    assert early["reached"] == reached(index, opened) == [(site, ((site, 0),), "web : Install", [])]


def test_the_first_pass_leaves_out_the_plays_that_cannot_reach_the_open_file(tmp_path: Path) -> None:
    files = {
        "site.yml": "- import_playbook: web.yml\n- import_playbook: db.yml\n",
        "web.yml": "- hosts: web\n  roles: [web]\n",
        "db.yml": "- name: Set up the db role\n  hosts: db\n  tasks:\n"
                  "    - name: Include the web role\n      ansible.builtin.include_role:\n"
                  "        name: web\n        tasks_from: install\n",
        "roles/web/tasks/main.yml": "- name: Config\n  ansible.builtin.import_tasks: config.yml\n",
        "roles/web/tasks/config.yml": "- name: Write\n  ansible.builtin.debug:\n    msg: writing\n",
        "roles/web/tasks/install.yml": "- name: Install\n  ansible.builtin.debug:\n    msg: installing\n",
    }
    write(tmp_path, files)
    early, index = first_then_whole(tmp_path, str(tmp_path / "roles/web/tasks/config.yml"))
    assert early["plays"] == 1  # web.yml's: db.yml's play includes web's install.yml only
    assert sum(len(book.playbook.plays) for book in index.books.values()) == 2
    assert early["reached"] == reached(index, str(tmp_path / "roles/web/tasks/config.yml"))
    install = str(tmp_path / "roles/web/tasks/install.yml")
    early, index = first_then_whole(tmp_path, install)
    assert early["plays"] == 2  # web.yml's may reach it as far as the text tells: roles: [web]
    assert [context[1][-1][0].rsplit("/", 1)[1] for context in early["reached"]] == ["db.yml"]
    assert early["reached"] == reached(index, install)


def test_an_open_role_no_playbook_uses_is_a_role_of_its_own_at_once(tmp_path: Path) -> None:
    write(tmp_path, {"site.yml": "- hosts: all\n  roles: [used]\n",
                     "roles/used/tasks/main.yml": "- ansible.builtin.debug:\n    msg: used\n",
                     "roles/lone/tasks/main.yml": "- name: Alone\n  ansible.builtin.debug:\n    msg: lone\n"})
    opened = str(tmp_path / "roles/lone/tasks/main.yml")
    early, index = first_then_whole(tmp_path, opened)
    assert early["plays"] == 1 and early["reached"] == reached(index, opened)
    assert "used by no playbook" in early["hovers"][0]
    assert snapshot(index) == snapshot(old_way(tmp_path, opened))


def test_the_example_opened_anywhere_ends_as_the_old_index() -> None:
    for opened in sorted(EXAMPLE.rglob("*.yml")):
        early, index = first_then_whole(EXAMPLE, str(opened))
        assert early["reached"] == reached(index, str(opened)), opened
        assert snapshot(index) == snapshot(old_way(EXAMPLE, str(opened))), opened


def test_names_in_words_and_other_task_files_lead_nowhere(tmp_path: Path) -> None:
    files = {
        "roles/db/tasks/main.yml": "- ansible.builtin.import_tasks: tls.yml\n",
        "roles/db/tasks/tls.yml": "- ansible.builtin.debug:\n    msg: tls\n",
        "roles/db/tasks/install.yml": "- ansible.builtin.debug:\n    msg: install\n",
        "roles/prose/tasks/main.yml": "- name: Configure db like the db role does\n  ansible.builtin.debug:\n",
        "roles/other/tasks/main.yml": "- ansible.builtin.include_role:\n    tasks_from: install.yml\n    name: db\n",
        "roles/meta_user/meta/main.yml": "dependencies:\n  - role: db\n",
        "roles/entered/tasks/main.yml": "- ansible.builtin.import_role:\n    name: db\n    tasks_from: main\n",
    }
    write(tmp_path, files)
    opened = str(tmp_path / "roles/db/tasks/tls.yml")
    reaching = reaching_in(tmp_path, files, opened)
    assert reaching.entries == {"db": {"main", "tls"}, "meta_user": None, "entered": {"main"}}
    assert not reaching.play_may_reach([(str(tmp_path / "site.yml"), 0)],
                                       {"hosts": "all", "name": "db and other", "roles": ["prose", "other"]})
    assert reaching.play_may_reach([(str(tmp_path / "site.yml"), 0)], {"hosts": "all", "roles": ["meta_user"]})
    assert reaching.play_may_reach([(opened, 0)], {"hosts": "all"})


def test_variables_comments_and_a_roles_own_files_lead_nowhere(tmp_path: Path) -> None:
    """debops: a playbook etherpad.yml uses mariadb; global_handlers imports its own
    handlers/etherpad.yml, and another role names mariadb as a service in its defaults."""
    files = {
        "playbooks/etherpad.yml": "- hosts: all\n  roles:\n    - role: mariadb\n",
        "roles/mariadb/tasks/main.yml": "- ansible.builtin.debug:\n    msg: db\n",
        "roles/global_handlers/tasks/main.yml": "- ansible.builtin.import_tasks: 'etherpad.yml'\n",
        "roles/global_handlers/tasks/etherpad.yml": "- ansible.builtin.debug:\n    msg: pad\n",
        "roles/ferm/tasks/main.yml": "# the mariadb role opens its port itself\n- ansible.builtin.debug:\n",
        "roles/ferm/defaults/main.yml": "ferm__services:\n  - mariadb\n",
        "group_vars/all.yml": "services: [mariadb]\n",
    }
    write(tmp_path, files)
    opened = str(tmp_path / "roles/mariadb/tasks/main.yml")
    reaching = reaching_in(tmp_path, files, opened)
    assert reaching.entries == {"mariadb": {"main"}, "etherpad.yml": None}
    assert reaching.leading == {opened, str(tmp_path / "playbooks/etherpad.yml")}


def test_a_first_pass_that_fails_leaves_the_whole_index_as_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("a bug in the first pass")

    monkeypatch.setattr(Reaching, "__init__", broken)
    opened = str(EXAMPLE / "roles/sample/tasks/main.yml")
    early, index = first_then_whole(EXAMPLE, opened)
    assert early == {} and index.early == frozenset()  # first() was never called
    assert any("a bug in the first pass" in error for error in index.internal_errors)
    monkeypatch.undo()
    assert snapshot(index) == snapshot(old_way(EXAMPLE, opened))


def test_a_role_named_by_a_template_is_followed_or_waited_for(tmp_path: Path) -> None:
    """ansible-lockdown's repositories are a role whose site.yml runs ``role: "{{ playbook_dir }}"``:
    that play may reach anything, so it is resolved first. A role included by a template from
    another role may be used after all: its files wait for the whole index."""
    write(tmp_path, {"site.yml": '- hosts: all\n  roles:\n    - role: "{{ playbook_dir }}"\n',
                     "meta/main.yml": "galaxy_info: {}\n",
                     "tasks/main.yml": "- ansible.builtin.import_tasks: section_1/one.yml\n",
                     "tasks/section_1/one.yml": "- name: One\n  ansible.builtin.debug:\n    msg: one\n"})
    opened = str(tmp_path / "tasks/section_1/one.yml")
    early, index = first_then_whole(tmp_path, opened)
    assert early["early"] == {opened} and early["plays"] == 1
    assert early["reached"] == reached(index, opened) and "site.yml" in early["hovers"][0]

    other = tmp_path / "other"
    write(other, {"site.yml": "- hosts: all\n  roles: [front]\n",
                  "roles/front/tasks/main.yml": '- ansible.builtin.include_role:\n    name: "{{ backend }}"\n',
                  "roles/back/tasks/main.yml": "- name: Back\n  ansible.builtin.debug:\n    msg: back\n"})
    opened = str(other / "roles/back/tasks/main.yml")
    early, index = first_then_whole(other, opened)
    assert early["early"] == frozenset()  # not "used by no playbook" before the whole index says so
    assert snapshot(index) == snapshot(old_way(other, opened))
