"""set_stats: custom statistics for the callback (``plugins/action/set_stats.py``).

The result holds ``ansible_stats`` (``data``, ``per_host``, ``aggregate``); the default callback
shows custom statistics only when ``show_custom_stats`` is on, so a run shows none. ``data``
must be a mapping whose keys are variable names; another option is refused as the action
plugin's ``_VALID_ARGS`` refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.booleans import boolean
from engine.run.modules import ModuleContext
from engine.run.modules._args import invalid_options

_VALID = frozenset(("aggregate", "data", "per_host"))
NAMED = True  # its refusal of other options names the action as the task writes it


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "set_stats") -> dict[str, Any]:
    from engine.loading.frames import VARIABLE_NAME_HELP, invalid_variable_name
    from engine.run.error_block import ERROR_KEY, Event

    if refused := invalid_options(action, args, _VALID):
        return refused
    stats: dict[str, Any] = {"data": {}, "per_host": False, "aggregate": True}
    data = args.get("data", {})
    if not isinstance(data, Mapping):
        return {"failed": True, "msg": "The 'data' option needs to be a dictionary/hash"}
    for option in ("per_host", "aggregate"):
        if args.get(option) is not None:
            stats[option] = boolean(args[option])
    written = ctx.written.get("data") if isinstance(ctx.written, Mapping) else None
    for key, value in data.items():
        message = invalid_variable_name(key)
        if message is not None:
            span = (getattr(written, "key_spans", None) or {}).get(key)
            return {"failed": True, "changed": False, "msg": f"Task failed: {message}",
                    ERROR_KEY: [Event(message, span, help=VARIABLE_NAME_HELP)]}
        stats["data"][key] = value
    return {"changed": False, "ansible_stats": stats}
