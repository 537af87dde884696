"""Launching a profile: AWX's launch-time prompting rules, and ansible's option variables.

A launch is a profile plus overrides (command-line flags or an editor request, keyed by the
AWX launch fields). :func:`resolve_launch` applies AWX's rules for a job-template launch:

- a null override is an error (AWX answers 400);
- an override equal to the profile's value changes nothing and is not reported;
- a field whose ``ask_*_on_launch`` is off is not applied and is reported in
  ``ignored_fields`` with the value that was given;
- with a survey, launch ``extra_vars`` are checked against it and every problem is listed;
  without ``ask_variables_on_launch`` only survey variables are accepted;
- extra_vars combine as profile -> valid survey defaults -> accepted launch extra_vars.

:func:`option_vars` then gives the variables ansible-core's ``load_options_vars`` sets for
the equivalent ``ansible-playbook`` command line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.launch.profiles import (
    ASK_FIELDS,
    LaunchProfile,
    ProfileError,
    parse_yaml_or_json,
    set_field,
    split_tags,
    survey_choices,
)
from engine.loading.keywords import did_you_mean
from engine.span import Span
from engine.variables.magic import RunOptions

# How AWX shows a password it will not print.
ENCRYPTED = "$encrypted$"
# Prompt fields an AWX job template has but a profile cannot enable: always ignored.
AWX_ONLY_PROMPTS = ("scm_branch", "credentials", "execution_environment", "labels", "forks", "job_slice_count",
                    "timeout", "instance_groups")
ASK_OF = {prompt: ask for ask, prompt in ASK_FIELDS.items()}
LAUNCH_FIELDS = (*ASK_OF, *AWX_ONLY_PROMPTS)


@dataclass(frozen=True)
class LaunchProblem:
    """Why a launch cannot proceed. ``span`` is where the profile writes the field, if it does."""

    field: str
    message: str
    span: Span | None = None

    def human(self, display: Any = None) -> str:
        if self.span is None:
            return self.message
        span = self.span if display is None else self.span._replace(file=display(self.span.file))
        return f"{span.human()}: {self.message}"


@dataclass
class Launch:
    """The job a launch would start. ``prompted`` holds the overrides that were applied (as
    given), ``ignored_fields`` those refused, ``errors`` what stops the launch."""

    profile: LaunchProfile
    job_type: str
    job_tags: list[str]
    skip_tags: list[str]
    limit: str | None
    diff_mode: bool
    verbosity: int
    forks: int
    inventory: str | list[str] | None
    extra_vars: dict[str, Any]
    passwords: frozenset[str]
    prompted: dict[str, Any] = field(default_factory=dict)
    ignored_fields: dict[str, Any] = field(default_factory=dict)
    errors: list[LaunchProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def check_mode(self) -> bool:
        return self.job_type == "check"

    def display_extra_vars(self) -> dict[str, Any]:
        """extra_vars with survey passwords hidden, as AWX's ``display_extra_vars``."""
        return mask_passwords(self.extra_vars, self.passwords)

    def fields(self) -> dict[str, Any]:
        """The effective job fields, passwords hidden."""
        return {"playbook": self.profile.playbook, "inventory": self.inventory, "job_type": self.job_type,
                "job_tags": ",".join(self.job_tags), "skip_tags": ",".join(self.skip_tags), "limit": self.limit or "",
                "diff_mode": self.diff_mode, "verbosity": self.verbosity, "forks": self.forks,
                "extra_vars": self.display_extra_vars()}


def mask_passwords(values: Mapping[str, Any], passwords: frozenset[str]) -> dict[str, Any]:
    return {key: ENCRYPTED if key in passwords and value not in ("", None) else value
            for key, value in values.items()}


