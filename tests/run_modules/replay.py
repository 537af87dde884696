"""Runs a recorded case through the bundled module, in a scratch directory laid out like
the one ansible saw, and shapes the outcome like the recording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from module_cases import TEMPLATE_VARS, Case, lay_out, normalise, snapshot, substitute

from engine.run.modules import ModuleContext, ModuleError, get_module
from engine.templating.templar import Templar


def context(search_root: Path, check: bool = False, diff: bool = False) -> ModuleContext:
    templar = Templar(TEMPLATE_VARS)  # the executor's templar, so templates render as in a run
    return ModuleContext(
        check_mode=check,
        diff=diff,
        task_vars=dict(TEMPLATE_VARS),
        search_paths=[str(search_root)],
        render=templar.render_text,
        evaluate=templar.evaluate,
    )


def status(result: dict[str, Any]) -> str:
    return "failed" if result.get("failed") else "skipped" if result.get("skipped") else "ok"


def run_case(case: Case, root: Path) -> dict[str, Any]:
    """{"result": ..., "disk": ...} for ``case`` run in ``root / case.id``."""
    directory = root / case.id
    lay_out(directory, case.setup)
    module = get_module(case.module)
    assert module is not None, case.module
    try:
        result = module(substitute(case.args, str(directory)), context(root, case.check, case.diff))
    except ModuleError as exc:
        result = {"failed": True, "msg": str(exc)}
    # the recording callback sees results without the internal keys meant for the stdout callback
    # (and, as _dump_results, without the warnings, which the stdout callback prints, and the invocation)
    shaped = {key: value for key, value in result.items()
              if key not in ("failed", "skipped", "warnings", "invocation") and not key.startswith("_ansible")}
    shaped.setdefault("changed", False)
    shaped["_status"] = status(result)
    return {"result": normalise(shaped, str(directory)), "disk": snapshot(directory)}


def align_uploaded(ours: Any, recorded: Any) -> Any:
    """Where ansible reports its temporary upload path, ours reports the real source; treat as equal."""
    if isinstance(ours, dict) and isinstance(recorded, dict):
        return {
            key: "<UPLOADED>" if recorded.get(key) == "<UPLOADED>" else align_uploaded(value, recorded.get(key))
            for key, value in ours.items()
        }
    if isinstance(ours, list) and isinstance(recorded, list):
        return [align_uploaded(a, b) for a, b in zip(ours, recorded, strict=False)] + ours[len(recorded) :]
    return ours
