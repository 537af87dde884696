"""``playbook-ls diff``'s cost: two kubespray revisions one commit apart, and a 2,000-host fleet
beside ansible-playbook's listing of one revision, measured in one run.

    python bench/review_speed.py [--kubespray DIR] [--commit REV] [--hosts 2000] [--runs 3]
                                 [--k3s DIR --k3s-commit REV [--playbook playbooks/site.yml]]

- **kubespray** (``--kubespray``, a clone with its history): ``playbook-ls diff REV^ REV`` (no
  inventory, cold: a new empty cache directory per run), and the same review with the old side
  read again rather than taken from the new side (``build_review(..., reuse=False)``, what diff
  did before), whose output must be the same (``SAME``/``DIFFER``). Target: under 3 s CPU.
- **fleet**: bench/fleet.py's fleet of ``--hosts`` hosts in a git repository of two commits (a
  group_vars value and a role default changed), ``playbook-ls diff HEAD~1 HEAD -i inventory.ini``
  beside ``ansible-playbook site.yml -i inventory.ini --list-hosts --list-tasks`` of the new
  revision. Target: diff no slower than ansible.
- **k3s fleet** (``--k3s``, a clone with its history of k3s-io/k3s-ansible or a repository of its
  layout: groups ``server`` and ``agent`` under ``k3s_cluster``): ``playbook-ls diff REV^ REV
  PLAYBOOK -i INVENTORY`` beside ansible's listing of REV, with a generated YAML inventory of
  ``--hosts`` hosts outside the repository (3 servers, the rest agents, in 3 regions whose
  group_vars differ; a host_vars file for every 50th host). Target: diff no slower than ansible.

Whole processes, interleaved; CPU is user + system of the child (``os.wait4``), the median of the
runs; the ratio is ansible's CPU over diff's. ``PLAYBOOK_LS`` overrides how playbook-ls is started.
The collections ansible-playbook and playbook-ls see are ``ANSIBLE_COLLECTIONS_PATH``'s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fleet import generate  # noqa: E402
from list_tasks import both_commands  # noqa: E402
from plan import timed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WITHOUT_REUSE = """\
import sys
from engine.flow.plan import RunOptions
from playbook_ls.review.build import build_review
from playbook_ls.review.report import as_text
sys.stdout.write(as_text(build_review(sys.argv[1], sys.argv[2], [], RunOptions(playbook="", inventory=[]), None,
                                      reuse=False)))
"""


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def kubespray(clone: Path, commit: str, runs: int, pls: list[str], env: dict[str, str]) -> None:
    commands = {"diff": [*pls, "diff", f"{commit}^", commit],
                "diff, old side read again": [sys.executable, "-c", WITHOUT_REUSE, f"{commit}^", commit]}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, bytes] = {}
    for _ in range(runs):
        for name, command in commands.items():
            with tempfile.TemporaryDirectory() as cache:
                _wall, seconds, _rss, outputs[name] = timed(command, clone, {**env, "PLAYBOOK_LS_CACHE_DIR": cache})
            cpu[name].append(seconds)
    same = "SAME" if len(set(outputs.values())) == 1 else "DIFFER"
    print(f"kubespray {commit[:10]}^..{commit[:10]}, no inventory, cold: outputs {same}")
    for name, times in cpu.items():
        print(f"  {name:28} CPU median {statistics.median(times):.2f} s  (runs: "
              f"{', '.join(f'{t:.2f}' for t in times)})")
    print(f"  target under 3 s: {'met' if statistics.median(cpu['diff']) < 3 else 'NOT met'}")


def fleet(hosts: int, runs: int, ansible: str, pls: list[str], env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory(prefix="review-fleet-") as scratch:
        root = Path(scratch)
        generate(root, hosts)
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "old")
        (root / "group_vars" / "prod.yml").write_text("env: production\nmaintenance: true\n")
        defaults = root / "roles/webserver/defaults/main.yml"
        defaults.write_text(defaults.read_text().replace("web_tls: false", "web_tls: true"))
        _git(root, "commit", "-qam", "new")
        cpu = _beside_listing([*pls, "diff", "HEAD~1", "HEAD", "-i", "inventory.ini"],
                              [ansible, "site.yml", "-i", "inventory.ini", "--list-hosts", "--list-tasks"],
                              root, runs, env)
    _report(f"fleet of {hosts} hosts, a group_vars value and a role default changed:", cpu)


def _beside_listing(diff: list[str], listing: list[str], cwd: Path, runs: int,
                    env: dict[str, str]) -> dict[str, list[float]]:
    """The CPU of ``diff`` and of ansible's ``listing``, interleaved ``runs`` times, each with a cold cache."""
    commands = {"playbook-ls diff": diff, "ansible-playbook --list-*": listing}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            with tempfile.TemporaryDirectory() as cache:
                cpu[name].append(timed(command, cwd, {**env, "PLAYBOOK_LS_CACHE_DIR": cache})[1])
    return cpu


