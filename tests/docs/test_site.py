"""The documentation site builds with ``mkdocs build --strict``, and its nav lists every page.

The build needs the ``docs`` extra (mkdocs and its theme). Without it the build test is
skipped, except in CI (``CI`` set), which installs the extra and must build the site.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bounded import HANG_SECONDS, spent
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BUILD_SECONDS = 60  # a build takes about a second; far more means something is wrong


def _nav_pages(nav: Any) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


def test_nav_lists_every_page() -> None:
    config = YAML(typ="safe").load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = _nav_pages(config["nav"])
    assert len(listed) == len(set(listed)), "a page is listed twice in the nav"
    pages = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    missing = [page for page in pages if page not in listed]
    assert missing == [], f"add these pages to the nav in mkdocs.yml: {missing}"
    assert config.get("strict") is True and config.get("site_dir", "site") == "site"


def _docs_extra_missing() -> list[str]:
    return [name for name in ("mkdocs", "material") if importlib.util.find_spec(name) is None]


def test_site_builds_strictly(tmp_path: Path) -> None:
    missing = _docs_extra_missing()
    if missing:
        message = f"{', '.join(missing)} not installed: pip install -e '.[docs]'"
        if os.environ.get("CI"):
            pytest.fail(f"CI must build the documentation site; {message}")
        pytest.skip(message)
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # the theme's notice about MkDocs 2.0 is not a build problem
    with spent() as took:
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
             "--site-dir", str(site)],
            capture_output=True, text=True, check=False, cwd=ROOT, env=env, timeout=HANG_SECONDS,
        )
    assert result.returncode == 0, result.stderr[-4000:]
    assert "WARNING" not in result.stderr, result.stderr[-4000:]
    assert took.cpu < BUILD_SECONDS, f"mkdocs build took {took.cpu:.0f} s of CPU time"
    for page in ("index.html", "cli/index.html", "rules/PLS101/index.html", "faq/index.html",
                 "images/inheritance-task2.svg"):
        assert (site / page).is_file(), page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'src="images/inheritance-task2.svg"' in home
