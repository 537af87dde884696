"""Properties the recorded cases do not show on their own: second runs change nothing,
check mode writes nothing, names resolve, bad arguments are refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from module_cases import snapshot
from replay import context

from engine.run.modules import MODULE_NAMES, ModuleError, get_module


def _run(module: str, args: dict[str, Any], root: Path, check: bool = False, diff: bool = False) -> dict[str, Any]:
    function = get_module(module)
    assert function is not None
    return function(args, context(root, check, diff))


IDEMPOTENT = [
    ("copy", lambda d: {"content": "x\n", "dest": f"{d}/out", "mode": "u=rw,g=r,o="}),
    ("copy", lambda d: {"src": f"{d}/tree/", "dest": f"{d}/out"}),
    ("template", lambda d: {"src": f"{d}/t.j2", "dest": f"{d}/out", "mode": "0600"}),
    ("file", lambda d: {"path": f"{d}/a/b", "state": "directory", "mode": "0700"}),
    ("file", lambda d: {"path": f"{d}/l", "src": "t.j2", "state": "link"}),
    ("file", lambda d: {"path": f"{d}/t.j2", "state": "absent"}),
    ("lineinfile", lambda d: {"path": f"{d}/f", "line": "x = 1", "regexp": "^x", "create": True}),
    ("lineinfile", lambda d: {"path": f"{d}/t.j2", "line": "first", "insertbefore": "BOF"}),
]


def _lay_out(root: Path) -> None:
    (root / "t.j2").write_text("{{ greeting }}\n")
    (root / "tree" / "sub").mkdir(parents=True)
    (root / "tree" / "sub" / "b").write_text("b")


@pytest.mark.parametrize(("module", "make_args"), IDEMPOTENT)
def test_second_run_changes_nothing(module, make_args, tmp_path: Path) -> None:
    _lay_out(tmp_path)
    args = make_args(tmp_path)
    first = _run(module, args, tmp_path)
    assert first["changed"] is True and not first.get("failed")
    again = _run(module, args, tmp_path)
    assert again["changed"] is False and not again.get("failed")


@pytest.mark.parametrize(("module", "make_args"), IDEMPOTENT)
def test_check_mode_reports_the_change_and_writes_nothing(module, make_args, tmp_path: Path) -> None:
    _lay_out(tmp_path)
    args = {**make_args(tmp_path), **({"backup": True} if module in ("copy", "template", "lineinfile") else {})}
    if module == "copy" and "src" in args:
        args.pop("backup")
    before = snapshot(tmp_path)
    result = _run(module, args, tmp_path, check=True, diff=True)
    assert result["changed"] is True
    assert snapshot(tmp_path) == before


def test_check_mode_mode_change_is_reported_not_made(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    target.chmod(0o644)
    result = _run("file", {"path": str(target), "mode": "0600"}, tmp_path, check=True, diff=True)
    assert result["changed"] is True
    assert result["diff"] == {
        "before": {"path": str(target), "mode": "0644"},
        "after": {"path": str(target), "mode": "0600"},
    }
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_symbolic_modes(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    target.chmod(0o640)
    _run("file", {"path": str(target), "mode": "u+x,g-r,o=u"}, tmp_path)
    assert oct(target.stat().st_mode & 0o777) == "0o707"
    _run("file", {"path": str(target), "mode": 0o600}, tmp_path)
    assert oct(target.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("name", ["copy", "ansible.builtin.copy", "ansible.legacy.copy"])
def test_names_resolve(name: str) -> None:
    assert get_module(name) is get_module("copy")


def test_unknown_module_is_none() -> None:
    assert get_module("ansible.builtin.apt") is None
    assert "apt" not in MODULE_NAMES and "lineinfile" in MODULE_NAMES


def test_every_name_has_a_module() -> None:
    assert all(callable(get_module(name)) for name in MODULE_NAMES)


def test_unknown_argument_names_the_supported_ones(tmp_path: Path) -> None:
    with pytest.raises(
        ModuleError,
        match=r"Unsupported parameters for \(file\) module: bogus\. Supported parameters "
        r"include: _diff_peek, .*path, .*unsafe_writes \(attr, dest, name\)\.$",  # ansible's arg_spec wording
    ):
        _run("file", {"path": str(tmp_path), "bogus": 1}, tmp_path)


def test_bad_boolean_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModuleError, match="unable to convert to bool"):
        _run("lineinfile", {"line": "x", "path": str(tmp_path / "o"), "backup": "maybe"}, tmp_path)


def test_copy_modules_option_is_checked_only_where_the_module_runs(tmp_path: Path) -> None:
    # the copy action reads backup no more than it reads an unknown name: the copy module it
    # hands a file to refuses it (with the action's checksum), in check mode the action answers
    args = {"content": "x", "dest": str(tmp_path / "o"), "backup": "maybe"}
    predicted = _run("copy", args, tmp_path, check=True)
    assert predicted["changed"] is True and not predicted.get("failed")
    refused = _run("copy", args, tmp_path)
    assert refused["failed"] is True and "argument 'backup' is of type str" in refused["msg"]
    assert refused["checksum"] == "11f6ad8ec52a2984abaafd7c3b516503785c2072"
    assert not (tmp_path / "o").exists()
    (tmp_path / "o").write_text("x")  # already right: only the file module runs, which has no backup
    assert _run("copy", args, tmp_path)["changed"] is False
    template = {"src": str(tmp_path / "o"), "dest": str(tmp_path / "t"), "unsafe_writes": "perhaps"}
    assert _run("template", template, tmp_path, check=True)["changed"] is True
    assert "argument 'unsafe_writes'" in _run("template", template, tmp_path)["msg"]


@pytest.mark.parametrize("written", ["stat", "ansible.builtin.stat", "ansible.legacy.stat"])
def test_unsupported_parameter_names_the_module_as_written(written: str, tmp_path: Path) -> None:
    # AnsibleModule names itself as the task's action names it
    with pytest.raises(ModuleError, match=rf"Unsupported parameters for \({written}\) module: follow_links\."):
        _run(written, {"path": str(tmp_path), "follow_links": True}, tmp_path)


def test_ping_crash_fails(tmp_path: Path) -> None:
    with pytest.raises(ModuleError, match="boom"):
        _run("ping", {"data": "crash"}, tmp_path)


def test_other_owner_is_refused_without_writing(tmp_path: Path) -> None:
    other = "root" if os.getuid() != 0 else "nobody"
    with pytest.raises(ModuleError, match="unprivileged"):
        _run("copy", {"content": "x", "dest": str(tmp_path / "o"), "owner": other}, tmp_path)
    assert not (tmp_path / "o").exists()


def test_current_owner_is_accepted(tmp_path: Path) -> None:
    result = _run("copy", {"content": "x", "dest": str(tmp_path / "o"), "owner": str(os.getuid())}, tmp_path)
    assert result["changed"] is True


def test_template_found_in_templates_dir(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "t.j2").write_text("{{ items | join('-') }}\n")
    result = _run("template", {"src": "t.j2", "dest": str(tmp_path / "out")}, tmp_path)
    assert result["changed"] is True
    assert (tmp_path / "out").read_text() == "a-b\n"


def test_command_skipped_in_check_mode_runs_nothing(tmp_path: Path) -> None:
    result = _run("shell", {"_raw_params": f"touch {tmp_path}/made"}, tmp_path, check=True)
    assert result["skipped"] is True and result["changed"] is False
    assert not (tmp_path / "made").exists()


def test_shell_refuses_command_only_argument(tmp_path: Path) -> None:
    with pytest.raises(ModuleError, match=r"Unsupported parameters for \(shell\) module: expand_argument_vars"):
        _run("shell", {"_raw_params": "true", "expand_argument_vars": False}, tmp_path)


def test_debug_verbosity_uses_the_runs_verbosity(tmp_path: Path) -> None:
    function = get_module("debug")
    ctx = context(tmp_path)
    ctx.task_vars["ansible_verbosity"] = 2
    assert function({"msg": "hi", "verbosity": 2}, ctx) == {"msg": "hi", "_ansible_verbose_always": True,
                                                                  "failed": False}


@pytest.mark.parametrize("check", [False, True])
def test_assemble_validate_whose_program_is_missing_fails_as_run_command_does(tmp_path: Path, check: bool) -> None:
    (tmp_path / "frag").mkdir()
    (tmp_path / "frag" / "a").write_text("a\n")
    result = _run("assemble", {"src": f"{tmp_path}/frag", "dest": f"{tmp_path}/out",
                               "validate": "no-such-validator-program %s"}, tmp_path, check=check)
    assert result["failed"] and result["msg"] == "Error executing command." and result["rc"] == 2
    assert result["cmd"].startswith("no-such-validator-program ")
    assert (result["stdout"], result["stdout_lines"], result["stderr"], result["stderr_lines"]) == ("", [], "", [])
    assert not (tmp_path / "out").exists()


def test_an_owner_or_group_this_machine_lacks_is_worded_as_the_module_utils_word_it(tmp_path: Path) -> None:
    """set_owner_if_different says "chown failed", set_group_if_different "chgrp failed"."""
    from engine.run.modules._files import check_ownership

    (tmp_path / "f").write_text("x")
    with pytest.raises(ModuleError, match="^chown failed: failed to look up user no_such_user_x$"):
        check_ownership(str(tmp_path / "f"), "no_such_user_x", None)
    with pytest.raises(ModuleError, match="^chgrp failed: failed to look up group no_such_group_x$"):
        check_ownership(str(tmp_path / "f"), None, "no_such_group_x")


def test_unarchive_action_checks_before_its_module(tmp_path: Path) -> None:
    # the action skips for creates and wants an existing dest before the module checks its
    # arguments (list_files: maybe) or would download a URL
    (tmp_path / "made").write_text("")
    args = {"src": "https://example.invalid/a.tgz", "remote_src": True, "dest": str(tmp_path / "d"),
            "list_files": "maybe"}
    assert _run("unarchive", {**args, "creates": str(tmp_path / "made")}, tmp_path)["skipped"] is True
    assert _run("unarchive", args, tmp_path)["msg"] == f"dest '{tmp_path / 'd'}' must be an existing dir"
    (tmp_path / "d").mkdir()
    with pytest.raises(ModuleError, match="argument 'list_files' is of type str"):
        _run("unarchive", args, tmp_path)
    with pytest.raises(ModuleError, match="does not download"):
        _run("unarchive", {**args, "list_files": True}, tmp_path)


def test_assemble_module_is_named_as_its_action_runs_it(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    with pytest.raises(ModuleError, match=r"Unsupported parameters for \(ansible\.legacy\.assemble\) module: bogus\."):
        _run("assemble", {"src": str(tmp_path / "parts"), "dest": str(tmp_path / "out"), "bogus": 1}, tmp_path)
    # remote_src as the action reads it: a word that is not true is false (fragments on the controller)
    declined = _run("assemble", {"src": "parts", "dest": str(tmp_path / "out"), "remote_src": "maybe"}, tmp_path)
    assert "remote_src=false" in declined["msg"]
