"""community.general.ini_file: an option (one or several values) set in or removed from a
section of an INI file, or a whole section removed. A port of the collection's module (ansible-core
has no builtin ini_file), line matching and messages included."""

from __future__ import annotations

import os
import re
from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, validate
from engine.run.modules._files import backup, check_ownership, path_facts, set_mode, write_atomically

SPEC = {
    "path": Arg(type="path", required=True, aliases=("dest",)),
    "section": Arg(),
    "section_has_values": Arg(type="raw"),
    "option": Arg(),
    "value": Arg(),
    "values": Arg(type="list"),
    "backup": Arg(type="bool", default=False),
    "state": Arg(default="present", choices=("absent", "present")),
    "exclusive": Arg(type="bool", default=True),
    "no_extra_spaces": Arg(type="bool", default=False),
    "ignore_spaces": Arg(type="bool", default=False),
    "allow_no_value": Arg(type="bool", default=False),
    "modify_inactive_option": Arg(type="bool", default=True),
    "create": Arg(type="bool", default=True),
    "follow": Arg(type="bool", default=False),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}
_FAKE_SECTION = "ad01e11446efb704fcdbdb21f2c43757423d91c5"  # the module's name for the lines before any section
_BLANK_OR_COMMENT = re.compile(r"^[ \t]*([#;].*)?$")


def _match_opt(option: str, line: str) -> re.Match[str] | None:
    return re.match(rf"( |\t)*([#;]?)( |\t)*({re.escape(option)})( |\t)*(=|$)( |\t)*(.*)", line)


def _match_active_opt(option: str, line: str) -> re.Match[str] | None:
    return re.match(rf"()()( |\t)*({re.escape(option)})( |\t)*(=|$)( |\t)*(.*)", line)