def resolve_launch(profile: LaunchProfile, overrides: Mapping[str, Any]) -> Launch:
    """Apply launch ``overrides`` to ``profile`` with AWX's prompting rules. Pure."""
    passwords = frozenset(q["variable"] for q in profile.survey if q.get("type") == "password")
    launch = Launch(profile, profile.job_type, list(profile.job_tags), list(profile.skip_tags), profile.limit,
                    profile.diff_mode, profile.verbosity, profile.forks, profile.inventory, {}, passwords)
    runtime_vars: dict[str, Any] = {}
    for name, value in overrides.items():
        if name not in LAUNCH_FIELDS:
            hint = did_you_mean(name, LAUNCH_FIELDS) or f"; the fields are: {', '.join(LAUNCH_FIELDS)}"
            launch.errors.append(LaunchProblem(name, f"'{name}' is not a launch field{hint}"))
        elif value is None:
            launch.errors.append(LaunchProblem(name, f"{name} is null; leave it out to keep the profile's value",
                                               profile.spans.get(name)))
        elif name == "extra_vars":
            try:  # a mapping, or JSON or YAML text of one, as AWX's launch serializer takes it
                runtime_vars = parse_yaml_or_json(value)
            except ValueError as exc:
                launch.errors.append(LaunchProblem(name, f"extra_vars: {exc}"))
        else:
            _prompt(launch, name, value)
    _variables(launch, runtime_vars)
    return launch


def _prompt(launch: Launch, name: str, value: Any) -> None:
    """One prompted field other than extra_vars, as AWX's ``_accept_or_ignore_job_kwargs``:
    the value is validated like the template's field, a value equal to the profile's is a
    no-op (neither accepted nor ignored), and an unprompted field is ignored and reported."""
    profile = launch.profile
    parsed = LaunchProfile(profile.name)
    if name in ("limit", "job_tags", "skip_tags") and value == "":
        setattr(parsed, name, None if name == "limit" else [])  # AWX allows clearing these
    elif name not in AWX_ONLY_PROMPTS:
        try:
            set_field(parsed, name, value, None, what=f"launch {name}")
        except ProfileError as exc:
            launch.errors.append(LaunchProblem(name, exc.message))
            return
    if _same_as_profile(profile, name, value):
        return
    if name in AWX_ONLY_PROMPTS or not profile.ask[ASK_OF[name]]:
        launch.ignored_fields[name] = value
        return
    setattr(launch, name, getattr(parsed, name))
    launch.prompted[name] = value


def _same_as_profile(profile: LaunchProfile, name: str, value: Any) -> bool:
    if name in AWX_ONLY_PROMPTS:
        return name == "forks" and value == profile.forks
    current = getattr(profile, name)
    if name in ("job_tags", "skip_tags"):
        return isinstance(value, (str, list)) and split_tags(value) == current
    if name == "limit":
        return value == (current or "")
    return type(value) is type(current) and value == current


def _variables(launch: Launch, runtime: dict[str, Any]) -> None:
    """AWX's ``_accept_or_ignore_variables`` then ``_update_unified_job_kwargs``."""
    profile = launch.profile
    remaining, accepted, rejected = dict(runtime), {}, {}
    for question in profile.survey:
        key = question["variable"]
        problems = survey_problems(question, runtime)
        if problems:
            where = profile.spans.get(f"survey.{key}", profile.spans.get("survey"))
            launch.errors += [LaunchProblem("extra_vars", message, where) for message in problems]
            if key in remaining:
                rejected[key] = remaining.pop(key)
        elif key in remaining:
            accepted[key] = remaining.pop(key)
            if question.get("type") == "password" and accepted[key] == ENCRYPTED:
                del accepted[key]  # the placeholder means "the default"
    if profile.ask["ask_variables_on_launch"]:
        accepted.update(remaining)
        remaining = {}
    # a variable given with the profile's own value is no change, so it is not reported
    rejected.update({key: value for key, value in remaining.items()
                     if key not in profile.extra_vars or profile.extra_vars[key] != value})
    if rejected:
        launch.ignored_fields["extra_vars"] = mask_passwords(rejected, launch.passwords)
    defaults = {question["variable"]: question["default"] for question in profile.survey
                if question.get("default") is not None
                and not survey_problems(question, {question["variable"]: question["default"]})}
    launch.extra_vars = {**profile.extra_vars, **defaults, **accepted}
    if accepted:
        launch.prompted["extra_vars"] = mask_passwords(accepted, launch.passwords)


