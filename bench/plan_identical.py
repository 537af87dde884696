"""Whether ``playbook-ls plan`` still says the same on fleets, byte for byte: a change that shares
work between hosts must never change a result.

    python bench/plan_identical.py record DIGESTS CASE_DIR[:PLAYBOOK] ... [--out DIR] [--format json]
    python bench/plan_identical.py check DIGESTS CASE_DIR[:PLAYBOOK] ... [--out DIR]

A CASE_DIR is laid out as ``bench/fleet_inventory.py`` writes it (``repo/`` and
``inventory/hosts.yml``); PLAYBOOK defaults to ``site.yml``. ``record`` plans each case (stdout
and exit code of ``plan --format json``) and writes one line per case to DIGESTS: its name, the
SHA-256 of stdout, the exit code, the size and the CPU seconds. ``check`` plans them again and
compares with DIGESTS: it prints ``identical`` or ``DIFFERS`` per case and exits 1 if any
differs. ``--out DIR`` keeps each output as ``DIR/CASE.json`` to diff the two sides. Run ``record``
with the code before a change (``PLAYBOOK_LS`` or ``PYTHONPATH`` naming it), ``check`` after.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from list_tasks import both_commands  # noqa: E402


def plan(case: str, playbook_ls: list[str], env: dict[str, str], out: Path | None) -> tuple[str, str]:
    """The case's name and its digest line (without the name)."""
    directory, _, playbook = case.partition(":")
    name = Path(directory).name
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([*playbook_ls, "plan", playbook or "site.yml", "-i", "../inventory/hosts.yml",
                           "--format", "json"], cwd=Path(directory) / "repo", env=env, capture_output=True,
                          stdin=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{name}.json").write_bytes(proc.stdout)
    digest = hashlib.sha256(proc.stdout).hexdigest()
    return name, f"{digest} {proc.returncode} {len(proc.stdout)} {cpu:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("digests", type=Path)
    parser.add_argument("cases", nargs="+")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    _ansible, playbook_ls, pls_env = both_commands()
    env = {**os.environ, **pls_env}
    recorded: dict[str, list[str]] = {}
    if args.mode == "check":
        for line in args.digests.read_text().splitlines():
            name, *fields = line.split()
            recorded[name] = fields
    lines: list[str] = []
    differs = 0
    for case in args.cases:
        name, line = plan(case, playbook_ls, env, args.out)
        lines.append(f"{name} {line}")
        if args.mode == "check":
            digest, code, size, cpu = line.split()
            old = recorded.get(name)
            same = old is not None and old[:3] == [digest, code, size]
            differs += not same
            was = f"{old[3]} s before" if old else "not recorded"
            print(f"{name:14} {'identical' if same else 'DIFFERS'}  exit {code}, {size} bytes, {cpu} s CPU ({was})",
                  flush=True)
        else:
            print(f"{name} {line}", flush=True)
    if args.mode == "record":
        args.digests.write_text("".join(f"{line}\n" for line in lines))
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
