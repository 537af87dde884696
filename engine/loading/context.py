"""Where a task list is being loaded: the context the resolver and the role loader pass down."""

from __future__ import annotations

from collections.abc import Mapping

from engine.loading.model import Frame, RoleInstance
from engine.plugins.collection_search import ensure_default
from engine.records import NamedTuple
from engine.templating.load_time import with_vars

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Ctx(NamedTuple):
    """Where a task list is being loaded: its inherited frames, role, variables and includes."""

    chain: tuple[Frame, ...]
    basedir: str
    variables: Mapping[str, Any]
    role: RoleInstance | None = None
    handler: bool = False
    dynamic: bool = False
    # templated paths of the enclosing imports/includes within the current role, innermost last
    includes: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    # the collections a short role name is looked up in (``collections:`` of the play, task or role)
    collections: tuple[str, ...] = ()

    def push(self, frame: Frame | None, **changes: Any) -> Ctx:
        """A context one level down; the frame's ``vars`` become visible to static templating."""
        chain = self.chain + (frame,) if frame is not None else self.chain
        if frame is not None and isinstance(frame.keywords.get("vars"), dict) and "variables" not in changes:
            changes["variables"] = with_vars(self.variables, frame.keywords["vars"])
        return self._replace(chain=chain, **changes)


def task_collections(ds: Any, ctx: Ctx) -> tuple[str, ...]:
    """``Task.preprocess_data``: the task's own ``collections:``, else the inherited list."""
    listed = ds.get("collections") if isinstance(ds, dict) else None
    if listed is None:
        return ctx.collections
    names = [listed] if isinstance(listed, str) else [str(n) for n in listed] if isinstance(listed, list) else []
    return ensure_default(names)
