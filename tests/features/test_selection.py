"""Why a task runs or not under a selection: the verdicts are those of ansible-core 2.19.

RAN holds, per selection, the tasks ``ansible-playbook -i localhost, -c local site.yml ...``
ran (the ``TASK [...]`` lines, in order, an included file's tasks once per include that ran).
``test_the_recording_is_what_ansible_runs`` runs ansible again when it is installed.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from ansible_tools import find_tool

from engine.tags import Selection
from playbook_ls.features.selection import decide, explain, make_preview, play_verdicts, unselected
from playbook_ls.features.workspace import WorkspaceIndex

SITE = """\
---
- hosts: localhost
  gather_facts: false
  tasks:
    - name: untagged
      debug: {msg: x}
    - name: always
      debug: {msg: x}
      tags: always
    - name: never
      debug: {msg: x}
      tags: never
    - name: never deploy
      debug: {msg: x}
      tags: [never, deploy]
    - name: deploy
      debug: {msg: x}
      tags: deploy
    - name: always deploy
      debug: {msg: x}
      tags: [always, deploy]
    - name: other
      debug: {msg: x}
      tags: other
    - block:
        - name: in deploy block never
          debug: {msg: x}
          tags: never
      always:
        - name: block always section
          debug: {msg: x}
      tags: deploy
    - name: include without apply
      include_tasks: inc.yml
      tags: deploy
    - name: include with apply
      include_tasks:
        file: inc.yml
        apply:
          tags: deploy
      tags: deploy
    - name: conditional
      debug: {msg: x}
      when: ready | default(true)
      tags: deploy
"""
INC = """\
---
- name: included untagged
  debug: {msg: x}
- name: included other
  debug: {msg: x}
  tags: other
