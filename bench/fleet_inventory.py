"""A deployment-like inventory of thousands of hosts for a public playbook, from a small spec, so that
``playbook-ls plan`` can be timed beside ``ansible-playbook --list-hosts --list-tasks`` on it.

    python bench/fleet_inventory.py SPEC.json CHECKOUT OUT [--hosts N]

SPEC is JSON:

    {"playbook": "site.yml",                 # relative to the checkout (written from "playbook_text" if given)
     "playbook_text": "...",                 # optional: a playbook to write there (a role's wrapper)
     "hosts": 2000, "name": "node{n:05d}",   # how many hosts, and how each is named
     "groups": [{"name": "server", "count": 3}, {"name": "agent", "share": 1.0}],
     "parents": {"k3s_cluster": ["server", "agent"]},
     "group_vars": {"all": {...}, "server": {...}, "dc_fra": {...}, "env_staging": {...}},
     "host_vars": {"every": 40, "vars": {...}},   # a host_vars file on every Nth host
     "checkout_into": "roles/acme.role",  # optional: where the checkout goes under OUT/repo
     "group_vars_from": "inventory/sample/group_vars"}  # optional: the checkout's group_vars to start from

Each host lands in one of the spec's leaf groups (the first ``count`` hosts go to the groups with a
count, in order; the rest are spread by ``share``), and also in a datacenter group (``dc_fra``,
``dc_ams``, ``dc_lon``, ``dc_nyc``; parents ``datacenters``), an environment group (``env_prod`` for
nine hosts in ten, else ``env_staging``) and a rack group per datacenter (``rack_fra_07``, 24 racks
per datacenter). Every host has its own ``ansible_host``, ``rack_unit`` and ``serial_number`` in the
inventory; each datacenter and environment group has a group_vars file (the spec's values for that
group, and ``ntp_servers``/``dns_servers``/``syslog_host`` per datacenter); every ``every``-th host a
host_vars file. The checkout is copied to ``OUT/repo`` (without ``.git``) and the inventory written
to ``OUT/inventory`` (``hosts.yml``, ``group_vars/``, ``host_vars/``). Prints the two command lines,
to be run from ``OUT/repo``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from pathlib import Path

import yaml

DATACENTERS = ("fra", "ams", "lon", "nyc")
RACKS = 24


def assign(spec: dict, hosts: int) -> list[list[str]]:
    """The hosts' names, per leaf group of the spec, in the spec's order."""
    names = [spec.get("name", "node{n:05d}").format(n=n) for n in range(1, hosts + 1)]
    groups = spec["groups"]
    members: list[list[str]] = [[] for _ in groups]
    start = 0
    for index, group in enumerate(groups):
        if "count" in group:
            members[index] = names[start:start + group["count"]]
            start += group["count"]
    shared = [(index, group["share"]) for index, group in enumerate(groups) if "share" in group]
    total = sum(share for _, share in shared) or 1.0
    rest = names[start:]
    cut = 0
    for position, (index, share) in enumerate(shared):
        end = len(rest) if position == len(shared) - 1 else cut + round(len(rest) * share / total)
        members[index] = rest[cut:end]
        cut = end
    return members


def inventory(spec: dict, hosts: int, rng: random.Random) -> tuple[dict, dict[str, dict], dict[str, dict]]:
    """hosts.yml's content, group_vars files, host_vars files."""
    groups: dict[str, dict] = {}
    host_vars: dict[str, dict] = {}
    every = spec.get("host_vars", {}).get("every", 0)
    extra = spec.get("host_vars", {}).get("vars", {})
    counter = 0
    for group, names in zip(spec["groups"], assign(spec, hosts), strict=True):
        entries: dict[str, dict] = {}
        for name in names:
            counter += 1
            entries[name] = {"ansible_host": f"10.{counter // 65025 % 250}.{counter // 255 % 255}.{counter % 255 + 1}",
                             "rack_unit": rng.randint(1, 42), "serial_number": f"SN{rng.getrandbits(40):010x}"}
            dc = DATACENTERS[counter % len(DATACENTERS)]
            groups.setdefault(f"dc_{dc}", {"hosts": {}})["hosts"][name] = None
            env = "env_staging" if counter % 10 == 0 else "env_prod"
            groups.setdefault(env, {"hosts": {}})["hosts"][name] = None
            groups.setdefault(f"rack_{dc}_{counter // 7 % RACKS:02d}", {"hosts": {}})["hosts"][name] = None
            if every and counter % every == 0:
                host_vars[name] = {**extra, "maintenance_window": f"sun-{counter % 24:02d}00"}
        groups[group["name"]] = {"hosts": entries}
    for parent, children in spec.get("parents", {}).items():
        groups.setdefault(parent, {})["children"] = {child: None for child in children}
    racks = sorted(name for name in groups if name.startswith("rack_"))
    for dc in DATACENTERS:
        groups.setdefault(f"dc_{dc}", {"hosts": {}})
    groups["datacenters"] = {"children": {f"dc_{dc}": None for dc in DATACENTERS}}
    groups["racks"] = {"children": {rack: None for rack in racks}}
    group_vars: dict[str, dict] = {}
    for number, dc in enumerate(DATACENTERS):
        group_vars[f"dc_{dc}"] = {"datacenter": dc, "ntp_servers": [f"ntp{k}.{dc}.example.net" for k in (1, 2)],
                                  "dns_servers": [f"10.{number}.0.53", f"10.{number}.1.53"],
                                  "syslog_host": f"log.{dc}.example.net"}
    for name, values in spec.get("group_vars", {}).items():
        group_vars[name] = {**group_vars.get(name, {}), **values}
    return {"all": {"children": groups}}, group_vars, host_vars


