"""Completion contexts decided from raw (often broken) text, and what each one offers."""

from __future__ import annotations

import pytest
from editing_workspace import make_workspace
from hypothesis import given, settings
from hypothesis import strategies as st

from playbook_ls.features.completion import Completion, complete
from playbook_ls.features.workspace import WorkspaceIndex


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> WorkspaceIndex:
    root = make_workspace(tmp_path_factory.mktemp("editing"))
    index = WorkspaceIndex(str(root))
    index.index()
    return index


def at_cursor(text: str) -> tuple[str, int, int]:
    """The text without its ``|`` marker, and the marker's line and column."""
    before, _, after = text.partition("|")
    line = before.count("\n")
    return before + after, line, len(before) - (before.rfind("\n") + 1)


def run(text: str, path: str = "site.yml", index: WorkspaceIndex | None = None) -> Completion | None:
    clean, line, column = at_cursor(text)
    return complete(index, path, line, column, clean)


def labels(found: Completion | None) -> list[str]:
    assert found is not None
    return [item.label for item in found.items]


PLAY = """\
- hosts: all
  tasks:
    - name: one
"""


# -- tags ------------------------------------------------------------------------------------
@pytest.mark.parametrize("edit", [
    "      tags: [setup, co|",
    "      tags: setup, co|",
    "      tags:\n        - setup\n        - co|",
    "      tags:\n      - setup\n      - co|",
])
def test_tags_mid_edit_offer_workspace_tags_with_task_counts(index: WorkspaceIndex, edit: str) -> None:
    found = run(PLAY + edit, index=index)
    assert found is not None
    by_label = {item.label: item for item in found.items}
    assert by_label["config"].detail == "2 tasks"
    assert by_label["packages"].detail == "1 task"
    assert "setup" not in by_label  # already written in this value
    assert by_label["always"].kind == "tag" and "special" in by_label["always"].detail
    clean, line, column = at_cursor(PLAY + edit)
    assert found.start == column - 2  # the typed "co" is replaced
    assert by_label["config"].insert == "config"


def test_a_complete_known_tag_stays_offered_and_a_half_typed_one_is_not(index: WorkspaceIndex) -> None:
    assert "config" in labels(run(PLAY + "      tags: [setup, config|", index=index))
    assert "confi" not in labels(run(PLAY + "      tags: [setup, confi|", index=index))
    assert run(PLAY + "      tags: [setup]|", index=index) is None


def test_tags_right_after_the_colon_insert_a_space(index: WorkspaceIndex) -> None:
    found = run(PLAY + "      tags:|", index=index)
    assert found is not None
    assert {item.insert for item in found.items} >= {" config", " setup"}


def test_tags_written_in_the_buffer_are_offered_without_an_index() -> None:
    found = run(PLAY + "      tags: [fresh]\n    - name: two\n      tags: [|", "tasks/x.yml")
    assert "fresh" in labels(found)


def test_a_templated_tag_is_not_offered(index: WorkspaceIndex) -> None:
    assert "{{ x }}" not in labels(run(PLAY + "      tags: ['{{ x }}']\n    - name: two\n      tags: [|", index=index))


# -- keys ------------------------------------------------------------------------------------
def test_a_task_without_module_gets_keywords_and_modules_with_descriptions() -> None:
    found = run(PLAY + "      deb|")
    names = labels(found)
    assert {"when", "tags", "notify", "block", "debug", "ansible.builtin.debug", "ansible.builtin.copy"} <= set(names)
    assert "name" not in names  # already set
    assert "hosts" not in names and "listen" not in names
    assert found is not None and found.start == 6
    debug = next(item for item in found.items if item.label == "debug")
    assert debug.detail == "Print statements during execution" and debug.insert == "debug: "
    assert debug.sort > next(item for item in found.items if item.label == "when").sort


def test_a_task_with_a_module_gets_no_more_modules() -> None:
    names = labels(run(PLAY + "      ansible.builtin.debug:\n        msg: hi\n      |"))
    assert "register" in names and "debug" not in names and "ansible.builtin.copy" not in names


def test_a_new_list_item_in_a_task_list() -> None:
    names = labels(run(PLAY + "      debug:\n    - |"))
    assert "name" in names and "copy" in names


def test_module_options_under_the_module_and_under_args() -> None:
    found = run(PLAY + "      ansible.builtin.template:\n        src: a.j2\n        |")
    names = labels(found)
    assert "dest" in names and "src" not in names and "when" not in names
    assert found is not None
    dest = next(item for item in found.items if item.label == "dest")
    assert dest.detail == "path, required" and dest.kind == "option"
    assert names.index("dest") < names.index("mode")  # required first
    args = labels(run(PLAY + "      args:\n        |\n      copy:\n"))
    assert "dest" in args and "msg" not in args


def test_play_keys_and_import_playbook() -> None:
    names = labels(run("- hosts: all\n  |\n"))
    assert {"roles", "tasks", "gather_facts", "vars_files"} <= set(names)
    assert "hosts" not in names and "register" not in names
    assert "import_playbook" not in names  # hosts already makes it a play
    fresh = labels(run("- hosts: a\n- |\n", "site.yml"))
    assert "hosts" in fresh and "import_playbook" in fresh


def test_block_and_handler_and_roles_entry_keys() -> None:
    block = labels(run(PLAY + "    - block:\n        - debug:\n      |"))
    assert {"rescue", "always", "when"} <= set(block) and "debug" not in block and "register" not in block
    handler = labels(run("- hosts: all\n  handlers:\n    - name: h\n      |"))
    assert "listen" in handler and "service" in handler and "block" not in handler
    entry = labels(run("- hosts: all\n  roles:\n    - role: web\n      |"))
    assert "tags" in entry and "when" in entry and "role" not in entry and "debug" not in entry


def test_files_in_tasks_and_handlers_directories() -> None:
    assert "debug" in labels(run("- name: a\n  |", "roles/x/tasks/main.yml"))
    assert "listen" in labels(run("- name: a\n  |", "roles/x/handlers/main.yml"))


def test_no_completion_inside_values_scalars_or_vars() -> None:
    assert run(PLAY + "      shell: |\n        ec|") is None
    assert run(PLAY + "      name: some|") is None
    assert run("- hosts: all\n  vars:\n    foo: 1\n    |") is None


def test_action_value_offers_modules() -> None:
    found = run(PLAY + "      action: co|")
    assert found is not None and "copy" in labels(found) and found.items[0].insert.endswith(" ")


def test_unicode_before_the_cursor_keeps_code_point_columns() -> None:
    found = run(PLAY + "      tags: ['é😀', co|")
    assert found is not None
    clean, line, column = at_cursor(PLAY + "      tags: ['é😀', co|")
    assert found.start == column - 2


YAMLISH = st.text(alphabet=list(" -:#[],'\"|>\nabtagsnmekyloc.{}&*!\t😀"), max_size=120)


@settings(max_examples=300, deadline=None)
@given(text=YAMLISH, line=st.integers(0, 12), column=st.integers(0, 40))
def test_any_text_at_any_position_never_raises(text: str, line: int, column: int) -> None:
    found = complete(None, "tasks/main.yml", line, column, text)
    assert found is None or 0 <= found.start <= column
