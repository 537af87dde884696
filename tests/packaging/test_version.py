"""The version is written once, in pyproject.toml; the changelog records each release, and the
documentation pins only the latest release (tagged ``v<version>``) where it pins a version."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import playbook_ls

ROOT = Path(__file__).resolve().parents[2]
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.MULTILINE)
# a PEP 440 development version of the next release: 0.2.0.dev0
DEVELOPMENT = re.compile(r"^(\d+)\.(\d+)\.(\d+)\.dev\d+$")
# the refs of this repository the docs pin: uses: .../playbook-ls@REF and, for pre-commit, rev: REF
PINS = re.compile(r"playbook-ls@([\w.\-]+)|^\s*rev:\s*([\w.\-]+)", re.MULTILINE)


def _pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _releases() -> list[str]:
    return [m.group(1) for m in RELEASE.finditer((ROOT / "CHANGELOG.md").read_text())]


def _import_version(path: Path) -> str:
    """``playbook_ls.__version__`` as a Python with only ``path`` holding the package sees it."""
    done = subprocess.run([sys.executable, "-c", "import playbook_ls; print(playbook_ls.__version__)"],
                          capture_output=True, text=True, timeout=60, cwd=path, env={"PYTHONPATH": str(path)},
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _package_copy(where: Path) -> Path:
    (where / "playbook_ls").mkdir(parents=True)
    shutil.copy(ROOT / "playbook_ls" / "__init__.py", where / "playbook_ls" / "__init__.py")
    return where


def test_the_version_is_pyprojects() -> None:
    assert playbook_ls.__version__ == _pyproject_version()
    done = subprocess.run([sys.executable, "-m", "playbook_ls", "--version"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert done.stdout.strip() == f"playbook-ls {_pyproject_version()}"


def test_a_checkout_reads_its_pyproject_and_an_install_its_dist_info(tmp_path: Path) -> None:
    checkout = _package_copy(tmp_path / "checkout")
    (checkout / "pyproject.toml").write_text('[project]\nname = "playbook-ls"\nversion = "9.8.7.dev0"\n')
    assert _import_version(checkout) == "9.8.7.dev0"

    site = _package_copy(tmp_path / "site-packages")
    (site / "playbook_ls-9.8.8.dist-info").mkdir()
    (site / "playbook_ls-9.8.8.dist-info" / "METADATA").write_text("Name: playbook-ls\nVersion: 9.8.8\n")
    # another project's pyproject.toml beside the package is not ours
    (site / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "1.0"\n')
    assert _import_version(site) == "9.8.8"


def test_no_module_writes_the_version_again() -> None:
    version = re.escape(_pyproject_version())
    for path in (ROOT / "playbook_ls").rglob("*.py"):
        assert not re.search(rf"['\"]{version}['\"]", path.read_text()), path


def test_the_changelog_records_releases_newest_first_and_the_version_is_one_or_the_next() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in text
    releases = _releases()
    assert releases, "the changelog records no release"
    keys = [tuple(map(int, r.split("."))) for r in releases]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    for release in releases:
        assert f"[{release}]: " in text, f"no link for {release}"
    version = _pyproject_version()
    if (development := DEVELOPMENT.match(version)) is None:
        assert version == releases[0], f"version {version} is neither the latest release nor a .devN of the next"
    else:
        assert tuple(map(int, development.groups())) > keys[0]


@pytest.mark.parametrize("doc", ["README.md", *sorted(p.relative_to(ROOT).as_posix()
                                                      for p in (ROOT / "docs").rglob("*.md"))])
def test_the_docs_pin_the_latest_release_only(doc: str) -> None:
    latest = _releases()[0]
    for match in PINS.finditer((ROOT / doc).read_text()):
        ref = match.group(1) or match.group(2)
        assert ref in (f"v{latest}", "main"), f"{doc} pins {ref}, which is not the tag of the latest release"
