"""How fast an inventory plugin's answer is read again, against running it.

Usage: python bench/inventory_plugin_cache.py [--hosts 5000] [--runs 5]

Writes, in a temporary directory, a user inventory plugin (``inventory_plugins/fleet.py``: HOSTS hosts
in 50 groups, each host with four variables, as a cloud plugin would return them) and its
configuration, then reads that source with playbook-ls's inventory loader (``dynamic=True``, as
``playbook-ls inventory`` does):

- RUNS times as a new process does (the in-memory copy dropped first): ansible-core runs the
  plugin in a child process; playbook-ls keeps no answer on disk, since files alone do not decide
  what a plugin answers;
- RUNS times from memory (the editor's case: the same server process, within a minute).

Prints the median wall and CPU time of each (the child's own time is not in the CPU column).
Target: an answer kept in memory read under 50 ms for 5,000 hosts. Needs ansible-core
(``ansible-inventory`` beside this Python or on PATH).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_SECONDS = 0.050
PLUGIN = '''
from ansible.plugins.inventory import BaseInventoryPlugin


class InventoryModule(BaseInventoryPlugin):
    NAME = "fleet"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith("fleet.yml")

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        for index in range({hosts}):
            group = self.inventory.add_group(f"app{{index % 50:02d}}")
            host = self.inventory.add_host(f"node{{index:05d}}", group=group)
            address = f"10.{{index // 65536}}.{{index // 256 % 256}}.{{index % 256}}"
            self.inventory.set_variable(host, "ansible_host", address)
            self.inventory.set_variable(host, "instance_type", "m5.large")
            self.inventory.set_variable(host, "tags", {{"team": f"t{{index % 7}}", "env": "prod"}})
            self.inventory.set_variable(host, "index", index)
'''


def _medians(action, runs: int) -> tuple[float, float]:
    """The median wall and CPU seconds of ``runs`` calls: on a shared machine the CPU time says
    what the read costs, the wall time what another process's load added."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from engine.config import InventorySettings
    from engine.inventory import external
    from engine.inventory.manager import load_inventory

    if external.ansible_python() is None:
        print("ansible-inventory not found: install ansible-core 2.19", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pls-bench-plugin-cache-") as scratch:
        root = Path(scratch)
        os.environ["PLAYBOOK_LS_CACHE_DIR"] = str(root / "cache")
        (root / "inventory_plugins").mkdir()
        (root / "inventory_plugins" / "fleet.py").write_text(PLUGIN.format(hosts=args.hosts))
        (root / "fleet.yml").write_text("plugin: fleet\n")
        os.chdir(root)

        def read() -> None:
            inventory = load_inventory([str(root / "fleet.yml")], dynamic=True, playbook_dir=str(root),
                                       settings=InventorySettings())
            assert len(inventory.data.hosts) == args.hosts, inventory.failures

        cold = _medians(lambda: (external._memory.clear(), read()), args.runs)
        memory = _medians(read, args.runs)
    print(f"{args.hosts:,} hosts from a user plugin, median of {args.runs} runs: wall / CPU of this process")
    for label, (wall, cpu) in (("ansible-core in a child process (a new process)", cold),
                               ("kept in memory (the same server)", memory)):
        print(f"  {label:<44} {wall * 1000:8.1f} ms / {cpu * 1000:8.1f} ms")
    print(f"  target: an answer kept in memory read under {TARGET_SECONDS * 1000:g} ms (CPU time): "
          f"{'met' if memory[1] < TARGET_SECONDS else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
