"""``# noqa`` comments silence findings on their own line (and, on a task's first line, in the
whole task), for the codes or names they list."""

from __future__ import annotations

import json

import pytest

# One task on one line with two findings: PLS114 ('all' as a tag) and PLS105 ('{{ }}' in when).
TWO_FINDINGS = '- {{name: t, ansible.builtin.debug: {{msg: x}}, tags: all, when: "{{{{ x }}}}"}}  {comment}\n'


def findings(cli, *argv: str) -> list[tuple[str, int]]:
    _rc, out, _ = cli("check", "--format", "json", *argv)
    # PLS118 (a noqa that silences nothing) has tests of its own
    return [(f["code"], f["line"]) for f in json.loads(out)["findings"] if f["code"] != "PLS118"]


def playbook(comment: str) -> str:
    task = TWO_FINDINGS.format(comment=comment)
    return f"- hosts: all\n  tasks:\n    {task}"


def test_without_noqa_both_findings_are_reported(write, cli) -> None:
    write({"site.yml": playbook("# a comment")})
    assert findings(cli) == [("PLS114", 3), ("PLS105", 3)]  # by column


@pytest.mark.parametrize(("comment", "left"), [
    ("# noqa", []),
    ("#noqa", []),
    ("# NOQA", []),
    ("# noqa: PLS114", ["PLS105"]),
    ("# noqa:PLS114", ["PLS105"]),
    ("# noqa: pls114", ["PLS105"]),
    ("# NoQA: Pls114", ["PLS105"]),
    ("# noqa: reserved-tag-name", ["PLS105"]),
    ("# noqa: when-with-jinja-delimiters", ["PLS114"]),
    ("# noqa: PLS105, PLS114", []),
    ("# noqa:PLS105,PLS114", []),
    ("# noqa: PLS105,reserved-tag-name", []),
    ("# noqa: PLS101", ["PLS105", "PLS114"]),
    ("# noqa: PLS101, PLS102", ["PLS105", "PLS114"]),
    ("# noqa: never-reachable-by-inherited-tag", ["PLS105", "PLS114"]),
    ("# noqa: PLS11", ["PLS105", "PLS114"]),  # a prefix is not a code
    ("# noqa: PLS1140", ["PLS105", "PLS114"]),
    ("# noqa: PLS114 -- 'all' is intended here", ["PLS105"]),
    ("# this line is fine, noqa", ["PLS105", "PLS114"]),
])
def test_noqa_forms(write, cli, comment: str, left: list[str]) -> None:
    write({"site.yml": playbook(comment)})
    assert sorted(findings(cli)) == [(code, 3) for code in left]


def test_noqa_covers_its_own_line_or_on_a_tasks_first_line_the_task(write, cli) -> None:
    write({"site.yml": """
        - hosts: all
          tasks:
            - name: first  # noqa
              ansible.builtin.debug:
                msg: x
              tags: all
            - name: second
              ansible.builtin.debug:
                msg: x
              tags: all  # noqa: PLS114
            - name: third
              ansible.builtin.debug:
                msg: x
              tags: all
            # noqa: PLS114
        """})
    # first: the task's first line covers its tags; second: its own line; third: a comment
    # on a line of its own covers nothing
    assert findings(cli) == [("PLS114", 14)]


def test_noqa_in_a_task_file_and_on_a_profile_line(write, cli) -> None:
    write({
        "site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.import_tasks: tasks.yml\n",
        "tasks.yml": "- ansible.builtin.debug:\n    msg: x\n  tags: [all]  # noqa: PLS114\n"
                     "- ansible.builtin.debug:\n    msg: y\n  tags: [all, deploy]\n",
        ".playbook-ls.yml": "profiles:\n  a:\n    job_tags: deplyo  # noqa: PLS106\n  b:\n    job_tags: deplyo\n",
    })
    _rc, out, _ = cli("check", "--format", "json")
    got = [(f["path"], f["code"], f["line"]) for f in json.loads(out)["findings"]]
    assert got == [(".playbook-ls.yml", "PLS106", 5), ("tasks.yml", "PLS114", 6)]


def test_noqa_is_applied_to_cached_results_too(write, cli) -> None:
    write({"site.yml": playbook("# noqa: PLS114")})
    first = findings(cli)
    assert first == findings(cli) == [("PLS105", 3)]


def test_noqa_with_space_separated_codes(write, cli) -> None:
    write({"site.yml": playbook("# noqa: PLS105 PLS114")})
    assert findings(cli) == []


def test_a_file_without_noqa_is_not_searched_for_one(tmp_path) -> None:
    # Looking for a task's comment reads up to a task's lines per finding: thousands of findings
    # in a generated file (a job template export) made that quadratic. A file that has no noqa
    # anywhere is not searched; one that has is, as before.
    from engine.span import Span
    from playbook_ls.config import Settings
    from playbook_ls.rules.base import Finding
    from playbook_ls.rules.ruleset import RuleSet

    rules = RuleSet(Settings(root=str(tmp_path)), [], None)
    code = rules.enabled[0]
    lines = {"plain.json": ["{"] + ['    "x": 1,'] * 600, "noted.yml": ["- name: t  # noqa", "  debug:", "    msg: x"]}
    read: list[str] = []

    def line_of(path: str, number: int) -> str:
        read.append(path)
        return lines[path][number] if 0 <= number < len(lines[path]) else ""

    found = [Finding(f"m{n}", Span("plain.json", n, 4, n, 5), code=code) for n in range(300, 600)]
    found.append(Finding("t", Span("noted.yml", 2, 4, 2, 5), code=code))
    settled = list(rules.settle(found, line_of, has_noqa=lambda path: any("noqa" in line for line in lines[path])))
    assert [f.span.file for f in settled] == ["plain.json"] * 300  # the task's noqa silenced the other
    assert "plain.json" not in read and "noted.yml" in read
