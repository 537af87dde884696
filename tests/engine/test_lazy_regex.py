"""A regular expression compiled on first use behaves as the compiled one."""

from __future__ import annotations

import re

import pytest

from engine.lazy_regex import LazyRegex


def test_it_matches_searches_and_substitutes_as_the_compiled_pattern_does() -> None:
    lazy, compiled = LazyRegex(r"(\d+)-(\w+)", re.I), re.compile(r"(\d+)-(\w+)", re.I)
    for text in ("12-ab", "x 7-Q y", "none"):
        assert bool(lazy.match(text)) == bool(compiled.match(text))
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.sub("<\\2>", text) == compiled.sub("<\\2>", text)
    assert (lazy.pattern, lazy.flags) == (compiled.pattern, compiled.flags)


def test_it_compiles_only_when_first_used() -> None:
    lazy = LazyRegex("(unclosed")  # an error shows at the first use, not at import
    with pytest.raises(re.error):
        lazy.match("x")
    with pytest.raises(AttributeError):
        LazyRegex("a").no_such_method  # noqa: B018
