"""`playbook-ls vars` against the ansible-playbook run that prints the same values.

Usage: python bench/vars.py [--runs 5] [--workdir bench/out] [--roles 94] [--playbook api.yml] [--host api-01]
                            [--whole site.yml]

On the generated repository (``gen_repo.py --extras``: about 3,000 tasks with 94 roles), the
first play of ``--playbook`` is copied to ``vars_probe.yml`` with fact gathering off and one
first pre-task, tagged ``pls_probe``, that prints every variable ``playbook-ls vars`` knows a
static value of at that task. With ``--whole site.yml`` the probe play is followed by
``import_playbook: site.yml``: both tools then read all 3,000 tasks of the workspace, not only
the playbook's files. Then, alternating, each tool runs ``--runs`` times on the same
input:

- ``playbook-ls vars vars_probe.yml -i inventory --host HOST --task vars_probe.yml:LINE --format json``
- ``ansible-playbook vars_probe.yml -i inventory -c local --limit HOST --tags pls_probe --skip-tags always --check``
  (only the probe runs, and in check mode)

The values are compared (every name, ansible's printed value against playbook-ls's) and the
median wall times and their ratio printed. playbook-ls's modules are byte-compiled first, as
installing the package does (a checkout under PYTHONDONTWRITEBYTECODE would compile every
edited module on each run), and the first, untimed, run fills the parse store as any earlier
run on the same files would. ansible-playbook is looked for beside this Python,
then on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _tool(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name)


def _probe_playbook(tree: Path, playbook: str, index: int = 0, then: str | None = None) -> Path:
    """Play ``index`` of ``playbook`` with a probe pre-task, beside it; names filled in later.
    ``then``: a playbook imported after the probe play, which both tools then load whole."""
    from ruamel.yaml import YAML

    yaml = YAML()
    plays = yaml.load((tree / playbook).read_text())
    play = plays[index]
    play["gather_facts"] = False
    play.pop("become", None)
    play.setdefault("pre_tasks", [])
    play["pre_tasks"].insert(0, {"name": "pls probe", "ansible.builtin.debug": {"msg": "NAMES"},
                                 "tags": ["pls_probe"]})
    target = (tree / playbook).parent / "vars_probe.yml"
    entries = [play] if then is None else [play, {"ansible.builtin.import_playbook": then}]
    with target.open("w") as out:
        yaml.dump(entries, out)
    return target


def _probe_line(path: Path) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if "name: pls probe" in line)


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed, done.stdout


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", default=str(HERE / "out"))
    parser.add_argument("--roles", type=int, default=94)
    parser.add_argument("--playbook", default="api.yml")
    parser.add_argument("--host", default="api-01")
    parser.add_argument("--tree", help="an existing repository instead of the generated one (a scratch copy: "
                                       "vars_probe.yml is written into it)")
    parser.add_argument("--inventory", default="inventory")
    parser.add_argument("--play", type=int, default=0, help="which play of the playbook (from 0)")
    parser.add_argument("--whole", metavar="PLAYBOOK", help="import this playbook (site.yml: the whole "
                        "workspace) after the probe play, so that both tools load all of it")
    args = parser.parse_args(argv)
    ansible = _tool("ansible-playbook")
    if ansible is None:
        print("ansible-playbook is not installed", file=sys.stderr)
        return 2
    tree = Path(args.tree) if args.tree else Path(args.workdir) / f"repo-r{args.roles}-s1-extras"
    if not args.tree and not tree.is_dir():
        subprocess.run([sys.executable, str(HERE / "gen_repo.py"), str(tree), "--roles", str(args.roles),
                        "--seed", "1", "--extras"], check=True)
    probe = _probe_playbook(tree, args.playbook, args.play, args.whole)
    line = _probe_line(probe)
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCALHOST_WARNING": "False",
           "ANSIBLE_CALLBACK_RESULT_FORMAT": "json", "ANSIBLE_PYTHON_INTERPRETER": sys.executable}
    where = probe.parent
    inventory = str((tree / args.inventory).resolve()) if "," not in args.inventory else args.inventory
    ours = [sys.executable, "-m", "playbook_ls", "vars", probe.name, "-i", inventory, "--host", args.host,
            "--task", f"{probe.name}:{line}", "--format", "json"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "playbook_ls"), str(ROOT / "engine")],
                   check=False, capture_output=True)
    _, listed = _timed(ours, where, env)
    known = {name: entry["value"] for entry in json.loads(listed) for name, entry in entry["variables"].items()
             if "unknown" not in entry and not (entry.get("source") or {}).get("runtime")}
    text = probe.read_text().replace("msg: NAMES", "msg: {" + ", ".join(
        f"'{name}': \"{{{{ {name} }}}}\"" for name in sorted(known)) + "}")
    probe.write_text(text)
    # only the probe: tasks tagged always would run with --tags too, and check mode changes nothing
    theirs = [ansible, probe.name, "-i", inventory, "-c", "local", "--limit", args.host, "--tags", "pls_probe",
              "--skip-tags", "always", "--check"]
    _, printed = _timed(theirs, where, env)
    start = printed.index("=> ", printed.index("TASK [pls probe]")) + 3
    values = json.JSONDecoder().raw_decode(printed[start:])[0]["msg"]
    _, listed = _timed(ours, where, env)
    mine = {name: entry["value"] for entry in json.loads(listed) for name, entry in entry["variables"].items()
            if name in values}
    same = sum(1 for name in values if mine.get(name) == values[name])
    print(f"tree: {tree} ({args.playbook}, host {args.host}); {len(values)} variables printed by ansible, "
          f"{same} identical in playbook-ls vars" + ("" if same == len(values) else " (DIFFER: " + ", ".join(
              n for n in values if mine.get(n) != values[n])[:500] + ")"))
    times: dict[str, list[float]] = {"playbook-ls vars": [], "ansible-playbook": []}
    for _ in range(args.runs):
        times["playbook-ls vars"].append(_timed(ours, where, env)[0])
        times["ansible-playbook"].append(_timed(theirs, where, env)[0])
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"{name:18} median {median:.3f} s over {args.runs} runs")
    ratio = medians["ansible-playbook"] / medians["playbook-ls vars"]
    verdict = "met" if ratio >= 10 else "NOT met"
    print(f"ratio ansible-playbook / playbook-ls vars: {ratio:.1f}x (target >= 10x: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
