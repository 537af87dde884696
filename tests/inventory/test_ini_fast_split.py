"""An INI host line without quotes, escapes or comments is split without shlex
(engine.inventory.ini): into exactly the tokens ``shlex.split(line, comments=True)`` gives."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.inventory.ini import _SHLEX_SPECIAL, _SHLEX_WHITESPACE

LINES = st.text(alphabet=st.sampled_from("ab =\t\r\x0b\x0c\u00a0\u2003é12:[]-.,{}"), min_size=1, max_size=40)


@settings(max_examples=3000, deadline=None)
@given(line=LINES)
def test_fast_split_is_shlex(line: str) -> None:
    if _SHLEX_SPECIAL.search(line) is not None or not line.strip(" \t\r\n"):
        return
    assert _SHLEX_WHITESPACE.split(line.strip(" \t\r\n")) == shlex.split(line, comments=True)


def test_special_lines_go_to_shlex() -> None:
    for line in ('h a="x y"', "h a='x'", "h a=b\\ c", "h a=b # note"):
        assert _SHLEX_SPECIAL.search(line) is not None
