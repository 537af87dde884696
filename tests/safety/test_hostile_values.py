"""Hostile variable values meet the variable model (``playbook-ls vars`` and the editor's hover,
completion, value hints and go to definition): each is refused quickly and in little memory, and
shown as unknown with the reason or as a positioned error; never a traceback, never a hang."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest
from bounded import spent

from engine.templating import bounds as template_bounds
from engine.templating import load_time as templating
from engine.templating import templar
from engine.templating.filters import regex_guard
from engine.templating.pure_lookups import PureLookups
from engine.templating.templar import Templar, TemplateFailure, too_large_reason
from playbook_ls.cli.main import main
from playbook_ls.features import variables
from playbook_ls.features.completion import complete
from playbook_ls.features.workspace import WorkspaceIndex

DEADLINE = 0.3  # seconds a static evaluation may take in these tests (1 s otherwise)

SITE = """\
- hosts: localhost
  gather_facts: false
  vars:
    ok: "{{{{ 'abc' | regex_replace('b', 'X') }}}}"
    {value}
  tasks:
    - name: show
      debug:
        msg: "{{{{ ok }}}} and {{{{ hostile }}}}"
"""
TOO_LARGE = "too large to evaluate statically ("
RECURSIVE = "Recursive loop detected in template: the value contains itself (a YAML alias inside itself?)"

HOSTILE = {
    "center": ("hostile: \"{{ 'x' | center(1000000000) }}\"",
               TOO_LARGE + "the center filter would make 1,000,000,000 characters or items; the limit is 100,000)"),
    "center beyond any memory": ("hostile: \"{{ 'x' | center(100000000000) }}\"",
                                 TOO_LARGE + "the center filter would make 100,000,000,000 characters"),
    "wordwrap": ("hostile: \"{{ ('x y ' * 20000) | wordwrap(1, wrapstring='y' * 1000) }}\"",
                 TOO_LARGE + "the wordwrap filter would make 80,081,000 characters"),
    "sequence lookup": ("hostile: \"{{ lookup('sequence', 'end=1000000000') }}\"",
                        TOO_LARGE + "the sequence lookup would make 1,000,000,000 characters"),
    "a long string many times": ("hostile: \"{% set s = 'x' * 100000 %}{{ [s] * 100000 }}\"",
                                 TOO_LARGE + "a value whose text would pass"),
    "catastrophic backtracking": ("hostile: \"{{ ('a' * 27 ~ '!') | regex_search('(a+)+$') }}\"",
                                  TOO_LARGE + "a regular expression still running after "),
    "backtracking in a test": ("hostile: \"{{ ('a' * 27 ~ '!') is match('(a+)+$') }}\"",
                               TOO_LARGE + "a regular expression still running"),
    "recursive alias": ("hostile: &a [*a]", RECURSIVE),
    "recursive mapping": ("hostile: &a {k: [*a]}", RECURSIVE),
    "a template reading a recursive alias": ("rec: &a [*a]\n    hostile: \"{{ rec | length }}\"", RECURSIVE),
}


@pytest.fixture(autouse=True)
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template_bounds, "MAX_SECONDS", DEADLINE)
    for remembered in (regex_guard._slow, regex_guard._replies, templar._refused_texts, templating._too_large):
        remembered.clear()


def _vars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    code = main(["vars", "site.yml", "-i", "localhost,", "--host", "localhost", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("value", "reason"), HOSTILE.values(), ids=HOSTILE.keys())
def test_vars_shows_a_hostile_value_as_unknown_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str], value: str,
                                                               reason: str) -> None:
    (tmp_path / "site.yml").write_text(SITE.format(value=value))
    tracemalloc.start()
    try:
        with spent() as took:
            code, out, err = _vars(tmp_path, monkeypatch, capsys, "--format", "json", "hostile", "ok")
        assert took.cpu < DEADLINE + 3  # the evaluation's CPU time is bounded; the rest is loading
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 100_000_000, f"{peak:,} bytes"
    assert (code, err) == (0, "")
    shown = json.loads(out)[0]["variables"]
    assert shown["ok"]["value"] == "aXc"  # the others are still evaluated
    assert shown["hostile"]["value"] is None and reason in shown["hostile"]["unknown"]
    code, out, err = _vars(tmp_path, monkeypatch, capsys, "hostile")  # text, and the refusal remembered
    assert (code, err) == (0, "") and f"hostile = (unknown: {reason}" in out.replace("not known before the run: ", "")

    # the editor's hover and value hints, on the same model
    index, site, line = _workspace(tmp_path)
    text = site.read_text().splitlines()[line]
    with spent() as took:
        hover = variables.hover_markdown(index, str(site), line, text.index("{{ hostile") + 4)
        assert hover is not None and reason in hover
        assert variables.value_hints(index, str(site), 0, line + 1) == []  # no value: no hint
        found = complete(index, str(site), line, text.index("{{ ok") + 4, site.read_text())
        assert found is not None and "ok" in [item.label for item in found.items]
    assert took.cpu < DEADLINE + 3


def _workspace(root: Path) -> tuple[WorkspaceIndex, Path, int]:
    """The workspace index of ``root``, its site.yml and the line of the task's ``msg``."""
    index = WorkspaceIndex(str(root))
    index.index()
    site = root / "site.yml"
    line = next(i for i, text in enumerate(site.read_text().splitlines()) if "msg:" in text)
    return index, site, line


