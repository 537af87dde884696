"""A ``roles:`` entry compiled once for every play that lists it in the same context.

Kubespray's playbooks list ``kubespray-defaults``, ``kubernetes/preinstall``, ``etcd`` and a dozen
more roles in play after play, in playbook after playbook: a command that resolves many playbooks
of one tree (``check``, ``diff``) compiled each use again, most of its time. ansible compiles
every use separately, and so must the tasks: each play's copies carry its own frames (a tag's
origin names the play that lists the role) and are marked and templated per play. So the first
use's compile is kept, and a later use in the same context gets a copy of it whose chains start
with the later play's frames and whose entry frame and role instance are its own; what the
first play set on its tasks since (templated tags, duplicate marks) is left out of the copy.

The context is everything the compile reads besides the role's files: the role (path, name, how
it was found), the entry's parameters and ``vars``, the play's variables as written, the play's
directory and collections, and the resolver's settings and plugin directories. The frames above
the entry (the play's, the imports') only start the tasks' chains: the compile reads nothing of
them, nor of the entry's other keywords. Only compiles that are self-contained are kept: none
that met a problem (its message may name the entry's place), prepended an argument-spec
validation (written where the role is listed) or touched the handlers of a run's include.
Includes left for the play to template once it is loaded are copied with the tasks: each play
follows its own.

What the compile did to the resolver is replayed on every later use, as for a shared play
(:mod:`engine.loading.shared_plays`): the files read, the variable names its templates read, the
handlers it added (copied too), the load warnings, the module names to check at the play's end,
the plugin directories its roles added, and the task entries and role uses it counted.
"""

from __future__ import annotations

from engine.loading.kept import KeptWhileFilesStay
from engine.loading.model import Block, Frame, RoleInstance, Task
from engine.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.context import Ctx
    from engine.span import Span


class SharedRole(NamedTuple):
    """A compile of one ``roles:`` entry: the blocks and handlers its first use got."""

    blocks: list[Block]
    handlers: list[tuple[bool, list[Block]]]
    outer: tuple[Frame, ...]
    """The chain the compile was given and its entry frame: what a later use replaces (the
    compile reads neither: the frames above a role only start its tasks' chains)."""
    entry: Frame
    instance: RoleInstance
    allow_duplicates: bool
    reads: tuple[str, ...]
    names: frozenset[str]
    warnings: tuple[tuple[bool, str], ...]
    module_keys: tuple[tuple[str, tuple[str, ...], Span | None, bool], ...]
    module_paths: tuple[str, ...]
    action_paths: tuple[str, ...]
    entries: int
    role_uses: int
    pending: tuple[Any, ...] = ()
    """The includes the compile left for its play to template (``PendingInclude``), on the
    tasks of the kept copy: each use's play templates and follows its own."""


