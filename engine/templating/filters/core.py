"""More of ansible-core's own filters (``ansible.builtin``): those real roles use most that the
engine lacked (bench/role_usage.py counts them), ported from ``plugins/filter/core.py`` and
``mathstuff.py``: ``to_uuid``, ``subelements``, ``product`` and the other ``itertools`` ones,
``regex_escape``, ``sha1``, ``md5``, ``log``, ``pow``, ``root``, ``strftime``, ``to_datetime``, ``extract``,
``comment``, ``groupby`` (its groups of a type of their own), ``path_join``, ``commonpath``, ``normpath``,
``win_splitdrive``, ``urldecode``, ``urlsplit`` (``urls.py``, ``urlsplit.py``) and ``human_to_bytes`` /
``human_readable`` (``sizes.py``);
and every builtin filter the engine has under its ``ansible.builtin.`` name too.
"""

from __future__ import annotations

import itertools
import math
import ntpath
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Any, NamedTuple
from urllib.parse import unquote_plus

from jinja2 import Environment, Undefined, pass_environment

from engine.templating.errors import PluginFailure, SeparateFailure, TemplateFailure
from engine.templating.filters import community_general, yaml_text
from engine.templating.filters.paths_and_sets import _on_text
from engine.templating.filters.sizes import human_readable, human_to_bytes
from engine.templating.plugin_names import ansible_worded

UUID_NAMESPACE_ANSIBLE = "361E6D51-FAEC-444A-9079-341386DA8E2E"

# ansible-core's builtin filters (plugins/filter): the names that also answer as ansible.builtin.NAME
ANSIBLE_BUILTIN = frozenset({
    "b64decode", "b64encode", "basename", "bool", "checksum", "combinations", "combine", "comment", "commonpath",
    "d", "default", "dict2items", "difference", "dirname", "expanduser", "expandvars", "extract", "fileglob",
    "flatten", "from_json", "from_yaml", "from_yaml_all", "groupby", "hash", "human_readable", "human_to_bytes",
    "intersect", "items2dict", "log", "mandatory", "map", "md5", "normpath", "password_hash", "path_join",
    "permutations", "pow", "product", "quote", "random", "realpath", "regex_escape", "regex_findall",
    "regex_replace", "regex_search", "reject", "rejectattr", "rekey_on_member", "relpath", "root", "select",
    "selectattr", "sha1", "shuffle", "split", "splitext", "strftime", "subelements", "symmetric_difference",
    "ternary", "to_datetime", "to_json", "to_nice_json", "to_nice_yaml", "to_uuid", "to_yaml", "type_debug",
    "union", "unique", "unvault", "urldecode", "urlsplit", "vault", "win_basename", "win_dirname", "win_splitdrive",
    "zip", "zip_longest",
})


def to_uuid(string: Any, namespace: Any = UUID_NAMESPACE_ANSIBLE) -> str:
    import uuid  # here: importing it costs every run a few milliseconds

    if not isinstance(namespace, uuid.UUID):
        try:
            namespace = uuid.UUID(namespace)
        except (AttributeError, ValueError) as exc:
            raise SeparateFailure(f"Invalid value '{namespace}' for 'namespace': {exc}") from exc
    return str(uuid.uuid5(namespace, str(string)))


def regex_escape(string: Any, re_type: str = "python") -> str:
    text = str(string)
    if re_type == "python":
        return re.escape(text)
    if re_type == "posix_basic":
        return re.sub(r"([].[^$*\\])", r"\\\1", text)
    if re_type == "posix_extended":
        raise TemplateFailure(f"Regex type ({re_type}) not yet implemented")
    raise TemplateFailure(f"Invalid regex type ({re_type})")


def _hash(kind: str) -> Callable[[Any], str]:
    def digest(data: Any) -> str:
        import hashlib

        return hashlib.new(kind, str(data).encode("utf-8", "surrogateescape")).hexdigest()

    return digest


def subelements(obj: Any, subelements: Any, skip_missing: bool = False) -> list[tuple[Any, Any]]:
    if isinstance(obj, Mapping):
        elements = list(obj.values())
    elif isinstance(obj, list):
        elements = obj[:]
    else:
        raise TemplateFailure("obj must be a list of dicts or a nested dict")
    if isinstance(subelements, list):
        path = subelements[:]
    elif isinstance(subelements, str):
        path = subelements.split(".")
    else:
        raise TemplateFailure("subelements must be a list or a string")
    results = []
    for element in elements:
        values = element
        for key in path:
            try:
                values = values[key]
            except KeyError as exc:
                if skip_missing:
                    values = []
                    break
                raise SeparateFailure(f"could not find {key!r} key in iterated item {values!r}") from exc
            except TypeError as exc:
                raise TemplateFailure(f"the key {key} should point to a dictionary, got '{values}'") from exc
        if not isinstance(values, list):
            raise TemplateFailure(f"the key {key!r} should point to a list, got {values!r}")
        results += [(element, value) for value in values]
    return results


