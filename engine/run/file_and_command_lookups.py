"""ansible.builtin lookups for a run: ``lookup()``, ``query()``/``q()`` and ``with_<lookup>`` loops.

One function per lookup plugin (``plugins/lookup/*.py`` of ansible-core 2.19), each
``fn(terms, kwargs, call) -> list`` with the plugin's semantics and messages, and ``invoke`` doing
what ``_invoke_lookup`` does around them: ``wantlist``, ``errors=strict|warn|ignore``, and joining a
list of strings with commas for ``lookup()``.

Lookups run on the controller whatever the check mode (``pipe`` runs its command, ``password``
writes its file, as ansible does). They are only reachable through a :class:`LookupContext`, which
the executor gives the templar of a task; a templar without one (the editor's variable report)
never runs a lookup. The lookups that read nothing, and ``invoke`` itself, are the static
engine's (engine.templating.pure_lookups): this module adds those that read files or run commands.
"""

from __future__ import annotations

import os
import random
import secrets
import string
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from engine.run.template_vars import template_vars
from engine.run.url_lookup import lookup_url
from engine.templating.data_file_lookups import lookup_csvfile, lookup_ini
from engine.templating.errors import TemplateFailure
from engine.templating.file_lookups import lookup_file, lookup_fileglob, lookup_template
from engine.templating.file_search import lookup_first_found, search_paths
from engine.templating.file_search import unfrack as _unfrack
from engine.templating.pure_lookups import (
    INVENTORY,
    PURE,
    Call,
    LookupFailure,
    LookupFunction,
    Templar,
    _bool_option,
    _integer,
    _options,
    invoke,
    short_name,
    template_globals,
)


@dataclass(frozen=True)
class LookupContext:
    """Where a task's lookups look files up and run commands."""

    basedir: str
    """The playbook's directory: the loader's basedir (pipe/lines cwd, password's relative paths)."""
    search_paths: list[str] = field(default_factory=list)
    """``ansible_search_path``: the role's path (if any), then the task file's directory."""
    in_role: bool = False
    action: str = ""
    """The task's action, which ``with_first_found`` looks at to choose files/, templates/ or vars/."""
    warn: Callable[..., None] | None = None
    """Where ``errors='warn'`` reports a failure (the run's ``[WARNING]:`` lines): the message,
    and the text of the Python error the plugin chained under it, when there is one."""
    collections: Any = None
    """The run's CollectionFinder: a lookup of a collection installed nowhere warns as ansible's
    plugin loader does before it fails (engine.run.collection_lookups)."""

    def search_path_variable(self) -> list[str]:
        """``ansible_search_path`` as a task sees it (engine.templating.file_search.search_path_variable)."""
        from engine.templating.file_search import search_path_variable

        return search_path_variable(self.search_paths, self.basedir)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    @property
    def host_pattern_mismatch(self) -> str:
        """HOST_PATTERN_MISMATCH, which inventory_hostnames's own inventory follows."""
        from engine.config import config_value

        value = config_value("ANSIBLE_HOST_PATTERN_MISMATCH", "inventory", "host_pattern_mismatch")
        return (value or "warning").strip().lower()

    def is_file(self, path: str) -> bool:
        return os.path.isfile(path)

    def read_text(self, path: str) -> str:
        return _read_text(path)

    def read_data(self, path: str) -> bytes:
        """The file's bytes as the ini lookup's loader reads them; an OSError is the plugin's to word."""
        with open(path, "rb") as handle:
            return handle.read()

    def open_text(self, path: str, encoding: str) -> IO[str]:
        """The file opened as csvfile opens it: text, universal newlines."""
        return open(path, encoding=encoding)

    def template_vars(self, path: str, fullpath: str, task_vars: Mapping[str, Any]) -> dict[str, Any]:
        """The variables the template lookup adds for the template ``path`` found at ``fullpath``."""
        return template_vars(path, fullpath, None, task_vars)

    def resolve(self, name: str) -> LookupFunction:

        short = short_name(name)
        if short in LOOKUPS:
            return LOOKUPS[short]
        from engine.run.collection_lookups import engine_lookup, load_failure

        function = engine_lookup(name, self.collections)
        if function is not None:
            return function
        warning = load_failure(name, self.collections)
        if warning is not None and self.warn is not None:
            self.warn(warning)
        raise TemplateFailure(f"The lookup plugin {name!r} was not found.")

    def embedded_warning(self, templar: Templar) -> str:
        """The warning for a lookup term that embeds a template, placed at the variable holding it."""
        from engine.run.error_block import embedded_warning

        return embedded_warning(templar)

    def template_globals(self, templar_of: Callable[[], Templar]) -> dict[str, Callable[..., Any]]:
        """``lookup``, ``query`` and ``q`` for the Jinja context of the templar ``templar_of()`` gives."""
        return template_globals(templar_of, self)

    def invoke(self, templar: Templar, name: str, terms: list[Any], kwargs: dict[str, Any],
               invoked_as_with: bool = False) -> Any:
        return invoke(templar, self, name, terms, kwargs, invoked_as_with)


