"""The Jinja filters a playbook's tasks use that the bundled engine lacks, found before anything
runs: a template that names one would fail its task halfway through the run ("No filter
named ..."), where ansible-playbook (with the collection installed) runs it. The plan lists
them as it lists missing modules, so that a run refuses them up front and ``--engine auto``
hands the playbook to ansible-playbook, with the reason.

Filters are found by Jinja's own parser (a ``|`` inside a string literal is no filter), in the
task's arguments and keywords and in its bare conditions (``when``, ``changed_when``,
``failed_when``, ``until``), which are templates too; in the play's ``vars``; in the defaults and
vars of every role the play uses (its files as the role entry chose them: ``defaults_from``, ``vars_from``), which are
templated when a task uses them; and in the template file of each ``template`` task whose ``src``
is written out, looked up as the module looks it up. A default or template the run never
renders is looked into all the same: handing such a playbook to ansible-playbook costs time, a
filter missing halfway through a run costs the run.

A name that neither tool has is not one of them: ansible-playbook fails the template that names it
with "No filter named ..." as the engine does, and the run goes on alike. That is a short name
with no filter plugin directory ansible reads (``filter_plugins`` beside a playbook or in a role,
the configured ``filter_plugins`` path) and no such filter in ansible-core, or one ansible-core
redirects to a collection that is not installed where ansible-playbook looks (``ipaddr`` to
ansible.netcommon, ``json_query`` to community.general); and a collection's ``NS.COLL.NAME``
whose collection is not installed there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from engine.loading.model import Playbook, RoleInstance, Task
from engine.span import Span, YMap, YSeq
from engine.values import strings

if TYPE_CHECKING:
    from engine.parsing.source import SourceCache
    from engine.plugins.collection_search import CollectionFinder

CONDITION_KEYWORDS = ("when", "changed_when", "failed_when", "until")
# ansible-core 2.19's filters (its plugins and Jinja's own) and the short names its runtime.yml
# redirects to a collection: one of these the engine lacks may run in ansible-playbook
CORE_FILTERS = frozenset({
    "abs", "attr", "b64decode", "b64encode", "basename", "batch", "bool", "capitalize", "center", "checksum",
    "combinations", "combine", "comment", "commonpath", "count", "d", "default", "dict2items", "dictsort",
    "difference", "dirname", "e", "escape", "expanduser", "expandvars", "extract", "fileglob", "filesizeformat",
    "first", "flatten", "float", "forceescape", "format", "from_json", "from_yaml", "from_yaml_all", "groupby",
    "hash", "human_readable", "human_to_bytes", "indent", "int", "intersect", "items", "items2dict", "join", "last",
    "length", "list", "log", "lower", "mandatory", "map", "max", "md5", "min", "normpath", "password_hash",
    "path_join", "permutations", "pow", "pprint", "product", "quote", "random", "realpath", "regex_escape",
    "regex_findall", "regex_replace", "regex_search", "reject", "rejectattr", "rekey_on_member", "relpath",
    "replace", "reverse", "root", "round", "safe", "select", "selectattr", "sha1", "shuffle", "slice", "sort",
    "split", "splitext", "strftime", "string", "striptags", "subelements", "sum", "symmetric_difference",
    "ternary", "title", "to_datetime", "to_json", "to_nice_json", "to_nice_yaml", "to_uuid", "to_yaml", "tojson",
    "trim", "truncate", "type_debug", "union", "unique", "unvault", "upper", "urldecode", "urlencode", "urlize",
    "urlsplit", "vault", "win_basename", "win_dirname", "win_splitdrive", "wordcount", "wordwrap", "xmlattr", "zip",
    "zip_longest",
})
# the short names ansible-core's runtime.yml redirects to a collection, with that collection: the
# filter is there only when the collection is installed where ansible-playbook looks
ROUTED_FILTERS = {
    "formerly_core_filter": "ansible.builtin", "formerly_core_masked_filter": "ansible.builtin",
    "gcp_kms_encrypt": "google.cloud", "gcp_kms_decrypt": "google.cloud", "json_query": "community.general",
    "random_mac": "community.general", "k8s_config_resource_name": "kubernetes.core",
    **dict.fromkeys((
        "cidr_merge", "ipaddr", "ipmath", "ipwrap", "ip4_hex", "ipv4", "ipv6", "ipsubnet", "next_nth_usable",
        "network_in_network", "network_in_usable", "reduce_on_network", "nthhost", "previous_nth_usable", "slaac",
        "hwaddr", "parse_cli", "parse_cli_textfsm", "parse_xml", "type5_pw", "hash_salt", "comp_type5",
        "vlan_parser"), "ansible.netcommon"),
}
DEFAULT_FILTER_PATHS = ("~/.ansible/plugins/filter", "/usr/share/ansible/plugins/filter")


def _parser() -> Any:
    from engine.templating.templar import parsing_environment

    return parsing_environment()


@lru_cache(maxsize=4096)
def template_filter_lines(text: str) -> tuple[tuple[str, int], ...]:
    """Each filter ``text``'s templates use with its line (1-based), in order; none when it is no
    valid template."""
    if "|" not in text or ("{{" not in text and "{%" not in text):  # no filter: not worth parsing
        return ()
    from jinja2 import TemplateSyntaxError, nodes

    try:
        tree = _parser().parse(text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return ()
    return tuple((node.name, node.lineno) for node in tree.find_all(nodes.Filter))


def template_filters(text: str) -> tuple[str, ...]:
    """The filter names ``text``'s templates use, in order; none when it is no valid template."""
    return tuple(name for name, _line in template_filter_lines(text))


