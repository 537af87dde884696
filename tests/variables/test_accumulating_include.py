"""A looping include over items whose order only the run knows (a set filter's list): what its
tasks set from what its earlier runs set is not given as the value of one run (the count of one
item), but said unknown; what does not build on the runs before stays known."""

from __future__ import annotations

import json
from pathlib import Path

from var_values import probed, values_at

SCENARIO = Path(__file__).resolve().parent / "accumulating_include"


def test_what_builds_on_earlier_runs_is_ansibles_value_or_unknown() -> None:
    expected = json.loads((SCENARIO / "expected.json").read_text())
    checked = 0
    for where, host, index, item, values in probed(expected):
        ours = values_at(SCENARIO, where, host, index, list(values), item)
        for name, value in values.items():
            given = ours.get(name)
            if name == "marker":  # set alike at every run
                assert given == value
            else:
                assert given == value or str(given).startswith("unknown: "), (host, name, given)
                assert given != 1  # one run's count, as when the runs were taken for one
            checked += 1
    assert checked == 8
