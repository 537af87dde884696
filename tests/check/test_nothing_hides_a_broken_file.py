"""A broken file is reported whatever rules are selected, a file named on the command line is
reported when it cannot be read, and a check that finds nothing to check says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

SITE = "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: x\n      tags: [never]\n"


def test_a_selection_does_not_hide_a_file_that_does_not_parse(write: Callable[..., Path], cli) -> None:
    write({"site.yml": SITE, "broken.yml": "- hosts: all\n  tasks: [\n"})
    code, out, _ = cli("check", ".", "--no-cache", "--select", "PLS101")
    assert code == 1
    assert "broken.yml:3:1: PLS111" in out
    code, out, _ = cli("check", ".", "--no-cache", "--select", "PLS101", "--ignore", "PLS111")
    assert (code, "PLS111" in out) == (0, False)  # ignoring it by name is a decision


def test_a_named_file_that_is_not_utf8_is_reported_where_it_breaks(write: Callable[..., Path], cli) -> None:
    root = write({"site.yml": SITE})
    (root / "notes.yml").write_bytes(b"a: 1\nb: \"caf\xe9\"\n")
    (root / "blob.yml").write_bytes(b"\x00\xff\x10binary")
    code, out, _ = cli("check", "notes.yml", "blob.yml", "--no-cache")
    assert code == 1
    assert ("notes.yml:2:8: PLS111 cannot read file: it is not UTF-8 text (0xe9 at line 2, column 8 is not "
            "UTF-8); save it as UTF-8, or exclude it if it is not Ansible's") in out
    assert "blob.yml:1:2: PLS111 cannot read file: it is a binary file (0xff at line 1, column 2" in out
    assert "codec" not in out
    code, out, _ = cli("check", ".", "--no-cache")  # not named, not Ansible's by place or content
    assert "notes.yml" not in out


def test_a_path_with_no_playbook_or_role_is_an_error(write: Callable[..., Path], cli) -> None:
    write({"config/settings.yml": "a: 1\n", "site.yml": SITE})
    code, out, err = cli("check", "config", "--no-cache")
    assert (code, out) == (2, "")
    assert "no playbook or role found in config (1 YAML file looked at)" in err
    assert cli("check", ".", "--no-cache")[0] == 0  # a playbook: checked, and it passes