@cache
def engine_filters() -> frozenset[str]:
    """Every filter name the engine's templates know (Jinja's own included)."""
    from engine.templating.jinja_environment import build_environment

    return frozenset(build_environment(False).filters)


def spanned_strings(value: Any, span: Span | None) -> Iterator[tuple[str, Span | None]]:
    """The strings of a loaded YAML value, each with the span of the value it is."""
    if isinstance(value, str):
        yield value, span
    elif isinstance(value, Mapping):
        spans = value.value_spans if isinstance(value, YMap) else {}
        for key, item in value.items():
            yield from spanned_strings(item, spans.get(key, span))
    elif isinstance(value, list):
        spans_list = value.item_spans if isinstance(value, YSeq) else []
        for index, item in enumerate(value):
            yield from spanned_strings(item, spans_list[index] if index < len(spans_list) else span)


TEMPLATE_ACTIONS = frozenset({"template", "ansible.builtin.template", "ansible.legacy.template"})


def template_source(task: Task, basedir: str) -> str | None:
    """The file a ``template`` task renders, when its ``src`` is written out and found where the
    module looks (``engine.run.modules._sources.find_source``)."""
    from engine.run.modules import ModuleError
    from engine.run.modules._sources import find_source, source_search_paths

    src = task.args.get("src") if task.action in TEMPLATE_ACTIONS and isinstance(task.args, Mapping) else None
    if not isinstance(src, str) or not src or "{{" in src or "{%" in src:
        return None
    try:
        found = find_source(src, "templates", source_search_paths(task, basedir))
    except ModuleError:
        return None
    return found if os.path.isfile(found) else None


_MAX_INCLUDED = 50


def template_files(task: Task, basedir: str, read: Callable[[str], str]) -> list[str]:
    """The file a ``template`` task renders (:func:`template_source`) and those it includes,
    imports or extends by a name written out, found where the template action's loader looks
    (engine.run.modules.template.template_searchpath), in turn, up to :data:`_MAX_INCLUDED`."""
    from engine.run.modules._sources import source_search_paths

    source = template_source(task, basedir)
    if source is None:
        return []
    search = source_search_paths(task, basedir)
    base = search[-1] if search else "."
    paths = [*(search[:-1] or search), base, os.path.dirname(source)]
    directories = [path for each in paths for path in (os.path.join(each, "templates"), each)]
    found = [source]
    for path in found:
        try:
            names = _included_names(read(path))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        for name in names:
            where = next((os.path.join(d, name) for d in directories if os.path.isfile(os.path.join(d, name))), None)
            if where is not None and where not in found and len(found) < _MAX_INCLUDED:
                found.append(where)
    return found


