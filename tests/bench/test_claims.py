"""The claims harness's own logic: how it reads ansible's errors, matches them to findings, gets past
them in the scratch copy, and follows lines through a fix. The live part (ansible asked about public
repositories) runs on demand: python bench/claims.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_loader import load_bench

claims = load_bench("claims", siblings=True)


def test_first_error_reads_message_and_origin(tmp_path: Path) -> None:
    stderr = (f"[WARNING]: something\n[ERROR]: the role 'web' was not found in {tmp_path}/roles:/etc/ansible/roles\n"
              f"Origin: {tmp_path}/site.yml:19:7\n\n17\n18   roles:\n19     - web\n")
    error = claims.first_error(stderr, tmp_path)
    assert error.message.startswith("the role 'web' was not found")
    assert (error.file, error.line) == ("site.yml", 19)
    assert claims.first_error("[ERROR]: Unable to retrieve file contents.\n", tmp_path).file is None
    assert claims.first_error("all good", tmp_path) is None


def test_an_error_matches_a_finding_at_its_lines_or_by_the_file_it_names() -> None:
    finding = {"line": 18, "end_line": 20, "message": "the role 'web' was not found in x"}
    at = claims.AnsibleError("the role 'web' was not found", "site.yml", 19)
    assert claims._same_place(finding, "site.yml", at)
    assert not claims._same_place(finding, "other.yml", at)
    # placed at the task by ansible, at the name by playbook-ls: the same name a line or two apart
    assert claims._same_place({**finding, "end_line": 18}, "site.yml", at)
    elsewhere = claims.AnsibleError("the role 'db' was not found", "site.yml", 19)
    assert not claims._same_place({**finding, "end_line": 18}, "site.yml", elsewhere)
    assert not claims._same_place({**finding, "line": 30, "end_line": 30}, "site.yml", at)
    unplaced = claims.AnsibleError("Could not find or access '/r/tasks/gone.yml' on the Ansible Controller.", None, 0)
    assert claims._same_place({"line": 3, "message": "Could not find or access 'tasks/gone.yml'"}, "x", unplaced)
    assert not claims._same_place({"line": 3, "message": "Could not find or access 'other.yml'"}, "x", unplaced)


def test_neutralising_an_error_then_restoring_the_copy(tmp_path: Path) -> None:
    (tmp_path / "roles").mkdir()
    site = tmp_path / "site.yml"
    site.write_text("- hosts: all\n  tasks:\n    - name: x\n      community.foo.bar:\n        a: 1\n"
                    "    - include: t.yml\n")
    scratch = claims.Scratch(tmp_path)
    assert claims.neutralise(claims.AnsibleError("couldn't resolve module/action 'community.foo.bar'. This",
                                                 "site.yml", 3), scratch)
    assert claims.neutralise(claims.AnsibleError("The 'include' action plugin has been removed.", "site.yml", 6),
                             scratch)
    assert claims.neutralise(claims.AnsibleError(f"the role 'web' was not found in {tmp_path}/roles:/etc", None, 0),
                             scratch)
    text = site.read_text()
    assert "ansible.builtin.debug:\n        a: 1" in text and "- ansible.builtin.import_tasks: t.yml" in text
    assert (tmp_path / "roles" / "web" / "tasks" / "main.yml").is_file()
    scratch.restore()
    assert "community.foo.bar:" in site.read_text() and not (tmp_path / "roles" / "web").exists()
    assert not claims.neutralise(claims.AnsibleError("'x' is not a valid attribute for a Play", "site.yml", 1),
                                 scratch)


def test_a_task_file_is_asked_through_its_role(tmp_path: Path) -> None:
    role = tmp_path / "roles" / "web"
    (role / "tasks").mkdir(parents=True)
    text = claims.wrapper_text(role / "tasks" / "setup" / "main.yml")
    assert f'name: "{role}"' in text and 'tasks_from: "setup/main.yml"' in text
    assert "roles:" in claims.wrapper_text(role / "meta" / "main.yml")
    assert "import_tasks" in claims.wrapper_text(tmp_path / "tasks.yml")


@pytest.mark.parametrize(("line", "expected"), [(3, 3), (10, 10), (11, 13), (12, 16), (13, 17), (30, 35)])
def test_lines_follow_a_fix(line: int, expected: int) -> None:
    """Two insertions in one hunk: the line between them moves by the first, the one after by both."""
    diff = ("--- a/site.yml\n+++ b/site.yml\n@@ -10,4 +10,8 @@\n x\n+a\n+b\n x\n+c\n+d\n x\n x\n"
            "@@ -20 +24,2 @@\n-y\n+y\n+z\n w\n")
    assert claims.moved(line, claims.line_shifts(diff)["site.yml"]) == expected


def test_tag_claims_are_read_from_the_message() -> None:
    claim = claims.TAG_CLAIM.search("so --tags web runs only 2 of its 5 tasks ('a', 'b'), tagged themselves")
    assert claim and claim.group(1) == "web" and claim.group(3, 4) == ("2", "5")
    assert claims.TAG_CLAIM.search("so --tags web runs none of them").group(2) == "none"


def test_the_same_missing_role_in_the_same_search_path_is_one_answer() -> None:
    """The copy gets an empty stand-in for a missing role once ansible met it, which hides its
    other uses: ansible's answer for one is its answer for every use searched the same way."""
    finding = {"line": 16, "message": "the role 'es' was not found in /repo/x/t/roles:/etc/ansible/roles:/repo/x/t. "
                                      "Check the role's name"}
    error = claims.AnsibleError("the role 'es' was not found in /tmp/c/x/t/roles:/etc/ansible/roles:/tmp/c/x/t",
                                "t/site.yml", 7)
    assert claims._same_place(finding, "t/site.yml", error, "x")
    other = claims.AnsibleError("the role 'es' was not found in /tmp/c/x/u/roles:/etc/ansible/roles:/tmp/c/x/u",
                                "u/site.yml", 7)
    assert not claims._same_place(finding, "t/site.yml", other, "x")


def test_requirement_claims_are_read_from_the_message() -> None:
    claim = claims.REQUIREMENT.search("the role 'geerlingguy.git' is declared in requirements.yml, not installed here. "
                                      "Install it with `ansible-galaxy role install -r requirements.yml`.")
    assert claim and claim.group(1, 2, 3) == ("role", "geerlingguy.git", "requirements.yml")


def test_the_collections_searched_first_and_relative_names_do_not_hide_an_answer() -> None:
    finding = {"line": 71,
               "message": "the role 'epel' was not found in ns.coll:ansible.legacy:/repo/x/p/roles:/repo/x/p"}
    error = claims.AnsibleError("the role 'epel' was not found in /tmp/c/x/p/roles:/tmp/c/x/p", "p/site.yml", 90)
    assert claims._same_place(finding, "p/site.yml", error, "x")
    missing = {"line": 6, "message": "include_tasks: could not find '../roles/r/tasks/a.yml'. Looked for ..."}
    unplaced = claims.AnsibleError("Unable to retrieve file contents.\nCould not find or access "
                                   "'/tmp/c/x/roles/r/tasks/a.yml' on the Ansible Controller.", None, 0)
    assert claims._same_place(missing, "p/site.yml", unplaced, "x")
