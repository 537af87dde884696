"""What ``pip install .`` ships: the two packages, their data and the license, nothing else;
and a ``--help`` that shows how to use every command."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from playbook_ls.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if done.returncode != 0 and "setuptools" in done.stderr and "No matching distribution" in done.stderr:
        pytest.skip("building a wheel needs setuptools from the package index, which is unreachable")
    assert done.returncode == 0, done.stderr
    [built] = out.glob("playbook_ls-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_holds_the_packages_and_nothing_else(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()
    tops = {name.split("/")[0] for name in names}
    dist_info = next(top for top in tops if top.endswith(".dist-info"))
    assert tops == {"engine", "playbook_ls", dist_info}
    assert not [n for n in names if "/tests/" in n or n.startswith(("tests/", "docs/", "bench/", "examples/"))]
    assert not [n for n in names if n.endswith((".pyc", ".md", ".orig", ".rej"))]
    assert "playbook_ls/data/modules.json" in names
    assert f"{dist_info}/licenses/LICENSE" in names
    entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    assert "playbook-ls = playbook_ls.cli.main:main" in entry_points
    # every module of the source tree is in the wheel
    sources = {p.relative_to(ROOT).as_posix() for package in ("engine", "playbook_ls")
               for p in (ROOT / package).rglob("*.py")}
    assert sources <= set(names)
    stale = {n for n in names if n.endswith(".py")} - sources
    assert not stale, f"modules no longer in the source tree (remove the checkout's build/ directory): {stale}"


def test_help_shows_an_example_of_every_command() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices  # type: ignore[union-attr]
    text = parser.format_help()
    for name in commands:
        assert f"playbook-ls {name} " in text.split("examples:")[1], name
        assert "examples:" in commands[name].format_help(), name


def test_version_is_the_package_version() -> None:
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "playbook_ls", "--version"], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.stdout.strip() == f"playbook-ls {version('playbook-ls')}"
