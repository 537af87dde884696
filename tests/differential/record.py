"""Record ansible-playbook's output for every differential scenario as JSON fixtures.

    python tests/differential/record.py [--check] [NAME...]

Without --check, (re)writes expected/<NAME>.json; with --check, writes nothing, lists the
stale fixtures and exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from harness import EXPECTED_DIR, load_scenarios, record_all, stale_cases  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify the fixtures instead of writing them")
    parser.add_argument("names", nargs="*", metavar="NAME", help="scenario directory names (default: all)")
    args = parser.parse_args(argv)

    scenarios = load_scenarios(args.names or None)
    unknown = set(args.names) - {s.name for s in scenarios}
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    start = time.monotonic()
    recorded = record_all(scenarios)
    n_cases = sum(len(r) for r in recorded.values())
    print(f"ran {n_cases} cases of {len(scenarios)} scenarios in {time.monotonic() - start:.1f}s")

    if args.check:
        stale = stale_cases(scenarios, recorded)
        print("\n".join(["stale fixtures:", *stale] if stale else ["all fixtures up to date"]))
        return 1 if stale else 0
    EXPECTED_DIR.mkdir(exist_ok=True)
    for scenario in scenarios:
        text = json.dumps(recorded[scenario.name], indent=2, ensure_ascii=False) + "\n"
        scenario.expected_file.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
