"""Each rule's fix on real findings: the text before and after, with comments on the edited lines
and on their neighbours, several quoting styles, block and flow style (issue 19, item 3)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from playbook_ls.check.runner import run_check
from playbook_ls.config import load_settings
from playbook_ls.fixes import apply_edits, fixes_for, safe_fix
from playbook_ls.fixes.base import Edit, Source, scalar

SETUP = "- name: Install\n  ansible.builtin.debug:\n    msg: app\n"


def _findings(root: Path, code: str) -> list:
    result = run_check([str(root)], load_settings(None, str(root)), use_cache=False)
    return [f for f in result.findings if f.code == code]


def fixed(root: Path, text: str, code: str, title: str = "", name: str = "site.yml") -> str:
    """``text`` written as ``name`` under ``root``, with the first fix of ``code``'s first finding
    (or the first whose title starts with ``title``) applied."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    text = textwrap.dedent(text).lstrip("\n")
    path.write_text(text, encoding="utf-8")
    (root / "setup.yml").write_text(SETUP, encoding="utf-8")
    found = _findings(root, code)
    assert found, f"no {code} finding"
    fixes = [fix for fix in fixes_for(found[0], text) if fix.title.startswith(title)]
    assert fixes, f"no fix titled {title!r} for {found[0]}"
    return apply_edits(text, fixes[0].edits)


def test_pls103_free_form_include_gets_file_and_apply(repo: Path) -> None:
    after = fixed(repo, """
        # a playbook
        - hosts: all  # the play
          tasks:
            # before the task
            - name: Set up   # name
              ansible.builtin.include_tasks: setup.yml   # keep me
              tags: [setup, 'always']   # tags
            # after the task
        """, "PLS103")
    assert after == textwrap.dedent("""\
        # a playbook
        - hosts: all  # the play
          tasks:
            # before the task
            - name: Set up   # name
              ansible.builtin.include_tasks:
                file: setup.yml   # keep me
                apply:
                  tags: [setup]
              tags: [setup, 'always']   # tags
            # after the task
        """)
    (repo / "site.yml").write_text(after)
    assert not _findings(repo, "PLS103")


def test_pls103_block_arguments_get_apply_before_trailing_comments(repo: Path) -> None:
    (repo / "roles/thing/tasks").mkdir(parents=True)
    (repo / "roles/thing/tasks/main.yml").write_text(SETUP)
    after = fixed(repo, """
        - hosts: all
          tasks:
            - name: Role
              include_role:
                  name: thing    # role
                  # the end of the arguments

              tags: deploy,other  # comma form
        """, "PLS103")
    assert after == textwrap.dedent("""\
        - hosts: all
          tasks:
            - name: Role
              include_role:
                  name: thing    # role
                  apply:
                    tags: [deploy, other]
                  # the end of the arguments

              tags: deploy,other  # comma form
        """)


def test_pls103_flow_arguments(repo: Path) -> None:
    after = fixed(repo, """
        - hosts: all
          tasks:
            - include_tasks: { file: setup.yml }  # flow
              tags: flow
        """, "PLS103")
    assert "- include_tasks: { file: setup.yml, apply: {tags: [flow]} }  # flow\n" in after


@pytest.mark.parametrize(("written", "expected"), [
    ('"{{ deploy_enabled is defined }}"', "deploy_enabled is defined"),
    ("'{{ deploy_enabled | bool }}'", "deploy_enabled | bool"),
    ("\"{{ os == 'Debian' }}\"", "os == 'Debian'"),
    ("'{{ \"x\" in y }}'", '"\\"x\\" in y"'),
    ('"{{ a is defined }}"  # a comment: stays', "a is defined"),
])
def test_pls105_drops_the_delimiters_keeping_what_follows(repo: Path, written: str, expected: str) -> None:
    text = f"- hosts: all\n  tasks:\n    - name: Go  # name\n      debug: {{msg: go}}\n      when: {written}\n"
    after = fixed(repo, text, "PLS105")
    rest = written.split("  #", 1)[1] if "  #" in written else ""
    assert after == text.replace(f"when: {written}", f"when: {expected}" + (f"  #{rest}" if rest else ""))