def survey_problems(question: Mapping[str, Any], data: Mapping[str, Any]) -> list[str]:
    """AWX's ``_survey_element_validation``, word for word, except that a password's value
    is never printed."""
    key, kind = question["variable"], question.get("type", "text")
    if key not in data:
        return [f"'{key}' value missing"] if question.get("required", False) else []
    value = data[key]
    if kind == "password" and value == ENCRYPTED:  # "keep the saved password": its default stands in
        return [f"'{key}' value missing"] if question.get("default") is None and question.get("required") else []
    shown = ENCRYPTED if kind == "password" else value
    low, high = question.get("min"), question.get("max")
    low = None if low == "" else low
    high = None if high == "" else high
    problems: list[str] = []
    if kind in ("text", "textarea", "password"):
        if not isinstance(value, str):
            return [f"Value {shown} for '{key}' expected to be a string."]
        if low is not None and len(value) < int(low):
            problems.append(f"'{key}' value {shown} is too small (length is {len(value)} must be at least {low}).")
        if high is not None and len(value) > int(high):
            problems.append(f"'{key}' value {shown} is too large (must be no more than {high}).")
    elif kind in ("integer", "float"):
        numeric = type(value) is int if kind == "integer" else type(value) in (int, float)
        if not numeric:
            expected = "an integer" if kind == "integer" else "a numeric type"
            return [f"Value {value} for '{key}' expected to be {expected}."]
        convert = int if kind == "integer" else float
        if low is not None and value < convert(low):
            problems.append(f"'{key}' value {value} is too small (must be at least {low}).")
        if high is not None and value > convert(high):
            problems.append(f"'{key}' value {value} is too large (must be no more than {high}).")
    elif kind == "multiselect":
        if type(value) is not list:
            return [f"'{key}' value is expected to be a list."]
        choices = survey_choices(question)
        problems += [f"Value {item} for '{key}' expected to be one of {choices}." for item in value
                     if item not in choices]
    elif kind == "multiplechoice":
        choices = survey_choices(question)
        if value not in choices:
            problems.append(f"Value {value} for '{key}' expected to be one of {choices}.")
    return problems


def inventory_sources(launch: Launch, cwd: str) -> list[str]:
    """``ansible_inventory_sources``: a profile's inventory is relative to its config file, a
    launch's to ``cwd``; paths are made absolute as ansible-playbook does, host lists
    (anything with a comma) are kept as written, several sources in their order. Without an
    inventory, ansible-playbook's default: ansible.cfg's ``[defaults] inventory`` or
    ``ANSIBLE_INVENTORY``, else ``/etc/ansible/hosts``."""
    if launch.inventory is None:
        from engine.config import AnsibleConfig

        return list(AnsibleConfig.load(cwd).inventory.sources)
    from_profile = "inventory" not in launch.prompted and launch.profile.source
    base = os.path.dirname(launch.profile.source) if from_profile else cwd  # type: ignore[arg-type]
    given = [launch.inventory] if isinstance(launch.inventory, str) else launch.inventory
    return [source if "," in source else _absolute(base, source)
            for source in given]


def _absolute(base: str, path: str) -> str:
    return os.path.normpath(os.path.join(base, os.path.expanduser(os.path.expandvars(path))))


def option_vars(launch: Launch, cwd: str) -> dict[str, Any]:
    """The variables ansible-core's ``load_options_vars`` sets for this launch (engine.variables.magic).

    AWX passes ``--limit`` / ``--tags`` / ``--skip-tags`` only when they are non-empty. Survey
    passwords are hidden.
    """
    return RunOptions(inventory_sources=inventory_sources(launch, cwd), tags=launch.job_tags,
                      skip_tags=launch.skip_tags, limit=launch.limit or None, check=launch.check_mode,
                      diff=given_diff(launch), forks=given_forks(launch), verbosity=launch.verbosity).variables()


def given_diff(launch: Launch) -> bool:
    """The launch's ``--diff``: its own, else the option's default, ansible.cfg's ``[diff] always``
    (``ANSIBLE_DIFF_ALWAYS``, a non-strict boolean), as ansible-playbook's argument parser takes it."""
    from engine.booleans import boolean
    from engine.config import config_value

    if launch.diff_mode:
        return True
    value = config_value("ANSIBLE_DIFF_ALWAYS", "diff", "always")
    return value is not None and boolean(value)


def given_forks(launch: Launch) -> int | None:
    """The launch's ``--forks``: its profile's; None when the profile does not give it, so that
    ansible's configured default (``ANSIBLE_FORKS``, ansible.cfg's ``forks``, else 5) applies
    (AWX never takes forks from a prompt)."""
    return launch.forks if launch.profile.forks_given else None
