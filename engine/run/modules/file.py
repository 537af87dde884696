"""file: make a path a file, directory, symlink, hard link, touched file or absent, and give
it a mode. Results and the ``{"before": {...}, "after": {...}}`` diff follow ansible's module."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

from engine.run.modules import ModuleContext, ModuleError, module_exception
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, module_args, validate
from engine.run.modules._files import check_ownership, path_facts, set_mode

STATES = ("absent", "directory", "file", "hard", "link", "touch")
SPEC = {  # ansible's argument spec, in its order (the invocation's keys follow it)
    "state": Arg(choices=STATES),
    "path": Arg(type="path", required=True, aliases=("dest", "name")),
    "_original_basename": Arg(),
    "recurse": Arg(type="bool", default=False),
    "force": Arg(type="bool", default=False),
    "follow": Arg(type="bool", default=True),
    "_diff_peek": Arg(),
    "src": Arg(type="path"),
    "modification_time": Arg(),
    "modification_time_format": Arg(default="%Y%m%d%H%M.%S"),
    "access_time": Arg(),
    "access_time_format": Arg(default="%Y%m%d%H%M.%S"),
    **FILE_COMMON_ARGS,
}


def current_state(path: str) -> str:
    if not os.path.lexists(path):
        return "absent"
    if os.path.islink(path):
        return "link"
    if os.path.isdir(path):
        return "directory"
    return "hard" if os.stat(path).st_nlink > 1 else "file"


NOW = object()  # ansible's Sentinel: the time of the update


def _timestamp(value: str | None, time_format: str) -> float | object | None:
    """``get_timestamp_for_time``: None to preserve, NOW, or the local time ``value`` means."""
    if value == "preserve":
        return None
    if value == "now":
        return NOW
    try:
        return time.mktime(time.strptime(str(value), time_format))
    except (ValueError, OverflowError) as exc:
        raise _Fail(f"Error while obtaining timestamp for time {value} using format {time_format}: {exc}") from None


class _Fail(Exception):
    """``module.fail_json`` from the time handling; ``path`` goes with the message."""

    def __init__(self, msg: str, path: str | None = None) -> None:
        super().__init__(msg)
        self.msg, self.path = msg, path


def _times(params: dict[str, Any], state: str) -> tuple[float | object | None, float | object | None]:
    """(mtime, atime) wanted: ``keep_backward_compatibility_on_timestamps`` (unset is preserve,
    or now when touching), then parsed with their formats."""
    def value(name: str) -> Any:
        given = params[name]
        if given is None:
            return "now" if state == "touch" else "preserve"
        return given

    return (_timestamp(value("modification_time"), params["modification_time_format"]),
            _timestamp(value("access_time"), params["access_time_format"]))


def _update_times(path: str, mtime: Any, atime: Any, check_mode: bool, diff: dict[str, Any] | None) -> bool:
    """``update_timestamp_for_file``: whether the times change (they do not in check mode)."""
    try:
        if mtime is NOW and atime is NOW:
            previous_mtime, previous_atime = os.stat(path).st_mtime, os.stat(path).st_atime
            mtime = atime = time.time()
            wanted: tuple[float, float] | None = None
        else:
            if mtime is None and atime is None:
                return False
            previous_mtime, previous_atime = os.stat(path).st_mtime, os.stat(path).st_atime
            mtime = previous_mtime if mtime is None else time.time() if mtime is NOW else mtime
            atime = previous_atime if atime is None else time.time() if atime is NOW else atime
            if mtime == previous_mtime and atime == previous_atime:
                return False
            wanted = (atime, mtime)
        if not check_mode:
            os.utime(path, wanted)
    except OSError as exc:
        shown = f"[Errno {exc.errno}] {exc.strerror}: {os.fsencode(path)!r}" if exc.errno else str(exc)
        raise _Fail(f"Error while updating modification or access time: {shown}", path) from None
    if diff is not None:
        if mtime != previous_mtime:
            diff.setdefault("before", {})["mtime"] = previous_mtime
            diff.setdefault("after", {})["mtime"] = mtime
        if atime != previous_atime:
            diff.setdefault("before", {})["atime"] = previous_atime
            diff.setdefault("after", {})["atime"] = atime
    return True


def _initial_diff(path: str, state: str, previous: str) -> dict[str, Any]:
    diff: dict[str, Any] = {"before": {"path": path}, "after": {"path": path}}
    if previous != state:
        diff["before"]["state"], diff["after"]["state"] = previous, state
        if state == "absent" and previous == "directory":
            walked = [(root, dirs, files) for root, dirs, files in os.walk(path)]
            diff["before"]["path_content"] = {
                "directories": [os.path.join(root, d) for root, dirs, _ in walked for d in dirs],
                "files": [os.path.join(root, f) for root, _, files in walked for f in files],
            }
    return diff


def _finish(result: dict[str, Any], diff: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if ctx.diff:
        result["diff"] = diff
    return path_facts(result)


def _ensure_absent(path: str, previous: str, diff: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    if previous == "absent":
        return {"path": path, "changed": False, "state": "absent"}
    if not ctx.check_mode:
        if previous == "directory":
            shutil.rmtree(path)
        else:
            os.unlink(path)
    result: dict[str, Any] = {"path": path, "changed": True}
    if ctx.diff:
        result["diff"] = diff
    result["state"] = "absent"
    return path_facts(result)  # in check mode the path is still there, and ansible says so


def _ensure_file(
    path: str, previous: str, params: dict[str, Any], diff: dict[str, Any], ctx: ModuleContext
) -> dict[str, Any]:
    if previous == "absent":
        return {
            "changed": False,
            "failed": True,
            "msg": f"file ({path}) is absent, cannot continue",
            "path": path,
            "state": "absent",
        }
    if previous not in ("file", "hard"):
        return path_facts(
            {"changed": False, "failed": True, "path": path, "msg": f"file ({path}) is {previous}, cannot continue"}
        )
    changed = set_mode(path, params["mode"], ctx.check_mode, diff)
    changed = _update_times(path, *params["_times"], ctx.check_mode, diff) or changed
    return _finish({"path": path, "changed": changed}, diff, ctx)


def _ensure_directory(
    path: str, previous: str, params: dict[str, Any], diff: dict[str, Any], ctx: ModuleContext
) -> dict[str, Any]:
    if previous == "absent":
        if ctx.check_mode:
            return {"path": path, "changed": True, "diff": diff} if ctx.diff else {"path": path, "changed": True}
        # mkdir -p as ansible walks it: one component after the other from the root (or the
        # relative base), so a trailing or doubled slash names no directory of its own
        current = ""
        try:
            for name in path.strip("/").split("/"):
                current = "/".join([current, name])
                if not os.path.isabs(path):
                    current = current.lstrip("/")
                if not os.path.exists(current):
                    try:
                        os.mkdir(os.fsencode(current))  # as bytes, as ansible's: its error names the path so
                    except FileExistsError:
                        if not os.path.isdir(current):
                            raise
                    set_mode(current, params["mode"], False, diff)  # every directory it creates gets the mode
                    _update_times(path, *params["_times"], False, diff)  # the whole path's, as ansible does
        except Exception as exc:  # noqa: BLE001 - ansible fails the task with any error met here
            return path_facts({"changed": False, "failed": True, "path": path,
                               "msg": f"There was an issue creating {current} as requested: {exc}"})
        return _finish({"path": path, "changed": True}, diff, ctx)
    if previous != "directory":
        return path_facts(
            {"changed": False, "failed": True, "path": path, "msg": f"{path} already exists as a {previous}"}
        )
    changed = set_mode(path, params["mode"], ctx.check_mode, diff)
    changed = _update_times(path, *params["_times"], ctx.check_mode, diff) or changed
    if params["recurse"]:
        changed = _set_attributes_below(path, params, ctx.check_mode) or changed
    return _finish({"path": path, "changed": changed}, diff, ctx)


def _set_attributes_below(top: str, params: dict[str, Any], check_mode: bool) -> bool:
    """ansible's ``recursive_set_attributes``: the mode and times of everything under ``top``
    (a link itself, and with ``follow`` what it leads to, a directory's content too), no diff."""
    changed = False
    try:
        for root, dirs, files in os.walk(top):
            for name in dirs + files:
                entry = os.path.join(root, name)
                changed = set_mode(entry, params["mode"], check_mode, None) or changed
                changed = _update_times(entry, *params["_times"], check_mode, None) or changed
                if os.path.islink(entry) and params["follow"]:
                    target = os.path.join(root, os.readlink(entry))
                    if os.path.exists(target):
                        if os.path.isdir(target):
                            changed = _set_attributes_below(target, params, check_mode) or changed
                        changed = set_mode(target, params["mode"], check_mode, None) or changed
                        changed = _update_times(target, *params["_times"], check_mode, None) or changed
    except RecursionError as exc:
        raise _Fail(f"Could not recursively set attributes on {top}. Original error was: '{exc}'") from None
    return changed


def _ensure_touched(
    path: str, previous: str, params: dict[str, Any], diff: dict[str, Any], ctx: ModuleContext
) -> dict[str, Any]:
    changed = False
    if previous == "absent":
        if ctx.check_mode:
            return {"dest": path, "changed": True}
        try:
            open(path, "ab").close()
        except OSError as exc:
            return {"changed": False, "failed": True, "msg": "Error, could not touch target.", "path": path,
                    **module_exception("Error, could not touch target.", exc, as_bytes=True)}
        changed = True
    # load_file_common_arguments: with follow, a link's attributes are those of what it leads to
    target = os.path.realpath(path) if params["follow"] and os.path.islink(path) else path
    try:
        changed = set_mode(target, params["mode"], ctx.check_mode, diff) or changed
        changed = _update_times(target, *params["_times"], ctx.check_mode, diff) or changed
    except (_Fail, ModuleError):  # fail_json: a bad mode too
        if previous == "absent":  # a file it just made goes again
            os.remove(path)
        raise
    return _finish({"dest": path, "changed": changed}, diff, ctx)


def _missing_link_source(path: str, src: str, state: str, force: bool) -> dict[str, Any] | None:
    """ansible's refusal to link to a source that does not exist: a symlink's source is looked up
    from the link's directory and may be forced, a hard link's must exist."""
    if state == "hard":
        if os.path.exists(src):
            return None
        return path_facts({"changed": False, "failed": True, "msg": "src does not exist", "dest": path, "src": src})
    link_directory = path if os.path.isdir(path) and not os.path.islink(path) else os.path.dirname(path)
    absolute_src = os.path.join(link_directory, src)
    if force or os.path.exists(absolute_src):
        return None
    # fail_json adds the path's facts as exit_json does, when it exists (a link to be replaced)
    return path_facts({"changed": False, "failed": True, "path": path, "src": src,
                       "msg": f"src file does not exist, use 'force=yes' if you really want to create the link: "
                              f"{absolute_src}"})


_HARD_LINK_REFUSALS = {"file": "Cannot link, file exists at destination",
                       "hard": "Cannot link, different hard link exists at destination",
                       "directory": "Cannot link: different hard link exists at destination"}


def _ensure_link(
    path: str, previous: str, params: dict[str, Any], state: str, diff: dict[str, Any], ctx: ModuleContext
) -> dict[str, Any]:
    src = params["src"]
    if src is None and state == "link" and params["follow"] and os.path.exists(path):
        src = os.readlink(path)  # ensure_symlink: an existing link's own target is the source
    if src is None and state == "link" and previous == "link":  # re-asserted as it is: its attributes only
        result = _link_attributes({"dest": path, "src": None, "changed": False}, path, params, diff, ctx)
        return _finish(result, diff, ctx) if result["changed"] else path_facts(result)
    if src is None and state == "hard" and previous == "hard":  # ensure_hardlink: an existing hard link
        # (a file of several links, whatever state it was asked for) keeps its target; its attributes change
        changed = set_mode(path, params["mode"], ctx.check_mode, diff)
        changed = _update_times(path, *params["_times"], ctx.check_mode, diff) or changed
        return _finish({"changed": changed, "dest": path, "src": None}, diff, ctx)
    if src is None:
        raise ModuleError(f"src is required for creating new {'symlinks' if state == 'link' else 'hardlinks'}")
    if failure := _missing_link_source(path, src, state, params["force"]):
        return failure
    if state == "link":
        unchanged = previous == "link" and os.readlink(path) == src
    else:  # a hard link's src is a path as given (from the working directory), not from path's directory
        # (ensure_hardlink: a symlink already naming src is left as it is)
        unchanged = previous == "link" and os.readlink(path) == src or \
            previous in ("hard", "file") and os.path.samefile(path, src)
    if not unchanged and state == "hard" and previous in _HARD_LINK_REFUSALS and not params["force"]:
        # ensure_hardlink: a file, another hard link or a directory at the path, without force
        return path_facts({"changed": False, "failed": True, "msg": _HARD_LINK_REFUSALS[previous], "dest": path,
                           "src": src})
    if not unchanged and previous not in ("absent", "link", "hard") and not params["force"]:
        return path_facts(
            {
                "changed": False,
                "failed": True,
                "path": path,
                "msg": f"refusing to convert from {previous} to symlink for {path}",
            }
        )
    if previous == "directory" and not unchanged:
        return path_facts(
            {
                "changed": False,
                "failed": True,
                "path": path,
                "msg": f"the directory {path} is not empty, refusing to convert it",
            }
        )
    if not unchanged and previous == "link":  # ensure_symlink / ensure_hardlink: the link's old and new source
        diff.setdefault("before", {})["src"] = os.readlink(path)
        diff.setdefault("after", {})["src"] = src
    if not unchanged and not ctx.check_mode:
        if previous != "absent":
            os.unlink(path)
        try:  # ansible's module links the byte forms: its error shows them so
            (os.symlink if state == "link" else os.link)(os.fsencode(src), os.fsencode(path))
        except OSError as e:
            if previous != "absent":
                raise
            return path_facts({"changed": False, "failed": True, "msg": f"Error while linking: {e}", "path": path})
    result: dict[str, Any] = {"dest": path, "src": src, "changed": not unchanged}
    if not unchanged and ctx.check_mode and not os.path.exists(path):  # ensure_symlink, ensure_hardlink:
        return _finish(result, diff, ctx)  # nothing there to read attributes of
        # an existing path goes on to its attributes, and the result keeps the diff
    result = _link_attributes(result, path, params, diff, ctx) if state == "link" else _hard_link_times(
        result, path, params, diff, ctx)
    return _finish(result, diff, ctx) if not unchanged else path_facts(result)


def _link_attributes(result: dict[str, Any], path: str, params: dict[str, Any], diff: dict[str, Any],
                     ctx: ModuleContext) -> dict[str, Any]:
    """ensure_symlink's last step: the mode and times go where ``load_file_common_arguments``
    points (what the link leads to with ``follow``, the link itself without), or, for a link that
    leads nowhere and is followed, a warning instead."""
    if params["follow"] and os.path.islink(path) and not os.path.exists(path):
        result["warnings"] = ["Cannot set fs attributes on a non-existent symlink target. follow should be set to "
                              "False to avoid this."]
    elif os.path.exists(path):
        target = os.path.realpath(path) if params["follow"] and os.path.islink(path) else path
        changed = set_mode(target, params["mode"], ctx.check_mode, diff)
        changed = _update_times(target, *params["_times"], ctx.check_mode, diff) or changed
        result["changed"] = result["changed"] or changed
    return result


def _hard_link_times(result: dict[str, Any], path: str, params: dict[str, Any], diff: dict[str, Any],
                     ctx: ModuleContext) -> dict[str, Any]:
    if os.path.exists(path):  # attributes and times go to what the link leads to
        result["changed"] = _update_times(path, *params["_times"], ctx.check_mode, diff) or result["changed"]
    return result


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "file") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    if params["state"] not in ("link", "absent") and os.path.isdir(params["path"]):
        # a file put into a directory: the module's path names it there (copy's _original_basename)
        basename = params["_original_basename"] or (os.path.basename(params["src"]) if params["src"] else None)
        if basename:
            params["path"] = os.path.join(params["path"], basename)
    previous = current_state(params["path"])
    # the module writes the state it takes for a missing one back into its params
    state = params["state"] or (previous if previous != "absent" else "directory" if params["recurse"] else "file")
    invocation = module_args(args, SPEC, {**params, "state": state})
    # additional_parameter_handling's checks of the state it took, before anything is done
    refused = "recurse option requires state to be 'directory'" if params["recurse"] and state != "directory" else \
        "src option requires state to be 'link' or 'hard'" if params["src"] and state not in ("link", "hard") else None
    if refused:
        return {**path_facts({"changed": False, "failed": True, "msg": refused, "path": params["path"]}),
                "invocation": invocation}
    return {**_run(params, previous, state, ctx), "invocation": invocation}


