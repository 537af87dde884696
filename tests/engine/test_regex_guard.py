"""Regular expressions from a repository cannot hang static evaluation (engine.templating.filters.regex_guard), and
give exactly what Python's re gives (so what ansible gives) wherever they finish."""

from __future__ import annotations

import re
from functools import partial

import pytest
from bounded import spent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.templating import bounds as template_bounds
from engine.templating import load_time as templating
from engine.templating import templar
from engine.templating.bounds import TooLarge, evaluation
from engine.templating.errors import PluginFailure
from engine.templating.filters import regex_guard
from engine.templating.filters.paths_and_sets import regex_findall
from engine.templating.filters.regex_and_ternary import regex_replace, regex_search, regex_test
from engine.templating.load_time import Unresolved, render
from engine.templating.pure_lookups import PureLookups
from engine.templating.templar import Templar, TemplateFailure, too_large_reason

DEADLINE = 0.3  # seconds an evaluation may take in these tests (1 s otherwise)
EVIL = "(a+)+$"
VICTIM = "a" * 27 + "!"  # (a+)+$ backtracks on it for seconds to minutes, depending on the machine


@pytest.fixture(autouse=True)
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template_bounds, "MAX_SECONDS", DEADLINE)
    for remembered in (regex_guard._slow, regex_guard._replies, templar._refused_texts, templating._too_large):
        remembered.clear()


STATIC_USES = {
    "regex_search": "{{ victim | regex_search(evil) }}",
    "regex_replace": "{{ victim | regex_replace(evil, 'x') }}",
    "regex_findall": "{{ victim | regex_findall(evil) }}",
    "match test": "{{ victim is match(evil) }}",
    "search test": "{{ victim is search(evil) }}",
    "regex test": "{{ victim is regex(evil) }}",
    "varnames lookup": "{{ lookup('varnames', evil) }}",
}


@pytest.mark.parametrize("template", STATIC_USES.values(), ids=STATIC_USES.keys())
def test_catastrophic_backtracking_is_refused_quickly_in_every_static_use(template: str) -> None:
    variables = {"victim": VICTIM, "evil": EVIL, VICTIM.replace("!", "_") + "b": 1}
    with spent(), pytest.raises(TemplateFailure) as refused:  # stopped by the helper's CPU time, not a hang
        Templar(variables, PureLookups(), bounded=True).template(template)
    assert (too_large_reason(refused.value) or "").startswith("too large to evaluate statically (a regular "
                                                              "expression still running after ")


def test_static_loading_refuses_it_too() -> None:
    with spent(), pytest.raises(Unresolved) as refused:
        render("{{ victim | regex_replace(evil, 'x') }}.yml", {"victim": VICTIM, "evil": EVIL})
    assert refused.value.too_large and "regular expression still running" in str(refused.value)


def test_a_regex_stopped_once_is_refused_at_once_and_the_helper_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    with evaluation(), pytest.raises(TooLarge):
        regex_search(VICTIM, EVIL)
    with monkeypatch.context() as patched:
        patched.setattr(regex_guard, "_ask", lambda *args: pytest.fail("the helper was asked to match it again"))
        with evaluation(), pytest.raises(TooLarge):
            regex_search(VICTIM, EVIL)
    with evaluation():
        assert regex_search("xaay", "a+") == "aa"  # a new helper answers


def test_a_run_matches_in_process_as_ansible_does() -> None:
    assert not template_bounds.static_evaluation_in_progress()
    assert regex_search(VICTIM[-5:], EVIL) is None
    assert len(regex_replace("x" * 200_000, "x", "yy")) == 400_000  # no size limit outside static evaluation
    assert Templar({"v": "abc"}).template("{{ v | regex_replace('b', 'X') }}") == "aXc"


PATTERNS = ["a", "a+", "(a)(b)?", "^a.*$", "(?P<n>b+)", r"\w+", r"\d", "$", "^", "", "(?i)A", r"\bx",
            "a|b|", r"(\w)\1", "(?<=a)b", "[^a]", "(", "a{2,}", r"\Z", "(?m)^b$"]
TEXTS = ["", "a", "ab", "aab\nb\n", "x y", "ÄäßΣσς", "abab", "a\n", "١٢٣", "aaa!"]


def _both(function: object, *args: object) -> tuple[object, object]:
    """``function(*args)`` in-process and in the helper: each result, or the error's type and text."""
    outcomes = []
    for static in (False, True):
        try:
            if static:
                with evaluation():
                    outcomes.append(function(*args))  # type: ignore[operator]
            else:
                outcomes.append(function(*args))  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - the error is part of the result
            outcomes.append((type(exc).__name__, str(exc)))
    return outcomes[0], outcomes[1]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_results_and_errors_are_re_s_own(pattern: str) -> None:
    for text in TEXTS:
        for flags in ((False, False), (True, True)):
            pairs = [
                _both(partial(regex_search, ignorecase=flags[0], multiline=flags[1]), text, pattern),
                _both(partial(regex_search, ignorecase=flags[0]), text, pattern, "\\0"),
                _both(regex_replace, text, pattern, r"<\g<0>>", *flags),
                _both(regex_findall, text, pattern, *flags),
                _both(regex_test("match"), text, pattern, *flags),
                _both(regex_test("search"), text, pattern, *flags),
            ]
            for in_process, in_helper in pairs:
                assert in_process == in_helper, (pattern, text, flags)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=st.text(alphabet="ab()|*+?.^$\\[]{}1", max_size=8), text=st.text(alphabet="ab\n", max_size=12))
def test_random_patterns_give_what_re_gives(pattern: str, text: str) -> None:
    in_process, in_helper = _both(regex_replace, text, pattern, "-")
    assert in_process == in_helper
    in_process, in_helper = _both(regex_search, text, pattern)
    assert in_process == in_helper


def test_bad_patterns_fail_as_re_fails() -> None:
    with evaluation(), pytest.raises(PluginFailure) as refused:  # as ansible's plugin fails, caused by re's error
        regex_search("a", "(")
    assert str(refused.value) == ("The filter plugin 'ansible.builtin.regex_search' failed: "
                                  "missing ), unterminated subpattern at position 0")
    assert isinstance(refused.value.__cause__, re.error)
    with evaluation(), pytest.raises(TypeError):
        regex_search("a", {"not": "a pattern"})
    failure = Templar({}, PureLookups(), bounded=True)
    with pytest.raises(TemplateFailure, match="unterminated subpattern"):
        failure.template("{{ 'a' | regex_search('(') }}")
    with pytest.raises(TemplateFailure, match="Unable to use"):
        failure.template("{{ lookup('varnames', '(') }}")


def test_a_replacement_too_large_is_refused_before_it_is_built() -> None:
    with evaluation(), pytest.raises(TooLarge, match="regex_replace would make more than 100,000 characters"):
        regex_replace("x" * 90_000, "", "y" * 90_000)