def _report(title: str, cpu: dict[str, list[float]]) -> None:
    print(title)
    for name, times in cpu.items():
        print(f"  {name:32} CPU median {statistics.median(times):.2f} s  (runs: "
              f"{', '.join(f'{t:.2f}' for t in times)})")
    ratio = statistics.median(cpu["ansible-playbook --list-*"]) / statistics.median(cpu["playbook-ls diff"])
    print(f"  ansible / diff CPU: {ratio:.2f}x; target >= 1: {'met' if ratio >= 1 else 'NOT met'}")


def k3s_inventory(root: Path, hosts: int) -> Path:
    """A k3s cluster of ``hosts`` hosts as a team keeps one: regions as groups with their own vars."""
    regions = ["eu", "us", "ap"]
    lines = ["k3s_cluster:", "  children:", "    server:", "      hosts:"]
    names = [f"node{index:05d}.{regions[index % 3]}.example.net" for index in range(hosts)]
    lines += [f"        {name}:" for name in names[:3]]
    lines += ["    agent:", "      hosts:"]
    lines += [f"        {name}:" for name in names[3:]]
    lines += ["  vars:", "    ansible_port: 22", "    ansible_user: debian", "    k3s_version: v1.31.12+k3s1",
              "    token: changeme", "    api_endpoint: \"{{ hostvars[groups['server'][0]]['ansible_host']"
              " | default(groups['server'][0]) }}\""]
    for region in regions:
        lines += [f"region_{region}:", "  hosts:"]
        lines += [f"    {name}:" for name in names if f".{region}." in name]
    inventory = root / "inventory"
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "host_vars").mkdir()
    (inventory / "hosts.yml").write_text("\n".join(lines) + "\n")
    for number, region in enumerate(regions):
        (inventory / "group_vars" / f"region_{region}.yml").write_text(
            f"extra_agent_args: \"--node-label topology.kubernetes.io/region={region}\"\n"
            f"manage_firewall: {'true' if number == 0 else 'false'}\n"
            f"cluster_context: k3s-{region}\n")
    for index in range(0, hosts, 50):
        (inventory / "host_vars" / f"{names[index]}.yml").write_text(
            f"ansible_host: 10.{index // 65536}.{index // 256 % 256}.{index % 256}\n")
    return inventory / "hosts.yml"


def k3s_fleet(clone: Path, commit: str, playbook: str, hosts: int, runs: int, ansible: str, pls: list[str],
              env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory(prefix="review-k3s-") as scratch:
        inventory = k3s_inventory(Path(scratch), hosts)
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(clone), "worktree", "add", "-q", "--detach", str(tree), commit],
                       check=True, capture_output=True)
        try:
            cpu = _beside_listing([*pls, "diff", f"{commit}^", commit, playbook, "-i", str(inventory)],
                                  [ansible, playbook, "-i", str(inventory), "--list-hosts", "--list-tasks"],
                                  tree, runs, env)
        finally:
            subprocess.run(["git", "-C", str(clone), "worktree", "remove", "--force", str(tree)], capture_output=True)
    _report(f"k3s {commit[:10]}^..{commit[:10]} {playbook} on {hosts} hosts:", cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubespray", type=Path, help="a kubespray clone with its history")
    parser.add_argument("--commit", default="HEAD", help="the kubespray commit compared with its parent")
    parser.add_argument("--hosts", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--k3s", type=Path, help="a k3s-ansible clone with its history")
    parser.add_argument("--k3s-commit", default="HEAD", help="the k3s-ansible commit compared with its parent")
    parser.add_argument("--playbook", default="playbooks/site.yml", help="the k3s-ansible playbook reviewed")
    args = parser.parse_args()
    ansible, pls, pls_env = both_commands()
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "False", **pls_env}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))  # the -c run's too
    if args.kubespray:
        commit = subprocess.run(["git", "-C", str(args.kubespray), "rev-parse", args.commit], capture_output=True,
                                text=True, check=True).stdout.strip()
        kubespray(args.kubespray, commit, args.runs, pls, env)
    if args.k3s:
        commit = subprocess.run(["git", "-C", str(args.k3s), "rev-parse", args.k3s_commit], capture_output=True,
                                text=True, check=True).stdout.strip()
        k3s_fleet(args.k3s, commit, args.playbook, args.hosts, args.runs, ansible, pls, env)
    elif args.hosts:
        fleet(args.hosts, args.runs, ansible, pls, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
