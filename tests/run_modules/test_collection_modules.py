"""community.general's ini_file, which the engine also runs under the builtin name ansible-core
routes to it, gives the result and leaves the disk the way the collection's module did."""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":  # run as a script to re-record
    sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent)]

import pytest  # noqa: E402
from ansible_tools import find_tool  # noqa: E402
from cases import COLLECTION_CASES  # noqa: E402
from recorder import record  # noqa: E402
from replay import run_case  # noqa: E402

FIXTURE = HERE / "fixtures" / "collection_results.json"
RECORDED = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}


@pytest.mark.parametrize("case", COLLECTION_CASES, ids=[case.id for case in COLLECTION_CASES])
def test_matches_recording(case, tmp_path: Path) -> None:
    ours = run_case(case, tmp_path)
    recorded = RECORDED[case.id]
    assert ours["disk"] == recorded["disk"]
    assert ours["result"] == recorded["result"]


@pytest.mark.ansible
def test_recording_is_current() -> None:
    tool = find_tool("ansible-playbook")
    if tool is None:
        pytest.skip("ansible-playbook not installed")
    try:  # without the collection ansible-playbook refuses the playbook: no results at all
        fresh = record(tool, COLLECTION_CASES)
    except FileNotFoundError:
        pytest.skip("the community.general collection is not installed beside ansible-playbook")
    assert fresh == RECORDED


if __name__ == "__main__":  # re-record: python tests/run_modules/test_collection_modules.py [ANSIBLE_PLAYBOOK]
    tool = sys.argv[1] if len(sys.argv) > 1 else find_tool("ansible-playbook")
    if tool is None:
        raise SystemExit("ansible-playbook not found")
    FIXTURE.write_text(json.dumps(record(tool, COLLECTION_CASES), indent=1, sort_keys=True) + "\n")