def task_context(role_path: str | None, task_file: str | None, basedir: str, action: str = "",
                 warn: Callable[..., None] | None = None, collections: Any = None) -> LookupContext:
    """``Task.get_search_path`` (the role's path, then the task file's directory) and the basedir."""
    return LookupContext(basedir=basedir, search_paths=search_paths(role_path, task_file), in_role=bool(role_path),
                         action=action, warn=warn, collections=collections)


# -- helpers (LookupBase) ---------------------------------------------------------------------
def _read_text(path: str) -> str:
    from engine.vault import NO_SECRETS, is_vaulted

    path = os.path.normpath(path)  # DataLoader reads the path_dwim of what it is given
    if is_vaulted(path):  # a file outside the directories declined before the run: no secrets here
        raise LookupFailure(NO_SECRETS)
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", errors="surrogateescape")
    except OSError as exc:
        raise LookupFailure(f"An error occurred while trying to read the file {path!r}: {exc}") from exc


# -- the lookups ------------------------------------------------------------------------------
def lookup_env(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    opts = _options(kwargs, {"default": ""}, "env")
    found = [os.environ.get(str(term).split()[0], opts["default"]) for term in terms]
    if getattr(call.templar, "_tagging", False):  # the plugin tags a value with its origin
        from engine.templating.tagged_retry import tagged_text

        return [tagged_text(value) for value in found]
    return found


def _shell(command: str, cwd: str) -> tuple[int, bytes]:
    proc = subprocess.run(command, cwd=cwd, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, check=False)
    return proc.returncode, proc.stdout


def lookup_pipe(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    ret = []
    for term in terms:
        term = str(term)
        rc, out = _shell(term, call.context.basedir)
        if rc != 0:
            raise LookupFailure(f"lookup_plugin.pipe({term}) returned {rc}")
        ret.append(out.decode("utf-8").rstrip())
    return ret


def lookup_lines(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    ret: list[Any] = []
    for term in terms:
        rc, out = _shell(term, call.context.basedir)
        if rc != 0:
            raise LookupFailure(f"lookup_plugin.lines({term}) returned {rc}")
        ret.extend(line.decode("utf-8") for line in out.splitlines())
    return ret


def lookup_random_choice(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    return [secrets.choice(terms)] if terms else terms


# (name, type, default, environment variable, ini key in [defaults]); the settings whose value the
# engine can tell without ansible's configuration manager.
_CONFIG: dict[str, tuple[str, Any, str, str]] = {
    "DEFAULT_TIMEOUT": ("integer", 10, "ANSIBLE_TIMEOUT", "timeout"),
    "DEFAULT_FORKS": ("integer", 5, "ANSIBLE_FORKS", "forks"),
    "DEFAULT_GATHERING": ("string", "implicit", "ANSIBLE_GATHERING", "gathering"),
    "DEFAULT_HASH_BEHAVIOUR": ("string", "replace", "ANSIBLE_HASH_BEHAVIOUR", "hash_behaviour"),
    "INJECT_FACTS_AS_VARS": ("boolean", True, "ANSIBLE_INJECT_FACT_VARS", "inject_facts_as_vars"),
    "HOST_KEY_CHECKING": ("boolean", True, "ANSIBLE_HOST_KEY_CHECKING", "host_key_checking"),
}


def lookup_config(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.config import config_value

    opts = _options(kwargs, {"on_missing": "error", "plugin_type": None, "plugin_name": None,
                             "show_origin": False}, "config")
    if opts["plugin_type"] or opts["plugin_name"]:
        if not (opts["plugin_type"] and opts["plugin_name"]):
            raise LookupFailure("Both plugin_type and plugin_name are required, cannot use one without the other.")
        raise LookupFailure("playbook-ls's engine cannot read plugin settings with the config lookup; "
                            "run with --engine ansible")
    ret: list[Any] = []
    for term in terms:
        if not isinstance(term, str):
            raise LookupFailure(f"Invalid setting identifier, {term!r} is not a {str}, its a {type(term)}.")
        if term not in _CONFIG:
            from engine.run.ansible_settings import SETTINGS

            if term in SETTINGS:
                raise LookupFailure(f"playbook-ls's engine knows only the settings {', '.join(sorted(_CONFIG))} "
                                    f"for the config lookup, not {term!r}; run with --engine ansible")
            undefined = f"No config definition exists for {term!r}."  # AnsibleUndefinedConfigEntry
            if opts["on_missing"] == "error":
                raise LookupFailure(undefined)
            if opts["on_missing"] == "warn" and call.context.warn is not None:
                call.context.warn(f"Skipping {term}: {undefined}")
            elif opts["on_missing"] not in ("skip", "warn"):
                raise LookupFailure(f"Invalid value {opts['on_missing']!r} for config 'on_missing' for 'config' "
                                    "lookup plugin.")
            continue
        kind, default, env, key = _CONFIG[term]
        raw = config_value(env, "defaults", key)
        origin = "default" if raw is None else (f"env: {env}" if env in os.environ else "ini")
        if raw is None:
            value = default
        elif kind == "integer":
            value = _integer(term, raw, "config")
        elif kind == "boolean":
            value = _bool_option(raw)
        else:
            value = raw
        ret.append([value, origin] if _bool_option(opts["show_origin"]) else value)
    return ret


_PASSWORD_PARAMS = frozenset(("length", "encrypt", "chars", "ident", "seed"))


def lookup_password(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.parsing.splitter import parse_kv

    base = _options(kwargs, {"length": 20, "encrypt": None, "chars": ["ascii_letters", "digits", ".,:-_"],
                             "ident": None, "seed": None}, "password")
    ret = []
    for term in terms:
        opts = dict(base)
        relpath, _, rest = str(term).partition(" ")
        if rest:
            params = parse_kv(rest)
            if "_raw_params" in params:
                relpath = " ".join((relpath, params.pop("_raw_params")))
                if not str(term).startswith(relpath):
                    raise LookupFailure("Unrecognized value after key=value parameters given to password lookup")
            invalid = set(params) - _PASSWORD_PARAMS
            if invalid:
                raise LookupFailure(f"Unrecognized parameter(s) given to password lookup: {', '.join(invalid)}")
            opts.update(params)
        if opts["encrypt"] or opts["ident"]:
            raise LookupFailure("playbook-ls's engine does not support encrypt/ident for the password lookup; "
                                "run with --engine ansible")
        chars = opts["chars"]
        if isinstance(chars, str):
            parts = [","] if ",," in chars else []
            parts.extend(c for c in chars.replace(",,", ",").split(",") if c)
            chars = parts
        candidates = "".join(str(getattr(string, str(spec), spec)) for spec in chars).replace('"', "").replace("'", "")
        length = _integer("length", opts["length"], "password")
        path = relpath if relpath.startswith(("/", "~")) else os.path.join(call.context.basedir, relpath)
        path = _unfrack(path)
        content = None
        if path != "/dev/null" and os.path.exists(path):
            with open(path, "rb") as handle:
                content = handle.read().rstrip().decode("utf-8", errors="surrogateescape")
        if content is None or path == "/dev/null":
            generator = random.SystemRandom() if opts["seed"] is None else random.Random(opts["seed"])
            password = "".join(generator.choice(candidates) for _ in range(length))
            if path != "/dev/null":
                os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
                with open(path, "wb") as handle:
                    os.chmod(path, 0o600)
                    handle.write(password.encode("utf-8", errors="surrogateescape") + b"\n")
        else:
            password = content.split(" salt=")[0] if " salt=" in content else content
        ret.append(password)
    return ret


def lookup_unvault(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    raise LookupFailure("playbook-ls's engine does not support vault; run with --engine ansible")



LOOKUPS: dict[str, LookupFunction] = {
    **PURE,
    **INVENTORY,
    "file": lookup_file,
    "template": lookup_template,
    "env": lookup_env,
    "fileglob": lookup_fileglob,
    "first_found": lookup_first_found,
    "lines": lookup_lines,
    "pipe": lookup_pipe,
    "config": lookup_config,
    "password": lookup_password,
    "random_choice": lookup_random_choice,
    "unvault": lookup_unvault,
    "ini": lookup_ini,
    "csvfile": lookup_csvfile,
    "url": lookup_url,
}

__all__ = ["LOOKUPS", "LookupContext", "task_context"]
