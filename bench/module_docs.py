"""Compare the module options playbook-ls reads statically with ``ansible-doc --json``.

For every module ``ansible-doc -l`` lists in the given Python environment (ansible-core and the
collections of the ``ansible`` package installed there), the options' names, type, default,
choices, aliases, required, elements and suboptions read by :mod:`engine.plugins.index` are
compared with ansible-doc's. Prints the share identical overall and for ``ansible.builtin``, and
the first differences.

    python bench/module_docs.py --venv PATH_TO_VENV [--batch 150] [--record tests/engine/module_docs_sample.json]
    python bench/module_docs.py --venv PATH_TO_VENV --timings   (index cold / warm, one module's doc)

``--record`` writes ansible-doc's options of a fixed sample (the test's fixture).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.plugins.collection_search import CollectionFinder  # noqa: E402
from engine.plugins.docs import option_view  # noqa: E402
from engine.plugins.index import ModuleIndex  # noqa: E402
from engine.plugins.names import AnsibleCore  # noqa: E402

SAMPLE = [
    "ansible.builtin.apt", "ansible.builtin.copy", "ansible.builtin.file", "ansible.builtin.template",
    "ansible.builtin.lineinfile", "ansible.builtin.uri", "ansible.builtin.get_url", "ansible.builtin.user",
    "ansible.builtin.service", "ansible.builtin.dnf", "ansible.builtin.git", "ansible.builtin.unarchive",
    "ansible.builtin.assemble", "ansible.builtin.blockinfile", "ansible.builtin.replace", "ansible.builtin.command",
    "ansible.builtin.systemd_service", "ansible.builtin.deb822_repository", "ansible.builtin.find",
    "ansible.builtin.stat",
    "ansible.posix.mount", "ansible.posix.authorized_key", "ansible.posix.sysctl", "ansible.posix.synchronize",
    "community.general.nmcli", "community.general.ufw", "community.general.ini_file", "community.general.archive",
    "community.general.proxmox_kvm", "community.general.keycloak_client", "community.docker.docker_container",
    "community.docker.docker_image", "community.crypto.openssl_privatekey", "community.crypto.x509_certificate",
    "kubernetes.core.k8s", "kubernetes.core.helm", "amazon.aws.ec2_instance", "amazon.aws.s3_object",
    "community.mysql.mysql_user", "community.postgresql.postgresql_db", "community.windows.win_firewall_rule",
    "ansible.windows.win_copy",
]


def ansible_doc(venv: str, names: list[str], batch: int) -> dict[str, dict]:
    """ansible-doc's JSON of ``names``, many per call (each call loads every collection). One
    module whose docs ansible-doc cannot read fails its whole call: that call is then split in
    halves until the module is alone, and left out."""
    found: dict[str, dict] = {}
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.devnull)
    pending = [names[start:start + batch] for start in range(0, len(names), batch)]
    while pending:
        chunk = pending.pop()
        run = subprocess.run([os.path.join(venv, "bin", "ansible-doc"), "--json", "-t", "module", *chunk],
                             capture_output=True, text=True, env=env, check=False)
        try:
            found.update(json.loads(run.stdout))
        except ValueError:
            if len(chunk) > 1:
                pending += [chunk[: len(chunk) // 2], chunk[len(chunk) // 2:]]
            else:
                print(f"ansible-doc cannot document {chunk[0]}", file=sys.stderr)
    return found


def listed(venv: str) -> list[str]:
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.devnull)
    run = subprocess.run([os.path.join(venv, "bin", "ansible-doc"), "-t", "module", "-l", "--json"],
                         capture_output=True, text=True, env=env, check=True)
    return sorted(json.loads(run.stdout))


def index_for(venv: str) -> ModuleIndex:
    site = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))[0]
    return ModuleIndex(AnsibleCore(os.path.join(site, "ansible")), CollectionFinder([site]))


def compare(index: ModuleIndex, theirs: dict[str, dict]) -> tuple[dict[str, bool], list[str]]:
    same: dict[str, bool] = {}
    notes: list[str] = []
    for name, data in sorted(theirs.items()):
        expected = option_view((data.get("doc") or {}).get("options"))
        resolved = index.resolve(name)
        ours = option_view((index.doc(resolved) or {}).get("options")) if resolved else None
        same[name] = ours == expected
        if not same[name]:
            missing = sorted(set(expected) - set(ours or {}))
            extra = sorted(set(ours or {}) - set(expected))
            changed = sorted(k for k in set(expected) & set(ours or {}) if expected[k] != (ours or {})[k])
            notes.append(f"{name}: {'not indexed' if ours is None else ''} missing={missing[:5]} "
                         f"extra={extra[:5]} changed={changed[:5]}")
    return same, notes


def timings(venv: str) -> None:
    """The whole index cold (an empty cache directory) and warm (a new process's view: a new
    index on the filled cache), and a module's doc first read from the cache, p50 / p95."""
    import random
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        os.environ["PLAYBOOK_LS_CACHE_DIR"] = cache
        for label in ("cold", "warm"):
            index = index_for(venv)
            started = time.perf_counter()
            index._build()  # what the server's background thread does: the file list and summaries
            count = len(index.summaries())
            print(f"index {label}: {count} modules in {time.perf_counter() - started:.2f} s")
        names = random.Random(27).sample(sorted(index.files()), 200)
        for label in ("first read (parsed)", "cached on disk (new process)", "in memory"):
            if label.startswith("cached"):
                index = index_for(venv)
            spent, cpu = [], []
            for name in names:
                started, started_cpu = time.perf_counter(), time.process_time()
                index.doc(name)
                spent.append(time.perf_counter() - started)
                cpu.append(time.process_time() - started_cpu)
            spent.sort()
            cpu.sort()
            # the processor time too: on a loaded machine the wall time is mostly waiting
            print(f"module doc, {label}: p50 {1000 * spent[100]:.1f} ms, p95 {1000 * spent[190]:.1f} ms "
                  f"(processor time: p50 {1000 * cpu[100]:.1f} ms, p95 {1000 * cpu[190]:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", required=True, help="a virtualenv with ansible (ansible-core + collections)")
    parser.add_argument("--batch", type=int, default=150)
    parser.add_argument("--recorded", help="a directory of saved ansible-doc --json outputs (*.json) instead")
    parser.add_argument("--record", help="write ansible-doc's options of the sample to this file")
    parser.add_argument("--timings", action="store_true", help="time the index and doc reads instead")
    args = parser.parse_args()
    if args.timings:
        timings(args.venv)
        return
    index = index_for(args.venv)
    if args.recorded:
        theirs: dict[str, dict] = {}
        for path in sorted(glob.glob(os.path.join(args.recorded, "*.json"))):
            try:
                with open(path, encoding="utf-8") as handle:
                    loaded = json.load(handle)
            except ValueError:
                print(f"skipped unreadable {path}", file=sys.stderr)
                continue
            theirs.update(loaded if isinstance(loaded, dict) and "doc" not in loaded else {})
    else:
        theirs = ansible_doc(args.venv, listed(args.venv), args.batch)
    started = time.perf_counter()
    same, notes = compare(index, theirs)
    elapsed = time.perf_counter() - started
    builtin = {k: v for k, v in same.items() if k.startswith("ansible.builtin.")}
    print(f"modules compared: {len(same)} (those ansible-doc documents); identical option sets: {sum(same.values())} "
          f"({100 * sum(same.values()) / max(len(same), 1):.2f}%)")
    print(f"ansible.builtin: {sum(builtin.values())}/{len(builtin)} "
          f"({100 * sum(builtin.values()) / max(len(builtin), 1):.2f}%); read in {elapsed:.1f} s")
    for note in notes[:40]:
        print(" ", note)
    if args.record:
        sample = {name: option_view((theirs[name].get("doc") or {}).get("options"))
                  for name in SAMPLE if name in theirs}
        with open(args.record, "w", encoding="utf-8") as handle:
            json.dump(sample, handle, indent=1, sort_keys=True)
            handle.write("\n")


if __name__ == "__main__":
    main()
