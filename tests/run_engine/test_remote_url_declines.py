"""An ``unarchive`` with ``remote_src`` whose ``src`` a template may make a URL is declined before
the run (engine.run.remote_url_declines): ansible's module downloads it, the engine's refuses it
when it meets it, after the tasks before it ran."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write

from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan, unknown_module_problems
from engine.run.remote_url_declines import DECLINED


def _declined(root: Path, play_vars: str, task: str) -> list[str]:
    write(root, {"site.yml": f"- hosts: all\n  gather_facts: false\n  vars:\n{play_vars}  tasks:\n"
                             f"    - debug: {{msg: first}}\n    - unarchive:\n{task}"})
    plan = make_run_plan(RunOptions(playbook=str(root / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    return [str(problem) for problem in unknown_module_problems(plan)]


@pytest.mark.parametrize(("play_vars", "task"), [
    ("    app_url: https://example.com/app.tgz\n", "        src: '{{ app_url }}'\n        dest: /tmp\n"
                                                   "        remote_src: true\n"),
    ("    base: >-\n      https://example.com\n", "        src: '{{ base }}/app.tgz'\n        dest: /tmp\n"
                                                  "        remote_src: '{{ remote | default(true) }}'\n"),
    ("    s: s\n", "        src: 'http{{ s }}://example.com/app.tgz'\n        dest: /tmp\n        copy: no\n"),
])
def test_a_templated_src_that_may_be_a_url_is_declined_before_the_run(tmp_path: Path, play_vars: str,
                                                                      task: str) -> None:
    assert any(DECLINED in problem for problem in _declined(tmp_path, play_vars, task))


@pytest.mark.parametrize(("play_vars", "task"), [
    # a path first, whatever the template gives after it
    ("    app_url: https://example.com/app.tgz\n", "        src: '/tmp/{{ app_url | basename }}'\n"
                                                   "        dest: /tmp\n        remote_src: true\n"),
    # the variable is no URL (another one is)
    ("    tmp_dir: /tmp\n    my_url: https://example.com/app.tgz\n",
     "        src: '{{ tmp_dir }}/app.tgz'\n        dest: /tmp\n        remote_src: yes\n"),
    # the archive is the controller's: the action looks it up in files/
    ("    app_url: https://example.com/app.tgz\n", "        src: '{{ app_url }}'\n        dest: /tmp\n"),
])
def test_a_src_that_cannot_be_a_downloaded_url_is_not_declined(tmp_path: Path, play_vars: str, task: str) -> None:
    assert not any(DECLINED in problem for problem in _declined(tmp_path, play_vars, task))
