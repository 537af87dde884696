"""``playbook-ls diff``'s cost: two kubespray revisions one commit apart, and a 2,000-host fleet
beside ansible-playbook's listing of one revision, measured in one run.

    python bench/review_speed.py [--kubespray DIR] [--commit REV] [--hosts 2000] [--runs 3]

- **kubespray** (``--kubespray``, a clone with its history): ``playbook-ls diff REV^ REV`` (no
  inventory, cold: a new empty cache directory per run), and the same review with the old side
  read again rather than taken from the new side (``build_review(..., reuse=False)``, what diff
  did before), whose output must be the same (``SAME``/``DIFFER``). Target: under 3 s CPU.
- **fleet**: bench/fleet.py's fleet of ``--hosts`` hosts in a git repository of two commits (a
  group_vars value and a role default changed), ``playbook-ls diff HEAD~1 HEAD -i inventory.ini``
  beside ``ansible-playbook site.yml -i inventory.ini --list-hosts --list-tasks`` of the new
  revision. Target: diff no slower than ansible.

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
        commands = {"playbook-ls diff HEAD~1 HEAD": [*pls, "diff", "HEAD~1", "HEAD", "-i", "inventory.ini"],
                    "ansible-playbook --list-*": [ansible, "site.yml", "-i", "inventory.ini", "--list-hosts",
                                                  "--list-tasks"]}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, command in commands.items():
                with tempfile.TemporaryDirectory() as cache:
                    cpu[name].append(timed(command, root, {**env, "PLAYBOOK_LS_CACHE_DIR": cache})[1])
    print(f"fleet of {hosts} hosts, a group_vars value and a role default changed:")
    for name, times in cpu.items():
        print(f"  {name:32} CPU median {statistics.median(times):.2f} s  (runs: "
              f"{', '.join(f'{t:.2f}' for t in times)})")
    ratio = statistics.median(cpu["ansible-playbook --list-*"]) / statistics.median(cpu["playbook-ls diff HEAD~1 HEAD"])
    print(f"  ansible / diff CPU: {ratio:.2f}x; target >= 1: {'met' if ratio >= 1 else 'NOT met'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubespray", type=Path, help="a kubespray clone with its history")
    parser.add_argument("--commit", default="HEAD", help="the kubespray commit compared with its parent")
    parser.add_argument("--hosts", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ansible, pls, pls_env = both_commands()
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "False", **pls_env}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))  # the -c run's too
    if args.kubespray:
        commit = subprocess.run(["git", "-C", str(args.kubespray), "rev-parse", args.commit], capture_output=True,
                                text=True, check=True).stdout.strip()
        kubespray(args.kubespray, commit, args.runs, pls, env)
    if args.hosts:
        fleet(args.hosts, args.runs, ansible, pls, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