@lru_cache(maxsize=1024)
def _included_names(text: str) -> tuple[str, ...]:
    """The template names ``text`` includes, imports or extends, as written out."""
    if "{%" not in text:
        return ()
    from jinja2 import TemplateSyntaxError, nodes

    try:
        tree = _parser().parse(text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return ()
    names: list[str] = []
    for node in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        template = node.template
        choices = template.items if isinstance(template, nodes.List | nodes.Tuple) else [template]
        names += [choice.value for choice in choices
                  if isinstance(choice, nodes.Const) and isinstance(choice.value, str)]
    return tuple(names)


def _role_var_files(task: Task) -> Iterator[str]:
    """The defaults and vars files of the role of ``task`` and of the roles above it."""
    from engine.loading.paths import find_role_var_files

    role: RoleInstance | None = task.role
    while role is not None:
        if role.path:
            for sub in ("defaults", "vars"):
                yield from find_role_var_files(role.path, sub, role.from_files.get(sub))
        role = role.parent


Placed = Callable[[int], Span | None]  # a line of a text -> where it is


def scanned_texts(book: Playbook, cache: SourceCache | None = None) -> Iterator[tuple[str, Placed]]:
    """Every template text a run may render, once, with how to place one of its lines: each play's
    ``vars``, each task's arguments and keywords (bare conditions wrapped in ``{{ }}``), the defaults and vars of the
    roles its tasks belong to, and the template files ``template`` tasks name."""
    from engine.flow.plan import play_tasks
    from engine.parsing.source import SourceCache

    cache = cache or SourceCache()
    seen_files: set[str] = set()
    for play in book.plays:
        play_data = play.data if isinstance(play.data, Mapping) else {}
        spans = play_data.value_spans if isinstance(play_data, YMap) else {}
        for text, span in spanned_strings(play_data.get("vars"), spans.get("vars", play.span)):
            yield text, lambda _line, span=span: span
        for task in play_tasks(play):
            data = task.data if isinstance(task.data, Mapping) else {}
            for key, value in data.items():
                for text in strings(value):
                    if key in CONDITION_KEYWORDS and "{{" not in text:
                        text = "{{ " + text + " }}"
                    yield text, lambda _line, span=task.span: span
            for path in _role_var_files(task):
                if path not in seen_files:
                    seen_files.add(path)
                    loaded = cache.load(path)
                    for text, span in spanned_strings(loaded.data, getattr(loaded.data, "span", None)):
                        yield text, lambda _line, span=span: span
            for source in template_files(task, play.basedir, cache.read_text):
                if source in seen_files:
                    continue
                seen_files.add(source)
                try:
                    text = cache.read_text(source)
                except (OSError, UnicodeDecodeError, ValueError):
                    continue
                yield text, lambda line, source=source: Span(source, line - 1, 0, line - 1, 0)


def lacking_filters(book: Playbook, cache: SourceCache | None = None) -> list[tuple[str, Span | None]]:
    """Each filter the engine lacks with where it is first used: a task (its arguments and
    keywords), a role's defaults or vars, or a template file a ``template`` task renders. A name
    ansible cannot find either (:func:`ansible_lacks_too`) is not one: both fail alike."""
    from engine.templating.filters.json_query import available

    collections = getattr(book.plugins, "collections", None)
    known = engine_filters() | available(collections)  # a collection's the engine runs where it is installed
    found: dict[str, Span | None] = {}
    for text, place in scanned_texts(book, cache):
        for name, line in template_filter_lines(text):
            if name not in known and name not in found:
                found[name] = place(line)
    lacking = [name for name in found if ansible_lacks_too(name, collections)]
    if lacking and any("." not in name for name in lacking) and plugin_dirs(book):
        lacking = [name for name in lacking if "." in name]  # a plugin directory may hold a short name
    return [(name, span) for name, span in found.items() if name not in lacking]


def json_query_declines(book: Playbook, cache: SourceCache | None = None) -> list[tuple[str, Span | None]]:
    """Each ``json_query`` call the engine would run (engine.templating.filters.json_query) whose
    expression, written in the call, uses a function it declines, with where it is first used
    (one a variable gives: engine.run.declines, which reads where the values may come from)."""
    from jinja2 import nodes

    from engine.templating.filters.json_query import declined_functions

    found: dict[str, Span | None] = {}
    for node, place in _json_query_calls(book, cache):
        if isinstance(node.args[0], nodes.Const):
            for function in declined_functions(node.args[0].value):
                found.setdefault(f"json_query's {function}()", place)
    return list(found.items())


def json_query_given(book: Playbook, cache: SourceCache | None = None) -> tuple[Span | None] | None:
    """Where the first ``json_query`` call the engine would run whose expression is not written
    in it (a variable or an expression gives it) is, as a 1-tuple; None without one."""
    from jinja2 import nodes

    return next(((place,) for node, place in _json_query_calls(book, cache)
                 if not isinstance(node.args[0], nodes.Const)), None)


def _json_query_calls(book: Playbook, cache: SourceCache | None) -> Iterator[tuple[Any, Span | None]]:
    """Each ``json_query`` filter call with an expression in the texts a run may render, with where
    it is; none where the engine does not run the filter (ansible-playbook does not either)."""
    from jinja2 import TemplateSyntaxError, nodes

    from engine.templating.filters.json_query import NAMES, available

    if not available(getattr(book.plugins, "collections", None)):
        return
    for text, place in scanned_texts(book, cache):
        if "json_query" not in text:
            continue
        try:
            tree = _parser().parse(text)
        except (TemplateSyntaxError, ValueError, RecursionError):
            continue
        for node in tree.find_all(nodes.Filter):
            if node.name in NAMES and node.args:
                yield node, place(node.lineno)


def ansible_lacks_too(name: str, collections: CollectionFinder | None = None) -> bool:
    """Whether ansible-playbook has no filter ``name`` either, once no filter plugin directory is
    read: a short name that is neither ansible-core's nor redirected by it, a short name ansible-core
    redirects to a collection that is not installed (``ipaddr``, ``json_query``), or a collection's
    ``NS.COLL.NAME`` whose collection is not installed where ansible-playbook looks
    (``collections``: the playbook's). Ansible then fails the template that names it, as it is
    compiled, with "No filter named ...", as the engine does. Without ``collections`` an installed
    collection is assumed."""
    if "." not in name:
        if name in CORE_FILTERS:
            return False
        if name not in ROUTED_FILTERS:
            return True
        return collections is not None and collections.collection_dir(ROUTED_FILTERS[name]) is None
    return collection_missing(name, collections)


def collection_missing(name: str, collections: CollectionFinder | None) -> bool:
    """Whether ``name`` is a collection's ``NS.COLL.NAME`` (a filter, test or lookup) whose
    collection is installed nowhere ansible-playbook looks (``collections``: the playbook's; None
    assumes it installed): ansible fails each use of it as the engine does."""
    collection = name.rpartition(".")[0]
    if collection.count(".") != 1 or collection in ("ansible.builtin", "ansible.legacy"):
        return False
    return collections is not None and collections.collection_dir(collection) is None


def plugin_dirs(book: Playbook, kind: str = "filter") -> list[str]:
    """The ``kind`` (filter, lookup) plugin directories ansible reads for ``book`` that exist:
    ``KIND_plugins`` beside each playbook and in each role (a collection's role brings its
    collection's), ``~/.ansible/plugins/KIND``, ``/usr/share/ansible/plugins/KIND`` and the
    configured ``KIND_plugins`` path."""
    from engine.config import config_value
    from engine.flow.plan import every_task

    configured = config_value(f"ANSIBLE_{kind.upper()}_PLUGINS", "defaults", f"{kind}_plugins")
    if configured:  # a path of its own (relative to ansible.cfg's directory or not): what it holds may count
        return [configured]
    places = [os.path.expanduser(path.replace("/filter", f"/{kind}")) for path in DEFAULT_FILTER_PATHS]
    places += [os.path.join(play.basedir, f"{kind}_plugins") for play in book.plays]
    for task in every_task(book):
        role_path = getattr(task.role, "path", None)
        if role_path:
            if "ansible_collections" in str(role_path).split(os.sep):
                return [str(role_path)]
            places.append(os.path.join(role_path, f"{kind}_plugins"))
    return [place for place in dict.fromkeys(places) if os.path.isdir(place)]
