"""The persistent result cache: a warm run parses no YAML and prints the same; changes invalidate."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import engine.parsing.source
from playbook_ls import rules
from playbook_ls.check.runner import CheckResult, run_check
from playbook_ls.config import load_settings


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every YAML file engine.parsing.source.parse_text parses in this test, but the settings file: that one
    is read on every run, as it decides what the cache is valid for."""
    calls: list[str] = []
    original = engine.parsing.source.parse_text

    def counting(text: str, file: str) -> engine.parsing.source.Loaded:
        if os.path.basename(file) not in (".playbook-ls.yml", ".playbook-ls.yaml"):
            calls.append(file)
        return original(text, file)

    monkeypatch.setattr(engine.parsing.source, "parse_text", counting)
    return calls


def check(paths: tuple[str, ...] = (".",), use_cache: bool = True) -> CheckResult:
    return run_check(list(paths), load_settings(None, paths[0]), use_cache=use_cache)


def summary(result: CheckResult) -> list[tuple[str, int, str]]:
    return [(os.path.relpath(f.span.file), f.span.line + 1, f.code) for f in result.findings]


def cache_files(cache_dir: Path) -> list[Path]:
    """The check's cache files; the module index's (``modules/``) and the parsed routing tables
    (``routing/``) share the user's cache directory and are kept apart from them."""
    shared = {cache_dir / "modules", cache_dir / "routing"}
    return sorted(p for p in cache_dir.rglob("*") if p.is_file() and not shared & set(p.parents)) \
        if cache_dir.exists() else []


def test_second_run_parses_no_yaml_and_prints_the_same(golden_repo: Path, cli, parses, cache_dir) -> None:
    outputs = {}
    for fmt in ("text", "json", "sarif", "github"):  # -j 1: parses in worker processes would not be counted
        outputs[fmt] = cli("check", "-j", "1", "--format", fmt)
    assert parses, "the first run must parse"
    assert len(cache_files(cache_dir)) == 1
    parses.clear()
    for fmt in ("text", "json", "sarif", "github"):
        assert cli("check", "-j", "1", "--format", fmt) == outputs[fmt]
    assert parses == []
    result = check()
    assert result.parsed == 0 and parses == []
    assert result.files == 7 and result.playbooks == 2 and result.roles == 2


def test_cold_run_counts_what_it_parsed(golden_repo: Path) -> None:
    first = check()
    assert first.parsed >= first.files
    assert check().parsed == 0
    assert check(use_cache=False).parsed == first.parsed


def test_touching_a_file_without_changing_it_keeps_the_cache(golden_repo: Path) -> None:
    check()
    site = golden_repo / "site.yml"
    os.utime(site, (site.stat().st_atime + 100, site.stat().st_mtime + 100))
    assert check().parsed == 0


def test_changing_one_file_rechecks_it_and_updates_findings(write, parses) -> None:
    write({
        "site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.import_tasks: tasks.yml\n",
        "tasks.yml": "- ansible.builtin.debug:\n    msg: x\n",
        "other.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: x\n      tags: all\n",
    })
    assert summary(check()) == [("other.yml", 5, "PLS114")]
    assert summary(check()) == [("other.yml", 5, "PLS114")]
    parses.clear()
    write({"tasks.yml": "- ansible.builtin.debug:\n    msg: x\n  tags: [all]\n"})
    result = check()
    assert summary(result) == [("other.yml", 5, "PLS114"), ("tasks.yml", 3, "PLS114")]
    assert "other.yml" not in {os.path.basename(p) for p in parses}, "an unaffected playbook was parsed again"
    write({"tasks.yml": "- ansible.builtin.debug:\n    msg: x\n"})
    assert summary(check()) == [("other.yml", 5, "PLS114")]
    assert check().parsed == 0


def test_changing_a_role_file_rechecks_the_playbook(golden_repo: Path) -> None:
    before = summary(check())
    assert ("roles/app/tasks/main.yml", 7, "PLS101") in before
    main = golden_repo / "roles/app/tasks/main.yml"
    main.write_text(main.read_text().replace("tags: never", "tags: [never, reset]"))
    after = summary(check())
    assert ("roles/app/tasks/main.yml", 7, "PLS101") in after  # still inherits 'web' and 'app'
    main.write_text(main.read_text().replace("tags: [never, reset]", "tags: reset"))
    after = summary(check())
    assert not any(code in ("PLS101", "PLS107") for _path, _line, code in after)
    assert check().parsed == 0


