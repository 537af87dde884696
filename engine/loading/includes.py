"""Loading what an include brings in on one host: ``include_tasks``, ``include_role``,
``include_vars``.

The bundled engine (engine.run) loads them when the task runs; the plan (playbook-ls plan)
loads them per host as the run would, with this same code.

The included file is found and loaded when the task runs, with the resolver that builds the
static model, so included tasks get frames like any other task: they inherit from the
include's parents (not from the include itself) and from its ``apply:`` block.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.booleans import boolean
from engine.loading import keywords as kw
from engine.loading.frames import EXIT_PARSER_ERROR
from engine.loading.model import Block, Frame, Play, Problem, Task
from engine.loading.paths import include_vars_candidates, include_vars_path
from engine.loading.roles import included_handler_blocks, rolespec_validate
from engine.loading.vars_dir import VarsDirError, read_vars_dir, root_dir
from engine.span import Span, YMap
from engine.templating.load_time import as_dict
from engine.templating.templar import Templar, TemplateFailure

if TYPE_CHECKING:
    from engine.parsing.source import SourceCache
    from engine.variables.manager import HostState

_FROM_ARGS = {"tasks_from": "tasks", "vars_from": "vars", "defaults_from": "defaults", "handlers_from": "handlers"}


_DIR_ARGUMENTS = ("dir", "depth", "files_matching", "ignore_files", "extensions", "ignore_unknown_extensions")

class MissingRole(TemplateFailure):
    """The role an ``include_role`` names is not found: the strategy fails the host when it loads
    the role (``IncludeRole.get_block_list``), with ``reason``, written at ``span`` (the name)."""

    def __init__(self, reason: str, span: Span | None) -> None:
        super().__init__(reason)
        self.reason, self.span = reason, span


class MissingInclude(TemplateFailure):
    """The file an ``include_tasks`` names is not there: the task itself ran (ok), and the
    strategy fails the host when it loads the file (``_load_included_file``), with ``reason``."""

    def __init__(self, target: str, path: str) -> None:
        super().__init__(f"Could not find or access '{target}' on the Ansible Controller.")
        self.target, self.path = target, path
        cant = f"Could not find or access '{path}' on the Ansible Controller"
        # the loader's error about the file, with its causes, as str(AnsibleError) chains them
        self.reason = (f"{cant}: Unable to retrieve file contents.\n{cant}.\nIf you are using a module and expect "
                       f"the file to exist on the remote, see the remote_src option: [Errno 2] No such file or "
                       f"directory: '{path}'")


class IncludeParseError(Exception):
    """An included file ansible's parser refuses (``AnsibleParserError`` out of
    ``_load_included_file``): not a failed host, the end of the run, exiting with 4."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


MAX_INCLUDE_DEPTH = 100  # includes within includes; far beyond real playbooks, well within Python's stack


