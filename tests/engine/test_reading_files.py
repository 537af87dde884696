"""Only regular files are read, and not past a size limit (engine.files): a FIFO, a device or a
huge file in a repository gives a positioned problem instead of a hang or gigabytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import files
from engine.parsing.source import SourceCache
from playbook_ls.cli.main import main


def test_fifos_devices_and_directories_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yml"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(files.UnreadableFile, match="is not a regular file \\(a FIFO\\)"):
        files.read_bytes(str(fifo))
    with pytest.raises(files.UnreadableFile, match="a character device"):
        files.read_bytes("/dev/zero")
    with pytest.raises(files.UnreadableFile, match="a directory"):
        files.read_bytes(str(tmp_path))
    loaded = SourceCache().load(str(fifo))
    assert loaded.error is not None and "not a regular file" in loaded.error.message


def test_files_over_the_limit_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.yml"
    big.write_text("- hosts: all\n" + "#" * 2000 + "\n")
    monkeypatch.setenv("PLAYBOOK_LS_MAX_FILE_SIZE", "1000")
    with pytest.raises(files.UnreadableFile, match="over playbook-ls's limit of 1,000"):
        files.read_bytes(str(big))
    assert "PLAYBOOK_LS_MAX_FILE_SIZE" in str(SourceCache().load(str(big)).error)
    monkeypatch.setenv("PLAYBOOK_LS_MAX_FILE_SIZE", "4000")
    assert files.read_bytes(str(big)).startswith(b"- hosts")


def test_a_role_whose_files_are_a_fifo_and_dev_zero_does_not_hang_the_commands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "roles/x/defaults").mkdir(parents=True)
    (tmp_path / "roles/x/tasks").mkdir(parents=True)
    os.mkfifo(tmp_path / "roles/x/defaults/main.yml")
    os.symlink("/dev/zero", tmp_path / "roles/x/tasks/main.yml")
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  roles: [x]\n")
    monkeypatch.chdir(tmp_path)
    assert main(["list-tasks", "-i", "localhost,", "site.yml"]) == 4
    assert "roles/x/tasks/main.yml is not a regular file (a character device)" in capsys.readouterr().err
    assert main(["check", "."]) == 1
    assert "not a regular file" in capsys.readouterr().out


def test_an_unreadable_role_directory_is_reported_not_taken_for_an_empty_role(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "roles/locked/tasks").mkdir(parents=True)
    (tmp_path / "roles/locked/tasks/main.yml").write_text("- debug: msg=hidden\n")
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  roles: [locked]\n")
    locked = str(tmp_path / "roles/locked/tasks")
    real_access = os.access
    # tests run as root, which chmod cannot lock out: the permission is refused here instead
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == locked else real_access(path, mode))
    monkeypatch.chdir(tmp_path)
    assert main(["check", ".", "--no-cache"]) == 1
    assert "cannot read tasks/ of role 'locked'" in capsys.readouterr().out
