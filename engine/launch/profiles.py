"""Launch profiles: named launches with AWX job-template fields.

A profile names a playbook, inventory, job_type (run|check), job_tags, skip_tags, limit,
diff_mode, verbosity, forks and extra_vars, which of them may be prompted at launch
(``ask_*_on_launch``) and an optional survey. This module only reads and validates them;
every value keeps the span it was written at so findings can point at it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from engine.loading.keywords import did_you_mean
from engine.span import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ASK_FIELDS = {
    "ask_tags_on_launch": "job_tags",
    "ask_skip_tags_on_launch": "skip_tags",
    "ask_limit_on_launch": "limit",
    "ask_variables_on_launch": "extra_vars",
    "ask_job_type_on_launch": "job_type",
    "ask_diff_mode_on_launch": "diff_mode",
    "ask_verbosity_on_launch": "verbosity",
    "ask_inventory_on_launch": "inventory",
}
SURVEY_TYPES = frozenset({"text", "textarea", "password", "integer", "float", "multiplechoice", "multiselect"})
SURVEY_KEYS = frozenset({"variable", "type", "required", "default", "choices", "min", "max", "question_name",
                         "question_description"})
JOB_TYPES = ("run", "check")
# The ansible-core release whose behaviour playbook-ls follows; ``ansible_version`` is built from it.
ANSIBLE_CORE_VERSION = "2.19.14"
PROFILE_FIELDS = ("playbook", "inventory", "job_type", "job_tags", "skip_tags", "limit", "diff_mode", "verbosity",
                  "forks", "extra_vars", "survey", *ASK_FIELDS)


class ProfileError(ValueError):
    """A profile field has the wrong type or value; ``span`` says where."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span


def split_tags(value: Any) -> list[str]:
    """``job_tags`` / ``skip_tags`` as AWX and ansible take them: comma-separated, stripped."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def parse_yaml_or_json(value: Any) -> dict[str, Any]:
    """Variables as AWX reads ``extra_vars`` (``awx.main.utils.parse_yaml_or_json``): a mapping as
    it is, else text parsed as JSON, then as YAML (empty, ``---`` or ``""`` is no variables); the
    result must be a mapping that JSON can hold. Raises ValueError with AWX's message."""
    import json

    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        raise ValueError(f"Input type `{type(value).__name__}` is not a dictionary")
    if value == '""':
        return {}
    try:
        parsed = json.loads(value)
        if not isinstance(parsed, dict):
            raise ValueError(f"Input type `{type(parsed).__name__}` is not a dictionary")
        return parsed
    except ValueError as json_error:
        import yaml

        try:
            parsed = _safe_load(yaml, value)
            if parsed is None:
                return {}
            if not isinstance(parsed, dict):
                raise ValueError(f"Input type `{type(parsed).__name__}` is not a dictionary")
            json.dumps(parsed)
            return parsed
        except (yaml.YAMLError, ValueError, TypeError) as yaml_error:
            raise ValueError(f"Cannot parse as JSON (error: {json_error}) or YAML (error: {yaml_error}).") from None


def _safe_load(yaml: Any, text: str) -> Any:
    """``yaml.safe_load``, through libyaml when PyYAML has it: an export's thousands of job
    templates each have their extra_vars parsed, ten times faster so. What libyaml refuses is
    parsed again as AWX parses it, for its answer and message."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        try:
            return yaml.load(text, Loader=loader)
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


class LaunchProfile:
    """One named launch. ``spans`` maps each field to where it is written."""

    __slots__ = ("name", "span", "spans", "playbook", "inventory", "job_type", "job_tags", "skip_tags", "limit",
                 "diff_mode", "verbosity", "forks", "forks_given", "extra_vars", "ask", "survey", "source")

    def __init__(self, name: str, span: Span | None = None) -> None:
        self.name, self.span = name, span
        self.spans: dict[str, Span] = {}
        self.playbook: str | None = None
        self.inventory: str | list[str] | None = None  # several sources as ansible-playbook -i A -i B
        self.job_type = "run"
        self.job_tags: list[str] = []
        self.skip_tags: list[str] = []
        self.limit: str | None = None
        self.diff_mode = False
        self.verbosity = 0
        self.forks = 5
        self.forks_given = False  # else ansible's configured default applies (ANSIBLE_FORKS, ansible.cfg)
        self.extra_vars: dict[str, Any] = {}
        self.ask: dict[str, bool] = dict.fromkeys(ASK_FIELDS, False)
        self.survey: list[dict[str, Any]] = []
        self.source: str | None = None  # the config file, for resolving relative paths

    def __repr__(self) -> str:
        return f"LaunchProfile({self.name!r})"

    def playbook_path(self) -> str | None:
        """The playbook, relative to the config file that defines the profile (if any)."""
        if self.playbook is None or not self.source:
            return self.playbook
        return os.path.join(os.path.dirname(self.source), self.playbook)

    def field_span(self, field: str) -> Span | None:
        return self.spans.get(field, self.span)

    @classmethod
    def parse(cls, name: str, data: Mapping[str, Any], locate: Callable[[str], Span | None],
              span: Span | None = None) -> LaunchProfile:
        """Read one profile; ``locate(field)`` gives a field's span. Raises :class:`ProfileError`."""
        profile = cls(name, span)
        for key, value in data.items():
            field = str(key).replace("-", "_")
            where = locate(str(key)) or span
            if where is not None:
                profile.spans[field] = where
            set_field(profile, field, value, where)
        return profile


