"""A differential table of the engine's Jinja filters and tests against ansible-core 2.19's own.

Every filter and test the engine's templates know (besides the ones that read the clock or the
machine) is evaluated on a table of inputs (edge values: None, '', 0, '0', 'yes', 'True', floats,
nested lists and dicts, unicode, undefined, wrong types) with its usual arguments and with a
keyword it does not take, once by ansible's own ``Templar`` (in this process, with a
``DataLoader``) and once by the engine's. What ansible gives (a value with its type, or an error)
is stored in ``filter_table.json``; ``test_filter_table.py`` checks the engine against it offline
and, where ansible-core is installed, that the table is still what ansible gives.

    python tests/engine/filter_table.py            # rewrite filter_table.json from ansible
    python tests/engine/filter_table.py --diff     # list where the engine differs from the table
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TABLE = HERE / "filter_table.json"

# the inputs, as the variables both templars get (``v_undef`` is never defined)
INPUTS: dict[str, Any] = {
    "v_none": None, "v_empty": "", "v_zero": 0, "v_szero": "0", "v_yes": "yes", "v_no": "no", "v_True": "True",
    "v_one": 1, "v_int": 42, "v_neg": -7, "v_float": 2.5, "v_sfloat": "3.75", "v_true": True, "v_false": False,
    "v_word": "Hello World", "v_uni": "h\u00e9llo \u2603", "v_path": "/srv/app/../data/file.tar.gz",
    "v_url": "https://u:p@host.example:8443/a/b?q=1&r=a+b#frag", "v_b64": "aGVsbG8gd29ybGQ=",
    "v_json": '{"a": [1, 2], "b": null}', "v_yaml": "a: yes\nb: [1, 010]\n", "v_size": "1.5 GB",
    "v_version": "1.10.2", "v_date": "2024-02-29 13:45:00", "v_multi": "line one\nline two\n\n",
    "v_list": [3, 1, 2], "v_strs": ["b", "a", "B", "a"], "v_mixed": [1, "a", None, 2.5, True],
    "v_nested": [1, [2, [3, [4]]], "x"], "v_empty_list": [], "v_empty_dict": {},
    "v_dict": {"b": 1, "a": {"c": [1, 2]}, "z": None},
    "v_records": [{"name": "x", "n": 2, "on": True}, {"name": "y", "n": 1, "on": False}, {"name": "x", "n": 3}],
    "v_pairs": [{"key": "k1", "value": 1}, {"key": "k2", "value": [2]}],
    "v_nullish": ["None", "null", None, "x", ["null", ("t", "u")], "B", "b"], "v_quotes": "it's \"q\" \\ $x",
}
NAMES = [*INPUTS, "v_undef"]
# the filters and tests left out: they read the clock, the machine or a random source
SKIP = {"random", "shuffle", "realpath", "expanduser", "expandvars", "strftime", "pprint", "to_uuid",
        "exists", "file", "directory", "link", "link_exists", "same_file", "mount", "is_file", "is_dir",
        "is_link", "is_mount", "is_same_file", "callable", "xmlattr", "urlize", "lookup", "query", "q"}
# each filter's arguments besides none at all; "(bogus=1)" (a keyword it does not take) is added to all
FILTER_ARGS: dict[str, list[str]] = {
    "attr": ["('name')"], "batch": ["(2)", "(2, 'f')"], "center": ["(9)"], "combine": ["({'a': {'d': 1}})",
    "({'a': 1}, recursive=true)", "({'a': {'c': [3]}}, recursive=true, list_merge='append')", "(v_dict)"],
    "comment": ["('c')", "('xml')", "(decoration='! ')"], "default": ["('d')", "('d', true)", "(v_dict)"],
    "dict2items": ["(key_name='k', value_name='v')"], "dictsort": ["(true)", "(by='value')", "(reverse=true)"],
    "difference": ["([1, 'a'])", "(v_strs)"], "extract": ["(v_dict)", "(v_list)"],
    "flatten": ["(levels=1)", "(skip_nulls=false)"], "float": ["(9.5)"], "format": ["(1)", "('a', 'b')"],
    "groupby": ["('name')", "('n')"], "hash": ["('md5')", "('sha256')", "('nope')"],
    "human_readable": ["(isbits=true)", "(unit='K')"], "human_to_bytes": ["(isbits=true)", "('M')"],
    "indent": ["(2)", "(2, true)", "(width='> ', first=true, blank=true)"], "int": ["(7)", "(base=16)", "(0, 8)"],
    "intersect": ["([1, 'a', 3])", "(v_strs)"], "items2dict": ["(key_name='name', value_name='n')"],
    "join": ["(',')", "(attribute='name')"], "log": ["(2)", "(10)"], "map": ["('string')", "(attribute='name')",
    "('default', 'd')", "('int')"], "mandatory": ["('needed')"], "max": ["(attribute='n')"],
    "min": ["(attribute='n')"], "path_join": [], "pow": ["(2)", "(0.5)"], "product": ["([1, 2])", "(repeat=2)"],
    "combinations": ["(2)"], "permutations": ["(2)"], "regex_escape": ["(re_type='posix_basic')"],
    "regex_findall": ["('[a-z]+')", "('(l+)(o)')", "('^l', multiline=true)", "('L', ignorecase=true)"],
    "regex_replace": ["('l+', 'L')", "('(?P<x>o)', '<\\\\g<x>>')", "('^', '# ', multiline=true)",
                      "('o', '0', count=1)"],
    "regex_search": ["('l+')", "('(l)(o)', '\\\\2')", "('(?P<n>o)', '\\\\g<n>')", "('L', ignorecase=true)",
                     "('nomatch')"],
    "reject": ["('odd')", "('none')", "('match', 'a')"], "rejectattr": ["('on')", "('n', 'gt', 1)"],
    "replace": ["('l', 'L')", "('l', 'L', 1)"], "root": ["(3)"], "round": ["(1)", "(1, 'floor')", "(0, 'ceil')"],
    "select": ["('odd')", "('string')", "('defined')", "('equalto', 'a')"], "selectattr": ["('on')",
    "('name', 'equalto', 'x')", "('n', 'defined')"], "slice": ["(2)"], "sort": ["(reverse=true)",
    "(attribute='n')", "(case_sensitive=true)"], "split": ["(',')", "(' ', 1)"], "subelements": ["('n')",
    "('n', skip_missing=true)"], "sum": ["(attribute='n')", "(start=10)"], "symmetric_difference": ["([1, 'a'])"],
    "ternary": ["('y', 'n')", "('y', 'n', 'none')"], "to_datetime": ["('%Y-%m-%d')"],
    "to_json": ["(sort_keys=true)", "(indent=2)"], "to_nice_json": ["(indent=2)", "(sort_keys=false)"],
    "to_nice_yaml": ["(indent=2)", "(sort_keys=false)", "(width=10)"], "to_yaml": ["(default_flow_style=false)"],
    "truncate": ["(5)", "(5, true, '~')"], "union": ["([1, 'a'])", "(v_strs)"], "unique": ["(attribute='name')",
    "(case_sensitive=true)"], "urlsplit": ["('hostname')", "('port')", "('nope')"], "wordwrap": ["(5)"],
    "zip": ["(v_strs)", "([1])"], "zip_longest": ["(v_strs, fillvalue='-')"], "split_": [], "count": [],
    "bool": [], "checksum": [], "from_yaml_all": [], "splitext": [], "relpath": ["('/srv')"],
    "commonpath": [], "normpath": [], "basename": [], "dirname": [], "win_basename": [], "win_dirname": [],
    "win_splitdrive": [], "urlencode": [], "urldecode": [], "quote": [], "b64encode": ["('utf-16-le')"],
    "b64decode": ["(encoding='utf-16-le')"], "type_debug": [], "from_json": [], "from_yaml": [],
}
TEST_ARGS: dict[str, list[str]] = {
    "divisibleby": ["(3)"], "eq": ["(1)", "('a')"], "equalto": ["(0)"], "ne": ["(1)"], "gt": ["(1)"], "ge": ["(1)"],
    "lt": ["(1)"], "le": ["(1)"], "greaterthan": ["(1)"], "lessthan": ["(1)"], "==": ["(1)"], "!=": ["(1)"],
    ">": ["(1)"], "<": ["(1)"], ">=": ["(1)"], "<=": ["(1)"], "in": ["([1, 'a'])", "('hello')"],
    "contains": ["(1)", "('a')"], "sameas": ["(none)", "(true)"], "match": ["('h')", "('H', ignorecase=true)"],
    "search": ["('l+')", "('^l', multiline=true)"], "regex": ["('l', match_type='match')", "('l')"],
    "subset": ["([1, 2, 3, 'a'])"], "superset": ["([1])"], "issubset": ["([1, 2, 3])"], "issuperset": ["([])"],
    "truthy": ["(convert_bool=true)"], "falsy": ["(convert_bool=true)"],
    "version": ["('1.9', '>')", "('1.10', 'ge', strict=true)", "('1.10', 'lt', version_type='semver')",
                "('2', 'nope')"], "version_compare": ["('1.9', '<')"],
}
FILTER_INPUTS_SHORT = ("v_none", "v_empty", "v_zero", "v_szero", "v_yes", "v_True", "v_float", "v_sfloat",
                       "v_word", "v_uni", "v_list", "v_strs", "v_mixed", "v_dict", "v_records", "v_nullish",
                       "v_undef")


# whose output grows with the factorial of a long input's length: small inputs only
SMALL_INPUTS = {"permutations": ("v_none", "v_empty", "v_int", "v_list", "v_strs", "v_dict", "v_empty_list",
                                 "v_undef")}


def cases(filters: set[str], tests: set[str]) -> Iterator[str]:
    """Every expression of the table, in a fixed order."""
    for name in sorted(filters - SKIP):
        for args in ["", *FILTER_ARGS.get(name, []), "(bogus=1)"]:
            inputs = SMALL_INPUTS.get(name) or (NAMES if args == "" else FILTER_INPUTS_SHORT)
            for value in inputs:
                yield f"{{{{ {value} | {name}{args} }}}}"
    for name in sorted(tests - SKIP):
        for args in ["", *TEST_ARGS.get(name, [])]:
            for value in FILTER_INPUTS_SHORT:
                yield f"{{{{ {value} is {name}{args} }}}}" if name.isidentifier() else \
                    f"{{{{ {value} is {name}{args[1:-1] if args else ' 1'} }}}}"


def plain(value: Any) -> Any:
    """A result as plain Python data (ansible's tagged strings and lazy containers untagged)."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    if isinstance(value, Mapping):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return f"<{type(value).__name__}>"


def type_name(value: Any) -> str:
    for kind in (bool, int, float, str, list, tuple, dict):
        if isinstance(value, kind):
            return kind.__name__
    if isinstance(value, Mapping):
        return "dict"
    return "None" if value is None else type(value).__name__


def outcome(render: Callable[[str], Any], expression: str) -> dict[str, Any]:
    # from the file system's root: a relative path's ``relpath`` reads the working directory, which
    # must be the same where the table is recorded and where it is checked
    try:
        with contextlib.chdir(Path(HERE.anchor)):
            value = render(expression)
    except Exception as exc:  # noqa: BLE001 - the error is the outcome
        return {"error": str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__}
    return {"type": type_name(value), "value": repr(plain(value))}


def ansible_renderer() -> Callable[[str], Any]:
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar, trust_as_template

    templar = Templar(loader=DataLoader(), variables=dict(INPUTS))
    return lambda expression: templar.template(trust_as_template(expression))


def engine_renderer() -> Callable[[str], Any]:
    from engine.templating.templar import Templar

    def render(expression: str) -> Any:
        # a templar of its own for each expression: a filter that changes its input in place (Jinja's
        # indent on a list) must not change the next one's. The input is read as ``v_in``, so that
        # the expressions of one filter and arguments are one template, compiled once.
        name = expression.split()[1]
        variables = copy.deepcopy(INPUTS)
        if name in INPUTS:
            variables["v_in"] = variables[name]
        return Templar(variables).template(expression.replace(name, "v_in", 1))

    return render


def engine_names() -> tuple[set[str], set[str]]:
    from engine.templating.jinja_environment import build_environment

    env = build_environment(False)  # (a collection's filters have a table of their own: community_filter_table.py)
    return ({n for n in env.filters if not n.startswith(("ansible.", "community."))},
            {n for n in env.tests if not n.startswith("ansible.")})


def record() -> dict[str, dict[str, Any]]:
    filters, tests = engine_names()
    render = ansible_renderer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {expression: _members_only(expression, outcome(render, expression))
                for expression in cases(filters, tests)}


def load() -> dict[str, dict[str, Any]]:
    return json.loads(TABLE.read_text())


def differences(table: Mapping[str, Mapping[str, Any]]) -> Iterator[tuple[str, Mapping[str, Any], dict[str, Any]]]:
    """Each expression whose engine outcome differs from the table's: in value, in type, or in
    failing or not (the wording of an error is not compared here)."""
    render = engine_renderer()
    for expression, expected in table.items():
        got = _members_only(expression, outcome(render, expression))
        if ("error" in expected) != ("error" in got) or ("error" not in got and got != expected):
            yield expression, expected, got


# ansible's list(set(...)): its order follows the process's hash seed, so only the members are compared
SET_LIKE = {"union", "intersect", "difference", "symmetric_difference"}


def _members_only(expression: str, result: dict[str, Any]) -> dict[str, Any]:
    """A set-like filter's list with its members sorted: the order it had follows a hash seed."""
    if expression.split("|")[-1].split("(")[0].strip() in SET_LIKE and "value" in result:
        return {**result, "value": _sorted(result["value"])}
    return result


def _sorted(text: str) -> str:
    import ast

    try:
        return repr(sorted(ast.literal_eval(text), key=repr))
    except (ValueError, SyntaxError, TypeError):
        return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--diff", action="store_true", help="list where the engine differs from the table")
    args = parser.parse_args(argv)
    if args.diff:
        found = list(differences(load()))
        for expression, expected, got in found:
            print(f"{expression}\n    ansible: {expected}\n    engine:  {got}")
        print(f"{len(found)} differences")
        return 1 if found else 0
    table = record()
    TABLE.write_text(json.dumps(table, indent=0, sort_keys=False, ensure_ascii=True) + "\n")
    print(f"{len(table)} expressions recorded")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent))
    sys.exit(main())
