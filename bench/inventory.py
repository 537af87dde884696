"""Benchmark `playbook-ls inventory --list` against `ansible-inventory --list`, as whole processes.

Usage: python bench/inventory.py [--runs 5] [--hosts 5000] [--seed 1] [--keep DIR]

Generates, in a temporary directory (or DIR with --keep), an INI inventory of HOSTS hosts with
groups, `:children` and `:vars` sections, inline host variables, and `group_vars/` and
`host_vars/` files beside it. Each tool runs once untimed (warm-up; stdout is compared byte for
byte), then RUNS times, alternating. Reports the median wall and CPU (user+sys) times and the
peak RSS of each child process, from os.wait4, and the ratio ansible-inventory / playbook-ls.
Set PLAYBOOK_LS to a command to override how playbook-ls is started.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

from list_tasks import Input, Run, Tool, both_commands, diff_summary, find_executable, run_once

TARGET = 5.0
"""Required speed-up, ansible-inventory / playbook-ls (median wall time)."""
APPS = 50
"""Leaf groups; the hosts are spread over them, some hosts in two."""
REGIONS = ("eu", "us", "ap", "sa", "af")
ENVIRONMENTS = ("prod", "staging", "dev")


def generate(directory: Path, hosts: int, seed: int) -> dict[str, int]:
    """Write ``hosts.ini``, ``group_vars/`` and ``host_vars/`` into ``directory``; the same
    arguments always give the same files. Returns what was written, counted."""
    rng = random.Random(seed)
    per_app = max(1, hosts // APPS)
    lines: list[str] = []
    names = [f"app{index:02d}" for index in range(APPS)]
    for app_index, app in enumerate(names):
        lines.append(f"[{app}]")
        for number in range(app_index * per_app, min(hosts, (app_index + 1) * per_app)):
            inline = [f"ansible_host=10.{number // 65536}.{number // 256 % 256}.{number % 256}"]
            if rng.random() < 0.3:
                inline.append(f"rack={rng.choice('abcdef')}{rng.randint(1, 40)}")
            if rng.random() < 0.1:
                inline.append("ansible_port=2222")
            lines.append(f"{app}-{number:05d} {' '.join(inline)}")
        if app_index % 7 == 0 and app_index:  # a few hosts in two groups
            lines.append(f"{names[app_index - 1]}-{(app_index - 1) * per_app:05d}")
        lines.append("")
        lines += [f"[{app}:vars]", f"app_name={app}", f"app_port={8000 + app_index}", ""]
    for region_index, region in enumerate(REGIONS):
        lines.append(f"[{region}:children]")
        lines += [app for index, app in enumerate(names) if index % len(REGIONS) == region_index]
        lines.append("")
    for env_index, env in enumerate(ENVIRONMENTS):
        lines.append(f"[{env}:children]")
        lines += [region for index, region in enumerate(REGIONS) if index % len(ENVIRONMENTS) == env_index]
        lines += ["", f"[{env}:vars]", f"environment={env}", "ansible_group_priority=2" if env == "prod" else "", ""]
    lines += ["[all:vars]", "ntp_server=ntp.example.com", ""]
    (directory / "hosts.ini").write_text("\n".join(lines))

    group_vars = directory / "group_vars"
    group_vars.mkdir()
    (group_vars / "all.yml").write_text("dns_servers: [10.0.0.1, 10.0.0.2]\nlogging: {level: info}\n")
    for group in (*names, *REGIONS, *ENVIRONMENTS):
        packages = ", ".join(rng.sample(["nginx", "redis", "postgresql", "java", "python3", "git"], 3))
        (group_vars / f"{group}.yml").write_text(
            f"{group}_replicas: {rng.randint(1, 9)}\npackages: [{packages}]\n"
            f"limits:\n  cpu: {rng.randint(1, 16)}\n  memory: {rng.randint(1, 64)}G\n")
    host_vars = directory / "host_vars"
    host_vars.mkdir()
    written = 0
    for number in range(0, hosts, 10):  # one host in ten has a file
        app = names[min(APPS - 1, number // per_app)]
        owner = f"serial: {rng.randint(10**5, 10**6)}\nowner: team{number % 13}\n"
        (host_vars / f"{app}-{number:05d}.yml").write_text(owner)
        written += 1
    return {"hosts": hosts, "groups": len(names) + len(REGIONS) + len(ENVIRONMENTS),
            "group_vars files": len(names) + len(REGIONS) + len(ENVIRONMENTS) + 1, "host_vars files": written}


def tools() -> list[Tool]:
    """ansible-inventory and playbook-ls, each given the inventory path."""
    ansible = find_executable("ansible-inventory")
    if ansible is None:
        sys.exit("ansible-inventory not found next to this Python nor on PATH: install ansible-core 2.19")
    _, pls, pls_env = both_commands()
    return [
        Tool("ansible-inventory", lambda inventory: [ansible, "-i", inventory, "--list"]),
        Tool("playbook-ls", lambda inventory: [*pls, "inventory", "-i", inventory, "--list"], pls_env),
    ]


def bench(inp: Input, all_tools: list[Tool], runs: int) -> dict[str, list[Run]] | None:
    """A warm-up run of each tool (outputs compared), then ``runs`` timed runs, alternating."""
    warm = {tool.name: run_once(tool, inp) for tool in all_tools}
    for tool in all_tools:
        if warm[tool.name].rc != 0:
            print(f"  {tool.name} FAILED (rc={warm[tool.name].rc}):")
            print("    " + "\n    ".join(warm[tool.name].stderr.decode(errors="replace").splitlines()[-5:]))
            return None
    expected, ours = (warm[tool.name].stdout for tool in all_tools)
    print("  output: IDENTICAL" if expected == ours else
          f"  output: DIFFER, {diff_summary(expected, ours, labels=('ansible-inventory', 'playbook-ls'))}")
    samples: dict[str, list[Run]] = {tool.name: [] for tool in all_tools}
    for index in range(runs):
        for tool in all_tools if index % 2 == 0 else all_tools[::-1]:
            samples[tool.name].append(run_once(tool, inp))
    return samples


def report(samples: dict[str, list[Run]]) -> None:
    medians: dict[str, tuple[float, float]] = {}
    print(f"\n  {'tool':<18} {'wall (s)':>9} {'CPU (s)':>9} {'RSS (MB)':>9}")
    for name, runs in samples.items():
        medians[name] = (statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs))
        peak = max(r.rss_kb for r in runs) / 1024
        print(f"  {name:<18} {medians[name][0]:>9.3f} {medians[name][1]:>9.3f} {peak:>9.1f}")
    wall, cpu = (medians["ansible-inventory"][i] / medians["playbook-ls"][i] for i in range(2))
    verdict = "met" if wall >= TARGET else "NOT met"
    print(f"  speed-up ansible-inventory/playbook-ls: wall {wall:.1f}x ({verdict}), CPU {cpu:.1f}x; "
          f"target >= {TARGET:g}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per tool (default 5)")
    parser.add_argument("--hosts", type=int, default=5000, help="hosts in the generated inventory (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="generate into this (new) directory and keep it")
    args = parser.parse_args()
    all_tools = tools()
    with tempfile.TemporaryDirectory(prefix="pls-bench-inventory-") as scratch:
        directory = args.keep or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        figures = generate(directory, args.hosts, args.seed)
        print("generated: " + ", ".join(f"{name} {count:,}" for name, count in figures.items()))
        for tool in all_tools:
            print(f"{tool.name}: {' '.join(tool.argv('hosts.ini'))}")
        print(f"median of {args.runs} runs, run from the inventory's directory; peak RSS is the maximum over runs")
        samples = bench(Input("inventory", directory, "hosts.ini", TARGET), all_tools, args.runs)
    if samples:
        report(samples)


if __name__ == "__main__":
    main()