def logarithm(x: Any, base: float = math.e) -> float:
    try:
        return math.log10(x) if base == 10 else math.log(x, base)
    except TypeError as exc:
        raise TemplateFailure("log() can only be used on numbers") from exc


def power(x: Any, y: Any) -> float:
    try:
        return math.pow(x, y)
    except TypeError as exc:
        raise TemplateFailure("pow() can only be used on numbers") from exc


def inversepower(x: Any, base: float = 2) -> float:
    try:
        return math.sqrt(x) if base == 2 else math.pow(x, 1.0 / float(base))
    except (ValueError, TypeError) as exc:
        raise TemplateFailure("root() can only be used on numbers") from exc


def strftime(string_format: Any, second: Any = None, utc: Any = False) -> str:
    timefn = time.gmtime if utc else time.localtime
    if second is not None:
        try:
            second = float(second)
        except Exception as exc:  # noqa: BLE001 - any value float() refuses, as ansible's filter
            raise SeparateFailure(f"Invalid value for epoch value ({second})") from exc
    return time.strftime(string_format, timefn(second))


def to_datetime(string: Any, format: Any = "%Y-%m-%d %H:%M:%S") -> Any:  # noqa: A002 - ansible's argument name
    """A ``datetime`` read with ``strptime`` (templates subtract them, ``.days``)."""
    import datetime

    try:
        return datetime.datetime.strptime(string, format)
    except (TypeError, ValueError) as exc:
        raise TemplateFailure(str(exc)) from exc


COMMENT_STYLES: dict[str, dict[str, str]] = {
    "plain": {"decoration": "# "},
    "erlang": {"decoration": "% "},
    "c": {"decoration": "// "},
    "cblock": {"beginning": "/*", "decoration": " * ", "end": " */"},
    "xml": {"beginning": "<!--", "decoration": " - ", "end": "-->"},
}


def comment(text: Any, style: Any = "plain", **kw: Any) -> str:
    """``text`` as a comment block of ``style``, every part overridable (``decoration``,
    ``beginning``, ``prefix``, ``prefix_count``, ``postfix``, ``postfix_count``, ``end``,
    ``newline``), as ansible-core's filter composes it."""
    if style not in COMMENT_STYLES:
        raise SeparateFailure(f"Invalid style {style!r}.", help=f"Available styles: {', '.join(COMMENT_STYLES)}",
                              obj=style, has_obj=True)
    style_params = COMMENT_STYLES[style]
    prepostfix = kw["decoration"] if "decoration" in kw else style_params["decoration"]
    p: dict[str, Any] = {"newline": "\n", "beginning": "", "prefix": prepostfix.rstrip(), "prefix_count": 1,
                         "decoration": "", "postfix": prepostfix.rstrip(), "postfix_count": 1, "end": ""}
    p.update(style_params)
    p.update(kw)
    newline, decoration = p["newline"], p["decoration"]
    beginning = f"{p['beginning']}{newline}" if p["beginning"] else ""
    prefix = ""
    if p["prefix"]:
        prefix = (f"{p['prefix']}{newline}" if p["prefix"] != newline else f"{newline}") * int(p["prefix_count"])
    body = (f"{decoration}" + text.replace(newline, f"{newline}{decoration}")).replace(
        f"{decoration}{newline}", f"{decoration.rstrip()}{newline}")  # no trailing spaces on a bare decoration
    postfix = newline.join([""] + [p["postfix"] for _ in range(p["postfix_count"])])
    end = f"{newline}{p['end']}" if p["end"] else ""
    return f"{beginning}{prefix}{body}{postfix}{end}"


@pass_environment
def extract(environment: Environment, item: Any, container: Any, morekeys: Any = None) -> Any:
    """``container[item]``, then each of ``morekeys`` into that; a missing key gives the undefined
    value the first missing one made (ansible keeps a Marker's source)."""
    for argument in (item, container, morekeys):  # a plugin trips over an undefined argument first
        if isinstance(argument, Undefined):
            argument._fail_with_undefined_error()
    keys = [item] if morekeys is None else [item, *morekeys] if isinstance(morekeys, list) else [item, morekeys]
    value = container
    for key in keys:
        if isinstance(value, Undefined):
            break
        value = environment.getitem(value, key)
    return value


