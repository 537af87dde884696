"""setup (and the gather_facts action around it): facts about the LOCAL machine.

The facts are those of :mod:`engine.run.facts`, prefixed ``ansible_`` like ansible's
``PrefixFactNamespace``; ``filter`` keeps the keys matching its globs (a glob is tried with the
prefix too, as ``AnsibleFactCollector._filter`` does). The gather_facts action marks the host's
facts as gathered (for ``gathering = smart``) and hides the facts from ``-v`` output.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Mapping
from typing import Any

from engine.run import facts
from engine.run.facts_local import FactScriptFailure
from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import Arg, validate

SPEC = {
    "gather_subset": Arg(type="list", default=["all"]),
    "gather_timeout": Arg(type="int", default=10),  # every collector here is fast: nothing to time out
    "filter": Arg(type="list", default=[]),
    "fact_path": Arg(type="path", default="/etc/ansible/facts.d"),
}


def _keep(key: str, patterns: list[str]) -> bool:
    if not patterns or patterns == ["*"]:
        return True
    for pattern in patterns:
        if not pattern or fnmatch.fnmatch(key, pattern):
            return True
        if not pattern.startswith(("ansible_", "facter", "ohai")) and fnmatch.fnmatch(key, f"ansible_{pattern}"):
            return True
    return False


def host_interpreter(task_vars: Any) -> str | None:
    """The python the host's modules run with: its ``ansible_python_interpreter``, else the
    ``interpreter_python`` setting unless it asks for discovery (``auto``...: None, the engine's)."""
    from engine.config import config_value

    value = task_vars.get("ansible_python_interpreter")
    if value is None:
        value = config_value("ANSIBLE_PYTHON_INTERPRETER", "defaults", "interpreter_python")
    if not isinstance(value, str) or not value or value.startswith("auto"):  # discovered (its fact), else none
        facts = task_vars.get("ansible_facts")
        found = facts.get("discovered_interpreter_python") if isinstance(facts, Mapping) else None
        return found if isinstance(found, str) and found != sys.executable else None
    return value


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    params = validate("setup", args, SPEC)
    subset = params["gather_subset"] or ["all"]
    warnings: list[str] = []
    try:
        gathered = facts.gather(subset, params["fact_path"], host_interpreter(ctx.task_vars), warnings)
    except ValueError as exc:
        raise ModuleError(str(exc)) from None
    except FactScriptFailure as exc:  # a fact program that does not start fails the module
        return exc.result
    # PrefixFactNamespace.transform: a dash becomes an underscore (an interface's "br-lan")
    found = {f"ansible_{key.replace('-', '_')}": value for key, value in gathered.items()}
    found |= {"gather_subset": subset, "module_setup": True}  # ansible's metadata collector, unprefixed
    result = {"changed": False, "ansible_facts": {k: v for k, v in found.items() if _keep(k, params["filter"])}}
    return result | ({"warnings": warnings} if warnings else {})


def gather_facts(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    """The gather_facts action with ansible's default FACTS_MODULES (smart: setup on Linux)."""
    args = {k: v for k, v in args.items() if k != "parallel"}
    result = run(args, ctx)
    result["ansible_facts"]["_ansible_facts_gathered"] = True
    result["_ansible_verbose_override"] = True
    return result
