"""archive (community.general.archive's port) and unarchive's zip handlers, called directly."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import pytest

from engine.run.modules import ModuleContext, get_module


def _context(root: Path, check: bool = False, diff: bool = False) -> ModuleContext:
    return ModuleContext(check_mode=check, diff=diff, task_vars={}, search_paths=[str(root)],
                         render=lambda text, **_: text, evaluate=lambda _: True)


def _tree(root: Path) -> None:
    (root / "src" / "sub").mkdir(parents=True)
    (root / "src" / "a.txt").write_text("a\n")
    (root / "src" / "b.log").write_text("b\n")
    (root / "src" / "sub" / "c.txt").write_text("c\n")


def test_archive_a_tree_then_nothing_changes(tmp_path: Path) -> None:
    _tree(tmp_path)
    archive = get_module("community.general.archive")
    assert archive is not None
    args = {"path": str(tmp_path / "src"), "dest": str(tmp_path / "t.tgz"), "exclusion_patterns": ["*.log"]}
    first = archive(args, _context(tmp_path))
    assert first["changed"] and first["dest_state"] == "archive" and first["arcroot"] == f"{tmp_path}/"
    with tarfile.open(tmp_path / "t.tgz") as tar:
        assert sorted(tar.getnames()) == ["src/a.txt", "src/sub", "src/sub/c.txt"]
    assert archive(args, _context(tmp_path))["changed"] is False
    assert archive({**args, "dest": str(tmp_path / "new.tgz")}, _context(tmp_path, check=True))["changed"] is True
    assert not (tmp_path / "new.tgz").exists()


def test_archive_single_file_and_failures(tmp_path: Path) -> None:
    _tree(tmp_path)
    archive = get_module("archive")
    assert archive is not None
    single = archive({"path": str(tmp_path / "src" / "a.txt"), "format": "xz", "remove": True}, _context(tmp_path))
    assert single["dest_state"] == "compress" and single["dest"] == f"{tmp_path}/src/a.txt.xz"
    assert not (tmp_path / "src" / "a.txt").exists()
    none = archive({"path": [str(tmp_path / "nothing-*")], "dest": str(tmp_path / "x.zip")}, _context(tmp_path))
    assert none["failed"] and none["msg"] == "Error, no source paths were found"
    several = archive({"path": [str(tmp_path / "src" / "b.log"), str(tmp_path / "src" / "sub" / "c.txt")]},
                      _context(tmp_path))
    assert several["msg"] == 'Error, must specify "dest" when archiving multiple files or trees'


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, mode in (("top/", b"", 0o40755), ("top/a.txt", b"alpha\n", 0o100644)):
            info = zipfile.ZipInfo(name, date_time=(2024, 5, 6, 7, 8, 10))
            info.create_system, info.external_attr = 3, mode << 16
            archive.writestr(info, data)
    return path


def test_unarchive_zip_changed_then_unchanged(tmp_path: Path, bundle: Path) -> None:
    unarchive = get_module("unarchive")
    assert unarchive is not None
    dest = tmp_path / "out"
    dest.mkdir()
    args = {"src": str(bundle), "dest": str(dest), "remote_src": True}
    checked = unarchive(args, _context(tmp_path, check=True, diff=True))
    assert checked["changed"] and checked["handler"] == "ZipArchive" and not (dest / "top").exists()
    assert checked["diff"] == {"prepared": ">d++++++.?? top/\n>f++++++.?? top/a.txt\n"}
    assert unarchive(args, _context(tmp_path))["changed"] is True
    assert (dest / "top" / "a.txt").read_text() == "alpha\n"
    assert unarchive(args, _context(tmp_path))["changed"] is False


def test_unarchive_zip_without_unzip_fails_as_ansible(tmp_path: Path, bundle: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import engine.run.modules._zip as zip_module

    real_which = shutil.which
    monkeypatch.setattr(zip_module.shutil, "which", lambda name: None if name in ("unzip", "zipinfo")
                        else real_which(name))
    unarchive = get_module("unarchive")
    assert unarchive is not None
    (tmp_path / "out").mkdir()
    result = unarchive({"src": str(bundle), "dest": str(tmp_path / "out"), "remote_src": True}, _context(tmp_path))
    assert result["failed"]
    assert result["msg"].startswith(f'Failed to find handler for "{bundle}". Make sure the required command to '
                                    "extract the file is installed.\n")
    assert "Unable to find required 'unzip' or 'zipinfo' binary in the path." in result["msg"]
    assert "Unable to find required 'unzip' or 'unzip' binary in the path." in result["msg"]
