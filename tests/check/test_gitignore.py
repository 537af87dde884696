"""Files git ignores: the matcher against ``git check-ignore``, and discovery skipping them.

Running git is fine here: the repository is one this test creates, with a scrubbed git
environment (no global or system configuration). playbook-ls itself never runs git.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from playbook_ls.check import discover
from playbook_ls.check.gitignore import GitIgnore, parse_line
from playbook_ls.config import ConfigError, load_settings

ROOT_GITIGNORE = "\n".join([
    "# a comment, then patterns of every kind",
    "*.log",
    "!keep.log",
    "/build",
    "dist/",
    "docs/**/*.tmp",
    "**/cache",
    "a/**/z.yml",
    "lib/**",
    "!lib/keep.yml",  # lib/** ignores files, not lib itself: this one comes back
    "out/",
    "!out/keep.yml",  # out/ is ignored as a directory: nothing inside comes back
    "\\#hash.yml",
    "\\!bang.yml",
    "file?.yml",
    "[abc]x.yml",
    "[!abc]y.yml",
    "[a-c][0-9].yml",
    "*[[:digit:]]z.yml",
    "[[:upper:]]*.cfg",
    "[]q]r.yml",
    "trailing.yml\\ ",  # an escaped trailing space is kept
    "spaces.yml   ",  # unescaped ones are not
    "nested/deep/",
    "foo/*.yml",  # a slash in the middle anchors to this directory
    "**/logs/**",
    "x**y.yml",  # "**" not between slashes is "*"
    "two/levels/only.yml",
    "*.bak/",
    "",
    "   ",
    "!*.keep",
    "broken[",  # an unclosed bracket matches nothing
    "/anchored-*.yml",
])
SUB_GITIGNORE = "*.yml\n!important.yml\n/only-here.yml\n!keep.log\nexcluded.txt\n"
INNER_GITIGNORE = "!*.yml\nsecret.yml\n"
CRLF_GITIGNORE = "crlf.yml\r\n# comment\r\n!crlf-keep.yml\r\n"
EXCLUDE = "excluded.txt\n*.log\ninfo-only/\n!from-exclude.yml\n"

DIRECTORIES = ["", "sub", "sub/inner", "sub/inner/deep", "docs", "docs/x", "docs/x/y", "a", "a/b", "a/b/c",
               "lib", "lib/sub", "out", "build", "x/build", "dist", "x/dist", "cache", "x/y/cache", "nested",
               "nested/deep", "x/nested/deep", "foo", "foo/bar", "x/foo", "logs", "x/logs/y", "two/levels",
               "info-only", "crlf", "crlf/in", "thing.bak", "x/thing.bak"]
NAMES = ["keep.log", "other.log", "z.yml", "site.yml", "keep.yml", "#hash.yml", "!bang.yml", "file1.yml",
         "file12.yml", "ax.yml", "dx.yml", "ay.yml", "dy.yml", "b7.yml", "d7.yml", "ab3z.yml", "abz.yml",
         "Upper.cfg", "lower.cfg", "]r.yml", "qr.yml", "trailing.yml ", "trailing.yml", "spaces.yml", "deep",
         "xy.yml", "x-and-y.yml", "only.yml", "important.yml", "only-here.yml", "secret.yml", "excluded.txt",
         "crlf.yml", "crlf-keep.yml", "a.keep", "broken[", "anchored-1.yml", "from-exclude.yml", "main.tmp"]


def git_environment(home: Path) -> dict[str, str]:
    """git without the machine's global and system configuration (no core.excludesFile)."""
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "XDG_CONFIG_HOME": str(home),
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


def make_repository(root: Path, environment: dict[str, str]) -> list[str]:
    """A repository with the ignore files above and every name in every directory; its files' relative paths."""
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=environment)
    (root / ".gitignore").write_text(ROOT_GITIGNORE + "\n", encoding="utf-8")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text(EXCLUDE, encoding="utf-8")
    for directory in DIRECTORIES:
        (root / directory).mkdir(parents=True, exist_ok=True)
    created = []
    for directory, name in itertools.product(DIRECTORIES, NAMES):
        if (root / directory / name).is_dir():  # a file "deep" beside the directories "deep"
            continue
        (root / directory / name).write_text("x\n", encoding="utf-8")
        created.append(f"{directory}/{name}".lstrip("/"))
    for directory, text in [("sub", SUB_GITIGNORE), ("sub/inner", INNER_GITIGNORE), ("crlf", CRLF_GITIGNORE)]:
        (root / directory / ".gitignore").write_bytes(text.encode("utf-8"))
    return created


def git_ignored(root: Path, paths: list[str], environment: dict[str, str]) -> set[str]:
    """What ``git check-ignore`` says is ignored among ``paths``."""
    done = subprocess.run(["git", "check-ignore", "--stdin", "-z"], cwd=root, env=environment, check=False,
                          input="\0".join(paths).encode("utf-8"), capture_output=True)
    assert done.returncode in (0, 1), done.stderr
    return {path for path in done.stdout.decode("utf-8").split("\0") if path}


