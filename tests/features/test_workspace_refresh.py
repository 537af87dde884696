"""Editing a buffer re-resolves only the plays that read it, and ends in the same state as
indexing everything again."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from playbook_ls.features.workspace import WorkspaceIndex

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "random_playbooks"))
from generator import generate  # noqa: E402

SITE = """\
- import_playbook: first.yml
- import_playbook: second.yml
  tags: [second]
"""
FIRST = "- hosts: all\n  roles: [one]\n"
SECOND = "- hosts: all\n  roles: [two]\n  tasks:\n    - ansible.builtin.debug:\n        msg: play task\n"
TASK = "- name: {name}\n  ansible.builtin.debug:\n    msg: x\n"
BAD_WHEN = '- name: added\n  ansible.builtin.debug:\n    msg: y\n  when: "{{ x }}"\n'


def snapshot(index: WorkspaceIndex) -> dict[str, Any]:
    """Everything a client can see: per file, the contexts reaching each task and the findings."""
    seen: dict[str, Any] = {}
    for path in index.files:
        reaches = sorted(
            (reach.book.path, reach.play.name, reach.task.display_name() if reach.task else "<play>",
             sorted(map(str, reach.task.tag_set())) if reach.task else [],
             [str(frame.when) for frame in reach.task.chain if frame.when] if reach.task else [])
            for reach in index.reaches(path))
        findings = [finding.to_dict() for finding in index.findings_for(path)]
        seen[path] = (reaches, findings)
    seen["tags"] = {tag: len(index.tagged(tag)) for tag in index.tag_map}
    return seen


def fresh(root: Path, overlay: dict[str, str]) -> WorkspaceIndex:
    index = WorkspaceIndex(str(root))
    for path, text in overlay.items():
        index.set_document(path, text)
    index.index()
    return index


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {"site.yml": SITE, "first.yml": FIRST, "second.yml": SECOND,
             "roles/one/tasks/main.yml": TASK.format(name="one task"),
             "roles/two/tasks/main.yml": TASK.format(name="two task")}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def plays(index: WorkspaceIndex) -> dict[str, Any]:
    return {play.name + str(play.position[-1][0]).rsplit("/", 1)[-1]: play
            for book in index.books.values() for play in book.playbook.plays}


def test_an_edit_re_resolves_only_the_plays_reading_the_file(repo: Path) -> None:
    index = fresh(repo, {})
    before = plays(index)
    role_file = str(repo / "roles/one/tasks/main.yml")
    index.set_document(role_file, TASK.format(name="one task") + BAD_WHEN)
    index.refresh([role_file])
    after = plays(index)
    assert after["allsecond.yml"] is before["allsecond.yml"]
    assert after["allfirst.yml"] is not before["allfirst.yml"]
    assert [f.code for f in index.findings_for(role_file)] == ["PLS105"]
    assert snapshot(index) == snapshot(fresh(repo, {role_file: index.text(role_file)}))


def test_editing_the_importing_playbook_re_resolves_what_it_imports(repo: Path) -> None:
    index = fresh(repo, {})
    site = str(repo / "site.yml")
    index.set_document(site, SITE.replace("tags: [second]", "tags: [other]"))
    index.refresh([site])
    two = str(repo / "roles/two/tasks/main.yml")
    via_site = [r.task.tag_set() for r in index.reaches(two) if r.task and r.book.path == site]
    assert via_site == [frozenset({"other"})]
    assert snapshot(index) == snapshot(fresh(repo, {site: index.text(site)}))


def _dump(data: Any) -> str:
    stream = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(data, stream)
    return stream.getvalue()


@pytest.mark.parametrize("seed", range(12))
def test_random_edits_end_where_a_full_index_ends(tmp_path: Path, seed: int) -> None:
    """Random repositories, random edits of task files (tags, a `when` with delimiters, a task
    removed), each followed by a refresh: the state equals a fresh index of the same buffers."""
    case = generate(seed)
    case.write(tmp_path)
    rng = random.Random(seed)
    task_files = sorted(rel for rel, data in case.files.items()
                        if "/tasks/" in f"/{rel}" and isinstance(data, list) and data)
    index = fresh(tmp_path, {})
    overlay: dict[str, str] = {}
    for _ in range(3):
        rel = rng.choice(task_files)
        data = [dict(item) if isinstance(item, dict) else item for item in case.files[rel]]
        edit = rng.choice(("tag", "when", "drop"))
        if edit == "tag" and isinstance(data[0], dict):
            data[0]["tags"] = [rng.choice(("a", "b", "never", "always", "fresh"))]
        elif edit == "when":
            data.append({"name": "added", "ansible.builtin.debug": {"msg": "x"}, "when": "{{ x }}"})
        elif len(data) > 1:
            data.pop(rng.randrange(len(data)))
        path = str(tmp_path / rel)
        overlay[path] = _dump(data)
        index.set_document(path, overlay[path])
        index.refresh([path])
    assert snapshot(index) == snapshot(fresh(tmp_path, overlay))


def test_rules_run_after_the_index_when_asked_to(repo: Path) -> None:
    """The server answers queries once playbooks are resolved and runs the rules afterwards:
    the end state is the same as indexing and checking in one go."""
    role_file = repo / "roles/one/tasks/main.yml"
    role_file.write_text(TASK.format(name="one task") + BAD_WHEN)
    index = WorkspaceIndex(str(repo))
    index.index(check=False)
    assert index.reaches(str(role_file)) and not index.findings_for(str(role_file))
    index.check()
    assert [f.code for f in index.findings_for(str(role_file))] == ["PLS105"]
    assert snapshot(index) == snapshot(fresh(repo, {}))


def test_a_playbook_that_imports_itself_shows_its_cycle_and_its_tasks(tmp_path: Path) -> None:
    (tmp_path / "site.yml").write_text("- import_playbook: site.yml\n- hosts: all\n  tasks:\n"
                                       "    - name: t\n      ansible.builtin.debug:\n        msg: x\n")
    index = fresh(tmp_path, {})
    site = str(tmp_path / "site.yml")
    assert [finding.code for finding in index.findings_for(site)] == ["PLS110"]
    assert [reach.task.name for reach in index.reaches(site) if reach.task] == ["t"]
