"""The task hover's host summary at fleet size, timed in the language server's process as the
editor asks for it.

    python bench/hover_hosts.py [--hosts 2000] [--rounds 3] [--keep DIR]

What is measured: the fleet of ``bench/fleet.py`` (a generated inventory in 12 groups, five
plays, a role) is loaded as the server loads a workspace (``WorkspaceIndex.index``); the two
files a user edits are open, so after loading (and after every change) the server greys the
tasks that run on no host (``host_preview.run_nowhere``), which works out every open task's
outcomes on the play's hosts. Then every task of the playbook and the role is hovered once,
in file order, the way a user moves over a file: each hover is ``host_hover.hosts_section``,
the hover's whole host summary (the outcomes, grouped, and the lines shown). Each hover's CPU
time (``time.process_time``, this process; the machine is shared, so wall time says little)
and wall time are recorded. ``--rounds``: the workspace is changed (the generation moves on,
as an edit does), greyed again and hovered again, each round's hovers counted. ``--on-demand``:
no greying (the user hovers before it is done, or the files are not open), so each hover works
out its task's outcomes itself.

Prints p50, p95 and max of the hovers (CPU and wall, ms), and the greying's CPU seconds.
Target (issue: the run per host): p95 under 20 ms at 2,000 hosts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from fleet import generate, percentile95  # noqa: E402

FILES = ("site.yml", "roles/webserver/tasks/main.yml")


def task_lines(root: Path) -> list[tuple[str, int]]:
    """(file, 0-based line) of every task written in the two files (not the plays)."""
    found = []
    for name in FILES:
        path = root / name
        for number, text in enumerate(path.read_text().splitlines()):
            if text.lstrip().startswith("- name:") and not (name == "site.yml" and text.startswith("- name")):
                found.append((str(path), number))
    return found


def measure(root: Path, rounds: int, greyed: bool) -> dict[str, list[float]]:
    from engine.flow.tags import Selection
    from playbook_ls.features.host_hover import hosts_section
    from playbook_ls.features.host_preview import run_nowhere
    from playbook_ls.features.workspace import WorkspaceIndex

    os.chdir(root)
    index = WorkspaceIndex(str(root))
    index.index()
    targets = task_lines(root)
    opened = {index.real(str(root / name)) for name in FILES}
    times: dict[str, list[float]] = {"cpu": [], "wall": [], "greying": []}
    for _ in range(rounds):
        index.generation += 1  # an edit elsewhere: what was kept for the last generation is stale
        if greyed:
            start = time.process_time()
            run_nowhere(index, Selection.from_options(), ["inventory.ini"], opened)
            times["greying"].append(time.process_time() - start)
        for path, line in targets:
            cpu, wall = time.process_time(), time.perf_counter()
            text = hosts_section(index, path, line, ["inventory.ini"])
            times["cpu"].append((time.process_time() - cpu) * 1000)
            times["wall"].append((time.perf_counter() - wall) * 1000)
            assert text, (path, line)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this directory")
    parser.add_argument("--on-demand", action="store_true",
                        help="hover right after each change, before the greying: every hover computes its outcomes")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="hover-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    generate(root, args.hosts)
    try:
        times = measure(root, args.rounds, not args.on_demand)
    finally:
        if not args.keep:
            shutil.rmtree(root)
    for kind in ("cpu", "wall"):
        values = times[kind]
        print(f"{args.hosts} hosts, {len(values)} hovers, {kind}: p50 {statistics.median(values):.1f} ms, "
              f"p95 {percentile95(values):.1f} ms, max {max(values):.1f} ms")
    if times["greying"]:
        print(f"greying after each change (cpu): {', '.join(f'{s:.2f} s' for s in times['greying'])}")
    p95 = percentile95(times["cpu"])
    print(f"target p95 under 20 ms (cpu): {'met' if p95 < 20 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
