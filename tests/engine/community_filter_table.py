"""A differential table of the engine's ports of ``community.general`` filters
(engine.templating.filters.community_general) against the collection's own, rendered by ansible's
``Templar`` where the collection is installed. What ansible gives (a value with its type, or an
error) is stored in ``community_filter_table.json``; ``test_community_filters.py`` checks the
engine against it offline and, where the collection is importable, that the table is still what
ansible gives.

    python tests/engine/community_filter_table.py   # rewrite the table (ansible-core and community.general installed)
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from filter_table import outcome  # noqa: E402

TABLE = HERE / "community_filter_table.json"

INPUTS: dict[str, Any] = {
    "words": ["b", "a", "b", "c", "a", "b"], "nums": [3, 1, 2], "text": "hello",
    "versions": ["2.10", "2.9", "1.0", "2.9.1", "10.0", "1.0.0"],
    "mixed_versions": ["2.5.0-rc.2", "2.5.0", "2.4.1"],
    "list1": [{"index": "a", "value": 123, "tags": ["x"]}, {"index": "b", "value": 4}],
    "list2": [{"index": "a", "foo": "bar", "tags": ["y"]}, {"index": "c", "foo": "baz"}],
    "list3": [{"index": "d", "foo": "qux"}],
    "nested1": [{"name": "n", "cfg": {"a": 1, "b": {"c": 2}}}],
    "nested2": [{"name": "n", "cfg": {"b": {"d": 3}}}],
    "records": [{"k_a": 1, "k_b": 2, "other": 3}, {"k_a": 4, "x_b": 5}],
    "servers": ["s1", "s2"], "pairs": [["a", 1], ["b", 2]],
    "users": [{"name": "ann", "uid": 1}, {"name": "bob", "uid": 2}],
    "dupes": [{"name": "ann"}, {"name": "ann"}],
    "la": [1, 2, 3, 2], "lb": [2, 3, 4], "lc": [[1], [2]], "ld": [[2], [3]],
}

CASES = [
    "{{ words | community.general.counter }}", "{{ text | community.general.counter }}",
    "{{ 5 | community.general.counter }}", "{{ lc | community.general.counter }}",
    "{{ servers | map('community.general.dict_kv', 'server') | list }}", "{{ 'v' | community.general.dict_kv('k') }}",
    "{{ pairs | community.general.dict }}",
    "{{ users | community.general.groupby_as_dict('name') }}",
    "{{ dupes | community.general.groupby_as_dict('name') }}",
    "{{ users | community.general.groupby_as_dict('missing') }}",
    "{{ text | community.general.groupby_as_dict('x') }}",
    "{{ versions | community.general.version_sort }}",
    "{{ versions | community.general.version_sort(reverse=true) }}",
    "{{ mixed_versions | community.general.version_sort }}",
    "{{ nums | community.general.accumulate | list }}", "{{ words | community.general.accumulate | list }}",
    "{{ text | community.general.crc32 }}", "{{ 5 | community.general.crc32 }}",
    "{{ 'Cafe\u0301' | community.general.unicode_normalize }}",
    "{{ 'Cafe\u0301' | community.general.unicode_normalize('NFD') | length }}",
    "{{ 'x' | community.general.unicode_normalize('nope') }}",
    "{{ list1 | community.general.lists_mergeby(list2, 'index') }}",
    "{{ [list1, list2, list3] | community.general.lists_mergeby('index') }}",
    "{{ [list1, list2] | community.general.lists_mergeby('index', list_merge='append') }}",
    "{{ nested1 | community.general.lists_mergeby(nested2, 'name', recursive=true) }}",
    "{{ nested1 | community.general.lists_mergeby(nested2, 'name') }}",
    "{{ [list1, []] | community.general.lists_mergeby('index') }}", "{{ list1 | community.general.lists_mergeby(5) }}",
    "{{ list1 | community.general.lists_mergeby(list2, 'index', bogus=1) }}",
    "{{ la | community.general.lists_union(lb) }}", "{{ la | community.general.lists_union(lb, [9, 1]) }}",
    "{{ [la, lb] | community.general.lists_union(flatten=true) }}",
    "{{ la | community.general.lists_intersect(lb) }}", "{{ lc | community.general.lists_intersect(ld) }}",
    "{{ la | community.general.lists_difference(lb) }}", "{{ la | community.general.lists_symmetric_difference(lb) }}",
    "{{ lc | community.general.lists_symmetric_difference(ld) }}", "{{ la | community.general.lists_union(lb, x=1) }}",
    "{{ records | community.general.keep_keys(target=['k_a', 'other']) }}",
    "{{ records | community.general.keep_keys(target='k_', matching_parameter='starts_with') }}",
    "{{ records | community.general.keep_keys(target='_b', matching_parameter='ends_with') }}",
    "{{ records | community.general.keep_keys(target='^k_', matching_parameter='regex') }}",
    "{{ records | community.general.keep_keys(target=[]) }}",
    "{{ records | community.general.keep_keys(target='x', matching_parameter='nope') }}",
    "{{ records | community.general.remove_keys(target=['k_a']) }}",
    "{{ records | community.general.remove_keys(target='k_', matching_parameter='starts_with') }}",
    "{{ records | community.general.replace_keys(target=[{'before': 'k_a', 'after': 'a'}]) }}",
    "{{ records | community.general.replace_keys(target=[{'before': '^k_', 'after': 'key'}], "
    "matching_parameter='regex') }}",
    "{{ records | community.general.replace_keys(target=[{'before': 'k_a'}]) }}",
    "{{ '1h 30m' | community.general.to_minutes }}", "{{ '2d -4h' | community.general.to_hours }}",
    "{{ '90s' | community.general.to_milliseconds }}", "{{ '3 weeks' | community.general.to_days }}",
    "{{ '1y' | community.general.to_days(year=360) }}", "{{ '2mo' | community.general.to_weeks }}",
    "{{ '1 year' | community.general.to_seconds }}", "{{ '0' | community.general.to_hours }}",
    "{{ '5 fortnights' | community.general.to_days }}", "{{ '10h' | community.general.to_time_unit('d') }}",
    "{{ '36h' | community.general.to_days(bogus=1) }}",
]


def ansible_renderer() -> Any:
    from ansible.parsing.dataloader import DataLoader
    from ansible.plugins.loader import init_plugin_loader
    from ansible.template import Templar, trust_as_template

    init_plugin_loader()
    templar = Templar(loader=DataLoader(), variables=dict(INPUTS))
    return lambda expression: templar.template(trust_as_template(expression))


def engine_renderer() -> Any:
    from engine.templating.templar import Templar

    return lambda expression: Templar(dict(INPUTS)).template(expression)


def record() -> dict[str, dict[str, Any]]:
    render = ansible_renderer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {expression: outcome(render, expression) for expression in CASES}


if __name__ == "__main__":
    TABLE.write_text(json.dumps(record(), indent=0, ensure_ascii=False) + "\n")
    print(f"{len(CASES)} expressions recorded")
