"""Recorded ground truth for ``playbook-ls diff``: what ansible-playbook 2.19 lists and does on
each side of a change.

Every directory under ``scenarios/`` is one change: ``old/`` and ``new/`` (two revisions of a
project) and a ``case.json``::

    {"description": "...", "playbooks": ["site.yml"], "selections": [[], ["--tags", "deploy"]],
     "inventory": "inventory.ini"}

``expected.json`` holds, per side, ansible-playbook's ``--list-tasks`` output for each playbook
under each selection, and (with an inventory) each task's status per host in a ``-c local`` run
with no selection, recorded by the plan scenarios' callback (``{"FILE:LINE": {HOST: [STATUS]}}``).

Re-record (needs ansible-core 2.19 beside this Python or on PATH)::

    python tests/review/review_cases.py [NAME...]           # rewrite expected.json
    python tests/review/review_cases.py --verify [NAME...]  # re-run ansible, compare with the recordings
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ansible_tools import read_case, record_or_verify, run_with_callback, scenario_dirs  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
CALLBACK = HERE.parent / "plan" / "callback_plugins" / "task_outcomes.py"
SIDES = ("old", "new")


def scenarios(names: list[str] | None = None) -> list[Path]:
    return scenario_dirs(SCENARIOS, names)


def selection_label(playbook: str, args: list[str]) -> str:
    return " ".join([playbook, *args])


def _inventory_args(case: dict[str, Any]) -> list[str]:
    return ["-i", case["inventory"]] if case.get("inventory") else ["-i", "localhost,"]


def record(scenario: Path, tool: str) -> dict[str, Any]:
    case = read_case(scenario)
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "0"}
    recorded: dict[str, Any] = {}
    for side in SIDES:
        root = scenario / side
        listings = {}
        for playbook in case["playbooks"]:
            for args in case["selections"]:
                done = subprocess.run([tool, playbook, *_inventory_args(case), "--list-tasks", *args], cwd=root,
                                      env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
                # a role named by its path prints the revision's directory: kept relative to it
                listings[selection_label(playbook, args)] = relative_to(done.stdout, str(root.resolve()))
        runs = {}
        if case.get("inventory"):
            for playbook in case["playbooks"]:
                runs[playbook] = run_with_callback(root, tool, CALLBACK, [playbook, "-i", case["inventory"]], {})
        recorded[side] = {"listings": listings, "runs": runs}
    return recorded


def write_tree(root: Path, files: dict[str, str]) -> None:
    """Each file of ``files`` (path relative to ``root`` → text), its directories made."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def review_json(old: Path, new: Path, inventory: str, reuse: bool = True) -> str:
    """``playbook-ls diff OLD NEW -i INVENTORY`` as JSON, the two sides' paths as OLD and NEW
    (the working directory must be the new side)."""
    from engine.flow.plan import RunOptions
    from engine.parsing.source import files_changed
    from playbook_ls.review.build import build_review
    from playbook_ls.review.report import as_json

    files_changed()
    review = build_review(str(old), str(new), [], RunOptions(playbook="", inventory=[inventory]), None, str(new),
                          reuse=reuse)
    return as_json(review).replace(str(old), "OLD").replace(str(new), "NEW")


def relative_to(text: str, root: str) -> str:
    return text.replace(root + "/", "").replace(root, ".")


def listing_sequence(text: str, root: str | None = None) -> list[tuple[str, str]]:
    """(play name, task name) of each task an ansible-playbook ``--list-tasks`` output lists, in
    its order (see listing_names)."""
    if root is not None:
        text = relative_to(text, root)
    return [(play["name"], task["name"]) for play in _PLAY_BLOCK.finditer(text)
            for task in _TASK_ENTRY.finditer(play["tasks"])]


