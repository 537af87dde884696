"""Cold and warm `playbook-ls list-tasks` against `ansible-playbook --list-tasks`, whole processes.

Usage: python bench/cold_start.py [--runs 7] [--kubespray DIR] [--workdir bench/out] [--roles 100]

For each input (kubespray's playbooks/upgrade_cluster.yml when --kubespray names a checkout, the
generated 3,000-task repository, examples/tag-inheritance) it times, interleaved, in one run:

- ansible-playbook (found as list_tasks.py finds it; its directory stays on PATH);
- playbook-ls cold: an empty cache directory for every run (PLAYBOOK_LS_CACHE_DIR), as on a CI
  runner or a fresh clone;
- playbook-ls warm: a cache directory that two earlier runs filled;
each of the two with the ansible-playbook's directory on PATH (module names checked against the
ansible-core and collections found there) and without it (not checked, unless ansible-core is
installed beside playbook-ls, which the `note` column says).

Prints the median wall and CPU time of each, and ansible-playbook's time divided by playbook-ls's.
Outputs are compared with ansible-playbook's once per variant (MATCH / DIFFER), a play header's tags
in any order (ansible prints them from a set).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import list_tasks
from list_tasks import ENV, INVENTORY, Input, Run, Tool, diff_summary, ensure_repo, run_once, same_listing

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"kubespray": 20.0, "generated repo": 20.0, "tag-inheritance": 10.0}  # cold, ansible on PATH
NOT_CHECKED = b"module names were not checked"


@dataclass
class Variant:
    name: str
    tool: Tool
    cold: bool
    cache: str = ""
    samples: list[Run] = field(default_factory=list)
    note: str = ""

    def run(self, inp: Input) -> Run:
        cache = tempfile.mkdtemp(prefix="pls-cold-") if self.cold else self.cache
        env = {**self.tool.env, "PLAYBOOK_LS_CACHE_DIR": cache}
        try:
            return run_once(Tool(self.tool.name, self.tool.argv, env), inp)
        finally:
            if self.cold:
                shutil.rmtree(cache, ignore_errors=True)


def path_without(executable: str) -> str:
    """PATH without the directories that hold ansible-playbook."""
    here = os.path.dirname(os.path.abspath(executable))
    kept = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and os.path.abspath(d) != here and not os.access(os.path.join(d, "ansible-playbook"), os.X_OK)]
    return os.pathsep.join(kept)


def variants(workdir: Path) -> tuple[Tool, list[Variant]]:
    ansible, pls, pls_env = list_tasks.both_commands()
    on_path = os.pathsep.join([os.path.dirname(os.path.abspath(ansible)), os.environ.get("PATH", "")])
    reference = Tool("ansible-playbook", lambda pb: [ansible, "-i", INVENTORY, pb, "--list-tasks"], {"PATH": on_path})
    found: list[Variant] = []
    for label, path in (("ansible on PATH", on_path), ("no ansible on PATH", path_without(ansible))):
        tool = Tool("playbook-ls", lambda pb: [*pls, "list-tasks", "-i", INVENTORY, pb], {**pls_env, "PATH": path})
        for cold in (True, False):
            cache = "" if cold else tempfile.mkdtemp(prefix="pls-warm-", dir=workdir)
            found.append(Variant(f"playbook-ls {'cold' if cold else 'warm'}, {label}", tool, cold, cache))
    return reference, found


def bench(inp: Input, reference: Tool, all_variants: list[Variant], runs: int) -> list[Run]:
    expected = run_once(reference, inp)  # warm-up, and the output to match
    if expected.rc != 0:
        sys.exit(f"ansible-playbook failed on {inp.cwd / inp.playbook}:\n{expected.stderr.decode(errors='replace')}")
    for variant in all_variants:
        variant.samples = []
        first = variant.run(inp)
        if not variant.cold:
            variant.run(inp)  # the second run stores the parses the first noted
        same = same_listing(expected.stdout, first.stdout)
        verdict = "MATCH" if same else f"DIFFER, {diff_summary(expected.stdout, first.stdout)}"
        variant.note = "not checked" if NOT_CHECKED in first.stderr else "checked"
        print(f"  {variant.name}: output {verdict}; module names {variant.note}")
    timed: list[Run] = []
    for index in range(runs):
        timed.append(run_once(reference, inp))
        for variant in all_variants if index % 2 == 0 else all_variants[::-1]:
            variant.samples.append(variant.run(inp))
    return timed


def report(inp: Input, reference: list[Run], all_variants: list[Variant]) -> None:
    wall = statistics.median(r.wall for r in reference)
    cpu = statistics.median(r.cpu for r in reference)
    print(f"| {inp.name} | ansible-playbook | {wall:.3f} | {cpu:.3f} | | |")
    target = TARGETS.get(inp.name)
    for variant in all_variants:
        v_wall = statistics.median(r.wall for r in variant.samples)
        v_cpu = statistics.median(r.cpu for r in variant.samples)
        mark = ""
        if target and variant.cold and "no ansible" not in variant.name:
            mark = f" (target {target:g}x: {'met' if wall / v_wall >= target else 'NOT met'})"
        print(f"| | {variant.name} (module names {variant.note}) | {v_wall:.3f} | {v_cpu:.3f} | "
              f"{wall / v_wall:.1f}x{mark} | {cpu / v_cpu:.1f}x |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="timed runs per tool, variant and input (default 7)")
    ap.add_argument("--kubespray", type=Path, help="a kubespray checkout: adds playbooks/upgrade_cluster.yml")
    ap.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--roles", type=int, default=100, help="size of the generated repository (100: ~3,000 tasks)")
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    inputs = []
    if args.kubespray:
        inputs.append(Input("kubespray", args.kubespray.resolve(), "playbooks/upgrade_cluster.yml", 20))
    inputs += [Input("generated repo", ensure_repo(args.workdir, args.roles, 1), "site.yml", 20),
               Input("tag-inheritance", ROOT / "examples" / "tag-inheritance", "playbook.yml", 10)]
    reference, all_variants = variants(args.workdir)
    print(f"environment for both tools: {' '.join(f'{k}={v}' for k, v in ENV.items())}; median of {args.runs} runs")
    rows = []
    for inp in inputs:
        print(f"{inp.name} ({inp.cwd / inp.playbook}):")
        timed = bench(inp, reference, all_variants, args.runs)
        rows.append((inp, timed, [Variant(v.name, v.tool, v.cold, v.cache, list(v.samples), v.note)
                                  for v in all_variants]))
    print("\n| input | tool | wall (s) | CPU (s) | ansible-playbook / playbook-ls, wall | CPU |")
    print("|---|---|---|---|---|---|")
    for inp, timed, measured in rows:
        report(inp, timed, measured)
    for variant in all_variants:
        if variant.cache:
            shutil.rmtree(variant.cache, ignore_errors=True)


if __name__ == "__main__":
    main()
