"""playbook-ls settings: ``[tool.playbook-ls]`` in pyproject.toml or ``.playbook-ls.yml``.

Looked up from the checked path upwards; the first directory holding either file wins
(``.playbook-ls.yml`` before pyproject.toml). Keys may be written with dashes or
underscores. Every error names the file and position; the CLI exits 2 on it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import files
from engine.launch.profiles import LaunchProfile, ProfileError
from engine.loading.keywords import did_you_mean
from engine.span import Span
from playbook_ls import rules
from playbook_ls.rules.base import Severity

YAML_NAMES = (".playbook-ls.yml", ".playbook-ls.yaml")
KEYS = ("select", "ignore", "severity", "exclude", "include", "roles_path", "fail_level", "profiles", "rules",
        "per_file_ignores", "respect_gitignore", "require_module_check", "job_templates", "molecule")
JOB_TEMPLATE_KEYS = ("files", "projects", "inventories", "environment", "variables")


class ConfigError(ValueError):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span

    def __str__(self) -> str:
        if self.span is None:
            return self.message
        from playbook_ls.rules.base import display_path

        return f"{self.span._replace(file=display_path(self.span.file)).human()}: {self.message}"


ALWAYS_SELECTED = ("PLS111",)  # yaml-syntax


class Settings:
    """Parsed settings with their defaults. ``root`` is the directory of the config file."""

    def __init__(self, root: str, path: str | None = None) -> None:
        self.root, self.path = root, path
        self.select: list[str] = list(rules.RULES)
        self.ignore: set[str] = set()
        self.severity: dict[str, str] = {}
        self.exclude: list[str] = []
        self.respect_gitignore = True  # skip what .gitignore and .git/info/exclude ignore, as ruff
        self.require_module_check = False  # fail when module names cannot be checked (no ansible-core)
        self.molecule = False  # check molecule/ scenarios too (left out, and said so, by default)
        self.include: list[str] = []
        self.roles_path: list[str] = []
        self.fail_level = Severity.WARNING
        self.profiles: list[LaunchProfile] = []
        self.refused_templates: dict[str, ProfileError] = {}
        """Job templates not usable as profiles (a value templated with variables not given), by name."""
        self.options: dict[str, dict[str, Any]] = {}
        self.per_file_ignores: list[tuple[str, set[str]]] = []  # (glob, codes), as ruff's
        self.baseline: Any = None  # check.baseline.Baseline: the accepted findings, if any

    def enabled(self) -> list[str]:
        """The rules to run: selected and not ignored (ignore wins). A file that cannot be loaded
        is reported whatever is selected, as ruff reports syntax errors: a selection must not
        make a broken file pass; only ignoring PLS111 by name silences it."""
        selected = dict.fromkeys([*self.select, *ALWAYS_SELECTED])
        return [code for code in selected if code not in self.ignore]

    def choose(self, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[str]:
        """Override the selection from the command line or an editor: ``select`` (codes,
        prefixes or rule names) replaces it when it matches anything, ``ignore`` adds to what
        is ignored. Returns the items no rule matches, for the caller to report."""
        unknown = [item for item in (*select, *ignore) if not rules.matching(item)]
        chosen = [code for item in select for code in rules.matching(item)]
        if chosen:
            self.select = list(dict.fromkeys(chosen))
        self.ignore |= {code for item in ignore for code in rules.matching(item)}
        return unknown

    def profile_playbooks(self) -> set[str]:
        """Real paths of the playbooks the launch profiles name."""
        from playbook_ls.rules.base import profile_playbook

        return {target for profile in self.profiles if (target := profile_playbook(profile))}

    def accepts(self, finding: Any) -> bool:
        """Whether ``finding`` is silenced by ``per-file-ignores`` or accepted in the ignore file."""
        span = finding.span
        if span is not None and any(finding.code in codes and discover_matches(span.file, self.root, glob)
                                    for glob, codes in self.per_file_ignores):
            return True
        return self.baseline is not None and self.baseline.covers(finding)

    def severity_of(self, code: str) -> str:
        return self.severity.get(code, rules.RULES[code].SEVERITY)

    def options_for(self, code: str) -> dict[str, Any]:
        module = rules.RULES[code]
        return {**getattr(module, "OPTIONS", {}), **self.options.get(code, {})}

    def fingerprint(self) -> str:
        """What the cache must be invalidated on."""
        profiles = [(p.name, p.playbook, p.job_tags, p.skip_tags, p.source) for p in self.profiles]
        return repr((self.enabled(), sorted(self.severity.items()), self.exclude, self.respect_gitignore,
                     self.include, self.roles_path, self.molecule,
                     profiles, sorted((k, sorted(v.items())) for k, v in self.options.items())))


def discover_matches(path: str, root: str, glob: str) -> bool:
    from playbook_ls.check.discover import matches

    return matches(path, root, [glob])


def find_config(start: str) -> str | None:
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        for name in YAML_NAMES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _has_tool_table(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _has_tool_table(path: str) -> bool:
    try:
        return re.search(r"^\[tool\.playbook-ls[\].]", files.read_text(path), re.MULTILINE) is not None
    except (OSError, UnicodeDecodeError):
        return False


def load_settings(path: str | None, start: str = ".") -> Settings:
    """Read settings from ``path`` (or the one found from ``start``); defaults if there is none.
    The accepted findings come from the ignore file beside the settings file, or, without one,
    the nearest one from ``start`` up."""
    from playbook_ls.check.baseline import Baseline, BaselineError, find_ignore_file

    settings = _read_settings(path or find_config(start), start)
    directory = settings.root if settings.path else find_ignore_file(start)
    if directory is not None:
        try:
            settings.baseline = Baseline.load(directory)
        except BaselineError as exc:
            raise ConfigError(exc.message, exc.span) from None
    return settings


def _read_settings(path: str | None, start: str) -> Settings:
    if path is None:
        return Settings(os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
    path = os.path.abspath(path)
    try:
        text = files.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc}", None) from None
    settings = Settings(os.path.dirname(path), path)
    if path.endswith(".toml"):
        data, locate = _read_toml(text, path)
    else:
        data, locate = _read_yaml(text, path)
    _apply(settings, data, locate)
    return settings


Locator = Callable[[tuple[str, ...]], Span | None]


def _read_yaml(text: str, path: str) -> tuple[Mapping[str, Any], Locator]:
    from engine.parsing.source import YMap, parse_text

    loaded = parse_text(text, path)
    if loaded.error is not None:
        raise ConfigError(loaded.error.message, loaded.error.span)
    data = loaded.data if loaded.data is not None else YMap(Span(path, 0, 0, 0, 0))
    if not isinstance(data, YMap):
        raise ConfigError("the settings must be a mapping of keys to values", getattr(data, "span", None))

    def locate(keys: tuple[str, ...]) -> Span | None:
        node: Any = data
        span = data.span
        for key in keys:
            if not isinstance(node, YMap) or key not in node:
                return span
            span = node.key_spans.get(key, span)
            node = node[key]
        return span

    return data, locate


def _read_toml(text: str, path: str) -> tuple[Mapping[str, Any], Locator]:
    import tomllib

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+), column (\d+)", str(exc))
        line, col = (int(match[1]) - 1, int(match[2]) - 1) if match else (0, 0)
        raise ConfigError(f"invalid TOML: {exc}", Span(path, line, col, line, col)) from None
    data = document.get("tool", {}).get("playbook-ls", {})
    if not isinstance(data, dict):
        raise ConfigError("[tool.playbook-ls] must be a table", Span(path, 0, 0, 0, 0))
    spans = toml_key_spans(text, path)

    def locate(keys: tuple[str, ...]) -> Span | None:
        full = ("tool", "playbook-ls", *keys)
        while full:
            if full in spans:
                return spans[full]
            full = full[:-1]
        return None

    return data, locate


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")


def toml_key_spans(text: str, path: str) -> dict[tuple[str, ...], Span]:
    """Where each table header and ``key =`` line of a TOML file is, by its full key path.

    tomllib keeps no positions; this line scan covers what config files contain (tables,
    dotted keys, one key per line) and lets callers fall back to the enclosing key.
    """
    spans: dict[tuple[str, ...], Span] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines()):
        header = _HEADER.match(line)
        if header:
            table = _dotted(header[1])
            start = line.index("[")
            spans.setdefault(table, Span(path, number, start, number, len(line.rstrip())))
            continue
        key = _KEY.match(line)
        if key:
            full = table + _dotted(key[1])
            start = len(line) - len(line.lstrip())
            spans.setdefault(full, Span(path, number, start, number, start + len(key[1])))
    return spans


def _dotted(text: str) -> tuple[str, ...]:
    parts = re.findall(r""""([^"]*)"|'([^']*)'|([^.\s]+)""", text)
    return tuple(a or b or c for a, b, c in parts)


