"""Job templates kept where AWX users keep them, read as launch profiles without a server.

Three shapes are read: two told apart by the key of their list, and a list of tasks:

- ``awx export`` output (JSON or YAML): ``job_templates``, each naming its inventory and project
  by natural key (``{"name": ..., "organization": ...}``), ``extra_vars`` as YAML or JSON text and
  the survey under ``related.survey_spec``;
- configuration as code for the infra.controller_configuration and infra.aap_configuration
  collections: ``controller_templates``, each naming its inventory and project by name,
  ``extra_vars`` as a mapping or text, the survey as ``survey_spec`` (or ``survey``); in the
  multi-environment layout of redhat-cop/aap_configuration_template, ``controller_templates_all``
  (``config/all/``) and ``controller_templates_<env>`` (``config/<env>/``), which the collection's
  dispatch merges for the environment it runs for: an environment's template of the same name
  updates the common one field by field;
- a playbook or task file of ``awx.awx.job_template`` tasks (a list instead of a mapping): each
  task's arguments, which are the same fields; and in a playbook, the configuration-as-code lists
  of its plays' ``vars``, which the collection's roles the play runs apply.

A job template's playbook is relative to its project's checkout and its inventory is a name on
the server: ``projects`` and ``inventories`` map them to the workspace. Fields a profile has are
validated as a profile's are; fields it has not (credentials, execution environment, ...) are
left out, as a launch cannot change them either.

A configuration-as-code file is templated by the collection's run (``limit: "{{ env }}"``): such a
value is templated with the variables given for it (the ``variables`` of the settings), and a
template whose value cannot be is refused alone, with the reason, not the file. ``!unsafe`` values,
which the collection passes on untemplated, are what AWX gets: their text. An export holds what
AWX holds: its ``extra_vars`` are the job's variables, templates for the playbook's run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from engine.launch.profiles import ASK_FIELDS, SURVEY_KEYS, LaunchProfile, ProfileError, parse_yaml_or_json, set_field
from engine.span import Span, YMap
from engine.values import UnsafeText

LISTS = {"job_templates": "export", "controller_templates": "code"}
LAYERED = "controller_templates_"
"""The prefix of the multi-environment layout's lists: ``controller_templates_all`` and one per environment."""
# the module that creates a job template, by the names a task may call it
MODULES = ("awx.awx.job_template", "ansible.controller.job_template", "awx.awx.tower_job_template",
           "ansible.tower.tower_job_template", "job_template", "tower_job_template")
# job template fields a profile has, set as they are (job_tags and skip_tags may be "" for none)
PLAIN = ("job_type", "job_tags", "skip_tags", "diff_mode", "verbosity", "forks", *ASK_FIELDS)
# every field read; a templated value elsewhere (organization, description, ...) does not matter here
READ = frozenset({"name", "playbook", "project", "inventory", "limit", "extra_vars", "survey_spec", *PLAIN})
# what AWX calls the same field in older exports and the awx.awx module's aliases
ALIASES = {"ask_tags": "ask_tags_on_launch", "ask_skip_tags": "ask_skip_tags_on_launch",
           "ask_limit": "ask_limit_on_launch",
           "ask_variables": "ask_variables_on_launch", "ask_extra_vars": "ask_variables_on_launch",
           "ask_job_type": "ask_job_type_on_launch", "ask_diff_mode": "ask_diff_mode_on_launch",
           "ask_verbosity": "ask_verbosity_on_launch", "ask_inventory": "ask_inventory_on_launch",
           "survey": "survey_spec"}


class TemplateItem:
    """One job template as written: its fields, where it is, its shape (``export`` or ``code``) and,
    in the multi-environment layout, its layer (``all`` or the environment's name)."""

    __slots__ = ("item", "span", "shape", "layer")

    def __init__(self, item: Any, span: Span, shape: str, layer: str | None = None) -> None:
        self.item, self.span, self.shape, self.layer = item, span, shape, layer


class Refused(ProfileError):
    """A job template that cannot be read as a profile while the others of its file can."""

    def __init__(self, name: str, message: str, span: Span | None) -> None:
        super().__init__(message, span)
        self.name = name


class JobTemplates:
    """The profiles job template files give, and the templates refused (name -> why)."""

    def __init__(self) -> None:
        self.profiles: list[LaunchProfile] = []
        self.refused: dict[str, Refused] = {}


