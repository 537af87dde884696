"""Record what ansible-playbook prints for the random repositories (recorded.json).

    python tests/random_playbooks/record.py [SEED ...] [--cases N] [--verify]

Without seeds it records seeds 0..N-1 (N from --cases, default 100); ``--verify`` compares with the
recordings instead of writing them and exits 1 when one differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator import generate  # noqa: E402
from test_random import RECORDED, load_recorded, record_seeds  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("seeds", nargs="*", type=int)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args(argv)
    seeds = args.seeds or list(range(args.cases))
    with tempfile.TemporaryDirectory() as scratch:
        again = record_seeds([generate(seed) for seed in seeds], Path(scratch))
    recorded = load_recorded()
    if args.verify:
        different = [seed for seed, entry in again.items() if recorded.get(seed) != entry]
        for seed in different:
            print(f"seed {seed}: DIFFERENT")
        print(f"{len(again) - len(different)} of {len(again)} seeds as recorded")
        return 1 if different else 0
    recorded.update(again)
    ordered = dict(sorted(recorded.items(), key=lambda item: int(item[0])))
    RECORDED.write_text(json.dumps(ordered, indent=1, sort_keys=True) + "\n")
    failed = [seed for seed, entry in again.items() if any(entry[mode]["rc"] for mode in ("list-tasks", "list-tags"))]
    failure = f"; ansible-playbook failed on {failed} (a generator bug)" if failed else ""
    print(f"recorded {len(again)} seeds{failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