def _apply(settings: Settings, data: Mapping[str, Any], locate: Locator) -> None:
    for raw_key, value in data.items():
        key = str(raw_key).replace("-", "_")
        span = locate((str(raw_key),))
        if key not in KEYS:
            raise ConfigError(f"unknown setting '{raw_key}'{did_you_mean(key, KEYS)}; the settings are: "
                              f"{', '.join(k.replace('_', '-') for k in KEYS)}", span)
        if key in ("select", "ignore"):
            codes = [code for item in _strings(value, raw_key, span) for code in _rule_codes(item, raw_key, span)]
            if key == "select":
                settings.select = list(dict.fromkeys(codes))
            else:
                settings.ignore |= set(codes)
        elif key == "per_file_ignores":
            for glob, codes in _table(value, raw_key, span).items():
                where = locate((str(raw_key), str(glob))) or span
                chosen = {code for item in _strings(codes, f"{raw_key}.{glob}", where)
                          for code in _rule_codes(item, raw_key, where)}
                settings.per_file_ignores.append((str(glob), chosen))
        elif key in ("exclude", "include", "roles_path"):
            setattr(settings, key, _strings(value, raw_key, span))
        elif key == "fail_level":
            settings.fail_level = _level(value, raw_key, span)
        elif key in ("respect_gitignore", "require_module_check", "molecule"):
            if not isinstance(value, bool):
                raise ConfigError(f"'{raw_key}' must be true or false", span)
            setattr(settings, key, value)
        elif key == "severity":
            for code, level in _table(value, raw_key, span).items():
                where = locate((str(raw_key), str(code))) or span
                for one in _rule_codes(str(code), raw_key, where):
                    settings.severity[one] = _level(level, f"{raw_key}.{code}", where)
        elif key == "rules":
            _rule_options(settings, _table(value, raw_key, span), str(raw_key), locate)
        elif key == "profiles":
            _profiles(settings, _table(value, raw_key, span), str(raw_key), locate)
        elif key == "job_templates":
            _job_templates(settings, _table(value, raw_key, span), str(raw_key), locate)


