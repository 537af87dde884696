"""``playbook-ls plan`` beside ``ansible-playbook --list-hosts --list-tasks`` on fleets written by
``bench/fleet_inventory.py``: CPU seconds of each whole process, run in turn (ours, then ansible's,
``--runs`` times), their ratio, and the size of the plan's output.

    python bench/plan_vs_listing.py CASE_DIR[:PLAYBOOK] ... [--runs 1] [--cpu-limit 600] [--no-ansible]
                                    [--format json|text]

A CASE_DIR holds ``repo/`` (the playbook's checkout, where both commands run) and
``inventory/hosts.yml``; PLAYBOOK (default ``site.yml``) is relative to ``repo/``. A process over
``--cpu-limit`` CPU seconds is stopped (SIGXCPU) and counted, and printed, as over the limit, whatever
CPU time its usage counted by then; a process another signal ended says which. Prints the load average
before each case: on a shared machine CPU time, not wall time, is the figure.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from list_tasks import both_commands  # noqa: E402


def timed(command: list[str], cwd: Path, env: dict[str, str], cpu_limit: int) -> tuple[float, float, int, int]:
    """One whole process: CPU and wall seconds, bytes written on stdout, exit code (-9 / -24 and
    the like when the CPU limit stopped it)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))

    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                env=env, preexec_fn=limit)  # noqa: PLW1509 - only a resource limit
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        size = out.tell()
    return usage.ru_utime + usage.ru_stime, wall, size, os.waitstatus_to_exitcode(status)


def over_limit(code: int, seconds: float, cpu_limit: int) -> bool:
    """Whether the CPU limit stopped the process: the kernel's SIGXCPU at the soft limit, whatever CPU
    time its usage as wait4 reports it counted by then (a run stopped at a 240 s limit was seen
    counted at 227 s), or a failure at or past the limit (the hard limit's SIGKILL)."""
    return code == -signal.SIGXCPU or (code != 0 and seconds >= cpu_limit)


def outcome_note(code: int, seconds: float, cpu_limit: int) -> str:
    """What the line of a run says after its exit code: over the limit, or the signal that ended it."""
    stopped = f" by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else ""
    if over_limit(code, seconds, cpu_limit):
        return f"  (over the CPU limit: stopped{stopped})"
    return f"  (stopped{stopped})" if stopped else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="+")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--cpu-limit", type=int, default=600)
    parser.add_argument("--no-ansible", action="store_true")
    parser.add_argument("--format", choices=("json", "text"), default="json")
    args = parser.parse_args()
    ansible, playbook_ls, pls_env = both_commands()
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "False", **pls_env}
    for case in args.cases:
        directory, _, playbook = case.partition(":")
        repo = Path(directory) / "repo"
        ours = [*playbook_ls, "plan", playbook or "site.yml", "-i", "../inventory/hosts.yml", "--format", args.format]
        theirs = [ansible, playbook or "site.yml", "-i", "../inventory/hosts.yml", "--list-hosts", "--list-tasks"]
        print(f"== {case}  {time.strftime('%H:%M:%S', time.gmtime())} UTC  load {os.getloadavg()[0]:.1f} "
              f"{os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}", flush=True)
        cpu: dict[str, list[float]] = {"plan": [], "listing": []}
        for _ in range(args.runs):
            for name, command in (("plan", ours), ("listing", theirs)):
                if name == "listing" and args.no_ansible:
                    continue
                seconds, wall, size, code = timed(command, repo, env, args.cpu_limit)
                over = over_limit(code, seconds, args.cpu_limit)
                print(f"   {name:8} cpu {seconds:8.2f} s  wall {wall:8.2f} s  out {size / 1e6:8.2f} MB  exit {code}"
                      f"{outcome_note(code, seconds, args.cpu_limit)}", flush=True)
                cpu[name].append(float("inf") if over else seconds)
        if cpu["plan"] and cpu["listing"]:
            ratio = statistics.median(cpu["listing"]) / statistics.median(cpu["plan"])
            print(f"   listing / plan CPU: {ratio:.2f}x ({'no slower: met' if ratio >= 1 else 'slower: NOT met'})",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
