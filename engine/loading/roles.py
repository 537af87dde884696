"""Roles: ``roles:`` entries, meta dependencies, ``import_role`` and ``include_role``.

Mirrors ``RoleDefinition`` (lookup), ``Role.load``/``Role.compile`` (dependencies first, then
the role's own blocks; the argument-spec validation task prepended) and
``IncludeRole.get_block_list``. Every use of a role is compiled separately, so the same
task file reached from two places yields two tasks with different inherited frames.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from engine.loading import keywords as kw
from engine.loading import paths
from engine.loading.actions import apply_problem, tagged_class
from engine.loading.context import Ctx, task_collections
from engine.loading.model import Block, Frame, RoleInstance, Task, implicit_meta_block
from engine.loading.paths import find_role, find_role_file
from engine.loading.requirements import install_hint
from engine.plugins.collection_search import is_fqcr
from engine.span import Span, YMap, YSeq
from engine.templating.load_time import resolve_variables, with_vars
from engine.variables.play_context import parent_role_params, role_lineage, role_variables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from engine.config import AnsibleConfig
    from engine.loading.requirements import Requirement
    from engine.parsing.source import SourceCache
    from engine.plugins.collection_search import CollectionFinder
    from engine.plugins.names import PluginNames

    class TaskLoader(Protocol):
        """What the role loader needs from the resolver that owns it (``engine.loading.resolve.Resolver``)."""

        sources: SourceCache
        config: AnsibleConfig
        extra_vars: dict[str, Any]
        collections: CollectionFinder
        default_collection: str | None
        plugins: PluginNames | None
        reuse: Any
        problems: list[Any]
        load_warnings: list[tuple[bool, str]]
        entries: int

        def share_settings(self) -> tuple[Any, ...]: ...

        def take_over(self, shared: Any) -> bool: ...

        def pending_includes(self) -> list[Any]: ...

        def module_keys_pending(self) -> list[tuple[str, tuple[str, ...], Span | None, bool]]: ...

        def add_module_keys(self, keys: tuple[tuple[str, tuple[str, ...], Span | None, bool], ...]) -> None: ...

        def problem(self, code: str, message: str, span: Span | None, hint: str = "", fatal: bool = True,
                    exit_code: int = ..., requirement: Requirement | None = None,
                    chain: tuple[tuple[str, Span | None, str | None], ...] = ()) -> None: ...

        def requirement_for(self, kind: str, name: str) -> Requirement | None: ...

        def load_yaml(self, path: str, span: Span | None) -> Any: ...

        def load_blocks(self, ds: Any, ctx: Ctx, span: Span | None) -> list[Block]: ...

        def task(self, ds: YMap, action: str, args: dict[str, Any], ctx: Ctx) -> Task: ...

        def frame(self, kind: str, label: str, ds: Mapping[str, Any], variables: Mapping[str, Any],
                  exclude: frozenset[str] = frozenset(), owner: str | None = None) -> Frame: ...

        def render_static(self, value: Any, variables: Mapping[str, Any], span: Span | None,
                          exit_code: int = ...) -> Any: ...

        def with_magic(self, variables: Mapping[str, Any], basedir: str) -> dict[str, Any]: ...

        def defer_include(self, task: Task, ctx: Ctx, span: Span | None, raw: tuple[Any, ...],
                          follow: Callable[..., None]) -> None: ...


EXIT_ERROR = 1
# Role uses (roles: entries, dependencies, imports and includes) one playbook may expand to.
# ansible compiles every use separately, so roles that each depend twice on the next double
# the count at every level: 25 of them make 33 million (ansible-playbook needs minutes for
# 8,000). Large real repositories stay in the low thousands.
MAX_ROLE_USES = 10_000
_FROM_ARGS = {"tasks_from": "tasks", "vars_from": "vars", "defaults_from": "defaults", "handlers_from": "handlers"}


def rolespec_validate(args: object) -> bool:
    """An import's or include's ``rolespec_validate`` (a boolean, true by default)."""
    from engine.booleans import boolean

    return boolean(args.get("rolespec_validate", True)) if isinstance(args, Mapping) else True


def _validates_at(blocks: list[Block], instance: RoleInstance) -> bool:
    """Whether the role's argument-spec validation task is among ``blocks``: it is written where
    the role is listed (another entry's copy would keep this one's place)."""
    return any(isinstance(task.data, RoleValidation) and task.role is instance
               for block in blocks for task in block.tasks())


class RoleValidation(YMap):
    """The task ansible prepends to a role's tasks when its argument spec has the entry point's
    (``Role._create_validation_task``): written nowhere, so an error in it shows no source but
    the task's data."""

    __slots__ = ()


