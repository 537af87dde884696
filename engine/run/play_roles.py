"""The play's roles as ansible keeps them in ``play.roles``, in the order the public ones give
their defaults and vars to every task (``VariableManager.get_vars``) and name the play's roles.

``import_role`` appends its role once loaded, after the roles it imported itself; ansible loads
a play's ``roles:`` first, then puts those roles in front of what their loading appended, then
loads ``pre_tasks``, ``post_tasks`` and ``tasks`` in that order; a run's ``include_role``
appends likewise when it runs. Each member brings its
dependencies' defaults and vars before its own (``get_default_vars``: every dependency, the
deepest first), so the list here holds each member preceded by its dependencies.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.loading.model import Block, Play, RoleInstance


class RoleTree:
    """Which role uses each role use pulls in as a dependency and which it imports, in order."""

    def __init__(self) -> None:
        self.deps: dict[int, list[RoleInstance]] = {}
        self.imports: dict[int, list[RoleInstance]] = {}
        self._seen: set[int] = set()

    def add(self, blocks: Iterable[Block]) -> list[RoleInstance]:
        """Learn the role uses of ``blocks``; returns them in the order they first appear."""
        found = []
        for block in blocks:
            for task in block.tasks():
                role = task.role
                if role is None or id(role) in self._seen:
                    continue
                self._seen.add(id(role))
                found.append(role)
                if role.parent is not None and role.via == "dependency":
                    self.deps.setdefault(id(role.parent), []).append(role)
                elif role.parent is not None and role.via == "import_role":
                    self.imports.setdefault(id(role.parent), []).append(role)
        return found

    def appended(self, role: RoleInstance) -> list[RoleInstance]:
        """The members loading ``role`` appends before it (what it and its dependencies import)."""
        out = [member for dep in self.deps.get(id(role), []) for member in self.appended(dep)]
        for imported in self.imports.get(id(role), []):
            out += [*self.appended(imported), imported]
        return out

    def expanded(self, role: RoleInstance) -> list[RoleInstance]:
        """``role`` preceded by its dependencies, the deepest first."""
        return [*(inner for dep in self.deps.get(id(role), []) for inner in self.expanded(dep)), role]

    def members(self, tops: list[RoleInstance]) -> list[RoleInstance]:
        """``tops`` appended to the play's roles, each with what loading it appends first, as the
        list of role uses whose defaults and vars the play's tasks see."""
        return [role for top in tops for member in [*self.appended(top), top] for role in self.expanded(member)]


def play_roles(play: Play, tree: RoleTree) -> list[RoleInstance]:
    """``play.roles`` once the play is loaded (``tree`` learns its role uses)."""
    return [role for group in play_role_groups(play, tree) for role in group]


def play_role_groups(play: Play, tree: RoleTree) -> list[list[RoleInstance]]:
    """``play.roles`` as loading the play grows it: the ``roles:`` section's, then each top
    ``import_role``'s of ``pre_tasks``, ``post_tasks`` and ``tasks`` (each time a role name is
    templated in between, the variables of the roles so far are gathered)."""
    entries = [role for role in tree.add(play.roles) if role.via == "roles"]
    # Play._load_roles: self.roles[:0] = roles, in front of the roles their loading imported
    members = [*entries, *(member for entry in entries for member in tree.appended(entry))]
    groups = [[role for member in members for role in tree.expanded(member)]]
    for section in (play.pre_tasks, play.post_tasks, play.tasks):
        tops = [role for role in tree.add(section) if role.via == "import_role" and role.parent is None]
        groups += [tree.members([top]) for top in tops]
    return groups
