"""ansible.builtin lookups for a run: ``lookup()``, ``query()``/``q()`` and ``with_<lookup>`` loops.

One function per lookup plugin (``plugins/lookup/*.py`` of ansible-core 2.19), each
``fn(terms, kwargs, call) -> list`` with the plugin's semantics and messages, and ``invoke`` doing
what ``_invoke_lookup`` does around them: ``wantlist``, ``errors=strict|warn|ignore``, and joining a
list of strings with commas for ``lookup()``.

Lookups run on the controller whatever the check mode (``pipe`` runs its command, ``password``
writes its file, as ansible does). They are only reachable through a :class:`LookupContext`, which
the executor gives the templar of a task; a templar without one (the editor's variable report)
never runs a lookup.
"""

from __future__ import annotations

import glob
import itertools
import os
import random
import re
import secrets
import string
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, DecimalException
from typing import Any

# the task's templar (engine.templar.Templar, which is given this module's context): named, not imported
Templar = Any

CONSTANT_TEMPLATE = "__pls_lookup_constant_template"  # engine.templar's name for it


class LookupFailure(Exception):
    """What the plugin raises (AnsibleError); ``invoke`` words it as ansible does."""


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
    warn: Callable[[str], None] | None = None
    """Where ``errors='warn'`` reports a failure (the run's ``[WARNING]:`` lines)."""

    def template_globals(self, templar: Templar) -> dict[str, Callable[..., Any]]:
        """``lookup``, ``query`` and ``q`` for ``templar``'s Jinja context."""
        return template_globals(templar, self)

    def invoke(self, templar: Templar, name: str, terms: list[Any], kwargs: dict[str, Any],
               invoked_as_with: bool = False) -> Any:
        return invoke(templar, self, name, terms, kwargs, invoked_as_with)


@dataclass
class Call:
    templar: Templar
    context: LookupContext
    name: str
    invoked_as_with: bool = False


def task_context(role_path: str | None, task_file: str | None, basedir: str, action: str = "",
                 warn: Callable[[str], None] | None = None) -> LookupContext:
    """``Task.get_search_path`` (the role's path, then the task file's directory) and the basedir."""
    paths = [role_path] if role_path else []
    if task_file:
        paths.append(os.path.dirname(task_file))
    return LookupContext(basedir=basedir, search_paths=list(dict.fromkeys(paths)), in_role=bool(role_path),
                         action=action, warn=warn)


# -- helpers (LookupBase) ---------------------------------------------------------------------
def _flatten(terms: Sequence[Any]) -> list[Any]:
    flat: list[Any] = []
    for term in terms:
        flat.extend(term) if isinstance(term, (list, tuple)) else flat.append(term)
    return flat


def _unfrack(path: str) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(path))))


def find_file(ctx: LookupContext, subdir: str | None, needle: str) -> str | None:
    """``DataLoader.path_dwim_relative_stack`` over ``ansible_search_path`` then the basedir."""
    if needle is None:
        return None
    if needle.startswith(("~", os.path.sep)):
        path = _unfrack(needle)
        return path if os.path.exists(path) else None
    candidates: list[str] = []
    add_subdir = subdir and needle.split("/")[0] != subdir
    for path in [*(ctx.search_paths or [ctx.basedir])]:
        upath = _unfrack(path)
        parent = os.path.dirname(upath)
        if ctx.in_role and parent.endswith("/tasks"):
            candidates += [os.path.join(os.path.dirname(parent), subdir or "", needle), os.path.join(parent, needle)]
        if add_subdir:
            candidates.append(os.path.join(upath, subdir or "", needle))
        candidates.append(os.path.join(upath, needle))
    if add_subdir:
        candidates.append(os.path.join(ctx.basedir, subdir or "", needle))
    candidates.append(os.path.join(ctx.basedir, needle))
    return next((c for c in candidates if os.path.exists(c)), None)


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", errors="surrogateescape")
    except OSError as exc:
        raise LookupFailure(f"An error occurred while trying to read the file '{path}': {exc}") from exc