def test_a_recursive_value_that_is_overridden_is_shown_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "site.yml").write_text(SITE.format(value="hostile: &a [*a]"))
    code, out, err = _vars(tmp_path, monkeypatch, capsys, "-e", "hostile=1", "--format", "json", "hostile")
    assert (code, err) == (0, "")
    [overridden] = json.loads(out)[0]["variables"]["hostile"]["overrides"]
    assert overridden["value"] == "(not shown: the value contains itself)"
    code, out, err = _vars(tmp_path, monkeypatch, capsys, "-e", "hostile=1", "hostile")
    assert (code, err) == (0, "") and "overrides play vars: " in out
    assert '= "(not shown: the value contains itself)"' in out


def test_the_run_engine_s_templar_is_not_bounded() -> None:
    """A run computes what ansible computes: a value over the static limits is a value there."""
    variables = {"wide": "{{ 'x' | center(200000) }}"}
    assert len(Templar(variables).template("{{ wide }}")) == 200_000
    with pytest.raises(TemplateFailure) as refused:
        Templar(variables, PureLookups(), bounded=True).template("{{ wide }}")
    assert too_large_reason(refused.value) == TOO_LARGE + "the center filter would make 200,000 characters or " \
        "items; the limit is 100,000)"


def test_a_value_nested_beyond_the_recursion_limit_is_too_large_not_a_recursion_error() -> None:
    deep: list[object] = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(TemplateFailure) as refused:
        Templar({"deep": deep}, PureLookups(), bounded=True).template("{{ deep | length }}")
    assert too_large_reason(refused.value) == TOO_LARGE + "nested too deeply)"


def test_an_include_named_by_a_hostile_value_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    """Names the load-time variables cannot template are templated after the play is loaded,
    with every role's defaults (engine.loading.imports' pending includes): bounded there too."""
    from engine.loading.resolve import Resolver

    defaults = tmp_path / "roles" / "r" / "defaults"
    defaults.mkdir(parents=True)
    (defaults / "main.yml").write_text("name: \"{{ 'x' | center(1000000000) }}\"\n")
    (tmp_path / "roles" / "r" / "tasks").mkdir()
    (tmp_path / "roles" / "r" / "tasks" / "main.yml").write_text("- debug: msg=r\n")
    (tmp_path / "site.yml").write_text("- hosts: all\n  roles: [r]\n  tasks:\n    - include_tasks: '{{ name }}.yml'\n")
    with spent() as took:
        book = Resolver().load_playbook(str(tmp_path / "site.yml"))
    assert took.cpu < DEADLINE + 3
    [problem] = [p for p in book.problems if p.code == "dynamic-include"]
    assert TOO_LARGE + "the center filter would make 1,000,000,000 characters" in problem.message


# -- a group_vars file ansible would stop on --------------------------------------------------
def _fifo(path: Path) -> None:
    os.mkfifo(path)


BROKEN_VARS_FILES = {
    "does not parse": (lambda path: path.write_text("a: [1\n"),
                       "group_vars/all.yml:2:1: while parsing a flow sequence did not find expected ',' or ']': "
                       "fix the YAML in this vars file"),
    "a FIFO": (_fifo, "group_vars/all.yml:1:1: cannot read file: "),
    "/dev/zero": (lambda path: path.symlink_to("/dev/zero"), "group_vars/all.yml:1:1: cannot read file: "),
    "nested 2,000 deep": (lambda path: path.write_text("a: " + "[" * 2000 + "]" * 2000 + "\n"),
                          "group_vars/all.yml:1:1004: YAML nested more than 1000 levels deep: fix the YAML"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX's")
@pytest.mark.parametrize(("make", "message"), BROKEN_VARS_FILES.values(), ids=BROKEN_VARS_FILES.keys())
def test_a_broken_group_vars_file_is_a_positioned_error_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], make: object,
        message: str) -> None:
    site = tmp_path / "site.yml"
    site.write_text(SITE.format(value="hostile: 1"))
    (tmp_path / "group_vars").mkdir()
    make(tmp_path / "group_vars" / "all.yml")  # type: ignore[operator]
    code, out, err = _vars(tmp_path, monkeypatch, capsys, "ok")
    assert (code, out) == (1, "")
    assert err.startswith(f"playbook-ls: error: {tmp_path / message}") and "Traceback" not in err
    if "cannot read file" in message:
        assert "a readable YAML file or move it away" in err

    # the editor: the hover says why, the rest answers nothing rather than failing
    index, site, line = _workspace(tmp_path)
    column = site.read_text().splitlines()[line].index("{{ ok") + 4
    hover = variables.hover_markdown(index, str(site), line, column)
    assert hover is not None and "unknown: the inventory's variables cannot be read: " in hover
    assert message.split(":", 1)[0] in hover
    assert variables.definitions(index, str(site), line, column) == []
    assert variables.value_hints(index, str(site), 0, line + 1) == []
    found = complete(index, str(site), line, column, site.read_text())
    assert found is None or all(item.kind != "variable" for item in found.items)


def test_the_editor_shows_values_when_nothing_is_hostile(tmp_path: Path) -> None:
    """What the tests above expect nothing of, here present: hints, hovers, completions."""
    (tmp_path / "site.yml").write_text(SITE.format(value="hostile: 2"))
    index, site, line = _workspace(tmp_path)
    [hint] = variables.value_hints(index, str(site), 0, line + 1)
    assert hint.label == '  = "aXc and 2"'
    hover = variables.hover_markdown(index, str(site), line, site.read_text().splitlines()[line].index("{{ ok") + 4)
    assert hover is not None and '`"aXc"` on localhost' in hover