def reported_span(task: Any, play: Any) -> Any:
    """Where ansible reports ``task`` (``Base.get_path``): where it is written, or, for the role's
    argument spec validation it prepends (written nowhere), the play's own place."""
    return play.span if isinstance(task.data, RoleValidation) and getattr(play, "span", None) else task.span


class RoleLoader:
    def __init__(self, resolver: TaskLoader) -> None:
        self.resolver = resolver
        self.handler_blocks: list[tuple[bool, list[Block]]] = []
        """Each role use's handlers in load order, marked True when an ``import_role`` brought
        the role (or the role that depends on it) in."""
        self.included_handlers: list[tuple[bool, list[Block]]] | None = None
        """Set (to a list) while a run includes a role: the handlers of the role and of its
        dependencies go there, to join the play's (``IncludeRole.get_block_list``)."""
        self.uses = 0  # role uses compiled for the current playbook; the resolver resets it
        self._imported: list[list[tuple[bool, list[Block]]]] = []
        """Per ``import_role`` being loaded, the handlers of the role and its dependencies: they
        join the play's once the role is loaded, after those of the roles its tasks (and its
        dependencies' tasks) import (``IncludeRole.get_block_list`` calls ``get_handler_blocks``
        after ``Role.load`` parsed the tasks)."""

    def _over_budget(self, instance: RoleInstance) -> bool:
        """Count one more role use; past the limit, report the first use cut and refuse it."""
        self.uses += 1
        if self.uses == MAX_ROLE_USES + 1:
            self.resolver.problem(
                "invalid-structure", f"the roles' dependencies expand to more than {MAX_ROLE_USES:,} role uses; "
                f"playbook-ls stopped expanding them here (role '{instance.name}'), so the listing is incomplete",
                instance.span, "Each use of a role compiles its dependencies again: a role listed twice in "
                "'dependencies', at several levels, multiplies them. List each dependency once.")
        return self.uses > MAX_ROLE_USES

    # -- entry points -----------------------------------------------------------------------
    def from_entry(self, entry: Any, span: Span | None, ctx: Ctx, via: str,
                   parent: RoleInstance | None = None) -> list[Block]:
        """A ``roles:`` entry or a meta dependency: string, or mapping with role/name."""
        r = self.resolver
        if isinstance(entry, int):
            entry = str(entry)
        if isinstance(entry, str):
            if "," in entry:
                r.problem("invalid-role", f"Invalid old style role requirement: {entry}", span, exit_code=EXIT_ERROR)
                return []
            ds: dict[str, Any] = YMap(span)
            ds["role"] = entry
        elif isinstance(entry, dict):
            ds = entry
        else:
            r.problem("invalid-role", "Invalid role definition.", span)
            return []
        name = ds.get("role", ds.get("name"))
        if not name or not isinstance(name, str):
            r.problem("invalid-role", "role definitions must contain a role name", getattr(ds, "span", span),
                      "Add 'role: <name>' to the entry.", exit_code=EXIT_ERROR)
            return []
        name_span = getattr(ds, "value_spans", {}).get("role" if "role" in ds else "name", span)
        name = r.render_static(name, ctx.variables, name_span, exit_code=EXIT_ERROR)
        if not isinstance(name, str):
            return []
        label = "dependency" if via == "dependency" else "roles: entry"
        frame = r.frame(via, f'{label} "{name}"', ds, ctx.variables, exclude=frozenset({"name"}))
        frame.span = getattr(ds, "span", span)
        params = {k: v for k, v in ds.items() if k not in kw.ROLE_ENTRY_KEYWORDS}
        role_basedir = os.path.dirname(parent.path) if parent and parent.path else None
        instance = self.locate(name, name_span, ctx, via, role_basedir, ctx.collections,
                               origin=getattr(entry, "span", None) if isinstance(entry, dict) else span)
        if instance is None:
            return []
        instance.params, instance.parent = params, parent
        if via == "roles" and parent is None:
            return self._compile_listed(instance, frame, ctx)
        return self.compile(instance, frame, ctx)

    def _compile_listed(self, instance: RoleInstance, entry: Frame, ctx: Ctx) -> list[Block]:
        """A play's ``roles:`` entry: compiled once per context for a command that resolves many
        playbooks (:mod:`engine.loading.shared_roles`), each play given its own copy."""
        r = self.resolver
        shared_plays = r.sources.shared_plays if r.reuse is None else None
        if shared_plays is None or r.plugins is None or self.included_handlers is not None:
            return self.compile(instance, entry, ctx)
        from engine.loading import shared_roles
        from engine.templating.read_names import names_recorded

        key = shared_roles.role_key(instance, entry, ctx, r.share_settings())
        found = shared_plays.roles.get(key)
        if found is not None and r.take_over(found):
            r.load_warnings += found.warnings
            r.add_module_keys(found.module_keys)
            blocks, handlers, pending = shared_roles.used_again(found, ctx, entry, instance)
            self.handler_blocks += handlers
            r.pending_includes().extend(pending)
            return blocks
        before = (len(r.problems), len(r.load_warnings), len(r.pending_includes()), len(self.handler_blocks),
                  r.entries, self.uses, len(r.module_keys_pending()))
        with r.sources.tracking() as read, names_recorded() as names:
            blocks = self.compile(instance, entry, ctx)
        problems, warnings, pending, handlers, entries, uses, keys = before
        if len(r.problems) == problems and self.included_handlers is None and not _validates_at(blocks, instance):
            shared_plays.roles.put(key, shared_roles.keep(
                blocks, self.handler_blocks[handlers:], ctx, entry, instance, r.pending_includes()[pending:],
                reads=tuple(read),
                names=frozenset(names), warnings=tuple(r.load_warnings[warnings:]),
                module_keys=tuple(r.module_keys_pending()[keys:]), module_paths=tuple(r.plugins.module_paths),
                action_paths=tuple(r.plugins.action_paths), entries=r.entries - entries, role_uses=self.uses - uses))
        return blocks

    def from_task(self, ds: YMap, args: dict[str, Any], action: str, ctx: Ctx) -> list[Block | Task]:
        """``import_role`` expands in place; ``include_role`` stays one (dynamic) task."""
        r = self.resolver
        name = args.get("name", args.get("role"))
        # IncludeRole.load's AnsibleParserError, worded as ansible-playbook shows it (chain)
        if name is None:
            message = f"'name' is a required field for {action}."
            r.problem("invalid-task", message, ds.span, f"Add 'name: <role>' under {action}.",
                      chain=((message, ds.span, None),))
            return []
        # the names in the order of ansible's set difference (','.join(list(bad_opts)))
        bad = list(frozenset(args).difference(kw.INCLUDE_ROLE_ARGS))
        if bad:
            message = f"Invalid options for {action}: {','.join(bad)}"
            r.problem("invalid-task", message, ds.span, chain=((message, ds.span, None),))
            return []
        for key in frozenset(args).intersection(_FROM_ARGS):  # IncludeRole.load's error has no origin
            if not isinstance(args[key], str):
                message = f"Expected a string for {key} but got {tagged_class(args[key])} instead"
                r.problem("invalid-task", message, ds.span, f"Write '{key}:' as the name of a file of the role.",
                          chain=((message, None, None),))
                return []
        static = action in kw.IMPORT_ROLE
        if message := apply_problem(args, action, kw.INCLUDE_ROLE):
            r.problem("invalid-task", message, ds.span, "'apply' only works with include_role, as a mapping.",
                      chain=((message, ds.span, None),))
            return []
        if static and ("loop" in ds or any(str(k).startswith("with_") for k in ds)):
            message = "You cannot use loops on 'import_role' statements. You should use 'include_role' instead."
            r.problem("invalid-task", message, ds.span, chain=((message, ds.span, None),))
            return []
        from_files = {sub: str(args[key]) for key, sub in _FROM_ARGS.items() if key in args}
        span = ds.value_spans.get(action)
        if not static:
            task = r.task(ds, action, args, ctx)
            task.include_target = str(name)
            task.apply = args["apply"] if isinstance(args.get("apply"), dict) else None  # keeps positions
            if r.follow_dynamic:
                self._include_role_children(task, str(name), from_files, ctx)
            return [task]
        variables = with_vars(ctx.variables, ds.get("vars"))
        name = r.render_static(name, variables, span, exit_code=EXIT_ERROR)
        if not isinstance(name, str):
            return []
        # IncludeRole.get_block_list templates the *_from files too, with the same variables
        from_files = {sub: str(r.render_static(value, variables, span, exit_code=EXIT_ERROR))
                      for sub, value in from_files.items()}
        frame = r.frame("import_role", f"import_role {name}", ds, ctx.variables)
        instance = self.locate(name, span, ctx, "import_role", None, task_collections(ds, ctx),
                               origin=(getattr(ds.get(action), "value_spans", None) or {}).get("name", span))
        if instance is None:
            return []
        instance.from_files, instance.parent, instance.public = from_files, ctx.role, args.get("public")
        instance.allow_duplicates = bool(args.get("allow_duplicates", True))
        return list(self.compile(instance, frame, ctx, validate=rolespec_validate(args)))

    # -- lookup and compile -----------------------------------------------------------------
    def locate(self, name: str, span: Span | None, ctx: Ctx, via: str, role_basedir: str | None,
                collections: tuple[str, ...], origin: Span | None = None) -> RoleInstance | None:
        """``RoleDefinition._load_role_path``: in the collections searched first, then roles_path.
        ``origin``: where ansible's error for a role not found points (the definition it loads: a
        ``roles:`` entry, an import's role name), when the listing's own ``span`` is elsewhere."""
        r = self.resolver
        if collections or is_fqcr(name):
            found = r.collections.find_role(name, collections)
            if found is not None:
                role, path, collection = found
                # ansible knows only installed collections: a short name that resolves here to the
                # collection under edit is one it finds through roles_path, and names it so
                short = not is_fqcr(name) and collection in r.collections.sources
                return RoleInstance(name if short else f"{collection}.{role}", path, via, span, external=True,
                                    collection=collection)
        path, searched = find_role(name, ctx.basedir, r.config.roles_path, role_basedir)
        if path is None:
            requirement = r.requirement_for("collection" if is_fqcr(name) else "role", name)
            hint = install_hint(requirement) or (
                "Install the collection (ansible-galaxy collection install), check its collections_path, "
                "or check the name." if is_fqcr(name) else
                "Create the role there, fix its name, or add its directory to roles_path.")
            message = f"the role '{name}' was not found in {':'.join([*collections, *searched])}"
            r.problem("unresolved-role", message, span, hint, exit_code=EXIT_ERROR, requirement=requirement,
                      chain=((message, origin, None),) if origin is not None else ())
            return None
        display = os.path.basename(name) if not any(
            paths.exists(os.path.join(p, name)) for p in searched) else name
        return RoleInstance(display, path, via, span)

    def _dependency_collections(self, owner: RoleInstance) -> tuple[str, ...]:
        """``RoleMetadata._load_dependencies``: the owner's collection first, then the default
        collection, then ``ansible.legacy`` (the owner's own ``collections`` are not set yet)."""
        found = [owner.collection] if owner.collection else []
        default = self.resolver.default_collection
        if default and default not in found:
            found.append(default)
        return (*found, "ansible.legacy")

    def _role_collections(self, instance: RoleInstance, meta: dict[str, Any]) -> tuple[str, ...]:
        """``Role._load_role_data``: what a short name in the role's own tasks is looked up in."""
        default = instance.collection or self.resolver.default_collection
        found = [default] if default else []
        listed = meta.get("collections")
        for name in [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else []:
            if str(name) not in found:
                found.append(str(name))
        if found and "ansible.builtin" not in found and "ansible.legacy" not in found:
            found.append("ansible.builtin" if instance.collection else "ansible.legacy")
        return tuple(found)

    def _meta(self, instance: RoleInstance) -> dict[str, Any]:
        path, _ = find_role_file(instance.path or "", "meta", None)
        if path is None:
            return {}
        data = self.resolver.load_yaml(path, instance.span)
        return data if isinstance(data, dict) else {}

    def _argument_specs(self, instance: RoleInstance, meta: dict[str, Any]) -> dict[str, Any]:
        base = os.path.join(instance.path or "", "meta", "argument_specs")
        for ext in (".yml", ".yaml", ".json"):
            if paths.exists(base + ext):
                data = self.resolver.load_yaml(base + ext, instance.span)
                specs = data.get("argument_specs") if isinstance(data, dict) else None
                return specs if isinstance(specs, dict) else {}
        specs = meta.get("argument_specs")
        return specs if isinstance(specs, dict) else {}

    def _role_vars(self, instance: RoleInstance, ctx: Ctx) -> dict[str, Any]:
        loaded = [paths.load_role_vars(lambda path: self.resolver.sources.load(path).data, instance.path or "", sub,
                                       instance.from_files.get(sub)) for sub in ("defaults", "vars")]
        # A role another role includes sees that role's include params (below extra vars), its name
        # first in ansible_parent_role_names, when its tasks are loaded, at run time; an imported
        # role's tasks are loaded with the play and ansible evaluates their tags before any include.
        parent = parent_role_params(instance)
        included = parent[1] if parent is not None and parent[0].via == "include_role" else {}
        variables = {**ctx.variables, **loaded[0], **loaded[1], **instance.params, **included,
                     **self.resolver.extra_vars}
        variables = self.resolver.with_magic(variables, ctx.basedir)
        variables.update(role_variables(instance))
        return resolve_variables(variables)

    def compile(self, instance: RoleInstance, entry: Frame, ctx: Ctx, validate: bool = True) -> list[Block]:
        """``Role.compile``: the dependencies' blocks, then the role's own."""
        if instance.via != "import_role" or ctx.dynamic:
            return self._compile(instance, entry, ctx, validate)
        self._imported.append([])
        try:
            return self._compile(instance, entry, ctx, validate)
        finally:
            self.handler_blocks += self._imported.pop()

    def _compile(self, instance: RoleInstance, entry: Frame, ctx: Ctx, validate: bool) -> list[Block]:
        r = self.resolver
        assert instance.path is not None
        # a role may import its own other task files; only the same entry point again is a loop
        key = f"{instance.path}:{instance.from_files.get('tasks', 'main')}"
        if key in ctx.roles or len(ctx.roles) > 32:
            r.problem("import-cycle", "A recursion loop was detected with the roles specified. Make sure child roles "
                      f"do not have dependencies on parent roles (role '{instance.name}')", instance.span,
                      "Remove the dependency that leads back to a role already in the chain.", exit_code=EXIT_ERROR)
            return []
        if self._over_budget(instance):
            return []
        instance.entry = entry
        unreadable = [sub for sub in (".", *_ROLE_FILE_DIRS) if paths.unreadable_dir(os.path.join(instance.path, sub))]
        if unreadable:  # ansible sees nothing there either and runs an empty role: say why it is empty
            where = "the role directory" if "." in unreadable else ", ".join(f"{sub}/" for sub in unreadable)
            r.problem("unresolved-role", f"cannot read {where} of role '{instance.name}' ({instance.path}): "
                      "permission denied", instance.span, "Let the user running playbook-ls and ansible read it.",
                      fatal=False)
        if instance.collection is None and r.plugins is not None:  # a legacy role's library/ serves everyone after
            r.plugins.add_plugin_dirs(instance.path)
        meta = self._meta(instance)
        if "allow_duplicates" in meta and instance.via not in ("import_role", "include_role"):
            instance.allow_duplicates = bool(meta["allow_duplicates"])
        role_ctx = ctx.push(entry, role=instance, includes=(), roles=ctx.roles + (key,),
                            variables=with_vars(self._role_vars(instance, ctx), entry.keywords.get("vars")))
        blocks: list[Block] = []
        deps = meta.get("dependencies") or []
        if isinstance(deps, list):
            deps_ctx = role_ctx._replace(collections=self._dependency_collections(instance))
            for index, dep in enumerate(deps):
                dep_span = deps.item_spans[index] if isinstance(deps, YSeq) else instance.span
                blocks += self.from_entry(dep, dep_span, deps_ctx, via="dependency", parent=instance)
        role_ctx = role_ctx._replace(collections=self._role_collections(instance, meta))
        if instance.external and not paths.isdir(os.path.join(instance.path, "tasks")):
            return blocks
        task_data = self._task_data(instance, "tasks", validate, meta)
        if task_data:
            blocks += r.load_blocks(task_data, role_ctx, getattr(task_data, "span", None))
        complete = implicit_meta_block(role_ctx.chain, "role_complete", instance)
        for task in complete.tasks():  # an included role's is run as its tasks are, not as planned
            task.dynamic = ctx.dynamic
        blocks.append(complete)
        # an include_role's handlers only exist once a run includes it
        target = self.included_handlers if ctx.dynamic else None
        if not ctx.dynamic or target is not None:
            handler_data = self._task_data(instance, "handlers", False, meta)
            if handler_data:
                handlers = r.load_blocks(handler_data, role_ctx._replace(handler=True), None)
                group = (role_lineage(instance)[0].via == "import_role", handlers)
                if target is not None:
                    target.append(group)
                elif group[0] and self._imported:
                    self._imported[-1].append(group)
                else:
                    self.handler_blocks.append(group)
        return blocks

    def _task_data(self, instance: RoleInstance, sub: str, validate: bool, meta: dict[str, Any]) -> Any:
        r = self.resolver
        requested = instance.from_files.get(sub)
        path, missing = find_role_file(instance.path or "", sub, requested)
        data = r.load_yaml(path, instance.span) if path else None
        if missing:
            message = f"Could not find specified file in role: {sub}/{requested}"
            # ansible's AnsibleParserError for it names no object: its error block has no origin
            r.problem("unresolved-import", message, instance.span,
                      f"Check that {sub}/{requested}.yml exists in role '{instance.name}'.",
                      chain=((message, None, None),))
            return None
        if data is not None and not isinstance(data, list):
            r.problem("invalid-structure", f"The {sub}/main.yml file for role {instance.name!r} must contain a list "
                      "of tasks.", getattr(data, "span", instance.span))
            return None
        if sub == "tasks" and validate:
            specs = self._argument_specs(instance, meta)
            entrypoint = requested or "main"
            spec = specs.get(entrypoint)
            if spec:
                name = f"Validating arguments against arg spec '{entrypoint}'"
                if isinstance(spec, dict) and "short_description" in spec:
                    name += f" - {spec['short_description']}"
                validation = RoleValidation(instance.span)
                context = {"type": "role", "name": instance.name, "argument_spec_name": entrypoint,
                           "path": instance.path}
                args = {"argument_spec": spec.get("options", {}) if isinstance(spec, dict) else {},
                        "provided_arguments": dict(instance.params), "validate_args_context": context}
                validation.update(action="ansible.builtin.validate_argument_spec", args=args, name=name,
                                  tags=["always"])
                prepended = YSeq(getattr(data, "span", None))
                prepended.append(validation)
                prepended.item_spans.append(instance.span)  # type: ignore[arg-type]
                for index, item in enumerate(data or []):
                    prepended.append(item)
                    prepended.item_spans.append(data.item_spans[index] if isinstance(data, YSeq) else None)
                return prepended
        return data

    def _include_role_children(self, task: Task, name: str, from_files: dict[str, str], ctx: Ctx) -> None:
        """What ``include_role`` would load at run time, when its name is static."""
        r = self.resolver
        if any("{{" in value for value in (name, *from_files.values())):  # templated once the play is loaded
            subs = list(from_files)

            def follow(task: Task, ctx: Ctx, _span: Span | None, name: str, *files: str) -> None:
                self._include_role_children(task, name, dict(zip(subs, files, strict=True)), ctx)

            r.defer_include(task, ctx, task.span, (name, *from_files.values()), follow)
            return
        problems_before = len(r.problems)
        instance = self.locate(name, task.span, ctx, "include_role", None,
                                task_collections(task.data if isinstance(task.data, dict) else {}, ctx))
        if instance is not None:
            instance.from_files, instance.parent = from_files, ctx.role
            instance.public = task.args.get("public") if isinstance(task.args, dict) else None
            # IncludeRole.allow_duplicates (default true) overrides the role's meta, as for import_role
            instance.allow_duplicates = bool(task.args.get("allow_duplicates", True)) if isinstance(task.args, dict) \
                else True
            task.include_resolved = instance.path
            parent = parent_role_params(instance)
            task.include_vars = {**ctx.variables, **(parent[1] if parent else {}), **r.extra_vars}
            apply = r.frame("apply", f"apply of include_role {name}", task.apply, ctx.variables) \
                if task.apply else Frame("include_role", f"include_role {name}", task.span)
            dynamic_ctx = ctx.push(None, dynamic=True)
            collecting, self.included_handlers = self.included_handlers, []  # not the run's include
            try:
                task.children = self.compile(instance, apply, dynamic_ctx, rolespec_validate(task.args))
            finally:
                loaded, self.included_handlers = self.included_handlers, collecting
            task.child_handlers = included_handler_blocks(loaded)
        for found in r.problems[problems_before:]:
            found.fatal = False  # ansible meets include problems only at run time


def included_handler_blocks(loaded: list[tuple[bool, list[Block]]]) -> list[Block]:
    """The handlers an included role adds to the play's: those of the roles it imports join while
    it loads, before its own and its dependencies' (``IncludeRole.get_block_list``)."""
    return [block for imported in (True, False) for was_imported, blocks in loaded if was_imported is imported
            for block in blocks]


_ROLE_FILE_DIRS = ("tasks", "handlers", "meta", "defaults", "vars")
