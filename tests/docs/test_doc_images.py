"""The pictures in docs/images/ are current, well-formed, drawn from real output, and used."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_doc_images.py"
IMAGES = ROOT / "docs" / "images"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return load_script("gen_doc_images")


@pytest.fixture(scope="module")
def rendered(gen: ModuleType) -> dict[Path, str]:
    return gen.images()


def test_images_are_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_rendering_is_deterministic(gen: ModuleType, rendered: dict[Path, str]) -> None:
    assert gen.images() == rendered


def _text(svg: str) -> str:
    root = ET.fromstring(svg)
    return " ".join("".join(element.itertext()) for element in root.iter(f"{SVG}text"))


def test_images_are_well_formed_and_described(rendered: dict[Path, str]) -> None:
    for path, svg in rendered.items():
        root = ET.fromstring(svg)  # raises on bad XML, unescaped text included
        assert root.tag == f"{SVG}svg", path
        assert root.get("role") == "img"
        assert (root.findtext(f"{SVG}title") or "").strip(), f"{path.name} has no title"
        assert (root.findtext(f"{SVG}desc") or "").strip(), f"{path.name} has no description"
        assert not re.search(r'="[^"]*\d\.\d{3,}', svg), f"{path.name}: coordinates are not rounded"


def test_chain_is_the_engines(gen: ModuleType, rendered: dict[Path, str]) -> None:
    task2 = [t for t in gen.example_tasks() if t["name"] == "sample : task2"]
    assert len(task2) == 1
    origins = [(o["tag"], o["from"]["label"]) for o in task2[0]["tag_origins"]]
    assert origins == [("__play", 'play "localhost"'), ("__role1", 'roles: entry "sample"'),
                       ("__tag2", 'task "task2"'), ("never", 'task "task2"')]
    text = _text(rendered[IMAGES / "inheritance-task2.svg"])
    for tag, _frame in origins:
        assert tag in text
    for where in ("playbook.yml:2", "playbook.yml:15", "roles/sample/tasks/main.yml:7"):
        assert where in text
    # the verdicts come from the engine's tag selection: skipped, runs, skipped
    assert re.findall(r"(runs it|skips it)", text) == ["skips it", "runs it", "skips it"]
    other = _text(rendered[IMAGES / "inheritance-other-sub.svg"])
    assert "context 1 of 2" in other and "__role2" in other and "__other" in other


def test_hover_card_shows_the_servers_hover(rendered: dict[Path, str]) -> None:
    # words sit at their grid columns, so spaces are not characters of the text: compare without them
    squeezed = "".join(_text(rendered[IMAGES / "hover-task2.svg"]).split())
    for fragment in ("sample : task2", "__role1 ← roles: entry \"sample\"", "(playbook.yml:16)",
                     "default run: skipped (never)", "inherited: __play, __role1"):
        assert "".join(fragment.split()) in squeezed, fragment


def test_terminal_card_shows_the_real_check(rendered: dict[Path, str]) -> None:
    text = _text(rendered[IMAGES / "check-output.svg"])
    assert "$ playbook-ls check examples/tag-inheritance" in text
    assert text.count("PLS101") == 2 and "Found 2 findings (2 warnings)" in text
    assert text.rstrip().endswith("1")  # the exit status


def test_text_is_escaped(gen: ModuleType) -> None:
    line = gen.text_line(0, 10, [gen.Run("<a & 'b'> \"c\"", "code"), gen.Run("→ ok")], 13)
    element = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{line}</svg>')
    assert "".join(element.itertext()) == "<a & 'b'> \"c\"→ ok"
    assert "&lt;a &amp; &apos;b&apos;&gt;" in line


def test_non_ascii_characters_start_on_their_grid_column(gen: ModuleType) -> None:
    line = gen.text_line(0, 10, [gen.Run("a→b")], 10)
    assert re.findall(r'x="(\d+)"', line) == ["0", "6", "12"]


def test_wrap_keeps_words_and_width(gen: ModuleType) -> None:
    runs = gen.inline_markdown("**tags:** `__tag2` (this task) · `__play` ← play \"localhost\" (playbook.yml:4)")
    lines = gen.wrap(runs, 24)
    assert all(gen.columns(line) <= 24 for line in lines)
    assert " ".join("".join(r.text for r in line) for line in lines) == \
        "tags: __tag2 (this task) · __play ← play \"localhost\" (playbook.yml:4)"
    assert lines[0][0] == gen.Run("tags:", "b")


def test_every_image_is_shown_with_alt_text() -> None:
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    for image in sorted(IMAGES.glob("*.svg")):
        alts = re.findall(rf"!\[([^\]]*)\]\((?:\.\./)*images/{re.escape(image.name)}\)", pages)
        assert alts, f"{image.name} is not used by any page"
        assert all(len(alt.split()) >= 5 for alt in alts), f"{image.name}: describe the picture in its alt text"
