"""``include_vars`` of the file ``first_found`` finds is followed before the run only while the
candidates it looks at are the repository's: one outside it (an absolute path, ``..``) exists or
not on the controller at run time, so what the task sets is unknown from there on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from var_values import values_at

PLAY = """\
- hosts: app
  gather_facts: false
  tasks:
    - name: os variables
      ansible.builtin.include_vars: "{{{{ lookup('ansible.builtin.first_found', {files}) }}}}"
    - name: probe
      ansible.builtin.debug:
        msg: "{{{{ pkg_mgr }}}}"
"""


@pytest.mark.parametrize(("files", "known"), [
    ("['vars/Debian.yml', '/etc/pls-site.yml']", True),  # found before the search leaves the repository
    ("['/etc/pls-site.yml', 'vars/Debian.yml']", False),
    ("['../outside/site.yml', 'vars/Debian.yml']", False),
])
def test_candidates_outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: str,
                                           known: bool) -> None:
    root = tmp_path / "repo"
    (root / "vars").mkdir(parents=True)
    (root / "vars" / "Debian.yml").write_text("pkg_mgr: apt\n")
    (root / "site.yml").write_text(PLAY.format(files=files))
    (root / "hosts.ini").write_text("[app]\na1\n")
    (root / "case.json").write_text(json.dumps({"inventory": ["hosts.ini"]}))
    monkeypatch.chdir(root)
    value = values_at(root, "site.yml:6", "a1", 0, ["pkg_mgr"])["pkg_mgr"]
    if known:
        assert value == "apt"
    else:
        assert str(value).startswith("unknown: ") and "outside the repository" in str(value), value