def _conditions(raw: Any) -> list[dict[str, Any]] | None:
    """section_has_values checked as the module's suboptions are."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(entry, dict) for entry in raw):
        raise ModuleError("Elements value for option 'section_has_values' is of type "
                          f"{type(raw).__name__} and we were unable to convert to dict")
    conditions = []
    for entry in raw:
        unknown = sorted(set(entry) - {"option", "value", "values"})
        if unknown:
            raise ModuleError(f"Unsupported parameters for (community.general.ini_file) module: "
                              f"section_has_values.{', '.join(unknown)}. Supported parameters include: option, "
                              "value, values.")
        if entry.get("option") is None:
            raise ModuleError("missing required arguments: option found in section_has_values")
        if entry.get("value") is not None and entry.get("values") is not None:
            raise ModuleError("parameters are mutually exclusive: value|values found in section_has_values")
        values = [str(entry["value"])] if entry.get("value") is not None \
            else [str(v) for v in entry.get("values") or []]
        conditions.append({"option": str(entry["option"]), "values": values})
    return conditions


def _has_values(conditions: list[dict[str, Any]] | None, lines: list[str]) -> bool:
    for condition in conditions or ():
        for line in lines:
            match = _match_opt(condition["option"], line)
            if match and (not condition["values"] or match.group(8) in condition["values"]):
                break
        else:
            return False
    return True


class _Section:
    """The lines of the section being edited and which of them the module already set."""

    def __init__(self, lines: list[str], option: str | None, params: dict[str, Any]) -> None:
        self.lines, self.touched = lines, [0] * len(lines)
        self.option, self.params = option, params
        self.changed, self.msg = False, "OK"

    def update(self, index: int, newline: str) -> None:
        option_changed = None
        if self.params["ignore_spaces"]:
            old = _match_opt(self.option, self.lines[index])
            if old and not old.group(2):
                new = _match_opt(self.option, newline)
                option_changed = old.group(8) != (new.group(8) if new else None)
        if option_changed is None:
            option_changed = self.lines[index] != newline
        if option_changed:
            self.lines[index] = newline
            self.changed, self.msg = True, "option changed"
        self.touched[index] = 1


def _edit(ini_lines: list[str], params: dict[str, Any], values: list[str],
          conditions: list[dict[str, Any]] | None) -> tuple[list[str], bool, str]:
    section, option, state = params["section"], params["option"], params["state"]
    exclusive, allow_no_value = params["exclusive"], params["allow_no_value"]
    changed = False
    if not ini_lines:
        ini_lines.append("\n")
    if ini_lines[-1] == "" or ini_lines[-1][-1] != "\n":
        ini_lines[-1] += "\n"
        changed = True
    ini_lines.insert(0, f"[{_FAKE_SECTION}]")
    ini_lines.append("[")
    section = section or _FAKE_SECTION
    within = not section
    start = end = 0
    assignment = "%s=%s\n" if params["no_extra_spaces"] else "%s = %s\n"
    no_value_present = False
    pattern = re.compile(rf"^\[\s*{re.escape(section.strip())}\s*]")
    for index, line in enumerate(ini_lines):
        if within and line.startswith("["):
            if _has_values(conditions, ini_lines[start:index]):
                end = index
                break
            within, start, end = False, 0, 0
        if pattern.match(line):
            within, start = True, index
    before, after = ini_lines[:start], ini_lines[end:]
    edit = _Section(ini_lines[start:end], option, params)
    edit.changed = changed
    match = _match_opt if params["modify_inactive_option"] else _match_active_opt
    if state == "present" and option:
        for index, line in enumerate(edit.lines):
            found = match(option, line)
            if not found:
                continue
            if values and found.group(8) in values:
                matched = found.group(8)
                if not matched and allow_no_value:
                    edit.update(index, f"{option}\n")
                    no_value_present = True
                else:
                    edit.update(index, assignment % (option, matched))
                values.remove(matched)
            elif not values and allow_no_value:
                edit.update(index, f"{option}\n")
                no_value_present = True
                break
    if state == "present" and exclusive and not allow_no_value:
        if values:
            for index, line in enumerate(edit.lines):
                if not edit.touched[index] and match(option, line):
                    edit.update(index, assignment % (option, values.pop(0)))
                    if not values:
                        break
        for index in range(len(edit.lines) - 1, 0, -1):
            if not edit.touched[index] and match(option, edit.lines[index]):
                del edit.lines[index]
                del edit.touched[index]
                edit.changed, edit.msg = True, "option changed"
    lines = edit.lines
    if state == "present":
        for index in range(len(lines), 0, -1):
            if not _BLANK_OR_COMMENT.match(lines[index - 1]):
                if option and values:
                    for element in values[::-1]:
                        lines.insert(index, assignment % (option, element))
                        edit.changed, edit.msg = True, "option added"
                elif option and not values and allow_no_value and not no_value_present:
                    lines.insert(index, f"{option}\n")
                    edit.changed, edit.msg = True, "option added"
                break
    if state == "absent":
        if option:
            if exclusive:
                kept = [line for line in lines if not _match_active_opt(option, line)]
            elif values:
                kept = [line for line in lines
                        if not ((m := _match_active_opt(option, line)) and m.group(8) in values)]
            else:
                kept = lines
            if kept != lines:
                lines, edit.changed, edit.msg = kept, True, "option changed"
        elif lines:
            lines, edit.changed, edit.msg = [], True, "section removed"
    result = (before + lines + after)[1:-1]
    changed, msg = edit.changed, edit.msg
    if not within and state == "present":
        result.append(f"[{section}]\n")
        msg = "section and option added"
        for condition in conditions or ():
            if condition["option"] != option:
                if condition["values"]:
                    result += [assignment % (condition["option"], value) for value in condition["values"]]
                elif allow_no_value:
                    result.append(f"{condition['option']}\n")
            elif not exclusive:
                values += [value for value in condition["values"] if value not in values]
        if option and values:
            result += [assignment % (option, value) for value in values]
        elif option and not values and allow_no_value:
            result.append(f"{option}\n")
        else:
            msg = "only section added"
        changed = True
    return result, changed, msg


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    params = validate("community.general.ini_file", args, SPEC, mutually_exclusive=(("value", "values"),))
    conditions = _conditions(params["section_has_values"])
    path = params["path"]
    if params["state"] == "present" and not params["allow_no_value"] and params["value"] is None \
            and not params["values"]:
        return {"changed": False, "failed": True,
                "msg": "Parameter 'value(s)' must be defined if state=present and allow_no_value=False."}
    raw_values = [params["value"]] if params["value"] is not None else params["values"] or []
    values: list[str] = []
    for value in raw_values:
        if value not in values:
            values.append(value)
    check_ownership(path, params["owner"], params["group"])
    target = os.path.realpath(path) if params["follow"] and os.path.islink(path) else path
    diff = {"before": "", "after": "", "before_header": f"{target} (content)", "after_header": f"{target} (content)"}
    if not os.path.exists(target):
        if not params["create"]:
            return {"changed": False, "failed": True, "rc": 257, "msg": f"Destination {target} does not exist!"}
        directory = os.path.dirname(target)
        if not os.path.exists(directory) and not ctx.check_mode:
            os.makedirs(directory)
        lines: list[str] = []
    else:
        with open(target, encoding="utf-8-sig") as handle:
            lines = handle.readlines()
    if ctx.diff:
        diff["before"] = "".join(lines)
    lines, changed, msg = _edit(lines, params, values, conditions)
    if ctx.diff:
        diff["after"] = "".join(lines)
    result: dict[str, Any] = {"changed": changed, "diff": diff, "msg": msg, "path": path}
    if changed and not ctx.check_mode:
        if params["backup"] and os.path.exists(target):
            result["backup_file"] = backup(target)
        write_atomically(os.path.abspath(target), "".join(lines).encode())
    if not ctx.check_mode and os.path.exists(path):
        result["changed"] = set_mode(path, params["mode"], False, None) or changed
    return path_facts(result)