def read_job_templates(data: Any, file: str, projects: Mapping[str, str], inventories: Mapping[str, str],
                       environment: str | None = None,
                       variables: Mapping[str, Any] | None = None) -> JobTemplates:
    """The job templates of one parsed file (see :func:`template_items`, :func:`job_templates`)."""
    return job_templates(merge_layers(template_items(data, file, environment)), projects, inventories, variables)


def template_items(data: Any, file: str, environment: str | None = None) -> list[TemplateItem]:
    """The job templates one parsed file writes, in order: in the multi-environment layout only
    ``controller_templates_all`` and ``controller_templates_<environment>`` (none but the first
    without an environment). Raises :class:`ProfileError` naming the position."""
    span = getattr(data, "span", None) or Span(file, 0, 0, 0, 0)
    if isinstance(data, list):
        items = [TemplateItem(args, where, "code") for args, where in _module_tasks(data)]
        for play in data:  # a play's own vars, which the collection's roles it runs apply
            if isinstance(play, Mapping) and isinstance(play.get("vars"), Mapping):
                items.extend(_listed(play["vars"], getattr(play["vars"], "span", None) or span, environment))
        if not items:
            raise ProfileError(f"{os.path.basename(file)} holds no {MODULES[0]} task and no play whose vars "
                               f"list job templates", span)
        return items
    if not _lists_of(data):
        raise ProfileError(f"{os.path.basename(file)} holds no job templates: expected a list under "
                           f"{', '.join(LISTS)}, {LAYERED}all (and {LAYERED}ENV), or {MODULES[0]} tasks", span)
    return _listed(data, span, environment)


def lists_templates(data: Any) -> bool:
    """Whether a parsed variables file lists job templates (see :func:`template_items`)."""
    return bool(_lists_of(data))


def _lists_of(data: Any) -> list[str]:
    """The keys of ``data`` that list job templates, in the file's order."""
    if not isinstance(data, Mapping):
        return []
    return [key for key in data if key in LISTS or isinstance(key, str) and key.startswith(LAYERED)]


def _listed(data: Mapping[str, Any], span: Span, environment: str | None) -> list[TemplateItem]:
    """The job templates a mapping of variables lists (see :func:`template_items`)."""
    wanted = {f"{LAYERED}all": "all", **({f"{LAYERED}{environment}": environment} if environment else {})}
    keys = _lists_of(data)
    items = []
    for key in [*(key for key in LISTS if key in keys), *(key for key in keys if key in wanted)]:
        listed = data[key]
        where = data.value_spans.get(key, span) if hasattr(data, "value_spans") else span
        if not isinstance(listed, list):
            raise ProfileError(f"'{key}' must be a list of job templates", where)
        item_spans = getattr(listed, "item_spans", [])
        for index, item in enumerate(listed):
            if isinstance(item, Mapping) and item.get("state") == "absent":
                continue  # the collection deletes it: no template to launch
            at = item_spans[index] if index < len(item_spans) else where
            items.append(TemplateItem(item, at, LISTS.get(key, "code"), wanted.get(key)))
    return items


def merge_layers(items: list[TemplateItem]) -> list[TemplateItem]:
    """The items with each environment's template merged onto the common one of the same name, as
    the collection applies both to one template: the environment's fields win, the others stay."""
    common: dict[Any, TemplateItem] = {}
    merged: list[TemplateItem] = []
    for item in items:
        name = item.item.get("name") if isinstance(item.item, Mapping) else None
        if item.layer == "all" and name is not None:
            common[name] = item
        elif item.layer is not None and name in common:
            base = common[name]
            fields = YMap(base.span)
            fields.update(base.item)
            fields.key_spans.update(getattr(base.item, "key_spans", {}))
            fields.update(item.item)
            fields.key_spans.update(getattr(item.item, "key_spans", {}))
            base.item = fields
            continue
        merged.append(item)
    return merged


def job_templates(items: list[TemplateItem], projects: Mapping[str, str], inventories: Mapping[str, str],
                  variables: Mapping[str, Any] | None = None) -> JobTemplates:
    """Profiles of ``items``; one that needs templating its variables cannot give is refused alone."""
    result = JobTemplates()
    for item in items:
        try:
            result.profiles.append(_profile(item.item, item.span, item.shape, projects, inventories, variables))
        except Refused as refused:
            result.refused[refused.name] = refused
    return result


