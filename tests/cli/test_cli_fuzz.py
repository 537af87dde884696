"""Every command on bad input: an exit code and a message naming the file, never a traceback."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from playbook_ls.cli.main import main

BAD_FILES = {
    "missing": None,
    "directory": "DIR",
    "binary": b"\x00\x01\x02\xff\xfe" * 100,
    "not utf-8": "- hosts: all\n  tasks:\n    - debug: msg=caf\xe9\n".encode("latin-1"),
    "broken yaml": b"- hosts: all\n  tasks: [\n",
    "not a playbook": b"just: a mapping\n",
    "deep": b"? " * 5000 + b"x\n",
    "bad scalar": b"- hosts: all\n  vars:\n    a: !!int foo\n",
    "empty": b"",
}
COMMANDS = [
    ["list-tasks", "-i", "localhost,", "{file}"],
    ["list-tags", "-i", "localhost,", "{file}"],
    ["list-tasks", "-i", "{file}", "site.yml"],
    ["list-tasks", "-i", "localhost,", "site.yml", "-e", "@{file}"],
    ["list-tasks", "-i", "localhost,", "site.yml", "-l", "@{file}"],
    ["check", "{file}"],
    ["check", "{file}", "--format", "sarif"],
    ["inventory", "-i", "{file}", "--list"],
    ["inventory", "-i", "{file}", "--graph"],
    ["run", "--dry", "-i", "localhost,", "{file}"],
    ["plan", "-i", "localhost,", "{file}", "--format", "json"],
    ["plan", "-i", "{file}", "site.yml"],
    ["plan", "-i", "localhost,", "site.yml", "--facts", "{file}"],
    ["launch", "nosuch", "--show"],
    ["list-tasks", "-i", "localhost,", "site.yml", "-e", "{{not json"],
    ["list-tasks", "-i", "localhost,", "site.yml", "--tags", ""],
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: msg=x\n")
    for name, content in BAD_FILES.items():
        path = tmp_path / name.replace(" ", "_")
        if content == "DIR":
            path.mkdir()
        elif content is not None:
            path.write_bytes(content)
    return tmp_path


@pytest.mark.parametrize(("command", "bad"), list(itertools.product(COMMANDS, BAD_FILES)),
                         ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_bad_input_never_raises(repo: Path, command: list[str], bad: str, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo)
    argv = [part.replace("{file}", bad.replace(" ", "_")) for part in command]
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code if isinstance(exit_.code, int) else 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert isinstance(code, int)
    if code not in (0, 1) and err:  # a refusal says which file, or what to do
        assert bad.replace(" ", "_") in err or "playbook-ls" in err or "usage" in err or "ERROR" in err, err
