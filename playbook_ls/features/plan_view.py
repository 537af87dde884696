"""The editor's view of ``playbook-ls plan``: a table of tasks by hosts for one playbook, each row
with where the task is written (``FILE:LINE``, which editors open as a link), then the reasons.

The plan is made by the command line in a child process, from the workspace's root as
ansible-playbook is run there (its ansible.cfg, its relative paths), so the server holds none
of it afterwards; like every static reading, it runs nothing from the repository, except the
inventory's scripts and plugins in a workspace the client trusts (as for the variable hovers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

MARKS = {"runs": "✓", "skipped": "–", "depends": "?", "fails": "✗"}
MAX_HOST_COLUMNS = 12
PLAN_SECONDS = 120


def plan_text(root: str, playbook: str, inventory: list[str], tags: list[str], skip_tags: list[str],
              run_inventory_code: bool = False) -> str:
    """The plan of ``playbook`` as a table, or what stopped it (ansible's error, as the command
    line prints it). ``run_inventory_code``: the workspace is trusted, its inventory's code may run."""
    selection = [*(["--tags", ",".join(tags)] if tags else []), *(["--skip-tags", ",".join(skip_tags)] if skip_tags
                                                                  else [])]
    command = [sys.executable, "-P", "-m", "playbook_ls", "plan", playbook, "--format", "json",
               *(arg for source in inventory for arg in ("-i", source)), *selection,
               *(["--run-inventory-code"] if run_inventory_code else [])]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=PLAN_SECONDS,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"playbook-ls plan {playbook}: no answer in {PLAN_SECONDS} s; run it in a terminal to see why\n"
    shown = os.path.relpath(playbook, root) if os.path.isabs(playbook) else playbook
    heading = " ".join(["playbook-ls plan", shown, *(arg for source in inventory for arg in ("-i", source)),
                        *selection])
    if done.returncode != 0:
        return f"{heading}\n\n{done.stderr.strip() or f'exit code {done.returncode}'}\n"
    return table(json.loads(done.stdout), root, heading)


def table(data: dict[str, Any], root: str, heading: str) -> str:
    """The plan's JSON document (docs/plan.md) as text: per play, a row per task."""
    lines = [heading, "  ".join(f"{mark} {kind}" for kind, mark in MARKS.items()), ""]
    for play in data["plays"]:
        lines += _play_table(play, root)
    return "\n".join(lines) + "\n"


def _per_host(task: dict[str, Any]) -> dict[str, dict[str, str]]:
    """A task's outcomes, told once per group of hosts in the JSON (version 2), by host."""
    return {host: {"outcome": group["outcome"], "reason": group["reason"]}
            for group in task["outcomes"] for host in group["hosts"]}


def _play_table(play: dict[str, Any], root: str) -> list[str]:
    rows = [(os.path.join(root, task["path"]) + f":{task['line']}" if task["path"] else "?", task["task"],
             {**task, "hosts": _per_host(task)}) for task in play["tasks"]]
    hosts = play["hosts"]
    lines = [f"PLAY [{play['play']}]  {len(hosts)} hosts"]
    columns = hosts if len(hosts) <= MAX_HOST_COLUMNS else None
    name_width = min(max((len(name) for _, name, _ in rows), default=0), 48)
    if columns is not None:
        lines.append(" " * (name_width + 4) + " ".join(columns))
    for where, name, task in rows:
        head = f"  {name[:name_width]:<{name_width}}"
        outcomes = task["hosts"]
        if columns is not None:
            cells = [MARKS[outcomes[h]["outcome"]].center(len(h)) if h in outcomes else " " * len(h) for h in columns]
            lines.append(f"{head}  {' '.join(cells)}  {where}")
        else:
            counts: dict[str, int] = {}
            for outcome in outcomes.values():
                counts[outcome["outcome"]] = counts.get(outcome["outcome"], 0) + 1
            lines.append(f"{head}  " + "  ".join(f"{MARKS[k]} {counts[k]}" for k in MARKS if k in counts)
                         + f"  {where}")
    reasons = [(where, name, task) for where, name, task in rows
               if any(o["outcome"] != "runs" for o in task["hosts"].values())]
    if reasons:
        lines.append("  why not everywhere:")
    for where, name, task in reasons:
        grouped: dict[tuple[str, str], list[str]] = {}
        for host, outcome in task["hosts"].items():
            if outcome["outcome"] != "runs":
                grouped.setdefault((outcome["outcome"], outcome["reason"]), []).append(host)
        lines.append(f"    {name}  {where}")
        for (kind, reason), named in grouped.items():
            shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
            lines.append(f"      {MARKS[kind]} {shown}: {reason}")
    return [*lines, ""]