VARIABLE_FILE_SUFFIXES = (".yml", ".yaml", ".json")


def _template_files(root: str, entries: list[str]) -> list[tuple[str, bool]]:
    """``job_templates.files`` with each directory replaced by the YAML and JSON files below it,
    sorted (the filetree layout of the configuration-as-code collections, whose ``filetree_read``
    joins the ``controller_templates`` of every file of ``controller_job_templates.d/``); each with
    whether it was listed itself (a listed file must hold job templates)."""
    result = []
    for entry in entries:
        top = os.path.join(root, entry)
        if not os.path.isdir(top):
            result.append((entry, True))
            continue
        found = []
        for directory, subdirectories, names in os.walk(top):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            found += [os.path.relpath(os.path.join(directory, name), root) for name in names
                      if name.endswith(VARIABLE_FILE_SUFFIXES) and not name.startswith(".")]
        result += [(file, False) for file in sorted(found)]
    return result


def _strings(value: Any, key: Any, span: Span | None) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"'{key}' must be a list of strings", span)
    return list(value)


def _table(value: Any, key: Any, span: Span | None) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"'{key}' must be a table (a mapping)", span)
    return value


def _level(value: Any, key: Any, span: Span | None) -> str:
    if value not in Severity.ALL:
        raise ConfigError(f"'{key}' must be one of {', '.join(Severity.ALL)}, not {value!r}", span)
    return str(value)


def _rule_codes(item: str, key: Any, span: Span | None) -> list[str]:
    codes = rules.matching(item)
    if not codes:
        known = [*rules.RULES, *rules.BY_NAME]
        raise ConfigError(f"'{key}': no rule matches '{item}'{did_you_mean(item, known)}", span)
    return codes