def _run(params: dict[str, Any], previous: str, state: str, ctx: ModuleContext) -> dict[str, Any]:
    path = params["path"]
    if state in ("link", "hard") and params["src"] is None and previous == state:
        state = previous  # an existing link may be re-asserted without src
    if state in ("file", "directory") and params["follow"] and previous == "link":
        # ensure_file_attributes / ensure_directory work on the link's target
        path = os.path.realpath(path)
        previous = current_state(path)
    check_ownership(path, params["owner"], params["group"])
    diff = _initial_diff(path, state, previous)
    if state == "absent":
        return _ensure_absent(path, previous, diff, ctx)
    try:
        return _ensure(path, previous, {**params, "_times": _times(params, state)}, state, diff, ctx)
    except _Fail as failure:
        return path_facts({"changed": False, "failed": True, "msg": failure.msg,
                           **({"path": failure.path} if failure.path else {})})


def _ensure(path: str, previous: str, params: dict[str, Any], state: str, diff: dict[str, Any],
            ctx: ModuleContext) -> dict[str, Any]:
    if state == "file":
        return _ensure_file(path, previous, params, diff, ctx)
    if state == "directory":
        return _ensure_directory(path, previous, params, diff, ctx)
    if state == "touch":
        return _ensure_touched(path, previous, params, diff, ctx)
    return _ensure_link(path, previous, params, state, diff, ctx)
