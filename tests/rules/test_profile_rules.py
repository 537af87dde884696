"""PLS106 unknown-tag, PLS107 profile-runs-never-task, PLS108 skip-always: launch profiles."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruletest import check, positions

PLAYBOOK = """
- hosts: all
  tags: web
  roles:
    - role: db
      tags: database
  tasks:
    - name: drop everything
      command: drop
      tags: never
    - name: debug dump
      debug: msg=dump
      tags: [never, dump]
"""
ROLE = "- name: reset db\n  command: reset\n  tags: never\n- name: migrate\n  command: migrate\n"


def test_unknown_tags_in_toml_profile(repo: Path) -> None:
    found = check(repo, {
        "site.yml": PLAYBOOK, "roles/db/tasks/main.yml": ROLE,
        "pyproject.toml": """
            [tool.playbook-ls.profiles.nightly]
            playbook = "site.yml"
            job_tags = "databse,web"
            skip_tags = ["dmup", "never", "tagged"]
            """}, "PLS106")
    assert positions(found) == [("pyproject.toml", 2, 0), ("pyproject.toml", 3, 0)]
    assert "job_tags names 'databse', which no task carries; did you mean 'database'?" in found[0].message
    assert "skip_tags names 'dmup'" in found[1].message and "'dump'" in found[1].message


def test_profile_that_selects_an_inherited_tag_runs_never_tasks(repo: Path) -> None:
    found = check(repo, {
        "site.yml": PLAYBOOK, "roles/db/tasks/main.yml": ROLE,
        ".playbook-ls.yml": """
            profiles:
              database:
                playbook: site.yml
                job_tags: database
              dump:
                playbook: site.yml
                job_tags: dump
              web-safe:
                playbook: site.yml
                job_tags: web
                skip_tags: never
            """}, "PLS107")
    assert positions(found) == [(".playbook-ls.yml", 3, 4), ("roles/db/tasks/main.yml", 0, 8)]
    on_profile, on_task = found
    assert "profile 'database' runs 'db : reset db'" in on_profile.message
    assert "'database' (the roles: entry \"db\", site.yml:5)" in on_profile.message
    assert "add 'never' to the profile's skip_tags" in on_profile.message
    assert on_task.related[0].span.file.endswith(".playbook-ls.yml")


def test_profile_for_another_playbook_is_not_applied(repo: Path) -> None:
    found = check(repo, {
        "site.yml": PLAYBOOK, "other.yml": "- hosts: all\n  tasks:\n    - debug: msg=x\n",
        "roles/db/tasks/main.yml": ROLE,
        ".playbook-ls.yml": "profiles:\n  p:\n    playbook: other.yml\n    job_tags: web\n"}, None)
    assert [f.code for f in found if f.code in ("PLS106", "PLS107")] == ["PLS106"]


def test_skip_always_in_profile_and_ansible_cfg(repo: Path) -> None:
    found = check(repo, {
        "site.yml": PLAYBOOK, "roles/db/tasks/main.yml": ROLE,
        "ansible.cfg": "[defaults]\nforks = 5\n\n[tags]\nskip = always,slow\n",
        ".playbook-ls.yml": "profiles:\n  quick:\n    skip_tags: [slow, always]\n  fine:\n    skip_tags: slow\n",
    }, "PLS108")
    assert positions(found) == [(".playbook-ls.yml", 2, 4), ("ansible.cfg", 4, 0)]


def test_the_profiles_launching_a_playbook_are_found_once_per_profile(tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule of every play asks which profiles launch its playbook: with an export's thousands
    of profiles, each profile's playbook is resolved once, not once per play and rule."""
    import os

    from engine.launch.profiles import LaunchProfile
    from engine.loading.model import Playbook
    from playbook_ls.rules import base

    (tmp_path / "site.yml").write_text("- hosts: all\n")
    (tmp_path / "other.yml").write_text("- hosts: all\n")
    profiles = []
    for index in range(300):
        profile = LaunchProfile(f"t{index}")
        profile.playbook, profile.source = ("site.yml", "other.yml", None)[index % 3], str(tmp_path / "s.yml")
        profiles.append(profile)
    calls = []
    real = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda path: calls.append(path) or real(path))
    base._REAL.clear()
    for _play in range(20):
        context = base.PlaybookContext(Playbook(str(tmp_path / "site.yml")), profiles, {})
        for _rule in range(3):
            assert [p.name for p in context.launching()] == [p.name for p in profiles if p.playbook != "other.yml"]
    assert len(calls) <= 3
