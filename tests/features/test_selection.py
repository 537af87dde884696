"""Why a task runs or not under a selection: the verdicts are those of ansible-core 2.19.

RAN holds, per selection, the tasks ``ansible-playbook -i localhost, -c local site.yml ...``
ran (the ``TASK [...]`` lines, in order, an included file's tasks once per include that ran).
``test_the_recording_is_what_ansible_runs`` runs ansible again when it is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ansible_tools import find_tool, live_sample

from engine.flow.tags import Selection
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


ROLE_TASKS = """\
- name: role untagged
  debug: {msg: x}
- name: role other
  debug: {msg: x}
  tags: other
"""
ROLES = """\
- hosts: localhost
  gather_facts: false
  tasks:
    - name: include role plain
      include_role:
        name: r
      tags: deploy
    - name: include role apply
      include_role:
        name: r
        apply:
          tags: deploy
      tags: deploy
    - name: import role
      import_role:
        name: r
      tags: deploy
"""
ROLE = ["r : role untagged", "r : role other"]
RAN_ROLES: dict[str, list[str]] = {  # ansible-playbook -i localhost, -c local roles.yml ...
    "": ["include role plain", *ROLE, "include role apply", *ROLE, *ROLE],
    "--tags deploy": ["include role plain", "include role apply", *ROLE, *ROLE],
    "--tags other": ["r : role other"],
    "--skip-tags deploy": [],
    "--tags tagged": ["include role plain", "r : role other", "include role apply", *ROLE, *ROLE],
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
    (root / "roles.yml").write_text(ROLES)
    (root / "roles" / "r" / "tasks").mkdir(parents=True)
    (root / "roles" / "r" / "tasks" / "main.yml").write_text(ROLE_TASKS)
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


@pytest.mark.parametrize("selection", list(RAN_ROLES))
def test_include_role_and_import_role_as_ansible_runs_them(index: WorkspaceIndex, workspace: Path,
                                                          selection: str) -> None:
    [play] = index.books[str(workspace / "roles.yml")].playbook.plays
    verdicts = play_verdicts(play, make_preview(*_options(selection)).selection).values()
    assert [verdict.task.display_name() for verdict in verdicts if verdict.runs] == RAN_ROLES[selection]


@pytest.mark.parametrize("selection", list(RAN))
def test_greyed_tasks_are_those_run_in_no_context(index: WorkspaceIndex, workspace: Path, selection: str) -> None:
    greyed = unselected(index, make_preview(*_options(selection)))
    names = {str(workspace / "site.yml"): SITE, str(workspace / "inc.yml"): INC}
    found = set()
    for path, spans in greyed.items():
        if path not in names:
            continue  # roles.yml: test_include_role_and_import_role_as_ansible_runs_them
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
    assert [str(cond) for cond, _origin in conditional.verdict.conditions] == ["ready | default(true)"]  # type: ignore[union-attr]
    [skipped] = explain(index, str(workspace / "site.yml"), _line("name: never deploy"), preview)
    assert skipped.summary == "does not run" and skipped.because == "`--skip-tags never` names `never`"


def test_a_profile_runs_only_its_playbook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    example = tmp_path / "launch-profile"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "launch-profile", example)
    (example / "other.yml").write_text("- hosts: web\n  tags: deploy\n  tasks:\n    - name: elsewhere\n"
                                       "      debug: {msg: x}\n")
    monkeypatch.chdir(example)
    index = WorkspaceIndex(str(example))
    index.index(check=False)
    [nightly] = index.settings.profiles
    preview = make_preview(None, None, nightly)
    assert preview.label == "profile nightly: --tags deploy"
    site = str(example / "site.yml")
    greyed = [(span.line, why) for span, why in unselected(index, preview)[site]]
    # the second play has no 'deploy'; the never task runs through the play's inherited 'deploy'
    assert greyed == [(_line("- name: Report the database role", (example / "site.yml").read_text()),
                       "none of its tags is in --tags deploy")]
    assert unselected(index, preview)[str(example / "other.yml")] == [
        (index.at(str(example / "other.yml"), 3)[0].task.span, "its playbook is not the profile's")]  # type: ignore[union-attr]
    [elsewhere] = explain(index, str(example / "other.yml"), 3, preview)
    assert elsewhere.outside and elsewhere.summary == "does not run"
    [drop] = explain(index, site, 9, preview)
    assert drop.runs and any(step.startswith("note: tagged `never`") for step in drop.verdict.decision.steps)  # type: ignore[union-attr]


RECORDED_RUNS = [*(("site.yml", s) for s in RAN), *(("roles.yml", s) for s in RAN_ROLES)]
LIVE_RUNS = live_sample([" ".join(run) for run in RECORDED_RUNS])


@pytest.mark.ansible
@pytest.mark.parametrize(("playbook", "selection"),  # PLAYBOOK_LS_LIVE=all: every recorded run
                         [run for run in RECORDED_RUNS if " ".join(run) in LIVE_RUNS])
def test_the_recording_is_what_ansible_runs(workspace: Path, playbook: str, selection: str) -> None:
    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook not installed")
    output = subprocess.run([tool, "-i", "localhost,", "-c", "local", playbook, *selection.split()],
                            cwd=workspace, capture_output=True, text=True, timeout=120,
                            env={"ANSIBLE_NOCOLOR": "1", "PATH": str(Path(tool).parent) + ":/usr/bin:/bin",
                                 "HOME": str(workspace)}).stdout
    expected = RAN[selection] if playbook == "site.yml" else RAN_ROLES[selection]
    assert re.findall(r"TASK \[([^\]]*)\]", output) == expected