"""
INCLUDED = ["included untagged", "included other"]
RAN: dict[str, list[str]] = {
    "": ["untagged", "always", "deploy", "always deploy", "other", "block always section",
         "include without apply", *INCLUDED, "include with apply", *INCLUDED, "conditional"],
    "--tags deploy": ["always", "never deploy", "deploy", "always deploy", "in deploy block never",
                      "block always section", "include without apply", "include with apply", *INCLUDED,
                      "conditional"],
    "--tags tagged": ["always", "deploy", "always deploy", "other", "block always section", "include without apply",
                      "included other", "include with apply", *INCLUDED, "conditional"],
    "--tags untagged": ["untagged", "always", "always deploy"],
    "--skip-tags deploy": ["untagged", "always", "other"],
    "--skip-tags all": ["always", "always deploy"],
    "--skip-tags all,always": [],
    # with 'all' among --skip-tags ansible looks at no other skipped tag: 'deploy' does not count
    "--skip-tags all,deploy": ["always", "always deploy"],
    "--tags never": ["always", "never", "never deploy", "always deploy", "in deploy block never"],
    "--skip-tags always": ["untagged", "deploy", "other", "block always section", "include without apply",
                           *INCLUDED, "include with apply", *INCLUDED, "conditional"],
    "--tags deploy --skip-tags never": ["always", "deploy", "always deploy", "block always section",
                                        "include without apply", "include with apply", *INCLUDED, "conditional"],
    "--skip-tags tagged": ["untagged"],
    "--tags other": ["always", "always deploy", "other"],
}


def _line(needle: str, text: str = SITE) -> int:
    return next(number for number, line in enumerate(text.splitlines()) if needle in line)


def _options(selection: str) -> tuple[list[str] | None, list[str] | None]:
    words = selection.split()
    tags = [value for flag, value in zip(words, words[1:], strict=False) if flag == "--tags"]
    skip = [value for flag, value in zip(words, words[1:], strict=False) if flag == "--skip-tags"]
    return tags or None, skip or None


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("selection")
    (root / "site.yml").write_text(SITE)
    (root / "inc.yml").write_text(INC)
    return root


@pytest.fixture(scope="module")
def index(workspace: Path) -> WorkspaceIndex:
    index = WorkspaceIndex(str(workspace))
    index.index(check=False)
    return index


@pytest.mark.parametrize("selection", list(RAN))
def test_the_tasks_run_are_those_ansible_runs(index: WorkspaceIndex, workspace: Path, selection: str) -> None:
    book = index.books[str(workspace / "site.yml")]
    [play] = book.playbook.plays
    preview = make_preview(*_options(selection))
    ran = [verdict.task.name for verdict in play_verdicts(play, preview.selection).values() if verdict.runs]
    assert ran == RAN[selection]


@pytest.mark.parametrize("selection", list(RAN))
def test_greyed_tasks_are_those_run_in_no_context(index: WorkspaceIndex, workspace: Path, selection: str) -> None:
    greyed = unselected(index, make_preview(*_options(selection)))
    names = {str(workspace / "site.yml"): SITE, str(workspace / "inc.yml"): INC}
    found = set()
    for path, spans in greyed.items():
        lines = names[path].splitlines()
        found |= {lines[span.line].split("name: ", 1)[1] for span, _why in spans}
    written = {line.split("name: ", 1)[1] for text in names.values() for line in text.splitlines() if "name: " in line}
    assert found == written - set(RAN[selection])


def test_decide_follows_evaluate_tags_order() -> None:
    def check(tags: set[str], tags_opt: list[str], skip: list[str]) -> tuple[bool, str]:
        decision = decide(frozenset(tags), Selection.from_options(tags_opt, skip))
        return decision.runs, decision.rule

    assert check({"always", "never"}, ["x"], []) == (True, "tagged `always`, which every --tags selects")
    assert check({"never"}, [], []) == (False, "tagged `never`: `--tags all` selects it only by naming one of "
                                               "its tags")
    assert check({"never", "deploy"}, ["deploy"], []) == (True, "`--tags deploy` names `deploy`")
    assert check({"untagged"}, ["tagged"], []) == (False, "none of its tags is in `--tags tagged`")
    assert check({"always", "deploy"}, [], ["all,deploy"])[0] is True
    assert check({"always"}, [], ["all,always"]) == (False, "`--skip-tags all,always` skips `always` tasks too")
    decision = decide(frozenset({"always", "deploy"}), Selection.from_options([], ["all,deploy"]))
    assert "looks at no other: `deploy` does not count" in decision.steps[-1]


def test_why_explains_each_context_step_by_step(index: WorkspaceIndex, workspace: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace)
    preview = make_preview(["deploy"], ["never"])
    first, second = explain(index, str(workspace / "inc.yml"), 1, preview)  # reached by both includes
    assert not first.runs and "include_tasks that loads it (site.yml:34) does not run" not in first.because
    assert first.because == "none of its tags is in `--tags deploy`"  # the include runs; its tasks lack 'deploy'
    assert first.verdict is not None and [g.task.name for g in first.verdict.gates] == ["include without apply"]
    assert second.runs and second.summary == "runs"
    assert second.because.endswith("its file is loaded at run time by include_tasks at site.yml:36, which runs")
    assert [tag for tag, _frame in second.verdict.tags] == ["deploy"]  # type: ignore[union-attr]
    [conditional] = explain(index, str(workspace / "site.yml"), _line("name: conditional"), preview)
    assert conditional.summary == "runs if its conditions hold"
    assert [str(cond) for cond, _f, _t in conditional.verdict.conditions] == ["ready | default(true)"]  # type: ignore[union-attr]
    [skipped] = explain(index, str(workspace / "site.yml"), _line("name: never deploy"), preview)
    assert skipped.summary == "does not run" and skipped.because == "`--skip-tags never` names `never`"


@pytest.mark.parametrize("selection", list(RAN))
def test_the_recording_is_what_ansible_runs(workspace: Path, selection: str) -> None:
    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook not installed")
    output = subprocess.run([tool, "-i", "localhost,", "-c", "local", "site.yml", *selection.split()],
                            cwd=workspace, capture_output=True, text=True, timeout=120,
                            env={"ANSIBLE_NOCOLOR": "1", "PATH": str(Path(tool).parent) + ":/usr/bin:/bin",
                                 "HOME": str(workspace)}).stdout
    assert re.findall(r"TASK \[([^\]]*)\]", output) == RAN[selection]
