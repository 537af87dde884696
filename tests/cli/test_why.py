"""``playbook-ls why FILE:LINE``: the verdict per context, as text and JSON, and exit 2 with a
positioned message when nothing can be answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PROFILE_EXAMPLE = ROOT / "examples" / "launch-profile"
SITE = """\
- hosts: localhost
  gather_facts: false
  tasks:
    - name: setup
      debug: {msg: x}
    - name: drop
      debug: {msg: x}
      tags: [never, deploy]
    - name: include
      include_tasks: inc.yml
      tags: deploy
  handlers:
    - name: restart
      debug: {msg: x}
      tags: never
"""
INC = """\
- name: included
  debug: {msg: x}
  when: ready
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "site.yml").write_text(SITE)
    (tmp_path / "inc.yml").write_text(INC)
    (tmp_path / "lonely.yml").write_text("- name: reached by nothing\n  debug: {msg: x}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_text_explains_the_skip(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why", "site.yml:6", "--tags", "deploy", "--skip-tags", "never")
    assert code == 0
    assert out.splitlines()[:2] == ["site.yml:6: task drop", "under --tags deploy --skip-tags never"]
    assert "  2. --tags: selected: --tags deploy names deploy" in out
    assert "  3. --skip-tags: skipped: --skip-tags never names never" in out
    assert out.rstrip().endswith("verdict: does not run: --skip-tags never names never")


def test_json_of_a_task_an_include_loads(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why", "inc.yml:1", "--tags", "deploy", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["runs"] is False and data["selection"]["label"] == "--tags deploy"
    [context] = data["contexts"]
    assert context["includes"] == [{"task": "include", "action": "include_tasks", "at": "site.yml:9", "runs": True,
                                    "because": "--tags deploy names deploy"}]
    assert context["when"] == [{"condition": "ready", "from": "this task"}]
    assert context["because"] == "none of its tags is in --tags deploy"  # the include's tags are not inherited
    code, out, _ = run(capsys, "why", "inc.yml:1", "--format", "json")
    assert json.loads(out)["contexts"][0]["verdict"] == "runs if its conditions hold"


def test_a_handler_is_not_selected_by_tags(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why", "site.yml:13", "--tags", "deploy")
    assert code == 0
    assert out.rstrip().endswith("verdict: runs: a handler: tags do not select handlers, it runs when notified")


@pytest.mark.parametrize(("location", "message"), [
    ("site.yml:1", "site.yml:1: a play, not a task"),
    ("site.yml:40", "site.yml:40: no task is at this line"),
    ("lonely.yml:1", "lonely.yml:1: no playbook under"),
    ("missing.yml:3", "no such file: missing.yml"),
    ("site.yml", "'site.yml' is not FILE:LINE"),
])
def test_nothing_to_answer_exits_2_with_a_position(workspace: Path, capsys: pytest.CaptureFixture[str],
                                                   location: str, message: str) -> None:
    code, out, err = run(capsys, "why", location)
    assert code == 2 and out == ""
    assert err.startswith(f"playbook-ls: error: {message}")


def test_a_profile_selection_with_launch_overrides(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROFILE_EXAMPLE)
    code, out, _ = run(capsys, "why", "site.yml:10", "--profile", "nightly")
    assert code == 0 and "under profile nightly: --tags deploy" in out
    assert "note: tagged never at task" in out and "verdict: runs: --tags deploy names deploy" in out
    code, out, _ = run(capsys, "why", "site.yml:10", "--profile", "nightly", "--skip-tags", "never")
    assert "note: profile nightly does not ask for skip_tags on launch: 'never' is ignored" in out
    code, _, err = run(capsys, "why", "site.yml:10", "--profile", "weekly")
    assert code == 2 and "no launch profile 'weekly'" in err


def test_contexts_with_the_same_verdict_are_grouped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Three plays run one role: one group, the first context in full, the others by what differs
    (their play's when); --verbose gives every context in full."""
    plays = "".join(f"- hosts: all\n  name: p{n}\n  roles:\n    - role: web\n      when: flag{n}\n" for n in (1, 2, 3))
    (tmp_path / "site.yml").write_text(plays)
    (tmp_path / "roles" / "web" / "tasks").mkdir(parents=True)
    (tmp_path / "roles" / "web" / "tasks" / "main.yml").write_text("- debug: msg=hi\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "why", "roles/web/tasks/main.yml:1")
    assert code == 0 and out.count("verdict:") == 1 and "contexts 1, 2, 3:" in out
    assert "likewise context 2:" in out and "flag2  (from" in out and out.count("\n  tags: none\n") == 1
    code, out, _ = run(capsys, "why", "roles/web/tasks/main.yml:1", "--verbose")
    assert out.count("verdict:") == 3 and "context 3:" in out