def test_pls105_list_items_flow_and_block(repo: Path) -> None:
    text = ("- hosts: all\n  tasks:\n    - debug: {msg: go}\n      changed_when: ['{{ a is defined }}', b]  # flow\n"
            "      failed_when:\n        - c   # first\n        - \"{{ d }}\"   # second\n")
    after = fixed(repo, text, "PLS105")
    assert after == text.replace("['{{ a is defined }}', b]", "[a is defined, b]")
    (repo / "site.yml").write_text(after)
    found = _findings(repo, "PLS105")
    assert apply_edits(after, fixes_for(found[0], after)[0].edits) == after.replace('"{{ d }}"', "d")
    assert safe_fix(found[0], after) is None  # d may be a string: only offered


@pytest.mark.parametrize("condition", ["{{ do_it }}", "{{ do_it is defined and do_it }}", "{{ x | default(y) }}",
                                       "{{ a or b }}"])
def test_pls105_fix_that_changes_behaviour_is_only_offered(repo: Path, condition: str) -> None:
    """With -e do_it=true (a string) ansible 2.19 runs when: "{{ do_it }}" and fails when: do_it
    ("Conditionals must have a boolean result"): --fix must leave it, the editor says so."""
    text = f"- hosts: all\n  tasks:\n    - debug: {{msg: go}}\n      when: \"{condition}\"\n"
    (repo / "site.yml").write_text(text)
    found = _findings(repo, "PLS105")
    assert safe_fix(found[0], text) is None
    offered = fixes_for(found[0], text)[0]
    assert not offered.safe and "a string value such as 'true' then fails the task" in offered.title
    assert "must give a boolean" in found[0].message


def test_pls105_two_templates_offer_only_noqa(repo: Path) -> None:
    (repo / "site.yml").write_text("- hosts: all\n  tasks:\n    - debug: {msg: go}\n"
                                   "      when: '{{ a }} and {{ b }}'\n")
    (repo / "setup.yml").write_text(SETUP)
    found = _findings(repo, "PLS105")
    assert [f.safe for f in fixes_for(found[0], (repo / "site.yml").read_text())] == [False, False]


def test_pls112_renames_the_key_only(repo: Path) -> None:
    text = "- hosts: all\n  tasks:\n    - name: Go\n      debug: {msg: go}\n      tag: deploy   # the tag\n"
    assert fixed(repo, text, "PLS112") == text.replace("      tag: deploy", "      tags: deploy")


def test_pls112_quoted_key_and_play_keyword(repo: Path) -> None:
    text = "- hosts: all\n  \"gather_fact\": false  # typo\n  tasks: []\n"
    assert fixed(repo, text, "PLS112") == text.replace('"gather_fact"', "gather_facts")


def test_pls112_no_fix_when_the_keyword_is_already_there(repo: Path) -> None:
    (repo / "site.yml").write_text("- hosts: all\n  tasks:\n    - debug: {msg: go}\n      tag: a\n      tags: b\n")
    (repo / "setup.yml").write_text(SETUP)
    found = _findings(repo, "PLS112")
    assert all(not fix.safe for fix in fixes_for(found[0], (repo / "site.yml").read_text()))


def test_pls114_is_offered_not_applied(repo: Path) -> None:
    text = "- hosts: all\n  tasks:\n    - debug: {msg: go}\n      tags:\n        - all   # reserved\n        - report\n"
    assert fixed(repo, text, "PLS114", "Replace") == text.replace("- all ", "- always ")
    assert fixed(repo, text, "PLS114", "Remove") == text.replace("        - all   # reserved\n", "")
    found = _findings(repo, "PLS114")
    assert not any(fix.safe for fix in fixes_for(found[0], text))
    flow = "- hosts: all\n  tasks:\n    - debug: {msg: go}\n      tags: [report, untagged]  # c\n"
    assert fixed(repo, flow, "PLS114", "Remove") == flow.replace("[report, untagged]", "[report]")
    alone = "- hosts: all\n  tasks:\n    - debug: {msg: go}\n      tags: all  # c\n      when: x\n"
    assert fixed(repo, alone, "PLS114", "Remove") == alone.replace("      tags: all  # c\n", "")


