"""The config file is found and read once within one computation, afresh after it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.config import config_read_once, config_value, find_config_file


def _write(path: Path, forks: int) -> None:
    path.write_text(f"[defaults]\nforks = {forks}\n", encoding="utf-8")


def test_read_once_within_and_afresh_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSIBLE_CONFIG", raising=False)
    monkeypatch.delenv("ANSIBLE_FORKS", raising=False)
    os.chmod(tmp_path, 0o755)
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "ansible.cfg"
    _write(cfg, 7)
    with config_read_once():
        assert config_value("ANSIBLE_FORKS", "defaults", "forks") == "7"
        _write(cfg, 12345)  # another size: unmemoized, it would be read again
        assert config_value("ANSIBLE_FORKS", "defaults", "forks") == "7"
        assert find_config_file() == str(cfg)
        assert config_value("ANSIBLE_FORKS", "defaults", "timeout") is None
        monkeypatch.setenv("ANSIBLE_FORKS", "3")  # as ansible has it when it starts: read once
        assert config_value("ANSIBLE_FORKS", "defaults", "forks") == "7"
        with config_read_once():  # a nested scope keeps the outer one's reading
            assert config_value("ANSIBLE_FORKS", "defaults", "forks") == "7"
    assert config_value("ANSIBLE_FORKS", "defaults", "forks") == "3"  # the next computation reads them afresh
    monkeypatch.delenv("ANSIBLE_FORKS")
    assert config_value("ANSIBLE_FORKS", "defaults", "forks") == "12345"
    cfg.unlink()
    assert find_config_file() != str(cfg)


def test_read_once_by_directory_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSIBLE_CONFIG", raising=False)
    first, second = tmp_path / "a", tmp_path / "b"
    for directory in (first, second):
        directory.mkdir(mode=0o755)
    _write(first / "ansible.cfg", 1)
    monkeypatch.chdir(second)
    with config_read_once():
        assert find_config_file(str(first)) == str(first / "ansible.cfg")
        assert find_config_file() != str(first / "ansible.cfg")
        _write(second / "ansible.cfg", 2)  # found once: as at the first reading
        assert find_config_file() != str(second / "ansible.cfg")
    assert find_config_file() == str(second / "ansible.cfg")
