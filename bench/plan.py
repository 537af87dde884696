"""``playbook-ls plan`` on a generated launch of HOSTS hosts and TASKS tasks, timed as whole
processes beside ``ansible-playbook --list-hosts --list-tasks`` on the same input (the cheapest
thing ansible does with it: it loads the playbook and the inventory and evaluates no condition).

    python bench/plan.py [--hosts 1000] [--tasks 500] [--groups 10] [--runs 3] [--keep DIR]

The generated launch is what a fleet looks like: hosts in ``--groups`` groups, each host with
its own ``ansible_host`` and a group-level ``tier``, ``env`` and ``features`` in group_vars; one
task in five has a ``when`` on group variables, one in fifty on ``inventory_hostname``, one in
twenty loops over a group list with a per-item ``when``, one in twenty-five reads a registered
result. Prints each tool's median wall and CPU time and peak RSS, the ratio, and the number of
task-host outcomes by kind (runs / skipped / depends / fails).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from list_tasks import both_commands  # noqa: E402


def generate(root: Path, hosts: int, tasks: int, groups: int) -> None:
    (root / "group_vars").mkdir(parents=True, exist_ok=True)
    lines = []
    for group in range(groups):
        lines.append(f"[g{group}]")
        lines += [f"h{i} ansible_host=10.0.{i // 250}.{i % 250}" for i in range(group, hosts, groups)]
        (root / "group_vars" / f"g{group}.yml").write_text(
            f"tier: {'web' if group % 2 else 'db'}\nenv: {'prod' if group % 3 else 'staging'}\n"
            f"features: [{', '.join(f'f{k}' for k in range(group % 4))}]\n")
    (root / "inventory.ini").write_text("\n".join(lines) + "\n")
    body = ["- name: fleet", "  hosts: all", "  gather_facts: false", "  tasks:"]
    for t in range(tasks):
        body += [f"    - name: task {t}", "      ansible.builtin.debug:", f"        msg: step {t}"]
        if t % 25 == 3:
            body += ["      register: result_" + str(t)]
        if t % 25 == 4:
            body += [f"      when: result_{t - 1} is changed"]
        elif t % 20 == 7:
            body += ["      loop: \"{{ features }}\"", f"      when: item != 'f{t % 3}' and env == 'prod'"]
        elif t % 50 == 9:
            body += [f"      when: inventory_hostname is search('{t % 10}$')"]
        elif t % 5 == 0:
            body += [f"      when: tier == '{'web' if t % 10 else 'db'}' and env != 'staging'"]
    (root / "site.yml").write_text("\n".join(body) + "\n")


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, int, bytes]:
    """One whole process: wall and CPU seconds, peak RSS in MB, its stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed ({os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, out


def hover_times(root: Path) -> tuple[float, float]:
    """The task hover's host summary on every task of the generated playbook, in this process
    (the language server's), after one summary has warmed the index: p50 and p95 in ms."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from playbook_ls.features.host_hover import hosts_section
    from playbook_ls.features.workspace import WorkspaceIndex

    cwd = os.getcwd()
    os.chdir(root)
    try:
        index = WorkspaceIndex(str(root))
        index.index()
        path = str(root / "site.yml")
        lines = [n for n, text in enumerate((root / "site.yml").read_text().splitlines()) if "- name: task" in text]
        hosts_section(index, path, lines[0], ["inventory.ini"])
        times = []
        for line in lines:
            start = time.perf_counter()
            hosts_section(index, path, line, ["inventory.ini"])
            times.append((time.perf_counter() - start) * 1000)
    finally:
        os.chdir(cwd)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this directory")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="plan-bench-"))
    generate(root, args.hosts, args.tasks, args.groups)
    ansible, playbook_ls, pls_env = both_commands()
    ours = [*playbook_ls, "plan", "site.yml", "-i", "inventory.ini", "--format", "json"]
    theirs = [ansible, "site.yml", "-i", "inventory.ini", "--list-hosts", "--list-tasks"]
    os.environ.update(ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False", **pls_env)
    results: dict[str, list[tuple[float, float, int]]] = {"playbook-ls plan": [], "ansible-playbook --list-*": []}
    outcomes: dict[str, int] = {}
    out = b""
    for run in range(args.runs + 1):  # the first run of each warms the caches and is not counted
        wall, cpu, rss, out = timed(ours, root)
        if run:
            results["playbook-ls plan"].append((wall, cpu, rss))
        wall, cpu, rss, _ = timed(theirs, root)
        if run:
            results["ansible-playbook --list-*"].append((wall, cpu, rss))
    # read only now: a child forked from a process holding the parsed plan would count it in its
    # peak RSS before it execs
    for play in json.loads(out)["plays"]:
        for task in play["tasks"]:
            for group in task["outcomes"]:  # each outcome told once for its hosts
                outcomes[group["outcome"]] = outcomes.get(group["outcome"], 0) + len(group["hosts"])
    print(f"{args.hosts} hosts x {args.tasks} tasks, {args.groups} groups; outcomes: "
          + ", ".join(f"{kind} {count}" for kind, count in sorted(outcomes.items())))
    print(f"{'':28} {'wall s':>8} {'cpu s':>8} {'rss MB':>8}")
    medians = {}
    for name, runs in results.items():
        if runs:
            medians[name] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
                             max(r[2] for r in runs))
            print(f"{name:28} {medians[name][0]:8.2f} {medians[name][1]:8.2f} {medians[name][2]:8d}")
    if len(medians) == 2:
        ours_m, theirs_m = medians["playbook-ls plan"], medians["ansible-playbook --list-*"]
        print(f"ansible-playbook / playbook-ls: wall {theirs_m[0] / ours_m[0]:.1f}x, "
              f"cpu {theirs_m[1] / ours_m[1]:.1f}x")
    print(f"target: plan under 3 s wall -> {'met' if medians['playbook-ls plan'][0] < 3 else 'NOT met'}")
    p50, p95 = hover_times(root)
    print(f"task hover host summary (in process, warm index, inventory setting): p50 {p50:.1f} ms, "
          f"p95 {p95:.1f} ms; target p95 under 20 ms -> {'met' if p95 < 20 else 'NOT met'}")
    if not args.keep:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
