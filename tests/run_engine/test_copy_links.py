"""copy and links, as ansible-core 2.19's copy action and module treat them: a link at the
destination is written through only with ``follow`` (else replaced by a file, even when what it
leads to already holds the content), and a source tree's links are kept as links without
``local_follow``, followed with it except those that lead back into the tree's ancestry or
nowhere (``_walk_dirs``). The recorded scenarios (heldout22_copy_directory_mode_local_follow_links)
compare whole runs with ansible's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from engine.run.modules import ModuleContext, get_module
from engine.run.modules._copy_walk import walk_dirs


def _copy(root: Path, check: bool = False, **args: Any) -> dict[str, Any]:
    ctx = ModuleContext(check_mode=check, diff=False, task_vars={}, search_paths=[str(root)],
                        render=lambda text, **_: text, evaluate=lambda _: True)
    module = get_module("ansible.builtin.copy")
    assert module is not None
    return module(args, ctx)


def _linked(tmp_path: Path) -> Path:
    (tmp_path / "real.conf").write_text("same\n")
    (tmp_path / "link.conf").symlink_to("real.conf")
    return tmp_path / "link.conf"


def test_follow_writes_where_the_link_leads(tmp_path: Path) -> None:
    link = _linked(tmp_path)
    result = _copy(tmp_path, dest=str(link), content="new\n", follow=True)
    assert result["changed"] and result["dest"] == str(tmp_path / "real.conf")
    assert link.is_symlink() and (tmp_path / "real.conf").read_text() == "new\n"
    again = _copy(tmp_path, dest=str(link), content="new\n", follow=True)
    assert not again["changed"] and again["path"] == str(tmp_path / "real.conf") and link.is_symlink()


def test_without_follow_a_link_becomes_a_file_even_with_the_same_content(tmp_path: Path) -> None:
    link = _linked(tmp_path)
    assert _copy(tmp_path, check=True, dest=str(link), content="same\n")["changed"]
    assert link.is_symlink()
    result = _copy(tmp_path, dest=str(link), content="same\n", backup=True)
    assert result["changed"] and not link.is_symlink() and link.read_text() == "same\n"
    backup = Path(result["backup_file"])
    assert backup.read_text() == "same\n" and backup.parent == tmp_path
    assert (tmp_path / "real.conf").read_text() == "same\n"


def test_force_off_leaves_a_dangling_link_unless_followed(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to("nowhere")
    assert not _copy(tmp_path, dest=str(tmp_path / "dangling"), content="x\n", force=False)["changed"]
    assert (tmp_path / "dangling").is_symlink()
    assert _copy(tmp_path, dest=str(tmp_path / "dangling"), content="x\n", force=False, follow=True)["changed"]
    assert not (tmp_path / "dangling").is_symlink() and (tmp_path / "dangling").read_text() == "x\n"


def _tree(root: Path) -> Path:
    src = root / "src"
    (src / "conf").mkdir(parents=True)
    (src / "conf" / "main.conf").write_text("a\n")
    (src / "conf" / "default.conf").symlink_to("main.conf")
    (src / "confdir").symlink_to("conf")
    (src / "loop").symlink_to(".")
    (src / "dangling").symlink_to("missing")
    return src


def test_the_walk_follows_links_but_not_back_into_the_tree_nor_nowhere(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    tree = walk_dirs(f"{src}/", local_follow=True)
    assert sorted(rel for _path, rel in tree.files) == ["conf/default.conf", "conf/main.conf",
                                                        "confdir/default.conf", "confdir/main.conf"]
    assert sorted(rel for _path, rel in tree.directories) == ["conf", "confdir"]
    assert sorted(tree.symlinks) == [(".", "loop"), ("missing", "dangling")]
    kept = walk_dirs(str(src), local_follow=False)
    assert [rel for _path, rel in kept.files] == ["src/conf/main.conf"]
    assert sorted(kept.symlinks) == [(".", "src/loop"), ("conf", "src/confdir"), ("main.conf", "src/conf/default.conf"),
                                     ("missing", "src/dangling")]


def test_a_tree_copied_without_local_follow_keeps_its_links(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    result = _copy(tmp_path, src=f"{src}/", dest=str(tmp_path / "dst"), local_follow=False)
    dst = tmp_path / "dst"
    assert result["changed"]
    assert os.readlink(dst / "confdir") == "conf" and os.readlink(dst / "conf" / "default.conf") == "main.conf"
    assert os.readlink(dst / "dangling") == "missing" and (dst / "conf" / "main.conf").read_text() == "a\n"
    assert not _copy(tmp_path, src=f"{src}/", dest=str(dst), local_follow=False)["changed"]
    followed = _copy(tmp_path, src=f"{src}/", dest=str(tmp_path / "followed"))
    assert followed["changed"] and (tmp_path / "followed" / "confdir" / "main.conf").read_text() == "a\n"
    assert not (tmp_path / "followed" / "confdir").is_symlink()
    assert os.readlink(tmp_path / "followed" / "loop") == "."


def test_file_attributes_a_template_gives_are_refused_by_the_module(tmp_path: Path) -> None:
    """A value written as it is is declined before the run (tests/run_engine/test_declines.py)."""
    import pytest

    from engine.run.modules import ModuleError

    with pytest.raises(ModuleError, match="does not implement copy's file attributes"):
        _copy(tmp_path, dest=str(tmp_path / "x"), content="x\n", attributes="+i")
    assert not (tmp_path / "x").exists()
    assert _copy(tmp_path, dest=str(tmp_path / "x"), content="x\n", attributes="")["changed"]
