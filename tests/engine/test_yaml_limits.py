"""Hostile YAML: no crash, no traceback, a positioned problem (engine.parsing.source).

The nesting guard is checked against the C composer itself: whatever the guard lets through
is composed in a child process, so a stack overflow fails the test instead of killing pytest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.parsing.source import parse_text
from engine.parsing.yaml_compose import MAX_NESTING, _too_deep
from playbook_ls.cli.main import main

# One level of nesting in each way YAML can nest, as (opening, closing) text.
SHAPES = {
    "compact sequences": ("- ", ""),
    "complex keys": ("? ", ""),
    "complex keys in sequences": ("- ? ", ""),
    "mapping values": (": ", ""),
    "flow sequences": ("[", "]"),
    "flow mappings": ("{a: ", "}"),
    "indented mappings": ("\n{indent}k:", ""),
    "indented sequences": ("\n{indent}-", ""),
}

COMPOSE = textwrap.dedent("""
    import sys
    from engine.parsing.source import parse_text
    loaded = parse_text(sys.stdin.read(), "t.yml")
    print("error" if loaded.error else "ok")
""")


def nested(shape: str, depth: int) -> str:
    opening, closing = SHAPES[shape]
    if "{indent}" in opening:
        return "".join(opening.format(indent=" " * level) for level in range(depth)) + " x\n"
    return opening * depth + "x" + closing * depth + "\n"


def _compose_in_child(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", COMPOSE], input=text, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2], check=False)


@settings(max_examples=24, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(sorted(SHAPES)), depth=st.integers(min_value=1, max_value=40_000))
def test_what_the_guard_lets_through_composes_without_crashing(shape: str, depth: int) -> None:
    text = nested(shape, depth)
    if _too_deep(text) is not None:
        assert depth > MAX_NESTING // 4  # refused only when deep
        return
    result = _compose_in_child(text)
    assert result.returncode == 0, f"the composer died on {shape} x {depth}: {result.stderr[-500:]}"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_nested_30000_deep_is_a_positioned_problem(shape: str) -> None:
    loaded = parse_text(nested(shape, 30_000), "deep.yml")
    assert loaded.error is not None
    assert f"nested more than {MAX_NESTING} levels deep" in loaded.error.message
    assert loaded.error.span.file == "deep.yml"


@pytest.mark.parametrize(("value", "message"), [
    ("!!int foo", "invalid literal for int() with base 10: 'foo'"),
    ("!!int 0x", "invalid literal for int() with base 16: ''"),
    ("!!float bar", "could not convert string to float: 'bar'"),
    ("9" * 5000, "Exceeds the limit (4300 digits)"),
    ("!!bool maybe", "'maybe'"),
    ("!!timestamp soon", "'NoneType' object has no attribute 'groupdict'"),
])
def test_scalars_pyyaml_cannot_convert_are_positioned_problems(value: str, message: str) -> None:
    """ansible-playbook stops with "YAML parsing failed: <the same words>" (exit 4)."""
    loaded = parse_text(f"- hosts: all\n  vars:\n    a: {value}\n", "bad.yml")
    assert loaded.error is not None
    assert loaded.error.message.startswith("YAML parsing failed: ") and message in loaded.error.message
    assert (loaded.error.span.line, loaded.error.span.col) == (2, 7)


def test_convertible_explicit_scalars_load() -> None:
    data = parse_text("a: !!bool Yes\nb: !!int 0x1f\nc: !!timestamp 2001-12-14\nd: !!float 1e3\n", "ok.yml").data
    assert (data["a"], data["b"], data["c"], data["d"]) == (True, 31, "2001-12-14", 1000.0)


def test_recursive_aliases_and_bad_scalars_through_the_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "alias.yml").write_text("- hosts: localhost\n  tasks:\n    - import_role:\n        name: &a [*a]\n"
                                        "    - debug: {msg: &m [*m]}\n      when: &w [*w]\n")
    (tmp_path / "scalar.yml").write_text("- hosts: localhost\n  vars:\n    a: !!int foo\n  tasks: []\n")
    monkeypatch.chdir(tmp_path)
    assert main(["list-tasks", "-i", "localhost,", "alias.yml"]) == 1  # as ansible: a recursive loop in a template
    assert "Recursive loop detected in template" in capsys.readouterr().err
    assert main(["list-tasks", "-i", "localhost,", "scalar.yml"]) == 4
    assert "scalar.yml:3:8: YAML parsing failed" in capsys.readouterr().err
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out
    assert "alias.yml:4:9: PLS115" in out and "scalar.yml:3:8: PLS111" in out


def test_a_collection_as_a_mapping_key_is_refused_as_pyyaml_does() -> None:
    """``? [a]`` (and ``? ? ? x``, whose keys' text would double at every level) fails in ansible."""
    for text in ("vars:\n  ? [a]\n  : 1\n", "? " * 40 + "x\n"):
        loaded = parse_text(text, "keys.yml")
        assert loaded.error is not None
        assert loaded.error.message == "YAML parsing failed: While constructing a mapping found unhashable key."