def test_pls118_removes_the_unused_code(repo: Path) -> None:
    text = "- hosts: all\n  tasks:\n    - name: Go  # noqa: PLS101, PLS105\n      debug: {msg: go}\n"
    assert fixed(repo, text, "PLS118") == text.replace("PLS101, PLS105", "PLS105")
    (repo / "site.yml").write_text(text.replace(", PLS105", ""))
    found = _findings(repo, "PLS118")
    after = apply_edits(text.replace(", PLS105", ""), fixes_for(found[0], text.replace(", PLS105", ""))[0].edits)
    assert after == text.replace("  # noqa: PLS101, PLS105", "")


def test_noqa_appends_to_a_list_or_adds_a_comment(repo: Path) -> None:
    text = ("- hosts: all\n  tasks:\n    - name: Go  # noqa: PLS999\n      debug: {msg: go}\n"
            "      when: '{{ x }}'  # c\n")
    assert fixed(repo, text, "PLS105", "Silence PLS105 with '# noqa: PLS105' on this") == text.replace(
        "# c\n", "# c  # noqa: PLS105\n")
    assert fixed(repo, text, "PLS105", "Silence PLS105 with '# noqa: PLS105' on line 3") == text.replace(
        "PLS999", "PLS999 PLS105")


def test_crlf_files_keep_their_line_breaks(repo: Path) -> None:
    text = "- hosts: all\r\n  tasks:\r\n    - include_tasks: setup.yml  # c\r\n      tags: s\r\n"
    (repo / "site.yml").write_bytes(text.encode())
    (repo / "setup.yml").write_text(SETUP)
    found = _findings(repo, "PLS103")
    after = apply_edits(text, fixes_for(found[0], text)[0].edits)
    assert after == ("- hosts: all\r\n  tasks:\r\n    - include_tasks:\r\n        file: setup.yml  # c\r\n"
                     "        apply:\r\n          tags: [s]\r\n      tags: s\r\n")


def test_an_edit_that_changes_other_data_is_not_offered() -> None:
    from playbook_ls.fixes.base import Fix, verified

    source = Source("a: |\n  # text\nb: 1\n")
    assert not verified(Fix("add", [Edit(1, 8, 1, 8, "  # noqa: X")], False), source)
    assert verified(Fix("add", [Edit(2, 4, 2, 4, "  # noqa: X")], False), source)


@pytest.mark.parametrize("text", ["x", "a == 'b'", "'a' in b", "x: y", "a, b", "#x", "true", "1", "a #b", ""])
def test_scalar_reads_back_as_the_string(text: str) -> None:
    from engine.parsing.source import parse_text

    assert parse_text(f"k: {scalar(text)}\nl: [{scalar(text)}]\n", "t").data == {"k": text, "l": [text]}


def test_noqa_after_an_ansible_lint_code_with_brackets(repo: Path) -> None:
    text = "- hosts: all\n  tasks:\n    - debug: {msg: go}\n      when: '{{ x }}'  # noqa: jinja[spacing]\n"
    after = fixed(repo, text, "PLS105", "Silence PLS105 with '# noqa: PLS105' on this")
    assert after == text.replace("jinja[spacing]", "jinja[spacing] PLS105")
    (repo / "site.yml").write_text(after)
    assert not _findings(repo, "PLS105")  # silenced: a bracketed name does not end the list


def test_pls103_when_is_offered_not_applied(repo: Path) -> None:
    (repo / ".playbook-ls.yml").write_text("rules:\n  PLS103:\n    when: true\n")
    text = "- hosts: all\n  tasks:\n    - include_tasks: {file: setup.yml}  # flow\n      when: x is defined   # c\n"
    after = fixed(repo, text, "PLS103", "Add 'apply: {when")
    assert after == text.replace("{file: setup.yml}", "{file: setup.yml, apply: {when: x is defined}}")
    found = _findings(repo, "PLS103")
    assert not any(fix.safe for fix in fixes_for(found[0], text))