def role_key(instance: RoleInstance, entry: Frame, ctx: Ctx, settings: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a top-level ``roles:`` entry's compile depends on besides the files it reads."""
    return (instance.path, instance.name, instance.via, instance.external, instance.collection,
            repr(instance.params), entry.kind, repr(entry.keywords.get("vars")), dict.__repr__(ctx.variables),
            ctx.basedir, ctx.collections, ctx.handler,
            ctx.dynamic, ctx.includes, ctx.files, ctx.roles, settings)


def keep(blocks: list[Block], handlers: list[tuple[bool, list[Block]]], ctx: Ctx, entry: Frame,
         instance: RoleInstance, pending: list[Any], **replayed: Any) -> SharedRole:
    """The first use's compile, to copy for later uses: what its play marks and templates on it
    afterwards (:data:`_SET_BY_PLAY`) is left out of each copy. A compile with includes left for
    the play is kept as a copy made now: following them fills the first use's tasks."""
    if not pending:
        return SharedRole(blocks=blocks, handlers=handlers, outer=ctx.chain, entry=entry, instance=instance,
                          allow_duplicates=instance.allow_duplicates, **replayed)
    copier = _Copier({}, {}, ctx.chain, ctx.chain)
    kept = SharedRole(blocks=[copier.block(block) for block in blocks],
                      handlers=[(imported, [copier.block(b) for b in group]) for imported, group in handlers],
                      outer=ctx.chain, entry=copier.frame(entry), instance=copier.role(instance),
                      allow_duplicates=instance.allow_duplicates, **replayed)
    return kept._replace(pending=tuple(copier.pending(include) for include in pending))


def used_again(shared: SharedRole, ctx: Ctx, entry: Frame,
               instance: RoleInstance) -> tuple[list[Block], list[tuple[bool, list[Block]]], list[Any]]:
    """The kept compile for another use: a copy whose tasks inherit from ``ctx``'s frames and
    ``entry``, and belong to ``instance``; with the includes it leaves to its play."""
    instance.entry, instance.allow_duplicates = entry, shared.allow_duplicates
    copier = _Copier({id(shared.entry): entry}, {id(shared.instance): instance}, shared.outer, ctx.chain)
    blocks = [copier.block(block) for block in shared.blocks]
    handlers = [(imported, [copier.block(b) for b in group]) for imported, group in shared.handlers]
    return blocks, handlers, [copier.pending(include) for include in shared.pending]


class _Copier:
    """Copies blocks with their tasks, frames and role instances, each object once (a frame is
    shared by every task below it), keeping the spans, arguments and data they point to."""

    def __init__(self, frames: dict[int, Frame], roles: dict[int, RoleInstance], outer: tuple[Frame, ...],
                 new_outer: tuple[Frame, ...]) -> None:
        self.frames, self.roles = frames, roles
        self.tasks: dict[int, Task] = {}
        self.outer, self.new_outer = len(outer), list(new_outer)
        """Every chain starts with the compile's outer frames (the play's, the imports' above it):
        a copy's start with the later use's, however many levels it has."""

    def block(self, block: Block) -> Block:
        copied = Block(self.frame(block.frame), block.implicit)
        copied.block = [self.item(item) for item in block.block]
        if block.rescue:
            copied.rescue = [self.item(item) for item in block.rescue]
        if block.always:
            copied.always = [self.item(item) for item in block.always]
        return copied

    def item(self, item: Block | Task) -> Block | Task:
        return self.block(item) if type(item) is Block else self.task(item)

    def task(self, task: Task) -> Task:
        copied = _copy_task(task)
        frames = self.frames
        copied.chain = self.new_outer + [frames.get(id(frame)) or self.frame(frame)
                                         for frame in task.chain[self.outer:]]
        if task.role is not None:
            copied.role = self.role(task.role)
        if task.children:
            copied.children = [self.block(block) for block in task.children]
        if task.child_handlers:
            copied.child_handlers = [self.block(block) for block in task.child_handlers]
        self.tasks[id(task)] = copied
        return copied

    def pending(self, include: Any) -> Any:
        """A ``PendingInclude`` of the copied tasks: its task's copy, in a context of the copy's frames."""
        ctx = include.ctx
        chain = (*self.new_outer, *(self.frame(frame) for frame in ctx.chain[self.outer:]))
        return include._replace(task=self.tasks[id(include.task)],
                                ctx=ctx._replace(chain=chain, role=self.role(ctx.role)))

    def frame(self, frame: Frame) -> Frame:
        found = self.frames.get(id(frame))
        if found is None:
            found = self.frames[id(frame)] = _copy_frame(frame)
        return found

    def role(self, role: RoleInstance | None) -> RoleInstance | None:
        if role is None:
            return None
        found = self.roles.get(id(role))
        if found is None:
            found = self.roles[id(role)] = _copy_role(role)
            found.parent = self.role(role.parent)
            found.entry = self.frame(role.entry) if role.entry is not None else None
        return found


_SET_BY_PLAY = {
    "Frame": ("tag_values", "tag_error"),  # templated with the play's variables (PlayLoading._template_tags)
    "Task": ("_tag_cache",),  # of those templated tags
    "RoleInstance": ("duplicate_of", "run_from"),  # by the play's other roles, by its hosts
}
"""What a play sets on its tasks, frames and role instances once they are loaded: a copy starts
without it."""


def _copier(kind: type) -> Any:
    """A function copying a ``kind`` object slot by slot (generated: a loop of getattr and setattr
    costs several times more, on every task of every role used again)."""
    reset = _SET_BY_PLAY[kind.__name__]
    names = [name for klass in kind.__mro__ for name in getattr(klass, "__slots__", ())]
    lines = [f"    copied.{name} = {'None' if name in reset else f'obj.{name}'}" for name in names]
    source = "def copy(obj):\n    copied = new(kind)\n" + "\n".join(lines) + "\n    return copied\n"
    namespace: dict[str, Any] = {"new": object.__new__, "kind": kind}
    exec(compile(source, f"<copy {kind.__name__}>", "exec"), namespace)  # noqa: S102 - our own slot names
    return namespace["copy"]


_copy_task = _copier(Task)
_copy_frame = _copier(Frame)
_copy_role = _copier(RoleInstance)


class SharedRoles(KeptWhileFilesStay):
    """The kept compiles of one command (its :class:`~engine.loading.shared_plays.SharedPlays`
    holds them)."""

    def get(self, key: tuple[Any, ...]) -> SharedRole | None:
        return super().get(key)