def _expect(ok: bool, message: str, span: Span | None) -> None:
    if not ok:
        raise ProfileError(message, span)


def set_field(profile: LaunchProfile, field: str, value: Any, span: Span | None, what: str | None = None) -> None:
    """Validate ``value`` and store it on ``profile``; ``what`` names the field in messages."""
    what = what or f"profile '{profile.name}': {field}"
    if value is None:
        raise ProfileError(f"{what} is null; give a value or remove the line", span)
    if field == "inventory" and isinstance(value, list):
        _expect(bool(value) and all(isinstance(v, str) and v != "" for v in value),
                f"{what} must be a non-empty string or a list of them", span)
        profile.inventory = value[0] if len(value) == 1 else list(value)
    elif field in ("playbook", "inventory", "limit"):
        _expect(isinstance(value, str) and value != "", f"{what} must be a non-empty string", span)
        setattr(profile, field, value)
    elif field in ("job_tags", "skip_tags"):
        _expect(isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)),
                f"{what} must be a comma-separated string or a list of strings", span)
        setattr(profile, field, split_tags(value))
    elif field == "job_type":
        _expect(value in JOB_TYPES, f"{what} must be 'run' or 'check', not {value!r}", span)
        profile.job_type = value
    elif field == "diff_mode" or field in ASK_FIELDS:
        _expect(isinstance(value, bool), f"{what} must be true or false", span)
        if field == "diff_mode":
            profile.diff_mode = value
        else:
            profile.ask[field] = value
    elif field in ("verbosity", "forks"):
        _expect(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                f"{what} must be a whole number, 0 or more", span)
        _expect(field != "verbosity" or value <= 5, f"{what} must be between 0 and 5", span)
        setattr(profile, field, value)
        profile.forks_given = profile.forks_given or field == "forks"
    elif field == "extra_vars":
        _expect(isinstance(value, Mapping), f"{what} must be a mapping of variable names to values", span)
        profile.extra_vars = dict(value)
    elif field == "survey":
        _expect(isinstance(value, list), f"{what} must be a list of questions", span)
        profile.survey = [_survey_question(what, item, span) for item in value]
        for item, question in zip(value, profile.survey, strict=True):
            profile.spans[f"survey.{question['variable']}"] = getattr(item, "span", None) or span
    else:
        known = sorted(PROFILE_FIELDS)
        raise ProfileError(f"profile '{profile.name}': unknown field '{field}'{did_you_mean(field, known)}", span)


def _survey_question(what: str, item: Any, span: Span | None) -> dict[str, Any]:
    where = getattr(item, "span", None) or span
    _expect(isinstance(item, Mapping), f"{what}: each question must be a mapping", where)
    unknown = sorted(set(map(str, item)) - SURVEY_KEYS)
    _expect(not unknown, f"{what}: unknown survey key '{unknown[0] if unknown else ''}'", where)
    _expect(isinstance(item.get("variable"), str), f"{what}: every question needs a 'variable' name", where)
    _expect(item.get("type", "text") in SURVEY_TYPES,
            f"{what}: survey type must be one of {', '.join(sorted(SURVEY_TYPES))}", where)
    name = f"{what}: question '{item['variable']}'"
    _expect(isinstance(item.get("required", False), bool), f"{name}: required must be true or false", where)
    for bound in ("min", "max"):
        value = item.get(bound)
        _expect(value in (None, "") or (isinstance(value, (int, float)) and not isinstance(value, bool)),
                f"{name}: {bound} must be a number", where)
    if item.get("type") in ("multiplechoice", "multiselect"):
        _expect(bool(survey_choices(item)), f"{name}: a {item['type']} question needs 'choices' (a list, or "
                "one choice per line)", where)
    return dict(item)


def survey_choices(question: Mapping[str, Any]) -> list[Any]:
    """A question's choices as AWX reads them: a list, or a string with one choice per line."""
    choices = question.get("choices")
    if isinstance(choices, str):
        return [choice for choice in choices.splitlines() if choice.strip() != ""]
    return list(choices) if isinstance(choices, list) else []