def write(spec: dict, checkout: Path, out: Path, hosts: int) -> tuple[list[str], list[str]]:
    repo = out / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    shutil.copytree(checkout, repo / spec.get("checkout_into", ""), ignore=shutil.ignore_patterns(".git"),
                    symlinks=True)
    if "playbook_text" in spec:
        (repo / spec["playbook"]).write_text(spec["playbook_text"])
    inv = out / "inventory"
    if inv.exists():
        shutil.rmtree(inv)
    inv.mkdir(parents=True)
    if "group_vars_from" in spec:
        shutil.copytree(checkout / spec["group_vars_from"], inv / "group_vars")
    (inv / "group_vars").mkdir(exist_ok=True)
    (inv / "host_vars").mkdir()
    hosts_yml, group_vars, host_vars = inventory(spec, hosts, random.Random(hosts))
    dump = {"default_flow_style": False, "sort_keys": False, "width": 200}
    (inv / "hosts.yml").write_text(yaml.safe_dump(hosts_yml, **dump))
    for name, values in group_vars.items():
        target = inv / "group_vars" / name  # a directory of files when the checkout's group_vars has one
        target = target / "fleet.yml" if target.is_dir() else target.with_name(f"{name}.yml")
        target.write_text(yaml.safe_dump(values, **dump))
    for name, values in host_vars.items():
        (inv / "host_vars" / f"{name}.yml").write_text(yaml.safe_dump(values, **dump))
    source = os.path.relpath(inv / "hosts.yml", repo)
    return (["playbook-ls", "plan", spec["playbook"], "-i", source, "--format", "json"],
            ["ansible-playbook", spec["playbook"], "-i", source, "--list-hosts", "--list-tasks"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", type=Path)
    parser.add_argument("checkout", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--hosts", type=int, help="override the spec's number of hosts")
    args = parser.parse_args()
    spec = json.loads(args.spec.read_text())
    ours, theirs = write(spec, args.checkout, args.out, args.hosts or spec["hosts"])
    print(" ".join(ours))
    print(" ".join(theirs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