def _rule_options(settings: Settings, table: Mapping[str, Any], key: str, locate: Locator) -> None:
    for code_or_name, options in table.items():
        where = locate((key, str(code_or_name)))
        rule = rules.lookup(str(code_or_name))
        if rule is None:
            raise ConfigError(f"'{key}': no rule '{code_or_name}'", where)
        known = getattr(rule, "OPTIONS", {})
        for option, value in _table(options, f"{key}.{code_or_name}", where).items():
            if option not in known:
                names = ", ".join(known) or "none"
                raise ConfigError(f"{rule.CODE} has no option '{option}' (its options: {names})",
                                  locate((key, str(code_or_name), str(option))) or where)
            if type(value) is not type(known[option]):
                raise ConfigError(f"{rule.CODE} option '{option}' must be a {type(known[option]).__name__}",
                                  locate((key, str(code_or_name), str(option))) or where)
        settings.options[rule.CODE] = dict(options)


def _profiles(settings: Settings, table: Mapping[str, Any], key: str, locate: Locator) -> None:
    for name, body in table.items():
        where = locate((key, str(name)))
        body = _table(body, f"{key}.{name}", where)
        try:
            profile = LaunchProfile.parse(str(name), body, lambda field, n=str(name): locate((key, n, field)), where)
        except ProfileError as exc:
            raise ConfigError(exc.message, exc.span) from None
        profile.source = settings.path
        settings.profiles.append(profile)


def _job_templates(settings: Settings, table: Mapping[str, Any], key: str, locate: Locator) -> None:
    """Profiles from the job templates of AWX exports and configuration-as-code files: every file's
    templates first, so that an environment's file updates the common one's (``environment``), then
    each templated with ``variables``, the configuration-as-code run's."""
    from engine.launch import job_templates as reader
    from engine.parsing.source import parse_text

    for name in table:
        if name not in JOB_TEMPLATE_KEYS:
            raise ConfigError(f"'{key}': unknown key '{name}'; its keys are: {', '.join(JOB_TEMPLATE_KEYS)}",
                              locate((key, str(name))))
    mappings = {}
    for name in ("projects", "inventories"):
        where = locate((key, name))
        mapping = _table(table.get(name, {}), f"{key}.{name}", where)
        if not all(isinstance(v, str) and v for v in mapping.values()):
            raise ConfigError(f"'{key}.{name}' maps names to paths (strings)", where)
        mappings[name] = {str(k): str(v) for k, v in mapping.items()}
    environment = table.get("environment")
    if environment is not None and not (isinstance(environment, str) and environment):
        raise ConfigError(f"'{key}.environment' is the name of an environment (config/<env>/)",
                          locate((key, "environment")))
    variables = None
    if "variables" in table:
        variables = dict(_table(table["variables"], f"{key}.variables", locate((key, "variables"))))
    items = []
    for file, listed in _template_files(settings.root, _strings(table.get("files", []), f"{key}.files",
                                                                  locate((key, "files")))):
        path = os.path.join(settings.root, file)
        try:
            text = files.read_text(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"'{key}.files': cannot read {file}: {exc}", locate((key, "files"))) from None
        loaded = parse_text(text, path)
        if loaded.error is not None:
            raise ConfigError(loaded.error.message, loaded.error.span)
        if not listed and not reader.lists_templates(loaded.data):
            continue  # a directory's other files (credentials, projects, ...): the filetree reads them elsewhere
        try:
            items += reader.template_items(loaded.data, path, environment)
        except ProfileError as exc:
            raise ConfigError(exc.message, exc.span) from None
    try:
        found = reader.job_templates(reader.merge_layers(items), mappings["projects"], mappings["inventories"],
                                     variables)
    except ProfileError as exc:
        raise ConfigError(exc.message, exc.span) from None
    taken = {profile.name for profile in settings.profiles}  # a set: an export holds thousands
    for profile in found.profiles:
        if profile.name in taken:
            raise ConfigError(f"job template '{profile.name}' is also a profile of that name", profile.span)
        taken.add(profile.name)
        profile.source = settings.path
        settings.profiles.append(profile)
    settings.refused_templates.update(found.refused)