def test_noqa_on_the_task_line_covers_a_finding_on_a_block_list_item(repo: Path) -> None:
    text = ("- hosts: all\n  tasks:\n    - name: Configure\n      include_tasks: setup.yml\n"
            "      tags:\n        - configure\n")
    after = fixed(repo, text, "PLS103", "Silence PLS103 with '# noqa: PLS103' on line 3")
    assert after == text.replace("- name: Configure\n", "- name: Configure  # noqa: PLS103\n")
    (repo / "site.yml").write_text(after)
    result = run_check([str(repo)], load_settings(None, str(repo)), use_cache=False)
    assert not result.findings  # silenced, and so the comment is not reported as unused (PLS118)


needs_core = pytest.mark.skipif(__import__("engine.plugins.names", fromlist=["x"]).find_ansible_core() is None,
                                reason="needs ansible-core's modules")


@needs_core
def test_pls124_renames_a_misspelt_option_keeping_comments(repo: Path) -> None:
    text = ("- hosts: all\n  tasks:\n    - name: Dir   # the dir\n      ansible.builtin.file:\n"
            "        path: /srv   # where\n        stat: directory   # what\n")
    assert fixed(repo, text, "PLS124") == text.replace("        stat: directory", "        state: directory")


@needs_core
@pytest.mark.parametrize("task", [
    "      ansible.builtin.file: path=/srv stat=directory\n",  # key=value: the finding is on the module
    "      ansible.builtin.file:\n        path: /srv\n        stat: directory\n        state: touch\n",
    "      ansible.builtin.file:\n        path: /srv\n        bogus: directory\n",  # nothing close
])
def test_pls124_no_fix(repo: Path, task: str) -> None:
    (repo / "site.yml").write_text("- hosts: all\n  tasks:\n    - name: Dir\n" + task)
    (repo / "setup.yml").write_text(SETUP)
    found = _findings(repo, "PLS124")
    assert found
    assert all(not fix.safe for fix in fixes_for(found[0], (repo / "site.yml").read_text()))


@needs_core
def test_pls128_renames_a_redirected_deprecated_module(repo: Path) -> None:
    collection = repo / "collections" / "ansible_collections" / "acme" / "tools"
    (collection / "plugins" / "modules").mkdir(parents=True)
    (collection / "plugins" / "modules" / "thing.py").write_text('DOCUMENTATION = "module: thing\\n"\n')
    (collection / "meta").mkdir()
    (collection / "meta" / "runtime.yml").write_text(
        "plugin_routing:\n  modules:\n    old_thing:\n      redirect: acme.tools.thing\n"
        "      deprecation: {removal_version: 3.0.0, warning_text: Use acme.tools.thing instead.}\n")
    text = "- hosts: all\n  tasks:\n    - name: Go\n      acme.tools.old_thing: {}   # keep\n"
    assert fixed(repo, text, "PLS128") == text.replace("acme.tools.old_thing", "acme.tools.thing")


@pytest.mark.parametrize(("bom", "newline"), [("\ufeff", "\n"), ("", "\r"), ("\ufeff", "\r"), ("\ufeff", "\r\n")],
                         ids=["BOM", "CR", "BOM and CR", "BOM and CRLF"])
def test_check_fix_fixes_files_with_a_bom_or_cr_line_breaks_byte_exact(repo: Path, bom: str, newline: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from playbook_ls.cli.main import main

    lines = ["- hosts: all", "  tasks:", "    - include_tasks: setup.yml  # c", "      tags: s", ""]
    (repo / "site.yml").write_bytes((bom + newline.join(lines)).encode())
    (repo / "setup.yml").write_text(SETUP)
    monkeypatch.chdir(repo)
    main(["check", "--fix", "--no-cache", "site.yml"])
    fixed_lines = ["- hosts: all", "  tasks:", "    - include_tasks:", "        file: setup.yml  # c", "        apply:",
                   "          tags: [s]", "      tags: s", ""]
    assert (repo / "site.yml").read_bytes() == (bom + newline.join(fixed_lines)).encode()
