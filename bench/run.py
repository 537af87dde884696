"""Benchmark `playbook-ls run` (the bundled engine) against `ansible-playbook -c local`, as whole processes.

Usage: python bench/run.py [--runs 5] [--tasks 100] [--keep]

Generates a local playbook of TASKS tasks (a deterministic mix of debug, set_fact, file, copy,
template and command, all writing under the playbook's directory) and runs it with both tools,
RUNS times each, alternating which goes first, every run in a fresh scratch copy. Both tools must
give the same PLAY RECAP and leave the same files (paths, types, modes, contents) behind; the
report gives the median wall and CPU (user+sys, from os.wait4) times and the speed-up. Target:
the bundled engine at least 10x faster in wall time. Set PLAYBOOK_LS to a command to override how
playbook-ls is started (e.g. PLAYBOOK_LS="python -m playbook_ls").
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from list_tasks import Tool, both_commands

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = "localhost,"
TARGET = 10.0
_RECAP = re.compile(
    r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)"
    r"\s+rescued=(\d+)\s+ignored=(\d+)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    rc: int
    recap: list[tuple[str, ...]]
    files: dict[str, tuple[str, ...]]
    log: str


def tools(scratch_home: Path) -> list[Tool]:
    ansible, pls, pls_env = both_commands()
    ansible_env = {
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_LOCALHOST_WARNING": "False",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
        "ANSIBLE_RETRY_FILES_ENABLED": "False",
        "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
        "ANSIBLE_HOME": str(scratch_home / "ansible"),
        "ANSIBLE_LOCAL_TEMP": str(scratch_home / "ansible-local-tmp"),
        "ANSIBLE_REMOTE_TEMP": str(scratch_home / "ansible-remote-tmp"),
    }
    return [
        Tool("ansible-playbook", lambda pb: [ansible, "-c", "local", "-i", INVENTORY, pb], ansible_env),
        # the same Python for the hosts' modules: neither tool discovers an interpreter
        Tool("playbook-ls", lambda pb: [*pls, "run", "-i", INVENTORY, pb],
             {"ANSIBLE_NOCOLOR": "1", "ANSIBLE_PYTHON_INTERPRETER": sys.executable, **pls_env}),
    ]


TEMPLATE = """\
# generated for task {{ idx }}
{% for n in range(count | int) %}
line {{ n }} of {{ label | upper }}
{% endfor %}
total={{ numbers | sum }} first={{ numbers | first }} joined={{ numbers | join('-') }}
"""


def generate(dest: Path, n_tasks: int) -> Path:
    """A deterministic playbook of n_tasks tasks; every write goes under its own directory."""
    (dest / "templates").mkdir(parents=True)
    (dest / "templates" / "page.j2").write_text(TEMPLATE)
    kinds = ["debug", "set_fact", "file", "copy", "template", "command"]
    lines = [
        "- name: generated local playbook",
        "  hosts: all",
        "  gather_facts: false",
        "  vars:",
        "    label: bench",
        "    numbers: [3, 1, 4, 1, 5]",
        "    counter: 0",
        "  tasks:",
    ]
    for i in range(n_tasks):
        kind = kinds[i % len(kinds)]
        lines.append(f"    - name: task {i} {kind}")
        if kind == "debug":
            lines += ["      debug:", f'        msg: "task {i}: {{{{ label }}}} {{{{ counter }}}}"']
        elif kind == "set_fact":
            lines += ["      set_fact:", '        counter: "{{ counter | int + 1 }}"']
        elif kind == "file":
            lines += [
                "      file:",
                f'        path: "{{{{ playbook_dir }}}}/out/dir{i}"',
                "        state: directory",
                '        mode: "0750"',
            ]
        elif kind == "copy":
            lines += [
                "      copy:",
                f'        dest: "{{{{ playbook_dir }}}}/out/copy{i}.txt"',
                f'        content: "copy {i} {{{{ label }}}} {{{{ counter }}}}\\n"',
                '        mode: "0640"',
            ]
        elif kind == "template":
            lines += [
                "      template:",
                "        src: page.j2",
                f'        dest: "{{{{ playbook_dir }}}}/out/page{i}.txt"',
                "      vars:",
                f"        idx: {i}",
                f"        count: {i % 4 + 1}",
            ]
        else:
            lines += [
                f"      command: echo task {i}",
                "      register: echoed",
                "      changed_when: false",
            ]
        if i % 10 == 9:
            lines.append("      when: counter | int >= 0")
    (dest / "out").mkdir()
    (dest / "site.yml").write_text("\n".join(lines) + "\n")
    return dest / "site.yml"


def snapshot(root: Path) -> dict[str, tuple[str, ...]]:
    files: dict[str, tuple[str, ...]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        mode = f"{path.lstat().st_mode & 0o7777:04o}"
        if path.is_symlink():
            files[rel] = ("link", os.readlink(path).replace(str(root), "<SCRATCH>"))
        elif path.is_dir():
            files[rel] = ("dir", mode)
        else:
            data = path.read_bytes().replace(str(root).encode(), b"<SCRATCH>")
            files[rel] = ("file", mode, hashlib.sha256(data).hexdigest())
    return files


def run_once(tool: Tool, n_tasks: int, keep: Path | None = None) -> Run:
    with tempfile.TemporaryDirectory(prefix="pls-bench-run-") as tmp:
        work = Path(tmp) / "work"
        playbook = generate(work, n_tasks)
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            try:
                proc = subprocess.Popen(
                    tool.argv(playbook.name),
                    cwd=work,
                    env={**os.environ, **tool.env},
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            except OSError as e:  # e.g. the command does not exist
                return Run(0.0, 0.0, 127, [], {}, str(e))
            _, status, usage = os.wait4(proc.pid, 0)  # rusage of this very child
            wall = time.perf_counter() - start
            out.seek(0)
            log = out.read().decode(errors="replace")
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(work, keep, symlinks=True)
        rc = os.waitstatus_to_exitcode(status)
        recap = [m.groups() for m in _RECAP.finditer(log)]
        return Run(wall, usage.ru_utime + usage.ru_stime, rc, recap, snapshot(work), log)


def same_results(runs: dict[str, Run]) -> list[str]:
    a, b = runs["ansible-playbook"], runs["playbook-ls"]
    problems = []
    for name, run in runs.items():
        if run.rc != 0:
            tail = "\n".join(f"    {line}" for line in run.log.strip().splitlines()[-8:])
            problems.append(f"{name} exited {run.rc}:\n{tail}")
        if not run.recap:
            problems.append(f"{name} printed no PLAY RECAP")
    if a.recap != b.recap:
        problems.append(f"recap differs: ansible-playbook {a.recap}, playbook-ls {b.recap}")
    if a.files != b.files:
        only_a = sorted(set(a.files) - set(b.files))
        only_b = sorted(set(b.files) - set(a.files))
        changed = sorted(p for p in set(a.files) & set(b.files) if a.files[p] != b.files[p])
        problems.append(
            f"files differ: only ansible-playbook {only_a[:5]}, only playbook-ls {only_b[:5]}, different {changed[:5]}"
        )
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="timed runs per tool (default 5)")
    ap.add_argument("--tasks", type=int, default=100, help="tasks in the generated playbook (default 100)")
    ap.add_argument("--keep", type=Path, help="copy the scratch trees of the first runs to KEEP/<tool> to inspect")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pls-bench-home-") as home:
        all_tools = tools(Path(home))
        for t in all_tools:
            print(f"{t.name}: {' '.join(t.argv('site.yml'))}")
        print(f"{args.tasks} tasks, median of {args.runs} runs each, alternating, fresh scratch per run")
        samples: dict[str, list[Run]] = {t.name: [] for t in all_tools}
        verdict = 0
        for i in range(args.runs):
            order = all_tools if i % 2 == 0 else all_tools[::-1]
            keep = args.keep if i == 0 else None
            runs = {t.name: run_once(t, args.tasks, keep / t.name if keep else None) for t in order}
            for name, run in runs.items():
                samples[name].append(run)
            problems = same_results(runs)
            print(f"  run {i + 1}: " + ", ".join(f"{n} {r.wall:.3f}s" for n, r in runs.items()), end="")
            print("; results: SAME" if not problems else "; results: DIFFER")
            for p in problems:
                print(f"    {p}")
            verdict |= bool(problems)
    print(f"\n  {'tool':<17} {'wall (s)':>9} {'CPU (s)':>9}")
    medians = {}
    for name, rs in samples.items():
        medians[name] = (statistics.median(r.wall for r in rs), statistics.median(r.cpu for r in rs))
        print(f"  {name:<17} {medians[name][0]:>9.3f} {medians[name][1]:>9.3f}")
    a, b = medians["ansible-playbook"], medians["playbook-ls"]
    if b[0] > 0 and b[1] > 0:
        wall, cpu = a[0] / b[0], a[1] / b[1]
        met = "met" if wall >= TARGET else "NOT met"
        print(f"  speed-up ansible-playbook/playbook-ls: wall {wall:.1f}x ({met}), CPU {cpu:.1f}x", end="")
        print(f"; target >= {TARGET:g}x")
    if verdict:
        print("  the two tools did NOT give the same results: the timings compare different work")
    return verdict


if __name__ == "__main__":
    sys.exit(main())
