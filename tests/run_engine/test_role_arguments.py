"""A role's argument spec checked as ansible-core 2.19's ArgumentSpecValidator checks it
(engine.run.role_arguments): each case's error messages as ansible gave them; the specs the port
cannot check exactly are declined by the plan."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from helpers import write

from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan, unknown_module_problems
from engine.run.role_arguments import ValidatorCrash, spec_declines, validate

# (options of the entry point, the values given, ansible's error messages or "crash: " its error)
CASES: list[tuple[dict[str, Any], dict[str, Any], Any]] = [({'size': {'type': 'int', 'required': True}},
  {'size': 'big'},
  ['argument \'size\' is of type str and we were unable to convert to int: "\'big\'" cannot be converted to an int']),
 ({'size': {'type': 'int', 'required': True}}, {}, ['missing required arguments: size']),
 ({'size': {'type': 'int'}, 'mode': {'choices': ['lru', 'lfu'], 'default': 'lru'}},
  {'size': '12', 'mode': 'fifo'},
  ['value of mode must be one of: lru, lfu, got: fifo']),
 ({'size': {'type': 'int'}},
  {'size': 3.5},
  ['argument \'size\' is of type float and we were unable to convert to int: "3.5" cannot be converted to an int']),
 ({'size': {'type': 'int'}}, {'size': '1e3'}, []),
 ({'size': {'type': 'int'}},
  {'size': [1]},
  ['argument \'size\' is of type list and we were unable to convert to int: "[1]" cannot be converted to an int']),
 ({'ratio': {'type': 'float'}},
  {'ratio': 'x'},
  ["argument 'ratio' is of type str and we were unable to convert to float: <class 'str'> cannot be converted to a "
   'float']),
 ({'ratio': {'type': 'float'}}, {'ratio': '2.5'}, []),
 ({'on': {'type': 'bool'}}, {'on': 'yes'}, []),
 ({'on': {'type': 'bool'}},
  {'on': ['x']},
  ["argument 'on' is of type list and we were unable to convert to bool: <class 'list'> cannot be converted to a "
   'bool']),
 ({'names': {'type': 'list', 'elements': 'int'}},
  {'names': '1,b,3'},
  ['Elements value for option \'names\' is of type str and we were unable to convert to int: "\'b\'" cannot be '
   'converted to an int']),
 ({'names': {'type': 'list', 'elements': 'str', 'choices': ['a', 'b']}},
  {'names': ['a', 'c', 'd']},
  ['value of names must be one or more of: a, b. Got no match for: c, d']),
 ({'names': {'type': 'list'}},
  {'names': {'a': 1}},
  ["argument 'names' is of type dict and we were unable to convert to list: <class 'dict'> cannot be converted to a "
   'list']),
 ({'conf': {'type': 'dict'}}, {'conf': "a=1 b='x y'"}, []),
 ({'conf': {'type': 'dict'}},
  {'conf': '{bad'},
  ["argument 'conf' is of type str and we were unable to convert to dict: unable to evaluate string as dictionary"]),
 ({'conf': {'type': 'dict'}},
  {'conf': 'plain'},
  ["argument 'conf' is of type str and we were unable to convert to dict: dictionary requested, could not parse JSON "
   'or key=value']),
 ({'conf': {'type': 'dict'}},
  {'conf': 5},
  ["argument 'conf' is of type int and we were unable to convert to dict: <class 'int'> cannot be converted to a "
   'dict']),
 ({'a': {}}, {'a': 1, 'zz': 2, 'b': 3}, ['b, zz. Supported parameters include: a.']),
 ({'state': {'choices': ['present', 'absent']}},
  {'state': None},
  ['value of state must be one of: present, absent, got: None']),
 ({'flag': {'choices': ['yes', 'no']}}, {'flag': 'True'}, []),
 ({'flag': {'choices': ['on', 'yes']}}, {'flag': 'True'}, ['value of flag must be one of: on, yes, got: True']),
 ({'p': {'type': 'path'}}, {'p': '~/x'}, []),
 ({'j': {'type': 'json'}},
  {'j': 5},
  ["argument 'j' is of type int and we were unable to convert to json: <class 'int'> cannot be converted to a json "
   'string']),
 ({'v': {'type': 'list',
         'elements': 'dict',
         'required': True,
         'options': {'name': {'type': 'str', 'required': True},
                     'port': {'type': 'int', 'default': 80},
                     'tls': {'type': 'bool', 'default': False}}}},
  {'v': [{'name': 'a', 'port': 'x'}, {'port': 3}, 'str', {'name': 'b', 'extra': 1}]},
  ['dictionary requested, could not parse JSON or key=value',
   "Elements value for option 'v' is of type str and we were unable to convert to dict: dictionary requested, could "
   'not parse JSON or key=value',
   'argument \'port\' is of type str found in \'v\'. and we were unable to convert to int: "\'x\'" cannot be '
   'converted to an int',
   'missing required arguments: name found in v',
   'v.extra. Supported parameters include: name, port, tls.']),
 ({'srv': {'type': 'dict',
           'options': {'a': {}, 'b': {}, 'c': {'choices': [1, 2]}},
           'mutually_exclusive': [['a', 'b']],
           'required_one_of': [['a', 'c']],
           'required_together': [['b', 'c']],
           'required_if': [['c', 1, ['a', 'b'], True]],
           'required_by': {'a': 'b'}}},
  {'srv': {'a': 1, 'b': 2}},
  ['parameters are mutually exclusive: a|b found in srv', 'parameters are required together: b, c found in srv']),
 ({'srv': {'type': 'dict',
           'options': {'a': {}, 'b': {}, 'c': {'choices': [1, 2]}},
           'required_if': [['c', 1, ['a', 'b']]]}},
  {'srv': {'c': 1}},
  ['value of c must be one of: 1, 2, got: 1 found in srv']),
 ({'srv': {'type': 'dict', 'apply_defaults': True, 'options': {'a': {'required': True}, 'b': {'default': 3}}}},
  {},
  ['missing required arguments: a found in srv']),
 ({'srv': {'type': 'dict', 'options': {'inner': {'type': 'dict', 'options': {'x': {'type': 'int'}}}}}},
  {'srv': {'inner': {'x': 'no', 'y': 1}}},
  ['argument \'x\' is of type str found in \'srv -> inner\'. and we were unable to convert to int: "\'no\'" cannot '
   'be converted to an int',
   'srv.inner.y. Supported parameters include: x.']),
 ({'srv': {'type': 'dict',
           'options': {'inner': {'type': 'list',
                                 'elements': 'dict',
                                 'options': {'x': {'type': 'int', 'required': True}}}}}},
  {'srv': {'inner': [{}, {'x': 1}]}},
  ['missing required arguments: x found in srv -> inner']),
 ({'choice': {'type': 'int', 'choices': [1, 2]}}, {'choice': '3'}, ['value of choice must be one of: 1, 2, got: 3']),
 ({'s': {'type': 'str'}}, {'s': 12}, []),
 ({'s': {'type': 'raw'}}, {'s': None}, []),
 ({'v': {'type': 'list', 'elements': 'dict', 'options': {'a': {'type': 'dict', 'options': {'b': {}}}}}},
  {'v': [{'a': 5}, {'a': 'b=1'}, {'a': 'nope'}]},
  "crash: argument of type 'int' is not iterable"),
 ({'v': {'type': 'dict', 'options': {'a': {}}}}, {'v': 'a=1'}, []),
 ({'v': {'type': 'dict', 'options': {'a': {}}}}, {'v': 7}, "crash: argument of type 'int' is not iterable"),
 ({'v': {'type': 'dict', 'options': {'a': {'type': 'int'}}}},
  {'v': [{'a': 'x'}]},
  ["argument 'v' is of type list and we were unable to convert to dict: <class 'list'> cannot be converted to a dict",
   'argument \'a\' is of type str found in \'v\'. and we were unable to convert to int: "\'x\'" cannot be converted '
   'to an int']),
 ({'v': {'type': 'list', 'elements': 'dict', 'options': {'a': {'type': 'int'}}}},
  {'v': {'a': 'x'}},
  ["argument 'v' is of type dict and we were unable to convert to list: <class 'dict'> cannot be converted to a list",
   'argument \'a\' is of type str found in \'v\'. and we were unable to convert to int: "\'x\'" cannot be converted '
   'to an int']),
 ({'v': {'type': 'list', 'elements': 'dict', 'options': {'a': {'type': 'int'}}}}, {'v': 'a=1,a=2'}, []),
 ({'v': {'type': 'dict', 'options': {'a': {'choices': 'abc'}}}},
  {'v': {'a': 'a'}},
  ['internal error: choices for argument a are not iterable: abc found in v']),
 ({'v': {'type': 'dict', 'options': {'a': {'choices': {'x': 1}}}}},
  {'v': {'a': 'a'}},
  ["internal error: choices for argument a are not iterable: {'x': 1} found in v"])]


def _messages(spec: dict[str, Any], params: dict[str, Any]) -> Any:
    try:
        return validate(copy.deepcopy(spec), copy.deepcopy(params))
    except ValidatorCrash as exc:
        return f"crash: {exc}"


@pytest.mark.parametrize(("spec", "params", "expected"), CASES)
def test_the_validator_words_and_orders_errors_as_ansible(spec: dict[str, Any], params: dict[str, Any],
                                                          expected: Any) -> None:
    assert _messages(spec, params) == expected


def _random_spec(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    names = ["a", "b", "c", "name", "port"]
    spec: dict[str, Any] = {}
    for name in rng.sample(names, rng.randint(1, 3)):
        option: dict[str, Any] = {}
        kind = rng.choice(["str", "int", "bool", "float", "list", "dict", "path", "raw", None])
        if kind:
            option["type"] = kind
        if rng.random() < 0.3:
            option["required"] = True
        elif rng.random() < 0.3:
            option["default"] = rng.choice(VALUES[1:])
        if rng.random() < 0.2:
            option["choices"] = rng.sample(["x", "1", 1, "yes", True, "a", "b"], 2)
        if kind == "list" and rng.random() < 0.5:
            option["elements"] = rng.choice(["str", "int", "bool", "dict"])
        if depth < 2 and (kind == "dict" or option.get("elements") == "dict") and rng.random() < 0.7:
            option["options"] = _random_spec(rng, depth + 1)
            for key in ("mutually_exclusive", "required_one_of", "required_together"):
                if rng.random() < 0.3:
                    option[key] = [rng.sample(names, 2)]
            if rng.random() < 0.3:
                option["required_if"] = [[rng.choice(names), rng.choice(["x", 1]), rng.sample(names, 2),
                                          *([True] if rng.random() < 0.5 else [])]]
            if rng.random() < 0.3:
                option["required_by"] = {rng.choice(names): rng.choice(names)}
            if rng.random() < 0.3:
                option["apply_defaults"] = True
        spec[name] = option
    return spec


VALUES: list[Any] = [None, "", "x", "1", "yes", "3.5", "a,b", "a=1 b=2", '{"k": 1}', 0, 1, 3.0, 3.5, True, False,
                     [], ["a"], [1, "b"], {}, {"a": 1}, {"name": "n"}, [{"name": "x", "port": "80"}]]


def _random_params(rng: random.Random, spec: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, option in spec.items():
        if rng.random() < 0.7:
            if "options" in option and rng.random() < 0.7:
                sub = _random_params(rng, option["options"])
                params[name] = [sub, _random_params(rng, option["options"])] if option.get("type") == "list" else sub
            else:
                params[name] = rng.choice(VALUES)
    if rng.random() < 0.2:
        params[rng.choice(["zz", "name", "q"])] = 1
    return params


@pytest.mark.ansible
def test_random_specs_and_values_fail_alike_in_ansible_s_validator() -> None:
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    rng = random.Random(14)
    for _ in range(400):
        spec = _random_spec(rng)
        params = _random_params(rng, spec)
        if spec_declines(spec):
            continue
        try:
            expected: Any = ArgumentSpecValidator(copy.deepcopy(spec)).validate(copy.deepcopy(params)).error_messages
        except TypeError as exc:
            expected = f"crash: {exc}"
        assert _messages(spec, params) == expected, (spec, params)


@pytest.mark.ansible
def test_the_recorded_cases_are_ansible_s() -> None:
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    for spec, params, expected in CASES:
        try:
            assert ArgumentSpecValidator(copy.deepcopy(spec)).validate(copy.deepcopy(params)).error_messages == expected
        except TypeError as exc:
            assert expected == f"crash: {exc}"


def test_what_the_port_cannot_check_is_declined_before_the_run(tmp_path: Path) -> None:
    spec = ("argument_specs:\n  main:\n    options:\n      a: {type: str, aliases: [b]}\n"
            "      c: {type: bytes}\n      d: {type: dict, options: {e: {fallback: [env_fallback, [E]]}}}\n"
            "      f: {required: true, default: 1}\n      g: {type: str, elements: str}\n")
    write(tmp_path, {"site.yml": "- hosts: all\n  gather_facts: false\n  roles: [r]\n",
                     "roles/r/meta/argument_specs.yml": spec, "roles/r/tasks/main.yml": "- debug: {msg: x}\n",
                     "other.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n"
                                  "    - validate_argument_spec:\n        argument_spec: \"{{ specs }}\"\n"})
    for playbook, declined in (("site.yml", ["aliases (a)", "type bytes (c)", "fallback (d -> e)", "elements without "
                                              "type list (g)", "both required and with a default (f)"]),
                               ("other.yml", ["an argument_spec a template makes"])):
        plan = make_run_plan(RunOptions(playbook=str(tmp_path / playbook), inventory=["localhost,"]),
                             has_module=lambda action: True)
        problems = " ".join(str(problem) for problem in unknown_module_problems(plan))
        assert all(what in problems for what in declined), problems


def test_a_spec_the_port_checks_is_not_declined() -> None:
    assert spec_declines({"a": {"type": "list", "elements": "dict", "description": "x", "version_added": "1.0",
                                "options": {"b": {"type": "int", "default": 1, "no_log": True}},
                                "mutually_exclusive": [["b", "c"]], "required_if": [["b", 1, ["c"]]]}}) == []