def test_adding_and_removing_files_invalidates(write) -> None:
    write({"site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.import_tasks: tasks.yml\n"})
    assert [code for *_rest, code in summary(check())] == ["PLS109"]
    # a result with a missing import is not cached: the file may appear anywhere on a search path
    assert check().parsed == 1
    write({"tasks.yml": "- ansible.builtin.debug:\n    msg: x\n  tags: all\n"})
    assert summary(check()) == [("tasks.yml", 3, "PLS114")]
    write({"new.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: x\n      tags: all\n"})
    assert summary(check()) == [("new.yml", 5, "PLS114"), ("tasks.yml", 3, "PLS114")]
    Path("tasks.yml").unlink()
    assert [code for *_rest, code in summary(check())] == ["PLS114", "PLS109"]


def test_changing_settings_invalidates(golden_repo: Path, cli) -> None:
    assert cli("check", "--select", "PLS101")[1].startswith("roles/app/tasks/main.yml:7:9: PLS101")
    rc, out, _ = cli("check", "--select", "PLS105")
    assert out.startswith("site.yml:12:13: PLS105") and "PLS101" not in out
    config = golden_repo / ".playbook-ls.yml"
    config.write_text(config.read_text().replace("PLS114: info", "PLS114: error"))
    assert "PLS114" in cli("check", "--select", "PLS114", "--fail-level", "error")[1]
    assert cli("check", "--select", "PLS114", "--fail-level", "error")[0] == 1


def test_ansible_cfg_change_invalidates(write) -> None:
    write({
        "site.yml": "- hosts: all\n  roles:\n    - common\n",
        "ext/common/tasks/main.yml": "- ansible.builtin.debug:\n    msg: x\n  tags: all\n",
    })
    assert [code for *_rest, code in summary(check())] == ["PLS109"]
    write({"ansible.cfg": "[defaults]\nroles_path = ext\n"})
    assert summary(check()) == [("ext/common/tasks/main.yml", 3, "PLS114")]


def test_no_cache_writes_nothing(golden_repo: Path, cli, cache_dir: Path) -> None:
    first = cli("check", "--no-cache")
    assert cache_files(cache_dir) == []
    assert cli("check", "--no-cache") == first
    assert cache_files(cache_dir) == []
    assert cli("check") == first
    assert len(cache_files(cache_dir)) == 1


def test_no_cache_does_not_read_a_warm_cache(golden_repo: Path, parses) -> None:
    check()
    parses.clear()
    assert check(use_cache=False).parsed > 0 and parses