def _module_tasks(node: Any) -> Iterator[tuple[Mapping[str, Any], Span]]:
    """The arguments of the job template tasks of a playbook or task file, with their spans, in
    file order: plays' task lists and blocks are walked; a template being removed
    (``state: absent``) is not one."""
    if isinstance(node, list):
        for item in node:
            yield from _module_tasks(item)
        return
    if not isinstance(node, Mapping):
        return
    module = next((key for key in node if key in MODULES), None)
    if module is not None and isinstance(node[module], Mapping):
        if node[module].get("state", "present") != "absent":
            yield node[module], getattr(node[module], "span", None) or getattr(node, "span", None)
        return
    for key in ("tasks", "pre_tasks", "post_tasks", "handlers", "block", "rescue", "always"):
        if isinstance(node.get(key), list):
            yield from _module_tasks(node[key])


def _profile(item: Any, span: Span, shape: str, projects: Mapping[str, str],
             inventories: Mapping[str, str], variables: Mapping[str, Any] | None = None) -> LaunchProfile:
    if not isinstance(item, Mapping):
        raise ProfileError("a job template must be a mapping", span)
    fields = {ALIASES.get(str(key), str(key)): value for key, value in item.items()}
    spans: dict[str, Span] = {}
    for key, value in getattr(item, "key_spans", {}).items():
        spans.setdefault(ALIASES.get(str(key), str(key)), value)

    def at(field: str) -> Span:
        return spans.get(field, span)

    name = fields.get("name")
    if not isinstance(name, str) or not name:
        raise ProfileError("a job template needs a 'name'", span)
    # the run names the template as it templates it (controller_configuration's filetree layout
    # writes "{{ orgs }} Deploy"): the profile is launched by that name
    name = _templated(name, "name", f"job template '{name}'", name, at("name"), shape, variables)
    if not isinstance(name, str) or not name:
        raise ProfileError("a job template needs a 'name'", span)
    fields["name"] = name
    profile = LaunchProfile(name, span)
    what = f"job template '{name}'"
    for field, value in list(fields.items()):
        if field in READ and field != "name" and (field != "extra_vars" or shape == "code"):
            fields[field] = _templated(value, field, what, name, at(field), shape, variables)
    for field in PLAIN:
        # forks 0 is AWX's "ansible's default": it passes --forks only when it is above 0
        if fields.get(field) is not None and not (field == "forks" and fields[field] == 0):
            profile.spans[field] = at(field)
            set_field(profile, field, fields[field], at(field), f"{what}: {field}")
    if fields.get("limit"):
        set_field(profile, "limit", fields["limit"], at("limit"), f"{what}: limit")
    if fields.get("extra_vars") not in (None, ""):
        set_field(profile, "extra_vars", _variables(fields["extra_vars"], what, at("extra_vars")),
                  at("extra_vars"), f"{what}: extra_vars")
    survey = fields.get("survey_spec")
    if survey is None and shape == "export" and isinstance(fields.get("related"), Mapping):
        survey = fields["related"].get("survey_spec")
    if isinstance(survey, str) and shape == "code" and isinstance(item.get("survey_spec", item.get("survey")), str):
        # a templated survey (a lookup of a JSON file) is text: the module's dict option parses it
        survey = _variables(survey, what, at("survey_spec"))
    if survey and fields.get("survey_enabled", True) is not False:
        set_field(profile, "survey", _questions(survey, what, at("survey_spec")), at("survey_spec"),
                  f"{what}: survey")
    project = _natural_name(fields.get("project"), "project", what, at("project"))
    if fields.get("playbook") is not None:
        checkout = projects.get(project, ".") if project is not None else "."
        playbook = fields["playbook"]
        if not isinstance(playbook, str) or not playbook:
            raise ProfileError(f"{what}: playbook must be a non-empty string", at("playbook"))
        profile.playbook = os.path.normpath(os.path.join(checkout, playbook))
        profile.spans["playbook"] = at("playbook")
    inventory = _natural_name(fields.get("inventory"), "inventory", what, at("inventory"))
    if inventory is not None:
        if inventory not in inventories:
            mapped = f" (mapped: {', '.join(sorted(inventories))})" if inventories else ""
            raise ProfileError(f"{what}: inventory '{inventory}' is a name on the server; map it to a local "
                               f"inventory under job_templates.inventories in the settings{mapped}", at("inventory"))
        profile.inventory = inventories[inventory]
        profile.spans["inventory"] = at("inventory")
    return profile


