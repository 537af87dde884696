"""How much of real roles the comparison runs: each task of each role's task files, as
role_scenarios.py rewrites it, is kept (it runs in the scenario as written, less what needs root)
or becomes a ``debug`` placeholder, for one of these reasons::

    python tests/run_realroles/reach.py DIR...     # DIR holds checkouts as OWNER+NAME

Blocks are counted by their tasks. The reasons, in the order they are decided:

* ``system module``: a module the engine refuses on purpose (packages, services, users...:
  ``engine.run.modules.SYSTEM_MODULES``), whose run goes to ansible-playbook;
* ``another role``: ``include_role`` / ``import_role`` (the scenario holds the role itself only);
* ``module the engine lacks``: a collection's (``community.mysql.mysql_db``) or ansible-core's
  (``package_facts``, ``getent``), which the plan names before a run;
* ``module left out``: one the engine has that would reach the network (``get_url``, ``uri``,
  ``git``, an ``unarchive`` of a URL), run the role's own programs (``raw``, ``script``), read
  this machine's facts (``setup``), wait (``wait_for``, a long ``pause``) or write outside the
  scenario (``tempfile``, ``fetch``);
* ``command that may write``: ``command`` / ``shell`` without ``creates`` / ``removes`` whose line
  is not one that only reads (read_only_commands.py);
* ``other``: a meta action or a task shape with no single module.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import role_scenarios
import yaml

REASONS = ("kept", "system module", "another role", "module the engine lacks", "module left out",
           "command that may write", "other")


def _fate(task: dict[str, Any]) -> tuple[str, str]:
    """(reason, module) of one task that is no block."""
    from engine.run.modules import MODULE_NAMES, changes_the_system

    kept, _ = role_scenarios.rewrite_task(role_scenarios.rewrite_paths(task))
    placeholder = kept.get("ansible.builtin.debug") if "ansible.builtin.debug" not in task else None
    _key, module, _args = role_scenarios.written(task)
    short = role_scenarios.short_name(module) if module else ""
    if not (isinstance(placeholder, dict) and str(placeholder.get("msg", "")).startswith("not run here: ")):
        return "kept", short
    if not module or short == "meta":
        return "other", short or "?"
    if changes_the_system(module):
        return "system module", short
    if short in ("include_role", "import_role"):
        return "another role", short
    if short in role_scenarios.COMMANDS:
        return "command that may write", short
    if short in MODULE_NAMES:
        return "module left out", short
    return "module the engine lacks", short


def count(checkouts: list[Path]) -> tuple[Counter[str], Counter[tuple[str, str]]]:
    """Tasks by reason, and by (reason, module), over every role of every checkout."""
    reasons: Counter[str] = Counter()
    modules: Counter[tuple[str, str]] = Counter()
    for directory in checkouts:
        for checkout in sorted(p for p in directory.iterdir() if p.is_dir()):
            for role in role_scenarios.find_roles(checkout):
                for file in sorted((role / "tasks").rglob("*.y*ml")):
                    try:
                        data = yaml.safe_load(file.read_text())
                    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
                        continue
                    for task in role_scenarios.leaf_tasks(data):
                        reason, module = _fate(task)
                        reasons[reason] += 1
                        modules[reason, module] += 1
    return reasons, modules


def report(checkouts: list[Path], top: int = 8) -> list[str]:
    reasons, modules = count(checkouts)
    total = sum(reasons.values()) or 1
    lines = [f"{total} tasks"]
    for reason in REASONS:
        named = [f"{m} {n}" for (r, m), n in modules.most_common() if r == reason][:top]
        lines.append(f"  {reason}: {reasons[reason]} ({100 * reasons[reason] / total:.1f}%)"
                     + (f": {', '.join(named)}" if reason != "kept" else ""))
    return lines


if __name__ == "__main__":
    print("\n".join(report([Path(a) for a in sys.argv[1:]])))