@pytest.mark.parametrize("damage", [
    lambda data: b"",
    lambda data: b"not json at all",
    lambda data: data[: len(data) // 2],
    lambda data: data[:-1] + b"\xff",
    lambda data: b'["a list, not a dict"]',
    lambda data: b'{"format": -1}',
    lambda data: data.replace(b'"units":{', b'"units":{"playbook:x":[1],', 1),
])
def test_a_corrupted_cache_file_is_ignored(golden_repo: Path, cli, cache_dir: Path,
                                           damage: Callable[[bytes], bytes]) -> None:
    first = cli("check", "--format", "json")
    (path,) = cache_files(cache_dir)
    path.write_bytes(damage(path.read_bytes()))
    assert cli("check", "--format", "json") == first
    assert check().parsed == 0, "the damaged cache is rebuilt"


def test_an_unusable_cache_directory_does_not_fail_the_check(golden_repo: Path, cli, tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(blocker / "cache"))
    first = cli("check")
    assert first[0] == 1 and first[2] == ""
    assert cli("check") == first


def test_each_checked_path_set_has_its_own_cache(golden_repo: Path, cli, cache_dir: Path) -> None:
    whole = cli("check")
    part = cli("check", "site.yml")
    assert part != whole and "deploy.yml" not in part[1]
    assert len(cache_files(cache_dir)) == 2
    assert cli("check") == whole and cli("check", "site.yml") == part


def test_cache_is_independent_of_the_cwd(golden_repo: Path, cli, monkeypatch) -> None:
    """Findings are cached with absolute paths; the output is made relative to each run's cwd."""
    inside = cli("check", "--format", "json", ".")
    monkeypatch.chdir(golden_repo.parent)
    outside = json.loads(cli("check", "--format", "json", "golden_repo")[1])
    assert [f["path"] for f in outside["findings"]] == [
        f"golden_repo/{f['path']}" for f in json.loads(inside[1])["findings"]]


def test_a_crashed_rule_is_not_hidden_by_the_cache(write, monkeypatch) -> None:
    """A unit where a rule crashed is not cached: the next run reports the crash again."""
    write({"site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: x\n      tags: all\n"})

    def crash(ctx: object) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(rules.RULES["PLS114"], "check", crash)
    assert check().internal_errors == ["PLS114 crashed: RuntimeError: boom"]
    assert check().internal_errors == ["PLS114 crashed: RuntimeError: boom"]


def test_a_copied_checkout_does_not_use_the_original_cache(golden_repo: Path, cli, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Another checkout of the same files (another absolute path) gets its own entry and the same output."""
    first = cli("check")
    copy = tmp_path / "copy"
    shutil.copytree(golden_repo, copy)
    monkeypatch.chdir(copy)
    assert check().parsed > 0
    assert cli("check") == first


# -- regressions -----------------------------------------------------------------------------------------

PROFILE_REPO = {
    "site.yml": "- hosts: all\n  tags: web\n  tasks:\n    - name: Reset\n      ansible.builtin.debug:\n"
                "        msg: x\n      tags: never\n",
    ".playbook-ls.yml": "profiles:\n  web:\n    playbook: site.yml\n    job_tags: web\n",
}


def test_moving_a_profile_in_the_config_file_updates_its_findings(write) -> None:
    write(PROFILE_REPO)
    assert (".playbook-ls.yml", 4, "PLS107") in summary(check())
    write({".playbook-ls.yml": "# launch profiles\n# of the site\n" + PROFILE_REPO[".playbook-ls.yml"]})
    fresh = summary(check(use_cache=False))
    assert (".playbook-ls.yml", 6, "PLS107") in fresh
    assert summary(check()) == fresh


def test_creating_a_missing_role_outside_the_checked_paths_invalidates(tmp_path: Path, monkeypatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    (project / "site.yml").write_text("- hosts: all\n  roles:\n    - common\n")
    (project / ".playbook-ls.yml").write_text("roles-path: [../shared]\n")
    assert [code for *_rest, code in summary(check())] == ["PLS109"]
    tasks = tmp_path / "shared" / "common" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text("- ansible.builtin.debug:\n    msg: x\n  tags: all\n")
    fresh = [code for *_rest, code in summary(check(use_cache=False))]
    assert fresh == ["PLS114"]
    assert [code for *_rest, code in summary(check())] == fresh


MONOREPO = {
    # two projects, each run from its own directory with its own roles_path, both using 'common'
    "web/ansible.cfg": "[defaults]\nroles_path = ./vendor\n",
    "web/site.yml": "- hosts: all\n  roles:\n    - common\n",
    "web/vendor/common/tasks/main.yml": "- ansible.builtin.debug:\n    msg: web\n  tags: all\n",
    "db/ansible.cfg": "[defaults]\nroles_path = ./galaxy\n",
    "db/playbooks/site.yml": "- hosts: all\n  roles:\n    - common\n",
    "db/galaxy/common/tasks/main.yml": "- ansible.builtin.debug:\n    msg: db\n\n  tags: all\n",
}


def test_each_project_of_a_monorepo_resolves_with_its_own_ansible_cfg(write) -> None:
    write(MONOREPO)
    assert summary(check()) == [("db/galaxy/common/tasks/main.yml", 4, "PLS114"),
                                ("web/vendor/common/tasks/main.yml", 3, "PLS114")]


def test_creating_a_projects_ansible_cfg_invalidates_the_cache(write) -> None:
    write({name: text for name, text in MONOREPO.items() if name != "web/ansible.cfg"})
    assert ("web/site.yml", 3, "PLS109") in summary(check())
    write({"web/ansible.cfg": MONOREPO["web/ansible.cfg"]})
    assert ("web/vendor/common/tasks/main.yml", 3, "PLS114") in summary(check())
    assert not [f for f in summary(check()) if f[2] == "PLS109"]