def listing_names(text: str, root: str | None = None) -> Counter[tuple[str, str]]:
    """(play name, task name) of each task an ansible-playbook ``--list-tasks`` output lists (a
    name may hold newlines: ansible prints it as it is); ``root``: the revision's directory, which
    a role named by its path (``role: "{{ playbook_dir }}"``) shows in its tasks' names, read as
    :func:`playbook_ls.review.sides.task_view` names it (relative to the revision)."""
    return Counter(listing_sequence(text, root))


_PLAY_BLOCK = re.compile(r"^  play #\d+ \((?P<hosts>.*?)\): (?P<name>.*?)\tTAGS: \[.*?\]\n    tasks:\n"
                         r"(?P<tasks>(?:      .*?\tTAGS: \[[^\]]*\]\n)*)", re.MULTILINE | re.DOTALL)
_TASK_ENTRY = re.compile(r"      (?P<name>.*?)\tTAGS: \[[^\]]*\]\n", re.DOTALL)


def selection_of(args: list[str]) -> Any:
    """The tag selection of ansible-playbook's ``--tags``/``--skip-tags`` arguments."""
    from engine.flow.tags import Selection

    tags = [args[i + 1] for i, a in enumerate(args) if a == "--tags"]
    skip = [args[i + 1] for i, a in enumerate(args) if a == "--skip-tags"]
    return Selection.from_options(tags, skip)


def listed_names(view: Any, keys: Any) -> Counter[tuple[str, str]]:
    """(play name, task name) of the tasks ``keys`` name in a side's ``view``, as listing_names gives them."""
    by_key = {task.key: task for play in view.plays for task in play.tasks}
    return Counter((key[0].split("\t")[0], by_key[key].name) for key in keys)


def claimed_listing_changes(old: Any, new: Any, change: Any, selection: Any) -> tuple[Counter[tuple[str, str]],
                                                                                        Counter[tuple[str, str]]]:
    """What the review's ``change`` of one selection says the listings gain and lose, as ansible
    lists them: a task renamed and listed on both sides is listed under its new name, not the old."""
    from playbook_ls.review.compare import matched
    from playbook_ls.review.sides import listed

    now = Counter((entry.task.key[0].split("\t")[0], entry.task.name) for entry in change.now_runs)
    gone = Counter((entry.task.key[0].split("\t")[0], (entry.before or entry.task).name)
                   for entry in change.no_longer_runs)
    old_listed, new_listed = listed(old, selection), listed(new, selection)
    renamed = [(before, after) for before, after in matched(old, new).items()
               if before[1] != after[1] and before in old_listed and after in new_listed]
    return (now + listed_names(new, [after for _, after in renamed]),
            gone + listed_names(old, [before for before, _ in renamed]))


def shown_order_changes(before: str, after: str, root_before: str | None = None,
                        root_after: str | None = None) -> Counter[tuple[str, str]]:
    """The tasks two ansible listings show in another order (compare.order_changes of the two)."""
    from playbook_ls.review.compare import order_changes

    old, new = listing_sequence(before, root_before), listing_sequence(after, root_after)
    return Counter(new[place] for place in order_changes(old, new))


def claimed_order_changes(change: Any) -> Counter[tuple[str, str]]:
    """The tasks the review's ``change`` of one selection says run in another order."""
    return Counter((entry.task.key[0].split("\t")[0], entry.task.name) for entry in change.reordered)


def outcome_class(statuses: list[str] | None) -> str:
    """A recorded run's statuses of one task on one host as the plan's outcome: nothing recorded
    (not selected, not notified, run once elsewhere) is a skip ansible does not report."""
    if not statuses:
        return "skipped"
    return {"ok": "runs", "changed": "runs", "skipped": "skipped"}.get(statuses[0], "fails")


if __name__ == "__main__":
    sys.exit(record_or_verify(sys.argv[1:], __doc__ or "", scenarios, record, lambda _, a, b: a == b,
                              lambda recorded: f"{len(recorded['old']['listings'])} listings per side"))