def ignored_as_walked(matcher: GitIgnore, root: Path, relative: str, is_dir: bool) -> bool:
    """The matcher's answer as a walk gets it: a path is ignored if it or a directory above it is."""
    parts = relative.split("/")
    for depth in range(1, len(parts)):
        if matcher.ignored(str(root.joinpath(*parts[:depth])), is_dir=True):
            return True
    return matcher.ignored(str(root / relative), is_dir)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
def test_the_matcher_agrees_with_git_check_ignore(tmp_path: Path) -> None:
    environment = git_environment(tmp_path / "home")
    root = tmp_path / "repo"
    files = make_repository(root, environment)
    directories = sorted({str(Path(f).parent) for f in files} - {"."})
    expected = git_ignored(root, files + directories, environment)
    matcher = GitIgnore()
    ours = {path for path in files if ignored_as_walked(matcher, root, path, is_dir=False)}
    ours |= {path for path in directories if ignored_as_walked(matcher, root, path, is_dir=True)}
    assert len(files) > 1000 and 300 < len(expected) < len(files)  # a comparison with both answers
    assert sorted(ours - expected) == [] and sorted(expected - ours) == []


@pytest.mark.parametrize(("line", "expected"), [
    ("# comment", None), ("", None), ("   ", None), ("!", None), ("/", None),
    ("\\#x", ("#x", False)), ("\\!x", ("!x", False)), ("!x", ("x", True)),
])
def test_lines_that_hold_no_pattern_or_an_escaped_one(line: str, expected: tuple[str, bool] | None) -> None:
    pattern = parse_line(line)
    if expected is None:
        assert pattern is None
    else:
        assert pattern is not None and pattern.matches(expected[0], is_dir=False)
        assert pattern.negated is expected[1]


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


PLAYBOOK = "- hosts: all\n  tasks: []\n"


def relative_yaml_files(root: Path, paths: list[str], respect_gitignore: bool = True) -> list[str]:
    found = discover.yaml_files([str(root / p) for p in paths], [], str(root), respect_gitignore)
    return [os.path.relpath(path, root) for path in found]


def test_discovery_skips_ignored_files_unless_told_not_to_or_named(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {".gitignore": "vendor/\n*.generated.yml\n", "site.yml": PLAYBOOK,
                          "vendor/roles/x/tasks/main.yml": "[]\n", "out.generated.yml": PLAYBOOK})
    assert relative_yaml_files(tmp_path, ["."]) == ["site.yml"]
    assert relative_yaml_files(tmp_path, ["."], respect_gitignore=False) == [
        "out.generated.yml", "site.yml", "vendor/roles/x/tasks/main.yml"]
    assert relative_yaml_files(tmp_path, ["out.generated.yml"]) == ["out.generated.yml"]
    assert relative_yaml_files(tmp_path, ["vendor"]) == ["vendor/roles/x/tasks/main.yml"]


def test_a_gitignore_outside_a_repository_means_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": "*.yml\n", "site.yml": PLAYBOOK})
    assert relative_yaml_files(tmp_path, ["."]) == ["site.yml"]


def test_a_worktree_reads_the_main_repositorys_info_exclude(tmp_path: Path) -> None:
    """A ``.git`` file points to the worktree's git directory, whose ``commondir`` is the main one's."""
    write_tree(tmp_path, {"main/.git/info/exclude": "local.yml\n",
                          "main/.git/worktrees/wt/commondir": "../..\n",
                          "wt/.git": f"gitdir: {tmp_path / 'main/.git/worktrees/wt'}\n",
                          "wt/site.yml": PLAYBOOK, "wt/local.yml": PLAYBOOK})
    assert relative_yaml_files(tmp_path / "wt", ["."]) == ["site.yml"]


def test_the_setting_turns_it_off_and_must_be_a_boolean(tmp_path: Path) -> None:
    write_tree(tmp_path, {".playbook-ls.yml": "respect-gitignore: false\n"})
    assert load_settings(None, str(tmp_path)).respect_gitignore is False
    assert load_settings(None, str(tmp_path / "..")).respect_gitignore is True
    write_tree(tmp_path, {".playbook-ls.yml": "respect-gitignore: 'no'\n"})
    with pytest.raises(ConfigError, match="'respect-gitignore' must be true or false"):
        load_settings(None, str(tmp_path))


def test_check_leaves_out_ignored_playbooks(write, cli) -> None:
    root = write({".gitignore": "scratch/\n", "site.yml": PLAYBOOK,
                  "scratch/site.yml": "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: x\n"
                                      "      tag: x\n"})
    (root / ".git").mkdir()
    assert cli("check")[1] == "All checks passed (1 playbook, 1 file).\n"
    assert cli("check", "scratch/site.yml")[0] == 1  # named: checked although ignored
