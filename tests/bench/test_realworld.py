"""The real-world harness's own logic: which files it takes for playbooks, where it runs them, how it judges."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_loader import load_bench

realworld = load_bench("realworld", siblings=True)  # it imports list_tasks

Mode, Outcome = realworld.Mode, realworld.Outcome
TASKS, TAGS = realworld.PLAIN_MODES


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_playbooks_are_found_by_content_outside_skipped_directories(tmp_path: Path) -> None:
    write(tmp_path, {
        "site.yml": "- import_playbook: web.yml\n- hosts: db\n  roles: [db]\n",
        "web.yml": "- name: web\n  hosts: web\n  vars:\n    secret: !vault |\n      $ANSIBLE_VAULT;1.1\n",
        "sub/deploy.yaml": "- ansible.builtin.import_playbook: ../web.yml\n",
        "tasks.yml": "- name: a task\n  debug: msg=hi\n",
        "mixed.yml": "- hosts: all\n- debug: msg=hi\n",
        "vars.yml": "hosts: [a, b]\n",
        "broken.yml": "- hosts: all\n  tasks: [\n",
        "empty.yml": "",
        "roles/db/tests/test.yml": "- hosts: localhost\n  roles: [db]\n",
        "molecule/default/converge.yml": "- hosts: all\n",
        "group_vars/all.yml": "- hosts: all\n",
        ".github/workflows/ci.yml": "- hosts: all\n",
        "notes.txt": "- hosts: all\n",
    })
    found = [str(path.relative_to(tmp_path)) for path in realworld.find_playbooks(tmp_path)]
    assert found == ["site.yml", "web.yml", "sub/deploy.yaml"]


def test_most_used_tags_count_every_form_and_leave_special_and_templated_tags_out(tmp_path: Path) -> None:
    write(tmp_path, {
        "site.yml": "- hosts: all\n  tags: [web, always]\n  tasks:\n    - debug: msg=a\n      tags: web,db\n",
        "roles/r/tasks/main.yml": "- debug: msg=b\n  tags:\n    - db\n    - web\n    - '{{ dynamic }}'\n"
                                  "- block:\n    - debug: msg=c\n      tags: never\n  tags: db\n",
    })
    assert realworld.most_used_tags(tmp_path, 2) == ["db", "web"]
    assert realworld.most_used_tags(tmp_path, 1) == ["db"]


def test_ansible_runs_where_the_nearest_ansible_cfg_is_else_beside_the_playbook(tmp_path: Path) -> None:
    write(tmp_path, {
        "ansible.cfg": "[defaults]\ninventory = hosts.ini\n",
        "hosts.ini": "web1\n",
        "playbooks/deep/site.yml": "- hosts: all\n",
        "project/ansible.cfg": "[defaults]\ninventory = missing.ini\n",
        "project/site.yml": "- hosts: all\n",
    })
    assert realworld.run_directory(tmp_path / "playbooks/deep/site.yml", tmp_path) == tmp_path
    assert realworld.run_directory(tmp_path / "project/site.yml", tmp_path) == tmp_path / "project"
    assert realworld.configured_inventory(tmp_path)
    assert not realworld.configured_inventory(tmp_path / "project")  # named but absent: -i localhost,
    (tmp_path / "ansible.cfg").unlink()
    assert realworld.run_directory(tmp_path / "playbooks/deep/site.yml", tmp_path) == tmp_path / "playbooks/deep"


def test_selection_modes_use_the_most_used_tag_for_skip_and_never() -> None:
    names = [mode.name for mode in realworld.selection_modes(["web", "db"])]
    assert names == ["tasks --tags web", "tasks --tags db", "tasks --skip-tags web", "tasks --tags never,web"]
    assert realworld.selection_modes([]) == []
    assert Mode("tasks", ("--tags", "never,web")).kind == "tasks --tags never,TAG"


def outcome(rc: int = 0, stdout: str = "listing", stderr: str = "") -> Outcome:
    return Outcome(rc, stdout, stderr, 0.1)


def test_identical_only_when_every_mode_has_the_same_stdout_and_exit_code() -> None:
    selected = Mode("tasks", ("--tags", "web"))
    ansible = {TASKS: outcome(), TAGS: outcome(stdout="tags"), selected: outcome(stdout="web")}
    assert realworld.compare(ansible, dict(ansible)).status == "identical"

    ours = {**ansible, selected: outcome(stdout="web\n  extra task")}
    verdict = realworld.compare(ansible, ours)
    assert (verdict.status, verdict.first_mode) == ("differs", "tasks --tags web")
    assert verdict.cause == ("rc=0", "rc=0: listing differs in tasks --tags TAG")
    assert verdict.detail == "<end> | extra task"

    missing = realworld.compare(ansible, {TASKS: outcome(), TAGS: outcome(stdout="tags")})
    assert missing.status == "differs"


def test_refusals_are_grouped_by_the_normalised_first_error_line() -> None:
    ansible = {TASKS: outcome(4, "", "[WARNING]: noise\n[ERROR]: the role 'web' was not found in /x/roles:/x\n"
                                     "Origin: /x/site.yml:3:7\n"), TAGS: outcome(4, "", "[ERROR]: same")}
    ours = {TASKS: outcome(0), TAGS: outcome(0)}
    verdict = realworld.compare(ansible, ours)
    assert verdict.status == "we-list"
    assert verdict.cause == ("rc=4: [ERROR]: the role '…' was not found in PATH", "rc=0: ")

    refused = {TASKS: outcome(1, "", "playbook-ls: error: site.yml:3:7: no role 'db' in /x/roles\n"), TAGS: outcome()}
    verdict = realworld.compare(ansible, refused)
    assert verdict.status == "refuse-rc-differs"
    assert verdict.cause[1] == "rc=1: playbook-ls: error: FILE:N:N: no role '…' in PATH"
    # the same exit code and stdout is the same outcome, whatever either says on stderr
    assert realworld.compare(ansible, {**refused, TASKS: outcome(4, "", "x")}).first_mode == "tags"
    assert realworld.compare(ansible, {TASKS: ansible[TASKS], TAGS: ansible[TAGS]}).status == "both-refuse"


def test_a_traceback_is_found_and_named_by_its_exception() -> None:
    crash = "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'hosts'\n"
    verdict = realworld.compare({TASKS: outcome()}, {TASKS: outcome(1, "", crash)})
    assert verdict.traceback
    assert verdict.cause[1] == "rc=1: KeyError: '…'"
    assert realworld.normalise("couldn't resolve module/action 'ec2'") == "couldn't resolve module/action '…'"
    assert (realworld.normalise("pb/site.yml:7:13: cannot resolve '{{ playbook_dir }}': 'playbook_dir' is undefined")
            == "FILE:N:N: cannot resolve '…': 'playbook_dir' is undefined")


def test_warnings_of_a_successful_run_are_no_cause() -> None:
    warned = outcome(stderr="[DEPRECATION WARNING]: x\nAlternatives: Set the 'ansible_managed' variable\n")
    verdict = realworld.compare({TASKS: warned}, {TASKS: outcome(4, "", "playbook-ls: error: no")})
    assert verdict.cause == ("rc=0: ", "rc=4: playbook-ls: error: no")


@pytest.mark.parametrize("limit, expected", [(0, 10), (3, 3), (20, 10)])
def test_a_sample_is_spread_evenly_and_stable(limit: int, expected: int) -> None:
    items = [Path(str(n)) for n in range(10)]
    sample = realworld.evenly(items, limit)
    assert len(sample) == expected
    assert sample == realworld.evenly(items, limit)
    if limit == 3:
        assert sample == [Path("0"), Path("3"), Path("6")]