def _templated(value: Any, field: str, what: str, name: str, span: Span, shape: str,
               variables: Mapping[str, Any] | None) -> Any:
    """``value`` as the collection's run makes it: its templates rendered with ``variables`` (a
    template refused when there are none, or they do not define what it uses), its ``!unsafe``
    values plain text, as AWX receives them. An export's values are AWX's own: never templated."""
    if isinstance(value, UnsafeText):
        return str(value)
    if isinstance(value, Mapping):
        converted = YMap(getattr(value, "span", span))
        converted.update((key, _templated(item, field, what, name, span, shape, variables))
                         for key, item in value.items())
        converted.key_spans.update(getattr(value, "key_spans", {}))
        converted.value_spans.update(getattr(value, "value_spans", {}))
        return converted
    if isinstance(value, list):
        return [_templated(item, field, what, name, span, shape, variables) for item in value]
    if not isinstance(value, str) or ("{{" not in value and "{%" not in value):
        return value
    if shape == "code" and variables is None and _reads_only_files(value):
        variables = {}  # a lookup of the repository's files: what it reads decides, not the run's variables
    if shape != "code" or variables is None:
        hint = ("give the variables the configuration-as-code run templates it with under "
                "job_templates.variables in the settings, or write the value" if shape == "code"
                else "write the value")
        raise Refused(name, f"{what}: {field} is templated ({value!r}); {hint}", span)
    from engine.launch.cac_lookups import LOOKUP_NAMES, file_lookups
    from engine.templating.load_time import Unresolved, render

    try:  # the run reads files with lookup('template') and lookup('file') from where the value is
        reads_files = any(f"{name}(" in value for name in LOOKUP_NAMES)
        return render(value, {**variables, **file_lookups(span.file, variables)} if reads_files else variables)
    except Unresolved as exc:
        raise Refused(name, f"{what}: {field} ({value!r}) cannot be templated with job_templates.variables: {exc}",
                      span) from None


def _reads_only_files(value: str) -> bool:
    """Whether the only names a template uses are the lookups of :mod:`engine.launch.cac_lookups`."""
    from engine.launch.cac_lookups import LOOKUP_NAMES
    from engine.templating.variable_uses import names_read

    return names_read(value, False) == frozenset() and any(f"{name}(" in value for name in LOOKUP_NAMES)


def _natural_name(value: Any, kind: str, what: str, span: Span) -> str | None:
    """An inventory or project by name: a string, or an export's natural key mapping."""
    if value in (None, ""):
        return None
    if isinstance(value, Mapping):
        value = value.get("name")
    if not isinstance(value, str) or not value:
        raise ProfileError(f"{what}: {kind} must be a name, or a mapping with a 'name'", span)
    return value


def _variables(value: Any, what: str, span: Span) -> dict[str, Any]:
    """``extra_vars`` as AWX stores it: a mapping, or YAML or JSON text of one."""
    try:
        return parse_yaml_or_json(value)
    except ValueError as exc:
        raise ProfileError(f"{what}: extra_vars: {exc}", span) from None


def _questions(value: Any, what: str, span: Span) -> list[YMap]:
    """A survey spec's questions, with the keys AWX's interface adds for itself left out."""
    if isinstance(value, str):
        raise ProfileError(f"{what}: the survey must be written out, not given as text", span)
    questions = value.get("spec", []) if isinstance(value, Mapping) else value
    if not isinstance(questions, list):
        raise ProfileError(f"{what}: the survey's spec must be a list of questions", span)
    kept = []
    for question in questions:
        if not isinstance(question, Mapping):
            raise ProfileError(f"{what}: each survey question must be a mapping", span)
        kept_question = YMap(getattr(question, "span", span))  # keeps where the question is, for its problems
        kept_question.update((key, item) for key, item in question.items() if key in SURVEY_KEYS and item is not None)
        kept.append(kept_question)
    return kept
