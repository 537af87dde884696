"""engine.loading.actions: a free-form module's string splits as ansible's ModuleArgsParser splits it."""

from __future__ import annotations

import pytest

from engine.loading.actions import parse_action


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