def _plugin(name: str, function: Callable[..., Any], kind: str = "filter",
            plugin: str | None = None) -> Callable[..., Any]:
    """A failure as ansible reports any filter plugin's (``AnsibleTemplatePluginRuntimeError``): an
    error the port raises ``from`` another has that one's message after its own, as ansible's
    chain of direct causes gives it; a :class:`SeparateFailure` stays apart. A filter
    taking Jinja's environment first still gets it. ``plugin``: its full name, when not
    ``ansible.builtin.NAME``."""
    @wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except (TemplateFailure, TypeError, ValueError) as exc:
            message, separate = ansible_worded(str(exc), function, name, kind), \
                exc if isinstance(exc, SeparateFailure) else None
            cause = None if separate else exc.__cause__
            if cause is not None and not message.endswith(str(cause)):
                message = f"{message.rstrip('. ')}: {cause}"
            raise PluginFailure(plugin or f"ansible.builtin.{name}", message, separate, kind) from exc

    return call


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def path_join(paths: Any) -> str:
    if isinstance(paths, str):
        return os.path.join(paths)
    if _is_sequence(paths):
        return os.path.join(*paths)
    raise TypeError(f"|path_join expects string or sequence, got {type(paths)} instead.")


def commonpath(paths: Any) -> str:
    if not _is_sequence(paths):
        raise TypeError(f"|commonpath expects sequence, got {type(paths)} instead.")
    return os.path.commonpath(paths)


def split_url(value: Any, query: str = "", alias: str = "urlsplit") -> Any:
    """``urlsplit``: the parts ``helpers.object_to_dict`` takes of the split URL, or one of them."""
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    results = {key: getattr(parts, key) for key in dir(parts)
               if not (key.startswith("_") or key in ("count", "index", "geturl", "encode"))}
    if query:
        if query not in results:
            raise ValueError(alias + f": unknown URL component: {query}")
        return results[query]
    return results


FILTERS: dict[str, Callable[..., Any]] = {name: _plugin(name, function) for name, function in {
    "to_uuid": to_uuid,
    "regex_escape": regex_escape,
    "sha1": _hash("sha1"),
    "md5": _hash("md5"),
    "subelements": subelements,
    "product": itertools.product,
    "permutations": itertools.permutations,
    "combinations": itertools.combinations,
    "zip_longest": itertools.zip_longest,
    "log": logarithm,
    "pow": power,
    "root": inversepower,
    "strftime": strftime,
    "to_datetime": to_datetime,
    "extract": extract,
    "comment": comment,
    "human_to_bytes": human_to_bytes,
    "human_readable": human_readable,
    "path_join": path_join,
    "commonpath": commonpath,
    "normpath": _on_text(os.path.normpath),
    "win_splitdrive": _on_text(ntpath.splitdrive),
    "urldecode": unquote_plus,
    "urlsplit": split_url,
}.items()}


class GroupTuple(NamedTuple):
    """What ansible's ``groupby`` makes of each of Jinja's groups (a type of its own, which a
    template's result converts to a list with a warning)."""

    grouper: Any
    list: Any

    def __repr__(self) -> str:
        return tuple.__repr__(self)


@pass_environment
def groupby(environment: Any, value: Any, attribute: str | int, default: Any = None,
            case_sensitive: bool = False) -> Any:
    """ansible's groupby does not accept lazy markers: an item without the attribute ends it
    (its result is that undefined value) before Jinja's ``default`` could stand in for it."""
    from jinja2.filters import sync_do_groupby

    from engine.templating.markers import markers_raised

    return markers_raised(lambda: [GroupTuple(group.grouper, group.list) for group in
                                   sync_do_groupby(environment, value, attribute, default, case_sensitive)])


FILTERS["groupby"] = groupby
FILTERS.update({name: _plugin(name, function) for name, function in yaml_text.FILTERS.items()})
FILTERS.update({f"{community_general.PREFIX}{name}": _plugin(name, function, plugin=f"{community_general.PREFIX}{name}")
                for name, function in community_general.FILTERS.items()})


def with_builtin_names(filters: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """``filters`` and, for those of ansible-core, the same under ``ansible.builtin.``."""
    return {**filters, **{f"ansible.builtin.{name}": f for name, f in filters.items() if name in ANSIBLE_BUILTIN}}
