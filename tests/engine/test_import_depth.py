"""A long chain of import_tasks is depth, not a cycle: listed as far as ansible-playbook lists it
(138 levels from a play), refused beyond with its exit code (250, a RecursionError in ansible)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engine.loading.imports import MAX_IMPORT_DEPTH
from engine.loading.resolve import Resolver


def chain(root: Path, length: int) -> Path:
    for i in range(length):
        (root / f"t{i}.yml").write_text(f"- import_tasks: t{i + 1}.yml\n")
    (root / f"t{length}.yml").write_text("- debug: msg=end\n")
    site = root / "site.yml"
    site.write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n    - import_tasks: t0.yml\n")
    return site


@pytest.mark.parametrize(("length", "exit_code"), [(MAX_IMPORT_DEPTH - 1, None), (MAX_IMPORT_DEPTH, 250),
                                                   (2000, 250)])
def test_depth_is_reported_as_depth(tmp_path: Path, length: int, exit_code: int | None) -> None:
    book = Resolver().load_playbook(str(chain(tmp_path, length)))
    fatal = book.fatal_problems()
    if exit_code is None:
        assert not fatal and [t.display_name() for t in book.plays[0].tasks[0].tasks()] == ["debug"]
    else:
        assert fatal[0].code == "import-depth" and fatal[0].exit_code == exit_code
        assert "cycle" not in fatal[0].message


def test_a_real_cycle_is_still_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text("- import_tasks: b.yml\n")
    (tmp_path / "b.yml").write_text("- import_tasks: a.yml\n")
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  tasks:\n    - import_tasks: a.yml\n")
    book = Resolver().load_playbook(str(tmp_path / "site.yml"))
    assert book.fatal_problems()[0].code == "import-cycle"


@pytest.mark.ansible
def test_the_boundary_is_ansibles(tmp_path: Path) -> None:
    from ansible_tools import find_tool

    ansible = find_tool("ansible-playbook")
    if ansible is None:
        pytest.skip("ansible-playbook is not installed")
    for length, code in ((MAX_IMPORT_DEPTH - 1, 0), (MAX_IMPORT_DEPTH, 250)):
        root = tmp_path / str(length)
        root.mkdir()
        site = chain(root, length)
        done = subprocess.run([ansible, "-i", "localhost,", str(site), "--list-tasks"], cwd=root,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == code, done.stderr[-300:]


def playbook_chain(root: Path, length: int) -> Path:
    for i in range(length):
        (root / f"p{i}.yml").write_text(f"- import_playbook: p{i + 1}.yml\n")
    (root / f"p{length}.yml").write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: msg=end\n")
    return root / "p0.yml"


# Measured with ansible-playbook 2.19 --list-tasks: 321 levels list, 322-324 crash (250), 325+ exit 4.
@pytest.mark.parametrize(("length", "exit_code"), [(321, None), (322, 250), (324, 250), (325, 4), (1000, 4)])
def test_import_playbook_depth_is_ansibles(tmp_path: Path, length: int, exit_code: int | None) -> None:
    book = Resolver().load_playbook(str(playbook_chain(tmp_path, length)))
    fatal = book.fatal_problems()
    if exit_code is None:
        assert not fatal and [t.display_name() for t in book.plays[0].tasks[0].tasks()] == ["debug"]
    else:
        assert fatal[0].code == "import-depth" and fatal[0].exit_code == exit_code


def test_the_import_playbook_boundaries_are_ansibles(tmp_path: Path) -> None:
    from ansible_tools import find_tool

    ansible = find_tool("ansible-playbook")
    if ansible is None:
        pytest.skip("ansible-playbook is not installed")
    for length, code in ((321, 0), (322, 250), (325, 4)):
        root = tmp_path / str(length)
        root.mkdir()
        done = subprocess.run([ansible, "-i", "localhost,", str(playbook_chain(root, length)), "--list-tasks"],
                              cwd=root, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == code, done.stderr[-300:]