class IncludeLoader:
    def __init__(self, cache: SourceCache, rounds: bool = False) -> None:
        """``rounds``: the hosts of one run of an ``include_role`` task share the first host's
        ``*_from`` files (a run's loader, told each :meth:`next_round`); the per-host models load
        each host's own, which one the run takes being the order its results arrive in."""
        from engine.config import AnsibleConfig
        from engine.loading.resolve import Resolver

        self.resolver = Resolver(sources=cache, config=AnsibleConfig.load())
        self.params: dict[int, dict[str, Any]] = {}
        """Include params (the include's ``vars``, its loop variable) of every included task."""
        self.announce: list[str] = []
        self.depth: dict[int, int] = {}  # how many includes deep each included task is
        self._loaded: dict[tuple[Any, ...], list[Block]] = {}
        self._role_handlers: dict[tuple[Any, ...], list[Block]] = {}
        self.handlers: list[Block] = []
        """The handlers of the role the last ``load`` included (with its dependencies')."""
        self.warnings: dict[str, list[str]] = {}
        """The warnings loading an included file (its path) or role (its name) met: the strategy
        shows them as it loads it, before announcing it."""
        self._round: dict[tuple[Any, ...], dict[str, Any]] | None = {} if rounds else None
        """The *_from arguments of the first host that included a role this round (see :meth:`next_round`)."""

    def next_round(self) -> None:
        """The task ran on every host and its includes are processed: the next hosts to include a
        role (a later batch, a later run of the task) start a new include, as ansible's do."""
        if self._round is not None:
            self._round.clear()

    def load(self, task: Task, templar: Templar, play: Play, item: int | None = None) -> tuple[list[Block],
                                                                                               dict[str, Any]]:
        """The blocks ``task`` includes for this host, and the include's own result; ``item``: the
        item of the include's loop they are loaded for alone (each item names its own file), their
        frames then saying so (``Frame.item_index``), a copy of their own."""
        from engine.loading.context import Ctx

        depth = self.depth.get(id(task), 0)
        if depth >= MAX_INCLUDE_DEPTH:
            # ansible recurses until Python gives up (exit 250, no recap); here the include fails
            raise TemplateFailure(f"{task.action} nested {depth} levels deep: does a file include itself? "
                                  "playbook-ls's engine stops here")
        params = dict(self.params.get(id(task), {}))
        params.update(as_dict(task.frame.keywords.get("vars")))  # templated where a task reads them, as task vars
        readable = _readable(templar.raw)
        loop_var = readable.get("ansible_loop_var")  # an item only the run knows is no param here
        if isinstance(loop_var, str) and loop_var in readable:
            params[loop_var] = readable[loop_var]
            params["ansible_loop_var"] = loop_var
        # IncludedFile's special vars: the loop's index_var and, extended, ansible_loop too
        index_var = readable.get("ansible_index_var")
        if isinstance(index_var, str) and index_var in readable:
            params[index_var] = readable[index_var]
            params["ansible_index_var"] = index_var
        if isinstance(loop_var, str) and "ansible_loop" in readable:
            params["ansible_loop"] = readable["ansible_loop"]
        ctx = Ctx(chain=tuple(task.chain[:-1]), basedir=play.basedir, variables=readable, role=task.role,
                  handler=task.handler, dynamic=True)
        if item is not None:
            frame = Frame("loop_item", f"item {item} of {task.action}", task.span)
            frame.item_index = item
            ctx = ctx.push(frame)
        self.handlers = []
        if task.action in kw.INCLUDE_ROLE:
            blocks, result = self._include_role(task, templar, ctx, params, item)
        else:
            blocks, result = self._include_tasks(task, templar, ctx, params, item)
        for block in blocks:
            for child in block.tasks():
                self.params[id(child)] = params
                self.depth[id(child)] = depth + 1
        for block in self.handlers:  # a role's handlers see the vars of the include that loaded them
            for child in block.tasks():
                self.params.setdefault(id(child), params)
        from engine.loading.module_defaults import apply_module_defaults, tasks_under

        apply_module_defaults(tasks_under([*blocks, *self.handlers]))
        return blocks, result

    def _apply_frame(self, task: Task, variables: Mapping[str, Any]) -> Frame | None:
        """The frame of the include's ``apply:``, a block around the included tasks (``build_parent_block``:
        ``Block.load``, whose parser error at a key a block does not take ends the run)."""
        apply = task.args.get("apply")
        if not isinstance(apply, dict):
            return None
        if isinstance(apply, YMap):
            before = len(self.resolver.problems)
            self.resolver._check_keys(apply, kw.BLOCK_KEYWORDS, "Block")
            self._problems(before)
        return self.resolver.frame("apply", f"apply of {task.action}", apply, variables)

    def _warnings(self, announced: str, before: int) -> None:
        if found := [message for _dynamic, message in self.resolver.load_warnings[before:]]:
            self.warnings[announced] = found
        del self.resolver.load_warnings[before:]

    def _problems(self, before: int) -> None:
        fatal = [p for p in self.resolver.problems[before:] if p.fatal]
        if fatal and fatal[0].exit_code == EXIT_PARSER_ERROR:
            raise IncludeParseError(fatal[0])
        if fatal:
            raise TemplateFailure(str(fatal[0]))

    def _include_tasks(self, task: Task, templar: Templar, ctx: Any, params: dict[str, Any],
                       item: int | None = None) -> tuple[list[Block], dict[str, Any]]:
        from engine.loading import paths

        raw = task.args.get("_raw_params", task.args.get("file"))
        if not raw:
            raise TemplateFailure(f"No file specified for {task.action}")
        target = str(templar.template(raw))
        candidates = []
        if task.role is not None and task.role.path:  # IncludedFile's path_dwim_relative(role, 'tasks', ...)
            candidates.append(paths.path_dwim_relative(ctx.basedir, task.role.path,
                                                       "handlers" if task.handler else "tasks", target, True))
        if task.span is not None:
            candidates.append(os.path.join(os.path.dirname(task.span.file), target))
        candidates.append(os.path.join(ctx.basedir, target))
        path = next((c for c in candidates if paths.isfile(c)), None)
        if path is None:
            # IncludedFile.process_include_results: every search ends in the loader's path_dwim
            raise MissingInclude(target, os.path.normpath(os.path.join(ctx.basedir, os.path.expanduser(target))))
        path = os.path.normpath(path)
        key = (id(task), path, repr(sorted(params.items(), key=str)), item)
        if key not in self._loaded:
            data = self.resolver.load_yaml(path, task.span)
            if data is None:
                data = []
            if not isinstance(data, list):
                raise TemplateFailure(f"included task files must contain a list of tasks: {path}")
            apply = self._apply_frame(task, ctx.variables)
            inner = ctx.push(apply, includes=(target,), files=(os.path.realpath(path),))
            before, warned = len(self.resolver.problems), len(self.resolver.load_warnings)
            self._loaded[key] = self.resolver.load_blocks(data, inner, getattr(data, "span", None))
            self._problems(before)
            self._warnings(os.path.abspath(path), warned)
        self.announce.append(path)
        return self._loaded[key], {"changed": False, "include": target, "include_args": dict(task.args)}

    def _include_role(self, task: Task, templar: Templar, ctx: Any, params: dict[str, Any],
                      item: int | None = None) -> tuple[list[Block], dict[str, Any]]:
        args = templar.template({k: v for k, v in task.args.items() if k != "apply"})
        name = args.get("name", args.get("role"))
        if not name:
            raise TemplateFailure(f"'name' is a required field for {task.action}.")
        # IncludedFile.process_include_results compares a role's include without its *_from
        # arguments (it pops them before comparing): the hosts of one task that name the role with
        # the same other arguments share one include, with the first host's files
        same = (id(task), str(name), repr(sorted(((k, v) for k, v in args.items() if k not in _FROM_ARGS), key=str)),
                repr(sorted(params.items(), key=str)))
        own = {k: v for k, v in args.items() if k in _FROM_ARGS}
        first = own if self._round is None else self._round.setdefault(same, own)
        args = {**{k: v for k, v in args.items() if k not in _FROM_ARGS}, **first}
        key = (*same, repr(sorted(first.items(), key=str)), item)
        if key not in self._loaded:
            before = len(self.resolver.problems)
            instance = self.resolver.roles.locate(str(name), task.span, ctx, "include_role", None,
                                                  _collections_of(task, self.resolver.default_collection))
            unresolved = [p for p in self.resolver.problems[before:] if p.code == "unresolved-role"]
            if instance is None and unresolved:
                written = task.data.get(task.action) if isinstance(task.data, Mapping) else None
                spans = getattr(written, "value_spans", None) or getattr(task.data, "value_spans", {})
                del self.resolver.problems[before:]
                raise MissingRole(unresolved[0].message, spans.get("name", spans.get("role")))
            self._problems(before)
            if instance is None:
                raise TemplateFailure(f"the role '{name}' was not found")
            instance.from_files = {sub: str(args[arg]) for arg, sub in _FROM_ARGS.items() if arg in args}
            # IncludeRole's fields, validated as booleans before the include ran (engine.run.keyword_types)
            instance.parent, instance.public = task.role, None if args.get("public") is None else \
                boolean(args["public"])
            # IncludeRole sets it over the role's meta: an included role runs again by default
            instance.allow_duplicates = boolean(args.get("allow_duplicates", True))
            frame = self._apply_frame(task, ctx.variables) or Frame("include_role", f"include_role {name}", task.span)
            roles = self.resolver.roles
            roles.included_handlers = []
            warned = len(self.resolver.load_warnings)
            try:
                self._loaded[key] = roles.compile(instance, frame, ctx, rolespec_validate(args))
            finally:
                loaded, roles.included_handlers = roles.included_handlers, None
            self._warnings(str(name), warned)
            self._role_handlers[key] = included_handler_blocks(loaded)
            self._problems(before)
        self.handlers = self._role_handlers[key]
        return self._loaded[key], {"changed": False, "include": str(name), "include_args": args}

    def include_vars(self, task: Task, args: dict[str, Any], state: HostState, basedir: str,
                     existing: Mapping[str, Any] | None = None, merge_hashes: bool = False) -> dict[str, Any]:
        """The include_vars action; ``existing``: the task's variables, over which a ``hash_behaviour``
        other than the run's (``merge_hashes``) combines what the files give, as the action does."""
        def combined(facts: dict[str, Any]) -> dict[str, Any]:
            wanted = args.get("hash_behaviour")
            if wanted is None or existing is None or wanted == ("merge" if merge_hashes else "replace"):
                return facts
            from engine.inventory.combine import combine_vars

            return combine_vars({name: existing[name] for name in facts if name in existing}, facts, wanted == "merge")

        # the action's own check of its arguments (AnsibleError: "Task failed: " and the message)
        dirs = files = 0
        for arg in args:
            if arg in _DIR_ARGUMENTS:
                dirs += 1
            elif arg in ("file", "_raw_params"):
                files += 1
            elif arg not in ("name", "hash_behaviour"):
                return {"failed": True, "changed": False,
                        "msg": f"Task failed: {arg} is not a valid option in include_vars"}
        if dirs and files:
            return {"failed": True, "changed": False, "msg": "Task failed: You are mixing file only "
                    "and dir only arguments, these are incompatible"}
        if args.get("dir") is not None:
            return self._include_vars_dir(task, args, state, combined)
        target = args.get("_raw_params", args.get("file"))
        if not isinstance(target, str):
            return {"failed": True, "changed": False,
                    "msg": "playbook-ls's engine supports include_vars with a file only; run with --engine ansible"}
        where = (task.role.path if task.role is not None else None, task.span.file if task.span is not None else None)
        path = include_vars_path(*where, target, basedir)
        if path is None:  # the action keeps AnsibleFileNotFound's text as "message", ansible's msg says no more
            searched = include_vars_candidates(*where, target, basedir)
            message = f"Could not find or access '{target}'" + (
                "\nSearched in:\n\t" + "\n\t".join(searched) if searched else "") + (
                " on the Ansible Controller.\nIf you are using a module and expect the file to exist on the remote, "
                "see the remote_src option")
            return _failed_include(message, args, [])
        loaded = self.resolver.sources.load(path)
        if loaded.error is not None:  # AnsibleYAMLParserError's message, as the action keeps it
            from engine.parsing.yaml_hints import ansible_yaml_failure

            return _failed_include(str(ansible_yaml_failure(loaded.error, _text(path))), args, [])
        data = loaded.data if loaded.data is not None else {}
        if not isinstance(data, dict):
            return _failed_include(f"{path} must be stored as a dictionary/hash", args, [])
        facts = combined({str(args["name"]): dict(data)} if args.get("name") else dict(data))
        # each value keeps where the file writes it, as its Origin tag does in ansible (the
        # mapping the action builds under name: has none)
        spans = {} if args.get("name") else getattr(data, "value_spans", {})
        state.learn_included(facts, {str(name): Span(os.path.abspath(span.file), *span[1:])
                                     for name, span in spans.items() if span is not None})
        return {"changed": False, "ansible_facts": facts, "ansible_included_var_files": [os.path.abspath(path)],
                NAME_SPANS: _named_span(task, str(args["name"])) if args.get("name") else _key_spans(data, path)}

    def _include_vars_dir(self, task: Task, args: dict[str, Any], state: HostState,
                          combined: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        role_path = task.role.path if task.role is not None else None
        root = root_dir(str(args["dir"]), role_path, task.span.file if task.span is not None else None)
        try:
            error, values, files, origins = read_vars_dir(args, root, role_path, self._vars_file)
        except VarsDirError as exc:
            return {"failed": True, "changed": False, "msg": f"Task failed: {exc}"}  # raised: AnsibleError
        if error is not None:
            return _failed_include(error, args, files)
        facts = combined({str(args["name"]): values} if args.get("name") else values)
        state.learn_included(facts, {} if args.get("name") else {
            name: Span(os.path.abspath(span.file), *span[1:]) for name, span in origins.items() if span is not None})
        return {"changed": False, "ansible_facts": facts, "ansible_included_var_files": files}


    def _vars_file(self, path: str) -> Any:
        """The data of a file of an include_vars directory; raises :class:`VarsFileUnparsable`
        when it does not parse (the action lets AnsibleYAMLParserError through)."""
        loaded = self.resolver.sources.load(path)
        if loaded.error is not None:
            from engine.parsing.yaml_hints import VarsFileUnparsable, ansible_yaml_failure

            raise VarsFileUnparsable(ansible_yaml_failure(loaded.error, _text(path)))
        return loaded.data


def _text(path: str) -> str | None:
    """A file's text, None when it cannot be read as text."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


NAME_SPANS = "_pls_name_spans"
"""The result's key (popped before it is shown) for where the file writes each variable's name."""


def _named_span(task: Task, name: str) -> dict[str, Span | None]:
    """Where the task writes the ``name`` its variables go under."""
    data = task.data if isinstance(task.data, Mapping) else {}
    written = data.get(task.action) if isinstance(data.get(task.action), Mapping) else data.get("args")
    span = (getattr(written, "value_spans", {}) or {}).get("name")
    return {name: Span(os.path.abspath(span.file), *span[1:]) if span is not None else None}


def _key_spans(data: Any, path: str) -> dict[str, Span | None]:
    """Where ``path`` writes each name ``data`` holds: its span in a YAML file, none in a JSON
    one (ansible's JSON decoder tags no origin on the keys)."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            json.load(handle)
        return {}
    except (OSError, ValueError):
        pass
    return {str(name): Span(os.path.abspath(span.file), *span[1:])
            for name, span in (getattr(data, "key_spans", {}) or {}).items() if span is not None}


def _failed_include(message: str, args: Mapping[str, Any], files: list[str]) -> dict[str, Any]:
    """The action's failed result: its message as ``message`` and the files it read."""
    return {"failed": True, "changed": False, "message": message, "ansible_included_var_files": files,
            "msg": "Task failed: Action failed: Unknown error.",
            "ansible_facts": {str(args["name"]): {}} if args.get("name") else {}}


def _collections_of(task: Task, default_collection: str | None) -> tuple[str, ...]:
    """The collections a run-time ``include_role`` looks its name up in: the nearest
    ``collections:`` keyword of the task's chain, or its role's own collection."""
    from engine.plugins.collection_search import ensure_default

    for frame in reversed(task.chain):
        listed = frame.keywords.get("collections")
        if listed is not None:
            return ensure_default([listed] if isinstance(listed, str) else [str(c) for c in listed or []])
    if task.role is not None and task.role.collection:
        return (task.role.collection, "ansible.builtin")
    return ensure_default([], default_collection)


def _readable(raw: Any) -> dict[str, Any]:
    """The variables of ``raw`` known before the run: a static templar's raw variables fail to
    read a value only the run knows (a registered result, a gathered fact), which a name the
    loaded file templates then does not see."""
    found: dict[str, Any] = {}
    for name in raw:
        try:
            found[name] = raw[name]
        except TemplateFailure:
            continue
    return found
