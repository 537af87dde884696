"""What a playbook asks of the bundled engine that it does not do exactly, found before anything
runs: module arguments and values it refuses, meta actions it does not carry out, lookups and
Jinja tests it lacks. A run that started and then met one would differ from ansible-playbook
halfway through (or fail where ansible runs); the plan lists each with where it is written, as
it lists a module the engine lacks, so that a run declines up front and ``--engine auto`` hands
the playbook to ansible-playbook, saying why.

Arguments are looked at as written (a templated argument name cannot be known before the run;
the module still refuses it when it meets it). Lookups and tests are found by Jinja's parser in
the same texts as the filters (:func:`engine.run.filter_check.scanned_texts`): a task's
arguments and keywords, its roles' defaults and vars, the template files it names.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from engine.files import read_bytes
from engine.flow.plan import every_task
from engine.loading import keywords as kw
from engine.loading.model import Playbook, Task
from engine.span import Span
from engine.values import strings

if TYPE_CHECKING:
    from engine.parsing.source import SourceCache

# action -> arguments the engine's module or action refuses (engine/run/modules/*: each refuses it
# at run time too, for an argument only a template names)
DECLINED_ARGUMENTS: dict[str, frozenset[str]] = {
    "git": frozenset({"refspec", "reference", "depth", "verify_commit", "bare", "single_branch", "track_submodules",
                      "umask", "archive", "archive_prefix", "separate_git_dir", "key_file", "ssh_opts",
                      "accept_hostkey", "accept_newhostkey"}),
    "get_url": frozenset({"client_cert", "client_key", "ca_path", "ciphers", "unix_socket", "use_gssapi"}),
    "uri": frozenset({"client_cert", "client_key", "ca_path", "ciphers", "unix_socket", "use_gssapi"}),
}
# the actions that take file attributes (chattr), which the engine's modules never set: a value
# written as it is is declined; one a template gives is refused by the module when it is not empty
ATTRIBUTES_ACTIONS = frozenset({"archive", "assemble", "blockinfile", "copy", "file", "get_url", "ini_file",
                                "lineinfile", "replace", "template", "unarchive"})
# action -> (argument, value) pairs it refuses
DECLINED_VALUES: dict[str, frozenset[tuple[str, str]]] = {
    "uri": frozenset({("body_format", "form-multipart")}),
    "wait_for": frozenset({("state", "drained")}),
    # the fragments on the controller: only the module's own way (remote_src) is the engine's
    "assemble": frozenset({("remote_src", "no"), ("remote_src", "false")}),
}
# the meta actions ansible-core 2.19 knows: any other ends ansible's run ("invalid meta action
# requested"), which the engine does not reproduce
KNOWN_META = frozenset({"noop", "flush_handlers", "refresh_inventory", "clear_facts", "clear_host_errors",
                        "end_play", "end_host", "end_batch", "end_role", "reset_connection", "role_complete"})
URL_SCHEMES = ("http://", "https://", "ftp://")
# ansible-core 2.19's lookups and Jinja tests: one of these the engine lacks, or a collection's, is
# declined; an unknown short name fails in both tools alike ("was not found", "No test named")
CORE_LOOKUPS = frozenset({
    "config", "csvfile", "dict", "env", "file", "fileglob", "first_found", "indexed_items", "ini",
    "inventory_hostnames", "items", "lines", "list", "nested", "password", "pipe", "random_choice", "sequence",
    "subelements", "template", "together", "unvault", "url", "varnames", "vars",
})
CORE_TESTS = frozenset({
    "failed", "failure", "succeeded", "success", "successful", "reachable", "unreachable", "timedout", "changed",
    "change", "skipped", "skip", "finished", "started", "match", "search", "regex", "version_compare", "version",
    "any", "all", "truthy", "falsy", "vault_encrypted", "vaulted_file", "directory", "is_dir", "file", "is_file",
    "link", "is_link", "exists", "link_exists", "abs", "is_abs", "same_file", "is_same_file", "mount", "is_mount",
    "subset", "issubset", "superset", "issuperset", "contains", "nan", "isnan", "uri", "url", "urn",
})
LOOKUP_CALLS = frozenset({"lookup", "query", "q"})


def load_deprecations(task: Task) -> list[str]:
    """The deprecation warnings ansible's ModuleArgsParser prints while loading ``task`` (2.19),
    which the engine does not print: with deprecation warnings on, a run that would show them is
    declined rather than shown without them."""
    from engine.loading.actions import ActionError, _normalize

    data = task.data if isinstance(task.data, Mapping) else {}
    found = []
    if "args" in data and data["args"] is None:
        found.append("deprecation warning: Ignoring empty task `args` keyword")
    if isinstance(data.get("action"), Mapping):
        found.append("deprecation warning: Using a mapping for `action`")
    written = data.get(task.action)
    if isinstance(data.get("action"), str):
        written = data["action"].strip().partition(" ")[2]
    if isinstance(written, str) and "=" in written and data.get("args") is not None:
        try:
            merged = set(_normalize(task.action, written)) - {"_raw_params"}
        except ActionError:
            merged = set()
        if merged:
            found.append("deprecation warning: Merging legacy k=v args into task args")
    return found


def _short(action: str) -> str:
    for prefix in ("ansible.builtin.", "ansible.legacy."):
        if action.startswith(prefix):
            return action[len(prefix):]
    return action


def task_declines(task: Task, collections: Any = None) -> list[str]:
    """What ``task`` asks, as written, that the engine declines ("include_vars: dir"); ``collections``
    is the run's CollectionFinder (a collection's lookup the engine has runs where it is installed)."""
    action = _short(task.action)
    args = task.args if isinstance(task.args, Mapping) else {}
    found = [f"{action}: {name}" for name in sorted(DECLINED_ARGUMENTS.get(action, ())) if args.get(name)]
    found += [f"{action}: {name}" for name in ("attr", "attributes") if action in ATTRIBUTES_ACTIONS
              and args.get(name) and not (isinstance(args[name], str) and ("{{" in args[name] or "{%" in args[name]))]
    found += [f"{action}: {name}={value}" for name, value in sorted(DECLINED_VALUES.get(action, ()))
              if (str(args[name]).lower() if isinstance(args.get(name), bool) else args.get(name)) == value]
    if action == "unarchive" and isinstance(args.get("src"), str) and args["src"].startswith(URL_SCHEMES):
        found.append("unarchive: a URL src")
    if task.action in kw.META and isinstance(args.get("_raw_params"), str) and \
            args["_raw_params"] not in KNOWN_META and "{" not in args["_raw_params"]:
        found.append(f"meta: {args['_raw_params']} (not a meta action)")
    if task.action in kw._family("validate_argument_spec"):
        found += _spec_declines(args.get("argument_spec"))
    loop = next((key for key in (task.data if isinstance(task.data, Mapping) else {}) if key.startswith("with_")), None)
    # a with_ loop whose lookup ansible-core lacks stops ansible's load ("'with_NAME' is not a valid
    # attribute for a Task") unless a collection or a lookup_plugins directory offers it
    if loop is not None and not (_short(loop[len("with_"):]) in _engine_lookups()
                                 or _collection_lookup(loop[len("with_"):], collections)):
        found.append(f"lookup {loop[len('with_'):]}")
    return found


def _spec_declines(spec: Any) -> list[str]:
    """What in an argument spec the engine's validator cannot check exactly (one that only a
    template makes is not known before the run)."""
    from engine.run.role_arguments import spec_declines

    if isinstance(spec, str) and ("{{" in spec or "{%" in spec):
        return ["validate_argument_spec: an argument_spec a template makes"]
    return spec_declines(spec)


@cache
def _engine_lookups() -> frozenset[str]:
    from engine.run.file_and_command_lookups import LOOKUPS

    return frozenset(name for name in LOOKUPS if name != "unvault")


def _has_lookup(name: str) -> bool:
    return _short(name) in _engine_lookups() or not (_ansible_has(name, CORE_LOOKUPS) or _routed_lookup(name))


@cache
def _routed_lookup(name: str) -> bool:
    """Whether ansible-core routes the short name of a lookup to a collection (``filetree`` to
    ``community.general.filetree``): ansible-playbook runs it where that collection is installed."""
    from engine.plugins.names import find_ansible_core
    from engine.plugins.routing import routing_entry

    core = find_ansible_core()
    return core is not None and "." not in name and routing_entry(core.runtime, "lookup", name) is not None


def _collection_lookup(name: str, collections: Any) -> bool:
    """Whether ``name`` is a collection's lookup the engine runs as ansible-playbook would, its
    collection installed where ``collections`` (the run's CollectionFinder) looks."""
    from engine.run.collection_lookups import engine_lookup

    return engine_lookup(name, collections) is not None


def _ansible_has(name: str, core: frozenset[str]) -> bool:
    """Whether ansible-playbook may run a plugin of that name: ansible-core's, or a collection's."""
    return _short(name) in core or "." in _short(name)


@cache
def _engine_tests() -> frozenset[str]:
    from engine.templating.jinja_environment import build_environment

    return frozenset(build_environment(False).tests)


@lru_cache(maxsize=4096)
def template_plugin_lines(text: str) -> tuple[tuple[str, str, int], ...]:
    """Each (kind, name, line) of the lookups ("lookup") and tests ("test") ``text`` uses; none
    when it is no valid template."""
    if "{{" not in text and "{%" not in text:
        return ()
    from jinja2 import TemplateSyntaxError, nodes

    from engine.run.filter_check import _parser

    try:
        tree = _parser().parse(text)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return ()
    found = [("test", node.name, node.lineno) for node in tree.find_all(nodes.Test)]
    found += [("identity", node.name, node.lineno) for node in tree.find_all(nodes.Test) if _tagged_identity(node)]
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name in LOOKUP_CALLS and call.args \
                and isinstance(call.args[0], nodes.Const) and isinstance(call.args[0].value, str):
            found.append(("lookup", call.args[0].value, call.lineno))
            if _short(call.args[0].value) == "url":
                from engine.run.url_lookup import declined_options

                found += [("url option", option, call.lineno) for option in declined_options(call)]
    return tuple(found)


def _tagged_identity(node: Any) -> bool:
    """Whether a ``sameas`` test compares something other than a literal with other than true,
    false or none: ansible's values from YAML, files and variables are tagged copies (an int, a
    string), never the object a literal is, where the engine's may be the same object."""
    from jinja2 import nodes

    if node.name != "sameas" or not node.args:
        return False
    other = node.args[0]
    singleton = isinstance(other, nodes.Const) and (other.value is None or isinstance(other.value, bool))
    return not singleton and not isinstance(node.node, nodes.Const)


def declined_uses(book: Playbook, cache: SourceCache | None = None, inventory_sources: Sequence[str] = (),
                  extra_vars: Mapping[str, Any] | None = None) -> list[tuple[str, Span | None]]:
    """Each thing the engine declines (as :func:`task_declines` words it, or "lookup url",
    "test ansible.utils.ipv4") with where it is first written. The inventory's sources and the
    extra vars are read too where a name written in them matters (the url lookup's settings)."""
    from engine.run.callback import deprecation_warnings
    from engine.run.collection_lookups import load_failure
    from engine.run.fact_declines import gathers_facts, ungathered_facts
    from engine.run.filter_check import collection_missing, json_query_given, scanned_texts
    from engine.run.invocation_check import failed_result_uses, invocation_uses
    from engine.run.module_defaults import module_defaults_declines
    from engine.run.refresh_inventory import refresh_declines

    found: dict[str, Span | None] = {}
    tasks = list(every_task(book))
    collections = getattr(book.plugins, "collections", None)
    deprecations = deprecation_warnings()
    for task in tasks:
        for what in [*task_declines(task, collections), *(load_deprecations(task) if deprecations else ())]:
            found.setdefault(what, task.span)
    for what, task in invocation_uses(tasks):
        found.setdefault(what, task.span)
    for what, task in [*module_defaults_declines(tasks, collections), *refresh_declines(tasks, inventory_sources)]:
        found.setdefault(what, task.span)
    for play in book.plays:
        for what, task in failed_result_uses([*play.compile(), *play.handlers]):
            found.setdefault(what, task.span)
    tests = _engine_tests()
    url_lookup: Span | None | bool = False  # where a url lookup is first written
    facts_gathered = gathers_facts(book, tasks)
    for text, place in scanned_texts(book, cache):
        for fact, line in ungathered_facts(text) if facts_gathered else ():
            found.setdefault(f"the fact ansible_{fact}, which it does not gather", place(line))
        for kind, name, line in template_plugin_lines(text):
            if kind == "identity":
                found.setdefault("the test sameas on a value the playbook or a file holds", place(line))
                continue
            if kind == "url option":
                found.setdefault(f"the url lookup's {name}", place(line))
                continue
            if kind == "lookup" and _short(name) == "url" and url_lookup is False:
                url_lookup = place(line)
            # a lookup or test of a collection installed nowhere fails alike ("was not found", after
            # ansible's "Error loading plugin" warning; "No test named ...")
            has = _has_lookup(name) or _collection_lookup(name, collections)
            lacking = not has and load_failure(name, collections) is None if kind == "lookup" else \
                name not in tests and _short(name) not in tests and _ansible_has(name, CORE_TESTS)
            if lacking and not (kind == "test" and collection_missing(name, collections)):
                found.setdefault(f"{kind} {name}", place(line))
    values: list[tuple[list[str], str | None]] = []  # what the run's values may come from, read once

    def value_sources() -> tuple[list[str], str | None]:
        if not values:
            values.append(value_texts(book, tasks, inventory_sources, extra_vars or {}))
        return values[0]

    if url_lookup is not False:
        for setting in _url_settings(*value_sources()):
            found.setdefault(f"the url lookup's {setting}", url_lookup)
    if (given := json_query_given(book, cache)) is not None:
        for what in _json_query_given_declines(*value_sources()):
            found.setdefault(what, given[0])
    return list(found.items())


def _json_query_given_declines(texts: list[str], unread: str | None) -> list[str]:
    """For a ``json_query`` whose expression a variable or an expression gives: the functions the
    engine declines (engine.templating.filters.json_query) that what the run's values may come
    from calls (``texts``, :func:`value_texts`; ``unread``: why not all of it was read)."""
    from engine.templating.filters.json_query import declined_calls

    found = [f"json_query of an expression a variable gives ({unread} may call a function the engine declines)"] \
        if unread else []
    return found + list(dict.fromkeys(f"json_query's {function}() in an expression a variable gives"
                                      for text in texts for function in declined_calls(text)))


def _url_settings(texts: list[str], unread: str | None) -> list[str]:
    """The url lookup's settings the engine declines (engine.run.url_lookup.declined_settings),
    named in what the run's values may come from (``texts``, :func:`value_texts`; a file that could
    not be read, ``unread``, names any)."""
    from engine.run.url_lookup import declined_settings

    return [f"settings ({unread} may name them)"] if unread else declined_settings(texts)


def value_texts(book: Playbook, tasks: list[Task], inventory_sources: Sequence[str],
                extra_vars: Mapping[str, Any]) -> tuple[list[str], str | None]:
    """The texts a variable's value may come from before the run: the playbook's and roles' files,
    the inventory's sources, the variables files, the extra vars; and, when not all could be read,
    why (None when they were)."""
    try:
        paths = _playbook_files(book, tasks) | _source_files(inventory_sources)
        paths |= _variables_files(book, tasks) or set()
    except _TooManyFiles:
        return [], "more files than are read before the run"
    texts = [json.dumps(extra_vars, default=str)]
    for path in sorted(paths):
        try:
            texts.append(read_bytes(path, _MAX_READ).decode("utf-8", "replace"))
        except OSError:
            return texts, f"{path}, not read whole,"
    return texts, None


_MAX_READ = 1 << 20
# what the url lookup's check reads before a run at most: past it, its settings are declined
_MAX_FILES = 20_000


class _TooManyFiles(Exception):
    """More files below the directories the url lookup's check reads than a run's preflight walks."""


def _files_under(tops: Iterable[str]) -> set[str]:
    """Every file below each of ``tops`` (a missing one has none), hidden directories left out;
    :class:`_TooManyFiles` past :data:`_MAX_FILES` (a playbook at the top of a large tree)."""
    found: set[str] = set()
    for top in tops:
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            found.update(os.path.join(root, name) for name in files)
            if len(found) > _MAX_FILES:
                raise _TooManyFiles(top)
    return found


def _playbook_files(book: Playbook, tasks: list[Task]) -> set[str]:
    """Every file under the plays' directories and the roles' (their templates, variables and
    inventories too)."""
    tops = {play.basedir for play in book.plays if play.basedir}
    tops |= {str(task.role.path) for task in tasks if getattr(task.role, "path", None)}
    tops |= {os.path.dirname(task.span.file) for task in tasks if task.span is not None and task.span.file}
    return _files_under(tops)


def _variables_files(book: Playbook, tasks: list[Task]) -> set[str] | None:
    """The files a play's ``vars_files`` or an ``include_vars`` task names, wherever they are
    (``../common.yml`` too), and the files of an ``include_vars`` ``dir``; None when one is named by
    a template, which only the run resolves."""
    from engine.templating.templar import is_template

    found: set[str] = set()
    for play in book.plays:
        data = play.data if isinstance(play.data, Mapping) else {}
        entries = list(strings(data.get("vars_files") or []))
        if any(is_template(entry) for entry in entries):
            return None
        found.update(os.path.join(play.basedir or "", entry) for entry in entries)
    for task in tasks:
        if task.action not in kw.INCLUDE_VARS or not isinstance(task.args, Mapping):
            continue
        names = [task.args.get(key) for key in ("_raw_params", "file", "dir")]
        entries = [name for name in names if isinstance(name, str)]
        if any(is_template(entry) and not _found_within_role(task, entry) for entry in entries) or any(
                name is not None and not isinstance(name, str) for name in names):
            return None
        if any(is_template(entry) for entry in entries):  # a file of the role: count its other vars/ files too
            from engine.run.filter_check import _role_var_files

            own = {os.path.realpath(path) for path in _role_var_files(task)}
            found |= {path for path in _files_under([os.path.join(str(task.role.path), "vars")])
                      if os.path.realpath(path) not in own}
        entries = [entry for entry in entries if not is_template(entry)]
        places = [os.path.dirname(task.span.file)] if task.span is not None and task.span.file else []
        places += [str(task.role.path), os.path.join(str(task.role.path), "vars")] \
            if getattr(task.role, "path", None) else []
        places += [play.basedir for play in book.plays if play.basedir]
        for entry in entries:
            for place in places:
                candidate = os.path.join(place, entry)
                if os.path.isdir(candidate):
                    found |= _files_under([candidate])
                elif os.path.exists(candidate):
                    found.add(candidate)
    return found


def _found_within_role(task: Task, entry: str) -> bool:
    """Whether a templated ``include_vars`` name of a role's task loads one of the role's files,
    which the plan reads already: a file name made of variables and text with no ``/``
    (:func:`_file_name_of_variables`), or ``{{ lookup('first_found', PARAMS) }}`` (or ``query``)
    whose ``files`` are relative and whose ``paths`` are the role's (``{{ role_path }}/...``) or
    relative, none climbing with ``..``, ``PARAMS`` in the task's own ``vars``. (A variable's
    value could still be an absolute path; such names are taken to be what they are written as.)"""
    from jinja2 import nodes

    from engine.templating.templar import environment, is_template

    if not getattr(task.role, "path", None):
        return False
    try:
        body = environment().parse(entry).body
    except Exception:  # noqa: BLE001 - a text Jinja does not parse names no file the plan can know
        return False
    if len(body) != 1 or not isinstance(body[0], nodes.Output):
        return False
    if _file_name_of_variables(body[0].nodes, task):
        return True
    if len(body[0].nodes) != 1:
        return False
    call = body[0].nodes[0]
    if not (isinstance(call, nodes.Call) and isinstance(call.node, nodes.Name) and call.node.name in LOOKUP_CALLS
            and len(call.args) == 2 and not call.kwargs and isinstance(call.args[0], nodes.Const)
            and _short(str(call.args[0].value)) == "first_found" and isinstance(call.args[1], nodes.Name)):
        return False
    own = task.data.get("vars") if isinstance(task.data, Mapping) else None
    params = own.get(call.args[1].name) if isinstance(own, Mapping) else None
    if not isinstance(params, Mapping) or set(params) - {"files", "paths", "skip"}:
        return False
    files, paths = params.get("files"), params.get("paths", [])
    files = [files] if isinstance(files, str) else files
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(files, list) or not isinstance(paths, list) or not files:
        return False
    # a file's name may be templated (from facts); a path is the role's, or relative, and nothing else
    in_role = re.compile(r"^(\{\{\s*role_path\s*\}\}(/|$))?")
    return all(isinstance(file, str) and ".." not in file and not file.startswith("/") for file in files) and \
        all(isinstance(path, str) and ".." not in path and not in_role.sub("", path).startswith("/")
            and not is_template(in_role.sub("", path)) for path in paths)


def _file_name_of_variables(parts: list[Any], task: Task, depth: int = 0) -> bool:
    """Whether a template is a file name of the role: text with no ``/`` and variables (maybe
    through filters: ``{{ method }}_install.yml``, ``{{ ansible_os_family | lower }}.yml``), which
    include_vars looks up in the role's ``vars/`` and the task's directory; a bare variable only
    when it is one of the task's own ``vars`` written ``{{ role_path }}/vars/NAME`` with such a
    name, or the loop's item, each item such a name."""
    from jinja2 import nodes

    from engine.templating.templar import environment

    own = task.data.get("vars") if isinstance(task.data, Mapping) else None
    literal = any(isinstance(part, nodes.TemplateData) and part.data for part in parts)
    for part in parts:
        if isinstance(part, nodes.TemplateData):
            if "/" in part.data or ".." in part.data:
                return False
            continue
        if not _name_part(part):
            return False
        while isinstance(part, nodes.Filter) and part.node is not None:
            part = part.node
        if literal or not isinstance(part, nodes.Name) or depth > 1:
            continue
        text = own.get(part.name) if isinstance(own, Mapping) else None
        items = task.data.get("loop") if isinstance(task.data, Mapping) and part.name == "item" else None
        try:
            if isinstance(text, str) and depth == 0:
                rest = re.match(r"^\{\{\s*role_path\s*\}\}/vars/(.*)$", text, re.S)
                if rest is None or not _file_name_of_variables(environment().parse(rest.group(1)).body[0].nodes,
                                                                task, depth + 1):
                    return False
            elif isinstance(items, list) and items:
                if not all(isinstance(item, str) and (not is_template_text(item) and "/" not in item
                           or _file_name_of_variables(environment().parse(item).body[0].nodes, task, 2))
                           for item in items):
                    return False
            else:
                return False
        except Exception:  # noqa: BLE001 - a text Jinja does not parse (or no output) names no known file
            return False
    return True


def _name_part(node: Any) -> bool:
    """A variable (through filters), or ``~`` of such and of text with no ``/``."""
    from jinja2 import nodes

    while isinstance(node, nodes.Filter) and node.node is not None:
        node = node.node
    if isinstance(node, nodes.Concat):
        return all(_name_part(each) for each in node.nodes)
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and "/" not in node.value and ".." not in node.value
    return isinstance(node, nodes.Name | nodes.Getitem | nodes.Getattr)


def is_template_text(text: str) -> bool:
    return "{{" in text or "{%" in text


def _source_files(sources: Sequence[str]) -> set[str]:
    """The files of the inventory's sources (a directory's, with its group_vars and host_vars),
    and the group_vars and host_vars beside a source file."""
    files = {source for source in sources if os.path.exists(source) and not os.path.isdir(source)}
    tops = [source for source in sources if os.path.isdir(source)]
    tops += [os.path.join(os.path.dirname(os.path.abspath(source)), name) for source in files
             for name in ("group_vars", "host_vars")]
    return files | _files_under(tops)


