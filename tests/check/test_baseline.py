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
    assert "accepted 2 findings as 2 entries (file and rule)" in err
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


def test_noqa_on_a_tasks_first_line_covers_the_whole_task(write: Callable[..., Path], cli) -> None:
    site = SITE.replace("    - name: first\n", "    - name: first  # noqa: PLS101\n") + NEW_TASK
    write({"site.yml": site})
    code, out, _ = cli("check", ".", "--no-cache")
    assert code == 1 and out.startswith("site.yml:11:14: PLS101 'second'")  # the next task is not covered
    assert "'first'" not in out


def test_a_noqa_that_silences_nothing_or_names_no_rule_is_reported(write: Callable[..., Path], cli) -> None:
    site = ("- hosts: all\n  tags: [deploy]\n  tasks:\n    - name: clean  # noqa: PLS101 name[missing]\n"
            "      ansible.builtin.debug:\n        msg: x\n"
            "    - name: used  # noqa: PLS101\n      ansible.builtin.debug:\n        msg: y\n      tags: [never]\n"
            "    - name: typo\n      ansible.builtin.debug:  # noqa: PLS9999\n        msg: z\n")
    write({"site.yml": site})
    code, out, _ = cli("check", ".", "--no-cache")
    lines = out.splitlines()[:-1]
    assert [line.split(": ", 1)[0] for line in lines] == ["site.yml:4:20", "site.yml:12:31"], out
    assert "PLS118 '# noqa: PLS101' silences nothing here: PLS101 (never-reachable-by-inherited-tag)" in lines[0]
    assert "PLS118 '# noqa: PLS9999' names no playbook-ls rule" in lines[1]
    code, out, _ = cli("check", ".", "--no-cache", "--select", "PLS118")  # PLS101 did not run: not unused
    assert [line.split(": ", 1)[0] for line in out.splitlines()[:-1]] == ["site.yml:12:31"], out
