"""ansible's ``check_type_list`` (``module_utils/common/validation.py``), in one place.

Both the linter's reading of module arguments (``playbook_ls.rules.module_args``) and the run's
check of a role's argument specification (``engine.run.role_argument_types``) convert a value
to a list the way ``AnsibleModule`` does; each words the refusal its own way.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class NotAList(TypeError):
    """The value cannot be converted to a list; the message is ansible's."""


def check_type_list(value: Any) -> list[Any]:
    """A list as it is, a string split on commas, a number as a one-item list of its text."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return value.split(",")
    if isinstance(value, (int, float)):
        return [str(value)]
    raise NotAList(f"{type(value)} cannot be converted to a list")
