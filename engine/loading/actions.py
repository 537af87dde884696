"""Which module a task calls and with which arguments (ansible's ``ModuleArgsParser``).

Handles every form ansible accepts: ``module: {k: v}``, free-form ``module: k=v words``,
``action: module k=v``, ``local_action:``, ``args:``, FQCN and short names. A module name
is never looked up in installed collections: any key that is not a keyword is the action.
"""

from __future__ import annotations

from engine.loading.keywords import HANDLER_KEYWORDS, RAW_PARAMS_ACTIONS
from engine.parsing import splitter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Keys ModuleArgsParser never takes for a module name.
_NOT_ACTIONS = HANDLER_KEYWORDS | {"local_action", "static", "async_val", "loop_with"}
_PREFIXES = ("", "ansible.builtin.", "ansible.legacy.")
# ``FREEFORM_ACTIONS`` (``C.MODULE_REQUIRE_ARGS``): a string's words that are not one of
# :data:`_RAW_ARG_KEYS` stay the module's free-form text, ``k=v`` or not
_CHECK_RAW = RAW_PARAMS_ACTIONS | {f"{prefix}{name}" for prefix in _PREFIXES for name in ("win_command", "win_shell")} \
    | {"ansible.windows.win_command", "ansible.windows.win_shell"}
# ``parse_kv(check_raw=True)``: the only keys taken as options of a free-form module
_RAW_ARG_KEYS = frozenset(
    {"creates", "removes", "chdir", "executable", "warn", "stdin", "stdin_add_newline", "strip_empty_ends"}
)


class ActionError(ValueError):
    """The task's action cannot be determined; the message is ansible's wording, ``hint`` what
    to write instead when it is not the usual one (one module per task)."""

    hint: str | None = None


class SplitArgsError(ActionError):
    hint = ("Balance the quotes and Jinja2 blocks; for text that only looks like one (a shell's '${#VAR}'), "
            "give the command as 'cmd:' and write it as {{ '{#' }} or inside {% raw %}...{% endraw %}.")


class ParsedAction:
    """A task's action and arguments; ``key`` is the task key it came from ("action",
    "local_action" or the module name)."""

    __slots__ = ("action", "args", "key", "delegate_to")

    def __init__(self, action: str, args: dict[str, Any], key: str, delegate_to: str | None = None) -> None:
        self.action, self.args, self.key, self.delegate_to = action, args, key, delegate_to


def parse_kv(text: str, check_raw: bool) -> dict[str, Any]:
    """``key=value`` pairs; with ``check_raw`` the other words become ``_raw_params``."""
    try:
        return splitter.parse_kv(text, _RAW_ARG_KEYS if check_raw else None)
    except splitter.SplitError as exc:
        raise SplitArgsError(str(exc)) from None


def _normalize(action: str, thing: Any) -> dict[str, Any]:
    if isinstance(thing, dict):
        return dict(thing)
    if thing is None:
        return {}
    if isinstance(thing, str):
        # split even without a `k=v`: an unbalanced quote or Jinja block (bash's `${#VAR}` opens
        # a comment) fails the load in ansible's split_args
        return parse_kv(thing, check_raw=action in _CHECK_RAW)
    raise ActionError(f"unexpected parameter type in action: {tagged_class(thing)}")


def tagged_class(value: Any) -> str:
    """``type(value)`` as ansible 2.19 shows it for a value loaded from YAML: the tagged variant of
    a string, int, float, list or dict (a bool or None cannot be tagged: Python's own)."""
    if isinstance(value, bool) or value is None:
        return f"<class '{type(value).__name__}'>"
    for base, tagged in ((str, "Str"), (int, "Int"), (float, "Float"), (list, "List"), (dict, "Dict")):
        if isinstance(value, base):
            return f"<class 'ansible.module_utils._internal._datatag._AnsibleTagged{tagged}'>"
    return f"<class '{type(value).__module__}.{type(value).__qualname__}'>"


def apply_problem(args: Mapping[str, Any], action: str, includes: frozenset[str]) -> str | None:
    """``check_options``' (``IncludeRole.load``'s) words for an ``apply`` it refuses: given to an
    import (``action`` not in ``includes``), or no mapping; None when it is fine."""
    apply = args.get("apply", {})
    if apply and action not in includes:
        return f"Invalid options for {action}: apply"
    if not isinstance(apply, dict):
        return f"Expected a dict for apply but got {tagged_class(apply)} instead"
    return None


def _old_style(thing: Any) -> tuple[str, dict[str, Any]]:
    """``action: module args`` or ``action: {module: x, ...}``."""
    if isinstance(thing, dict):
        args = dict(thing)
        action = args.pop("module", None)
        if not isinstance(action, str):
            raise ActionError("no module/action detected in task.")
        return action, args
    if isinstance(thing, str) and thing.strip():
        action, _, rest = thing.strip().partition(" ")
        return action, _normalize(action, rest.strip()) if rest.strip() else {}
    raise ActionError("no module/action detected in task.")


def parse_action(task: dict[str, Any]) -> ParsedAction:
    """Find the action of a task mapping the way ansible does; raise :class:`ActionError`."""
    found: ParsedAction | None = None
    delegate_to = task.get("delegate_to")
    for key in ("action", "local_action"):
        if key in task:
            if found is not None:
                raise ActionError("action and local_action are mutually exclusive")
            action, args = _old_style(task[key])
            found = ParsedAction(action, args, key, "localhost" if key == "local_action" else delegate_to)
    for key, value in task.items():
        if not isinstance(key, str) or key in _NOT_ACTIONS or key.startswith("with_"):
            continue
        if found is not None:
            raise ActionError(f"conflicting action statements: {found.action}, {key}")
        found = ParsedAction(key, _normalize(key, value), key, delegate_to)
    if found is None:
        raise ActionError("no module/action detected in task.")
    extra = task.get("args")
    if isinstance(extra, dict):
        found.args = {**extra, **found.args}
    if isinstance(found.args.get("args"), dict):
        found.args.update(found.args.pop("args"))
    return found
