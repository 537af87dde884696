"""Run by the reference ansible's Python (bench/claims.py starts it): does the module refuse the
task's arguments the way a module-argument finding (PLS124, PLS125, PLS126) says?

Reads a JSON request on stdin: ``{"targets": [{"file", "line", "module", "code", "name"}]}``
(``name``: the argument or option the finding is about). For each, the task written around
``line`` in ``file`` is read with PyYAML and its module arguments split by ansible's own
``ModuleArgsParser``; the module is found by ansible's ``module_loader`` and, when it is Python,
imported as ``__main__`` with ``AnsibleModule.__init__`` replaced by one that takes the argument
spec the module builds and validates the task's arguments with ansible's
``ModuleArgumentSpecValidator`` (every error, not only the first ``fail_json`` would show), then
stops: nothing of the module's own work runs. Prints ``{target index: [asked, confirmed, answer]}``.
A PowerShell module's spec cannot be taken this way: not asked.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

import yaml
from ansible.module_utils import basic
from ansible.module_utils.common.arg_spec import ModuleArgumentSpecValidator
from ansible.parsing.mod_args import ModuleArgsParser
from ansible.plugins.loader import action_loader, init_plugin_loader, module_loader

# the validation error each claim stands for (ansible.module_utils.errors)
ERRORS = {"PLS124": "UnsupportedError", "PLS125": "RequiredError", "PLS126": "ArgumentValueError"}
SPEC_KEYS = ("mutually_exclusive", "required_together", "required_one_of", "required_if", "required_by")


class SpecTaken(Exception):
    def __init__(self, spec: dict, extra: dict) -> None:
        super().__init__("spec taken")
        self.spec, self.extra = spec, extra


def task_at(path: str, line: int) -> dict | None:
    """The innermost task mapping of ``path`` that spans ``line`` (1-based)."""
    with open(path, encoding="utf-8") as handle:
        loader = yaml.SafeLoader(handle.read())
    try:
        root = loader.get_single_node()
        best = None
        pending = [root]
        while pending:
            node = pending.pop()
            if isinstance(node, yaml.SequenceNode):
                for item in node.value:
                    if isinstance(item, yaml.MappingNode) and \
                            item.start_mark.line + 1 <= line <= item.end_mark.line + 1:
                        if best is None or item.start_mark.line >= best.start_mark.line:
                            best = item
                pending += node.value
            elif isinstance(node, yaml.MappingNode):
                pending += [value for _key, value in node.value]
        return loader.construct_object(best, deep=True) if best is not None else None
    finally:
        loader.dispose()


def take_spec(module_path: str) -> tuple[dict, dict] | None:
    original = basic.AnsibleModule.__init__

    def init(self, argument_spec=None, *args, **kwargs):  # noqa: ANN001
        raise SpecTaken(argument_spec or {}, {k: kwargs.get(k) for k in SPEC_KEYS})

    basic.AnsibleModule.__init__ = init
    basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": {}}).encode()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            # not runpy.run_path: ansible's collection loader hooks every path, and runpy would take
            # the file for a directory to import __main__ from
            with open(module_path, encoding="utf-8") as handle:
                code = compile(handle.read(), module_path, "exec")
            exec(code, {"__name__": "__main__", "__file__": module_path})  # noqa: S102
    except SpecTaken as taken:
        return taken.spec, taken.extra
    except BaseException:  # noqa: BLE001 - a module that stops before building its spec is not asked
        return None
    finally:
        basic.AnsibleModule.__init__ = original
    return None


def take_action_spec(action: type) -> tuple[dict, dict] | None:
    """The spec an action plugin validates its arguments with (``validate_argument_spec``), taken
    as its ``run`` calls it first; None when it does anything else before."""
    from ansible.plugins.action import ActionBase

    original = ActionBase.validate_argument_spec

    def validate(self, argument_spec=None, **kwargs):  # noqa: ANN001
        raise SpecTaken(argument_spec or {}, {k: kwargs.get(k) for k in SPEC_KEYS})

    ActionBase.validate_argument_spec = validate
    try:
        instance = object.__new__(action)
        instance._task = type("Task", (), {"args": {}, "async_val": 0, "check_mode": False})()
        instance.run(None, {})
    except SpecTaken as taken:
        return taken.spec, taken.extra
    except BaseException:  # noqa: BLE001
        return None
    finally:
        ActionBase.validate_argument_spec = original
    return None


def answer(target: dict) -> list:
    task = task_at(target["file"], target["line"])
    if not isinstance(task, dict):
        return [False, False, "no task at the line"]
    try:
        module, args, _delegate = ModuleArgsParser(task_ds=task, collection_list=["ansible.builtin"]).parse()
    except Exception as exc:  # noqa: BLE001
        return [False, False, f"ansible cannot split the task: {exc}"]
    found = module_loader.find_plugin_with_context(target["module"])
    if not found.resolved or not found.plugin_resolved_path:
        return [False, False, f"module {target['module']} not found"]
    path = found.plugin_resolved_path
    action = action_loader.get(found.resolved_fqcn, class_only=True)
    valid = getattr(action, "_VALID_ARGS", None) if action is not None else None
    if valid and target["code"] == "PLS124":  # an action plugin that names the arguments it takes
        return [True, target["name"] not in valid, f"the action plugin takes: {', '.join(sorted(valid))}"]
    if action is not None and not valid:
        taken = take_action_spec(action)
    elif not path.endswith(".py"):
        return [False, False, "a PowerShell module: its spec is not taken here"]
    else:
        taken = take_spec(path)
    if taken is None:
        return [False, False, "the module did not build its argument spec"]
    spec, extra = taken
    validator = ModuleArgumentSpecValidator(spec, **{k: v for k, v in extra.items() if v})
    result = validator.validate({k: v for k, v in args.items() if not str(k).startswith("_ansible_")})
    messages = result.error_messages
    wanted = ERRORS[target["code"]]
    confirmed = any(type(error).__name__ == wanted and target["name"] in error.msg for error in result.errors)
    return [True, confirmed, "; ".join(messages) or f"{module}: accepted"]


def main() -> int:
    request = json.load(sys.stdin)
    init_plugin_loader([])
    sys.path.insert(0, os.getcwd())
    answers = {}
    for index, target in enumerate(request["targets"]):
        try:
            answers[index] = answer(target)
        except Exception as exc:  # noqa: BLE001 - one odd task must not lose the others' answers
            answers[index] = [False, False, f"probe error: {type(exc).__name__}: {exc}"]
    print(json.dumps(answers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
