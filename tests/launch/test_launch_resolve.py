"""resolve_launch follows AWX's launch-time prompting rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.launch.profiles import ASK_FIELDS, LaunchProfile
from engine.launch.prompting import ENCRYPTED, option_vars, resolve_launch, survey_problems
from engine.span import Span


def profile(**fields: Any) -> LaunchProfile:
    spans = {name: Span("cfg.yml", index, 4, index, 4 + len(name)) for index, name in enumerate(fields)}
    return LaunchProfile.parse("p", {"playbook": "site.yml", **fields}, spans.get, Span("cfg.yml", 0, 0, 0, 1))


def messages(launch: Any) -> list[str]:
    return [problem.message for problem in launch.errors]


# -- nulls and unknown fields --------------------------------------------------------------

def test_a_null_override_is_an_error_even_when_prompted() -> None:
    launch = resolve_launch(profile(limit="web", ask_limit_on_launch=True), {"limit": None, "job_tags": None})
    assert not launch.ok
    assert messages(launch) == ["limit is null; leave it out to keep the profile's value",
                                "job_tags is null; leave it out to keep the profile's value"]
    assert launch.errors[0].span == Span("cfg.yml", 0, 4, 0, 9)  # where the profile writes limit
    assert launch.limit == "web"


def test_an_unknown_field_is_an_error_with_a_suggestion() -> None:
    launch = resolve_launch(profile(), {"job_typ": "check"})
    assert messages(launch) == ["'job_typ' is not a launch field; did you mean 'job_type'?"]


# -- ignored_fields per ask switch --------------------------------------------------------

OVERRIDES = {"job_tags": "b", "skip_tags": "s", "limit": "web", "job_type": "check", "diff_mode": True,
             "verbosity": 3, "inventory": "other.ini", "extra_vars": {"x": 1}}


@pytest.mark.parametrize("ask", sorted(ASK_FIELDS))
def test_each_field_is_ignored_unless_its_ask_switch_is_on(ask: str) -> None:
    field = ASK_FIELDS[ask]
    closed = resolve_launch(profile(), {field: OVERRIDES[field]})
    assert closed.ok and closed.ignored_fields == {field: OVERRIDES[field]} and not closed.prompted
    opened = resolve_launch(profile(**{ask: True}), {field: OVERRIDES[field]})
    assert opened.ok and opened.ignored_fields == {} and opened.prompted == {field: OVERRIDES[field]}


def test_applied_and_ignored_values() -> None:
    base = profile(job_tags="a", ask_tags_on_launch=True, ask_job_type_on_launch=True)
    launch = resolve_launch(base, dict(OVERRIDES))
    assert (launch.job_tags, launch.job_type) == (["b"], "check")
    assert (launch.skip_tags, launch.limit, launch.diff_mode, launch.verbosity) == ([], None, False, 0)
    assert launch.ignored_fields == {"skip_tags": "s", "limit": "web", "diff_mode": True, "verbosity": 3,
                                     "inventory": "other.ini", "extra_vars": {"x": 1}}


def test_a_value_equal_to_the_profiles_is_neither_applied_nor_ignored() -> None:
    launch = resolve_launch(profile(limit="web", job_tags="a,b", extra_vars={"x": 1}),
                            {"limit": "web", "job_tags": "a, b", "extra_vars": {"x": 1}})
    assert launch.ok and launch.ignored_fields == {} and launch.prompted == {}


def test_fields_awx_prompts_for_but_profiles_cannot_are_ignored() -> None:
    launch = resolve_launch(profile(), {"scm_branch": "main", "forks": 9, "credentials": [1]})
    assert launch.ok and launch.forks == 5
    assert launch.ignored_fields == {"scm_branch": "main", "forks": 9, "credentials": [1]}


def test_empty_limit_and_tags_clear_the_profiles() -> None:
    base = profile(limit="web", job_tags="a", ask_limit_on_launch=True, ask_tags_on_launch=True)
    launch = resolve_launch(base, {"limit": "", "job_tags": ""})
    assert launch.ok and launch.limit is None and launch.job_tags == []
    assert "ansible_limit" not in option_vars(launch, "/") and option_vars(launch, "/")["ansible_run_tags"] == ["all"]


def test_prompted_values_are_validated_like_the_profiles() -> None:
    base = profile(ask_job_type_on_launch=True, ask_verbosity_on_launch=True, ask_diff_mode_on_launch=True)
    launch = resolve_launch(base, {"job_type": "scan", "verbosity": 9, "diff_mode": "yes"})
    assert messages(launch) == ["launch job_type must be 'run' or 'check', not 'scan'",
                                "launch verbosity must be between 0 and 5", "launch diff_mode must be true or false"]


# -- extra_vars and the survey ------------------------------------------------------------

SURVEY = [
    {"variable": "name", "type": "text", "min": 2, "max": 5},
    {"variable": "notes", "type": "textarea", "max": 3, "default": "ok"},
    {"variable": "secret", "type": "password", "min": 4, "default": "hunter22"},
    {"variable": "count", "type": "integer", "min": 1, "max": 3, "required": True},
    {"variable": "ratio", "type": "float", "min": 0.5, "max": 1.5, "default": 1},
    {"variable": "color", "type": "multiplechoice", "choices": "red\nblue\n", "default": "red"},
    {"variable": "sizes", "type": "multiselect", "choices": ["s", "m", "l"]},
]


def test_launch_extra_vars_win_over_the_profiles_and_survey_defaults() -> None:
    base = profile(extra_vars={"env": "prod", "ratio": 0.7, "keep": 1}, ask_variables_on_launch=True, survey=SURVEY)
    launch = resolve_launch(base, {"extra_vars": {"env": "stage", "count": 2, "free": True}})
    assert launch.ok, messages(launch)
    assert launch.extra_vars == {"env": "stage", "ratio": 1, "keep": 1, "notes": "ok", "secret": "hunter22",
                                 "color": "red", "count": 2, "free": True}
    assert launch.display_extra_vars()["secret"] == ENCRYPTED


def test_without_ask_variables_only_survey_variables_are_accepted() -> None:
    launch = resolve_launch(profile(survey=SURVEY), {"extra_vars": {"count": 3, "env": "x", "secret": "abcdef"}})
    assert launch.ok
    assert launch.extra_vars["count"] == 3 and "env" not in launch.extra_vars
    assert launch.ignored_fields == {"extra_vars": {"env": "x"}}
    assert launch.prompted == {"extra_vars": {"count": 3, "secret": ENCRYPTED}}


def test_without_survey_or_ask_variables_every_variable_is_ignored() -> None:
    launch = resolve_launch(profile(extra_vars={"a": 1}), {"extra_vars": {"a": 2, "b": 3}})
    assert launch.ok and launch.extra_vars == {"a": 1} and launch.ignored_fields == {"extra_vars": {"a": 2, "b": 3}}


def test_every_survey_failure_is_listed_and_stops_the_launch() -> None:
    answers = {"name": "x", "notes": "toolong", "secret": "abc", "count": 7, "ratio": "high", "color": "green",
               "sizes": ["s", "xl", "xxl"]}
    launch = resolve_launch(profile(survey=SURVEY), {"extra_vars": answers})
    assert messages(launch) == [
        "'name' value x is too small (length is 1 must be at least 2).",
        "'notes' value toolong is too large (must be no more than 3).",
        f"'secret' value {ENCRYPTED} is too small (length is 3 must be at least 4).",
        "'count' value 7 is too large (must be no more than 3).",
        "Value high for 'ratio' expected to be a numeric type.",
        "Value green for 'color' expected to be one of ['red', 'blue'].",
        "Value xl for 'sizes' expected to be one of ['s', 'm', 'l'].",
        "Value xxl for 'sizes' expected to be one of ['s', 'm', 'l'].",
    ]
    assert all(problem.span is not None and problem.span.file == "cfg.yml" for problem in launch.errors)
    assert "abc" not in repr(launch.ignored_fields) and launch.ignored_fields["extra_vars"]["secret"] == ENCRYPTED


@pytest.mark.parametrize(("question", "value", "problem"), [
    ({"type": "text"}, 5, "Value 5 for 'v' expected to be a string."),
    ({"type": "text", "max": 2}, "abc", "'v' value abc is too large (must be no more than 2)."),
    ({"type": "textarea", "min": 2}, "a", "'v' value a is too small (length is 1 must be at least 2)."),
    ({"type": "password"}, 5, f"Value {ENCRYPTED} for 'v' expected to be a string."),
    ({"type": "password", "max": 2}, "abc", f"'v' value {ENCRYPTED} is too large (must be no more than 2)."),
    ({"type": "integer"}, "3", "Value 3 for 'v' expected to be an integer."),
    ({"type": "integer"}, 2.0, "Value 2.0 for 'v' expected to be an integer."),
    ({"type": "integer", "min": 3}, 2, "'v' value 2 is too small (must be at least 3)."),
    ({"type": "float", "max": 1.5}, 2, "'v' value 2 is too large (must be no more than 1.5)."),
    ({"type": "float"}, "1.0", "Value 1.0 for 'v' expected to be a numeric type."),
    ({"type": "multiplechoice", "choices": ["a"]}, "b", "Value b for 'v' expected to be one of ['a']."),
    ({"type": "multiselect", "choices": ["a"]}, "a", "'v' value is expected to be a list."),
    ({"type": "integer", "required": True}, None, "'v' value missing"),
])
def test_each_survey_type_is_validated(question: dict[str, Any], value: Any, problem: str) -> None:
    question = {"variable": "v", **question}
    assert survey_problems(question, {} if value is None else {"v": value}) == [problem]


@pytest.mark.parametrize(("question", "value"), [
    ({"type": "text", "min": 1, "max": 3}, "abc"), ({"type": "integer", "min": 1, "max": 3}, 3),
    ({"type": "float", "min": 1}, 1), ({"type": "multiselect", "choices": "a\nb"}, ["b", "a"]),
    ({"type": "multiplechoice", "choices": ["a", "b"]}, "b"), ({"type": "text", "min": ""}, ""),
])
def test_valid_answers_pass(question: dict[str, Any], value: Any) -> None:
    assert survey_problems({"variable": "v", **question}, {"v": value}) == []


def test_a_required_question_must_be_answered_even_with_a_default() -> None:
    survey = [{"variable": "v", "type": "text", "required": True, "default": "d"}]
    assert messages(resolve_launch(profile(survey=survey), {})) == ["'v' value missing"]


def test_a_default_that_fails_its_own_question_is_not_applied() -> None:
    survey = [{"variable": "v", "type": "integer", "max": 3, "default": 10}, {"variable": "w", "default": "ok"}]
    launch = resolve_launch(profile(survey=survey), {})
    assert launch.ok and launch.extra_vars == {"w": "ok"}


def test_the_encrypted_placeholder_keeps_the_password_default() -> None:
    survey = [{"variable": "pw", "type": "password", "default": "s3cret!"}]
    launch = resolve_launch(profile(survey=survey), {"extra_vars": {"pw": ENCRYPTED}})
    assert launch.ok and launch.extra_vars == {"pw": "s3cret!"}


# -- job_type check -----------------------------------------------------------------------

def test_job_type_check_is_check_mode() -> None:
    assert option_vars(resolve_launch(profile(job_type="check"), {}), "/")["ansible_check_mode"] is True
    prompted = resolve_launch(profile(ask_job_type_on_launch=True), {"job_type": "check"})
    assert prompted.check_mode and option_vars(prompted, "/")["ansible_check_mode"] is True
    ignored = resolve_launch(profile(), {"job_type": "check"})
    assert option_vars(ignored, "/")["ansible_check_mode"] is False


def test_survey_questions_are_checked_when_the_profile_is_read() -> None:
    from engine.launch.profiles import ProfileError

    with pytest.raises(ProfileError, match="multiselect question needs 'choices'"):
        profile(survey=[{"variable": "v", "type": "multiselect"}])
    with pytest.raises(ProfileError, match="min must be a number"):
        profile(survey=[{"variable": "v", "min": "two"}])


# -- AWX's own launch tests, as recorded cases --------------------------------------------

AWX_CASES = json.loads((Path(__file__).resolve().parent / "fixtures" / "awx_launch_cases.json").read_text())


@pytest.mark.parametrize("case", AWX_CASES["cases"], ids=[case["test"] for case in AWX_CASES["cases"]])
def test_a_launch_as_awx_answers_it(case: dict[str, Any]) -> None:
    request = AWX_CASES["runtime_data"] if case["launch"] == "runtime_data" else case["launch"]
    launch = resolve_launch(profile(**case["template"]), dict(request))
    assert sorted(problem.field for problem in launch.errors) == case.get("errors", [])
    if launch.errors:
        return
    assert sorted(launch.ignored_fields) == case["ignored"]
    assert sorted(launch.ignored_fields.get("extra_vars", {})) == case.get("ignored_extra_vars", [])
    for name, value in case.get("job", {}).items():
        assert getattr(launch, name) == value, name
    assert launch.extra_vars == case["extra_vars"]
