"""Adopting playbook-ls on a repository with findings: accept them once, fail only on new ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playbook_ls.check.baseline import IGNORE_FILE

SITE = ("- hosts: all\n  tags: [deploy]\n  tasks:\n    - name: first\n      ansible.builtin.debug:\n        msg: x\n"
        "      tags: [never]\n")
NEW_TASK = "    - name: second\n      ansible.builtin.debug:\n        msg: y\n      tags: [never]\n"


def test_generate_ignore_accepts_the_findings_and_new_ones_still_fail(write: Callable[..., Path], cli) -> None:
    root = write({"site.yml": SITE, "other.yml": SITE})
    code, out, _ = cli("check", ".", "--no-cache")
    assert code == 1 and out.count("PLS101") == 2
    code, out, err = cli("check", ".", "--no-cache", "--generate-ignore")
    assert (code, out) == (0, "")
    assert "accepted 2 findings" in err
    lines = [line for line in (root / IGNORE_FILE).read_text().splitlines() if not line.startswith("#")]
    assert lines == ["other.yml PLS101", "site.yml PLS101"]
    assert cli("check", ".", "--no-cache")[0] == 0
    (root / "deploy.yml").write_text(SITE)  # a new file with the same finding is not accepted
    code, out, _ = cli("check", ".", "--no-cache")
    assert code == 1 and out.startswith("deploy.yml:7:14: PLS101")


def test_an_ignore_file_accepts_by_file_and_rule(write: Callable[..., Path], cli) -> None:
    write({"site.yml": SITE + NEW_TASK, "other.yml": SITE, IGNORE_FILE: "# accepted\n./site.yml  PLS101  # old\n"})
    code, out, _ = cli("check", ".", "--no-cache")
    assert code == 1 and "other.yml:7:14: PLS101" in out
    assert not [line for line in out.splitlines() if line.startswith("site.yml")]


def test_a_bad_ignore_line_is_a_positioned_config_error(write: Callable[..., Path], cli) -> None:
    write({"site.yml": SITE, IGNORE_FILE: "site.yml PLS101\n\n  site.yml PLS999\n"})
    code, out, err = cli("check", ".", "--no-cache")
    assert (code, out) == (2, "")
    assert f"{IGNORE_FILE}:3:3: unknown rule 'PLS999'" in err


def test_per_file_ignores_silence_rules_for_matching_files(write: Callable[..., Path], cli) -> None:
    write({"site.yml": SITE, "legacy/old.yml": SITE,
           ".playbook-ls.yml": "per-file-ignores:\n  legacy/**: [never-reachable-by-inherited-tag]\n"})
    code, out, _ = cli("check", ".", "--no-cache")
    assert code == 1 and "site.yml:7:14: PLS101" in out and "legacy" not in out


def test_exit_zero_and_output_file(write: Callable[..., Path], cli) -> None:
    root = write({"site.yml": SITE})
    code, out, _ = cli("check", ".", "--no-cache", "--exit-zero", "--output-file", "report.json", "--format", "json")
    assert (code, out) == (0, "")
    assert '"PLS101"' in (root / "report.json").read_text()
    assert cli("check", ".", "--no-cache", "--output-file", str(root / "missing" / "r.txt"))[0] == 2
