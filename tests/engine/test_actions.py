"""engine.loading.actions: a free-form module's string splits as ansible's ModuleArgsParser splits it."""

from __future__ import annotations

import pytest

from engine.loading.actions import ActionError, parse_action


@pytest.mark.parametrize("action", ["ansible.windows.win_shell", "win_command", "ansible.legacy.win_shell"])
def test_windows_free_form_keeps_its_words(action: str) -> None:
    # FREEFORM_ACTIONS has the Windows commands too: "a=b" inside the command is not an option
    parsed = parse_action({action: 'Set-Item -Name "Mode=Strict" chdir=C:/temp'})
    assert parsed.args == {"_raw_params": 'Set-Item -Name "Mode=Strict"', "chdir": "C:/temp"}


def test_only_the_command_keys_ansible_lists_are_options() -> None:
    # parse_kv(check_raw=True) takes creates, removes, chdir, executable, warn, stdin,
    # stdin_add_newline and strip_empty_ends; cmd= and argv= stay in the command line
    parsed = parse_action({"ansible.builtin.command": "echo cmd=1 argv=2 warn=false"})
    assert parsed.args == {"_raw_params": "echo cmd=1 argv=2", "warn": "false"}


@pytest.mark.parametrize("text", ["echo ${#HOME}", 'echo "open', "echo {{ x", "", "  echo  a\n  b\n"])
def test_free_form_without_equals_splits_as_ansible(text: str) -> None:
    # ModuleArgsParser runs parse_kv on every string, `k=v` or not: `${#VAR}` opens a Jinja
    # comment that split_args finds unbalanced and the task does not load
    splitter = pytest.importorskip("ansible.parsing.splitter")
    try:  # what _normalize_new_style_args does with a free-form module's string
        expected: object = splitter.parse_kv(text, check_raw=True)
    except Exception as exc:  # noqa: BLE001 - ansible's AnsibleParserError, whose text is compared
        expected = str(exc)
    try:
        actual: object = parse_action({"ansible.builtin.shell": text}).args
    except ActionError as exc:
        actual = str(exc)
    assert actual == expected