def _options(kwargs: Mapping[str, Any], known: Mapping[str, Any], name: str) -> dict[str, Any]:
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise LookupFailure(f"Unsupported parameters for ({name}) lookup: {', '.join(unknown)}")
    return {**known, **kwargs}


def _bool_option(value: Any) -> bool:
    from engine.booleans import boolean

    return boolean(value)


# -- the lookups ------------------------------------------------------------------------------
def lookup_file(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    opts = _options(kwargs, {"lstrip": False, "rstrip": True}, "file")
    ret = []
    for term in terms:
        path = find_file(call.context, "files", term)
        try:
            if not path:
                raise LookupFailure("File not found. Use -vvvvv to see paths searched.")
            contents = _read_text(path)
        except LookupFailure as exc:
            raise LookupFailure(f"Unable to access the file {term!r}: {exc}") from exc
        if _bool_option(opts["lstrip"]):
            contents = contents.lstrip()
        if _bool_option(opts["rstrip"]):
            contents = contents.rstrip()
        ret.append(contents)
    return ret


def lookup_template(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    defaults = {"convert_data": True, "template_vars": {}, "jinja2_native": False, "variable_start_string": "{{",
                "variable_end_string": "}}", "comment_start_string": "{#", "comment_end_string": "#}",
                "trim_blocks": True}
    opts = _options(kwargs, defaults, "template")
    custom = [k for k in ("variable_start_string", "variable_end_string", "comment_start_string",
                          "comment_end_string") if opts[k] != defaults[k]]
    if custom:
        raise LookupFailure(f"playbook-ls's engine does not support {', '.join(custom)} for the template lookup; "
                            "run with --engine ansible")
    if not isinstance(opts["template_vars"], Mapping):
        raise LookupFailure("template_vars must be a dictionary")
    ret = []
    for term in terms:
        path = find_file(call.context, "templates", term)
        if not path:
            raise LookupFailure(f"the template file {term} could not be found for the lookup")
        text = _read_text(path)
        extra = {"template_path": term, "template_fullpath": os.path.abspath(path),
                 "template_host": os.uname().nodename, "template_uid": _owner(path), **opts["template_vars"]}
        ret.append(call.templar.child(extra).render_text(text, trim_blocks=_bool_option(opts["trim_blocks"])))
    return ret


def _owner(path: str) -> str:
    import pwd

    uid = os.stat(path).st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def lookup_env(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    opts = _options(kwargs, {"default": ""}, "env")
    return [os.environ.get(str(term).split()[0], opts["default"]) for term in terms]


def lookup_fileglob(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    ret: list[Any] = []
    for term in terms:
        term_file = os.path.basename(term)
        if term_file != term:
            found = [find_file(call.context, "files", os.path.dirname(term))]
        else:
            found = []
            for path in call.context.search_paths or [call.context.basedir]:
                found += [os.path.join(path, "files"), path]
        for directory in found:
            if directory:
                hits = [g for g in glob.glob(os.path.join(directory, term_file)) if os.path.isfile(g)]
                if hits:
                    ret.extend(hits)
                    break
    return ret


def _split_on(terms: Any, splitters: str) -> list[str]:
    if isinstance(terms, str):
        return re.split("[" + "".join(map(re.escape, splitters)) + "]", terms)
    out: list[str] = []
    for term in terms:
        out.extend(_split_on(term, splitters))
    return out


def lookup_first_found(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from jinja2 import Undefined

    opts = _options(kwargs, {"files": [], "paths": [], "skip": False}, "first_found")
    if call.invoked_as_with:
        terms = [t for t in terms if not isinstance(t, Undefined)]
        subdir = next((s for s in ("template", "var", "file") if s in call.context.action), "file") + "s"
    else:
        subdir = None
    if not terms:
        terms = opts["files"]

    def process(items: Sequence[Any]) -> list[str]:
        search: list[str] = []
        for term in items:
            paths = opts["paths"]
            if isinstance(term, Mapping):
                unknown = sorted(set(term) - {"files", "paths", "skip"})
                if unknown:
                    raise LookupFailure(f"Unsupported parameters for (first_found) lookup: {', '.join(unknown)}")
                files, paths = term.get("files", opts["files"]), term.get("paths", opts["paths"])
            elif isinstance(term, str):
                files = [term]
            elif isinstance(term, Sequence):
                search.extend(process(term))
                continue
            else:
                raise LookupFailure("Invalid term supplied. A string, dict or list is required, not "
                                    f"{type(term).__name__!r}).")
            filelist = _split_on(files, ",;")
            pathlist = _split_on(paths, ",:;")
            search.extend([os.path.join(p, f) for p in pathlist for f in filelist] if pathlist else filelist)
        return search

    for name in process(terms):
        path = find_file(call.context, subdir, name)
        if path is not None:
            return [os.path.normpath(os.path.abspath(os.path.expanduser(path)))]
    if _bool_option(opts["skip"]):
        return []
    raise LookupFailure("No file was found when using first_found.")


def lookup_vars(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.template_errors import TemplateFailure

    opts = _options(kwargs, {"default": None}, "vars")
    variables = call.templar.variables
    ret = []
    for term in terms:
        if not isinstance(term, str):
            raise LookupFailure(f"Variable name must be 'str' not {type(term).__name__!r}.")
        if term in variables:
            ret.append(variables[term])
        elif opts["default"] is None:
            raise TemplateFailure(f"No variable named {term!r} was found.")  # an undefined value, not a failure
        else:
            ret.append(opts["default"])
    return ret


def lookup_items(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    return _flatten(terms)


def lookup_list(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    return terms


def lookup_dict(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    results: list[Any] = []
    for term in terms:
        if not isinstance(term, Mapping):
            raise LookupFailure(f"the 'dict' lookup plugin expects a dictionary, got '{term}' of type {type(term)})")
        results.extend({"key": k, "value": v} for k, v in term.items())
    return results


_NUM = "(0?x?[0-9a-f]+)"
_SHORTCUT = re.compile("^(" + _NUM + "-)?" + _NUM + "(/" + _NUM + ")?" + "(:(.+))?$", re.IGNORECASE)
_FIELDS = ("start", "end", "stride", "count", "format")


def _integer(name: str, value: Any, plugin: str = "sequence") -> int:
    if isinstance(value, int):
        return int(value)
    try:
        number = Decimal(str(value))
        if number == int(number):
            return int(number)
    except (DecimalException, ValueError):
        pass
    raise LookupFailure(f"Config {name!r} for {plugin!r} lookup plugin from 'Direct' has an invalid value: "
                        f"Invalid value provided for 'integer': {value!r}")


def lookup_sequence(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.splitter import parse_kv

    defaults = {"start": 1, "end": None, "stride": 1, "count": None, "format": "%d"}
    _options(kwargs, defaults, "sequence")
    results: list[Any] = []
    if kwargs and not terms:
        terms = [""]
    for term in terms:
        opts = {**defaults, **kwargs}
        match = _SHORTCUT.match(term)
        if match:
            _, start, end, _, stride, _, fmt = match.groups()
            for key, value in (("start", start), ("end", end), ("stride", stride), ("format", fmt)):
                if value is not None:
                    opts[key] = value
        else:
            try:
                args = parse_kv(term)
            except Exception as exc:  # noqa: BLE001
                raise LookupFailure(f"unknown error parsing with_sequence arguments: {term!r}. "
                                    f"Error was: {exc}") from exc
            for key in _FIELDS:
                if args.get(key) is not None:
                    opts[key] = args.pop(key)
                else:
                    args.pop(key, None)
            if args:
                raise LookupFailure(f"unrecognized arguments to with_sequence: {list(args.keys())}")
        start, stride = _integer("start", opts["start"]), _integer("stride", opts["stride"])
        end = None if opts["end"] is None else _integer("end", opts["end"])
        count = None if opts["count"] is None else _integer("count", opts["count"])
        fmt = str(opts["format"])
        if count is None and end is None:
            raise LookupFailure("must specify count or end in with_sequence")
        if count is not None and end is not None:
            raise LookupFailure("can't specify both count and end in with_sequence")
        if count is not None:
            if count == 0:
                continue
            end = start + count * stride - 1
        assert end is not None
        if stride > 0 and end < start:
            raise LookupFailure("to count backwards make stride negative")
        if stride < 0 and end > start:
            raise LookupFailure("to count forward don't make stride negative")
        if stride == 0:
            continue
        if fmt.count("%") != 1:
            raise LookupFailure(f"bad formatting string: {fmt}")
        for i in range(start, end + (1 if stride >= 0 else -1), stride):
            try:
                results.append(fmt % i)
            except (ValueError, TypeError) as exc:
                raise LookupFailure(f"problem formatting {i!r} with {fmt!r}") from exc
    return results


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


def lookup_together(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    if not terms:
        raise LookupFailure("with_together requires at least one element in each list")
    return [_flatten(x) for x in itertools.zip_longest(*terms, fillvalue=None)]


def lookup_nested(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    lists = list(reversed(terms))
    if not lists:
        raise LookupFailure("with_nested requires at least one element in the nested list")
    result = lists.pop()
    while lists:
        following = lists.pop()
        result = [_flatten([x, y]) for x in result for y in following]
    return [_flatten(x) for x in result]


def lookup_subelements(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    def terms_error(msg: str = "") -> LookupFailure:
        return LookupFailure("subelements lookup expects a list of two or three items, " + msg)

    if not isinstance(terms, list) or not 2 <= len(terms) <= 3:
        raise terms_error()
    if not isinstance(terms[0], (list, dict)) or not isinstance(terms[1], str):
        raise terms_error("first a dict or a list, second a string pointing to the subkey")
    subelements = terms[1].split(".")
    if isinstance(terms[0], dict):
        if terms[0].get("skipped", False) is not False:
            return []
        elementlist = list(terms[0].values())
    else:
        elementlist = terms[0]
    flags = terms[2] if len(terms) == 3 else {}
    if not isinstance(flags, dict) and not all(isinstance(k, str) and k == "skip_missing" for k in flags):
        raise terms_error("the optional third item must be a dict with flags ('skip_missing',)")
    ret: list[Any] = []
    for item0 in elementlist:
        if not isinstance(item0, dict):
            raise LookupFailure(f"subelements lookup expects a dictionary, got '{item0}'")
        if item0.get("skipped", False) is not False:
            continue
        item0 = dict(item0)  # the plugin pops the subkey from (a copy of) the item
        skip_missing = _bool_option(flags.get("skip_missing", False))
        subvalue = item0
        sublist: list[Any] = []
        for position, subkey in enumerate(subelements):
            last = subkey == subelements[-1] or position == len(subelements) - 1
            if subkey not in subvalue:
                if skip_missing:
                    continue
                raise LookupFailure(f"could not find '{subkey}' key in iterated item '{subvalue}'")
            if not last:
                if not isinstance(subvalue[subkey], dict):
                    if skip_missing:
                        continue
                    raise LookupFailure(f"the key {subkey} should point to a dictionary, got '{subvalue[subkey]}'")
                subvalue = subvalue[subkey] = dict(subvalue[subkey])
            else:
                if not isinstance(subvalue[subkey], list):
                    raise LookupFailure(f"the key {subkey} should point to a list, got '{subvalue[subkey]}'")
                sublist = subvalue.pop(subkey, [])
        ret.extend([item0, item1] for item1 in sublist)
    return ret


def lookup_indexed_items(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    items = _flatten(terms)
    return [[index, item] for index, item in enumerate(items)]


def lookup_varnames(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    names = list(call.templar.variables.keys())
    ret: list[Any] = []
    for term in terms:
        if not isinstance(term, str):
            raise LookupFailure(f'Invalid setting identifier, "{term}" is not a string, it is a {type(term)}')
        try:
            pattern = re.compile(term)
        except re.error as exc:
            raise LookupFailure(f'Unable to use "{term}" as a search parameter: {exc}') from exc
        ret.extend(name for name in names if pattern.search(name))
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
    from engine.splitter import parse_kv

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


LookupFunction = Callable[[list[Any], dict[str, Any], Call], list[Any]]

LOOKUPS: dict[str, LookupFunction] = {
    "file": lookup_file,
    "template": lookup_template,
    "env": lookup_env,
    "fileglob": lookup_fileglob,
    "first_found": lookup_first_found,
    "vars": lookup_vars,
    "items": lookup_items,
    "list": lookup_list,
    "dict": lookup_dict,
    "sequence": lookup_sequence,
    "lines": lookup_lines,
    "pipe": lookup_pipe,
    "together": lookup_together,
    "nested": lookup_nested,
    "subelements": lookup_subelements,
    "indexed_items": lookup_indexed_items,
    "varnames": lookup_varnames,
    "config": lookup_config,
    "password": lookup_password,
    "random_choice": lookup_random_choice,
    "unvault": lookup_unvault,
}

_PREFIXES = ("ansible.builtin.", "ansible.legacy.")
# ansible-core lookups this engine does not implement (they reach other systems or files it does
# not parse); a run that uses one fails with a hint rather than "not found".
REFUSED = frozenset({"csvfile", "ini", "inventory_hostnames", "url"})


def resolve(name: str) -> LookupFunction:
    from engine.template_errors import TemplateFailure

    short = name
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            short = name[len(prefix):]
    if short in LOOKUPS:
        return LOOKUPS[short]
    if short in REFUSED:
        raise TemplateFailure(f"playbook-ls's engine has no lookup {name!r}; run with --engine ansible")
    raise TemplateFailure(f"The lookup plugin {name!r} was not found.")


def invoke(templar: Templar, context: LookupContext, name: str, terms: list[Any], kwargs: dict[str, Any],
           invoked_as_with: bool = False) -> Any:
    """``_invoke_lookup``: run the plugin, handle ``errors`` and shape the result for ``wantlist``."""
    from jinja2 import Undefined

    from engine.template_errors import TemplateFailure

    function = resolve(name)
    if function is not lookup_first_found:  # first_found accepts undefined terms (with_: drops them)
        for value in [*terms, *kwargs.values()]:
            if isinstance(value, Undefined):
                value._fail_with_undefined_error()
    kwargs = dict(kwargs)
    wantlist = kwargs.pop("wantlist", False)
    errors = kwargs.pop("errors", "strict")
    try:
        result = function(list(terms), kwargs, Call(templar, context, name, invoked_as_with))
    except TemplateFailure:
        raise
    except Exception as exc:  # noqa: BLE001 - any error of the plugin is the lookup's failure
        message = str(exc) if isinstance(exc, LookupFailure) else f"{type(exc).__name__}: {exc}"
        if errors not in ("warn", "ignore"):
            raise TemplateFailure(f"The lookup plugin {name!r} failed: {message}") from exc
        if errors == "warn" and context.warn is not None:
            context.warn(f"An error occurred while running the lookup plugin {name!r}: {message}")
        return [] if wantlist else None
    if not wantlist and result:
        if len(result) == 1:
            return result[0]
        if all(isinstance(item, str) for item in result):
            return ",".join(result)
    return result


def template_globals(templar: Templar, context: LookupContext) -> dict[str, Callable[..., Any]]:
    """``lookup``, ``query`` and ``q`` for a templar's Jinja context."""
    def lookup(name: str, *terms: Any, **kwargs: Any) -> Any:
        return invoke(templar, context, name, list(terms), kwargs)

    def query(name: str, *terms: Any, **kwargs: Any) -> Any:
        return invoke(templar, context, name, list(terms), {**kwargs, "wantlist": True})

    def constant_template(text: str) -> Any:
        if context.warn is not None:
            context.warn("Jinja constant strings should not contain embedded templates. This feature will be "
                         "disabled by default in ansible-core 2.23.")
        return templar.template(text)

    return {"lookup": lookup, "query": query, "q": query, CONSTANT_TEMPLATE: constant_template}


__all__ = ["LOOKUPS", "LookupContext", "LookupFailure", "invoke", "task_context", "template_globals"]
