"""Putting bytes at a destination the way copy's (and template's) action plugin does:
compare checksums, report a content diff, write nothing in check mode, back up the old
file, apply the mode, and otherwise fall back to the file module's attribute handling."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.run.modules import ModuleContext, ModuleError, action_result, module_exception
from engine.run.modules import file as file_module
from engine.run.modules._args import (
    FILE_COMMON_ARGS,
    ActionArgs,
    Arg,
    boolean,
    module_args,
    validate,
)
from engine.run.modules._files import (
    backup,
    check_ownership,
    checksum,
    path_facts,
    remote_stat_failure,
    set_mode,
    unknown_owner,
    write_atomically,
)

MAX_FILE_SIZE_FOR_DIFF = 104448  # ansible's default MAX_FILE_SIZE_FOR_DIFF


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


NO_LOG_DIFF = " [[ Diff output has been hidden because 'no_log: true' was specified for this result ]]\n"


def content_diff(dest_file: str, data: bytes, after_header: str, no_log: bool = False) -> dict[str, Any]:
    """ansible's _get_diff_data for a file about to be replaced by ``data`` (with ``no_log``, the
    texts hidden: ``before`` empty, ``after`` a note). Bytes that are not UTF-8 (a template's
    ``output_encoding: latin-1``) are kept as surrogate escapes, as ``to_text`` keeps them: the
    display shows each run of them as one "?", after its warning."""
    diff: dict[str, Any] = {}
    if not os.path.exists(dest_file):
        diff["before"] = ""
    else:
        with open(dest_file, "rb") as handle:
            before = handle.read()
        if b"\x00" in before[:8192]:
            diff["dst_binary"] = 1
        elif len(before) > MAX_FILE_SIZE_FOR_DIFF:
            diff["dst_larger"] = MAX_FILE_SIZE_FOR_DIFF
        else:
            diff["before_header"], diff["before"] = dest_file, before.decode("utf-8", "surrogateescape")
    if len(data) > MAX_FILE_SIZE_FOR_DIFF:
        diff["src_larger"] = MAX_FILE_SIZE_FOR_DIFF
    elif b"\x00" in data:
        diff["src_binary"] = 1
    else:
        diff["after_header"], diff["after"] = after_header, data.decode("utf-8", "surrogateescape")
    if no_log:
        diff.update({key: "" if key == "before" else NO_LOG_DIFF for key in ("before", "after") if key in diff})
    return diff


def validate_argv(command: str) -> list[str]:
    """How ``run_command`` runs the modules' ``validate`` string: split as a shell would, but run
    without one, each word's ``~`` and ``$VARS`` expanded."""
    return [os.path.expandvars(os.path.expanduser(word)) for word in shlex.split(command)]


def run_validate(command: str) -> subprocess.CompletedProcess[str] | dict[str, Any]:
    """``run_command`` of a ``validate`` string: the finished process, or, when its program cannot
    be run, the module's failure (``fail_json`` with "Error executing command.")."""
    argv = validate_argv(command)
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as exc:
        return {"failed": True, "msg": "Error executing command.", "rc": exc.errno, "stdout": "", "stderr": "",
                "cmd": " ".join(shlex.quote(word) for word in argv),
                **module_exception("Error executing command.", exc, as_bytes=True)}


def validation_failure(command: str, data: bytes, dest_file: str, here: bool = True,
                       sent: str | None = None) -> dict[str, Any] | None:
    """Run ``validate`` (which names the candidate file as %s) as the module's ``run_command``
    does, split into words, no shell; a failure result, or None. The candidate is written beside
    ``dest_file``, else (``here`` false) as a temporary file, as the edit modules' is; copy's is
    the file its action sent (``sent``, in a directory of its own, removed after)."""
    if "%s" not in command:
        return {"failed": True, "msg": f"validate must contain %s: {command}"}
    if sent is not None:
        os.makedirs(os.path.dirname(sent), mode=0o700, exist_ok=True)
        handle, candidate = os.open(sent, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), sent
    else:
        handle, candidate = tempfile.mkstemp(dir=os.path.dirname(dest_file) or ".", prefix=".validate") if here \
            else tempfile.mkstemp()
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        done = run_validate(command % candidate)
        if isinstance(done, dict):
            return done
    finally:
        os.unlink(candidate)
        if sent is not None:
            os.rmdir(os.path.dirname(sent))
    if done.returncode != 0:
        return {
            "failed": True,
            "msg": "failed to validate",
            "exit_status": done.returncode,
            "stdout": done.stdout,
            "stderr": done.stderr,
        }
    return None


def write_validated(path: str, data: bytes, validate: str | None) -> dict[str, Any] | None:
    """The edit modules' ``write_changes``: run ``validate`` on the new content, then replace the
    real file behind ``path``; the failure result when validation fails, else None."""
    if validate:
        failure = validation_failure(validate, data, path, here=False)
        if failure:
            if "exit_status" not in failure:
                return {"changed": False, **failure, "stdout_lines": [], "stderr_lines": []} if "cmd" in failure \
                    else {"changed": False, "failed": True, "msg": failure["msg"]}
            return {"changed": False, "failed": True,
                    "msg": f"failed to validate: rc:{failure['exit_status']} error:{failure['stderr']}"}
    write_atomically(os.path.realpath(path), data)
    return None


REAL_FILE_ARGS = frozenset(("mode", "owner", "group", "seuser", "serole", "selevel", "setype", "attributes",
                            "unsafe_writes", "state", "path", "_original_basename", "recurse", "force",
                            "_diff_peek", "src"))
"""The copy action's arguments it hands the file module for a file already right (REAL_FILE_ARGS)."""

# the copy module's argument spec, in its order (the action's own options are not the module's)
COPY_MODULE_SPEC = {
    "src": Arg(type="path"),
    "_original_basename": Arg(),
    "content": Arg(),
    "dest": Arg(type="path", required=True),
    "backup": Arg(type="bool", default=False),
    "force": Arg(type="bool", default=True),
    "validate": Arg(),
    "directory_mode": Arg(type="raw"),
    "remote_src": Arg(type="bool", default=False),
    "local_follow": Arg(type="bool"),
    "checksum": Arg(),
    "follow": Arg(type="bool", default=False),
    **FILE_COMMON_ARGS,
}


def remote_source(dest_file: str) -> str:
    """Where the copy action puts the file it sends (the shell's temporary directory under
    remote_tmp, ``.source`` with the destination's suffix), which the copy module's ``src`` names."""
    import secrets
    import time

    from engine.config import config_value

    remote_tmp = config_value("ANSIBLE_REMOTE_TEMP", "defaults", "remote_tmp") or "~/.ansible/tmp"
    directory = f"ansible-tmp-{time.time()}-{os.getpid()}-{secrets.randbelow(2**48)}"
    return os.path.join(os.path.expanduser(remote_tmp), directory, ".source" + os.path.splitext(dest_file)[1])


def action_dest(args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` with ``dest`` as the copy action hands it to its module: a leading ``~`` expanded
    as the user's home, not ``$HOME`` (:func:`engine.run.environment.remote_expand_user`)."""
    from engine.run.environment import remote_expand_user

    dest = args.get("dest")
    return {**args, "dest": remote_expand_user(dest)} if isinstance(dest, str) else dict(args)


def ensure_invocation(result: dict[str, Any], action_args: Mapping[str, Any] | None,
                      no_log: bool = False) -> dict[str, Any]:
    """The copy action's ``_ensure_invocation``: a result no module's invocation came with gets
    the action's arguments (also under ``module_args``), ``content`` censored in both; a task's
    ``no_log`` gets the whole invocation censored."""
    if action_args is None or "invocation" in result:
        return result
    if no_log:
        result["invocation"] = "CENSORED: no_log is set"
        return result
    invocation: dict[str, Any] = dict(action_args)
    invocation["module_args"] = dict(action_args)
    if "content" in invocation:
        invocation["content"] = "CENSORED: content is a no_log parameter"
    if invocation["module_args"].get("content") is not None:
        invocation["module_args"]["content"] = "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
    result["invocation"] = invocation
    return result


def known_arguments(args: Mapping[str, Any], spec: dict[str, Arg]) -> dict[str, Any]:
    """The arguments of ``args`` an action's ``spec`` knows (by name or alias)."""
    known = {alias for name, arg in spec.items() for alias in (name, *arg.aliases)}
    return {name: value for name, value in args.items() if name in known}


def refused_arguments(args: Mapping[str, Any], action_only: Iterable[str] = ()) -> str | None:
    """The copy module's refusal of the task's arguments, or None: a name it does not know or a
    value of the wrong type (``backup: maybe``). The copy action (and the template action, its own
    options ``action_only`` left out) reads only a few of them itself, leniently, and hands the
    others on with the file it copies (``src``, ``dest`` and ``follow`` its own); the module
    checks them when it runs, for a file to write, not for one already right (the file module
    gets only its own) nor in check mode (the action answers); :func:`put` returns it then as
    the module's failure."""
    left_out = {"content", "decrypt", *action_only}
    module_params = {name: value for name, value in args.items() if name not in left_out and name != "attributes"}
    module_params.update(src="", dest=str(args.get("dest") or "."), follow=False)
    return module_refusal(module_params)


def module_refusal(module_params: Mapping[str, Any]) -> str | None:
    """The copy module's refusal of the arguments it is given, or None."""
    try:
        validate("ansible.legacy.copy", dict(module_params), COPY_MODULE_SPEC)
    except ModuleError as exc:
        return str(exc)
    return None


def put(
    data: bytes,
    dest: str,
    basename: str,
    after_header: str,
    params: dict[str, Any],
    ctx: ModuleContext,
    is_content: bool,
    header: str | None = None,
    action_args: Mapping[str, Any] | None = None,
    original_basename: str | None = None,
) -> dict[str, Any] | None:
    """Put ``data`` at ``dest`` (a directory when it ends with '/' or is one, then ``basename`` in
    it). None when the file exists and ``force`` is off, as ansible's action plugin does.
    ``action_args`` are the copy action's arguments (the task's, sorted, or those the template
    action makes): the result then has the invocation and key order of the module the action
    runs, the copy module's for a file it writes, the file module's for one already right."""
    dest_file = os.path.join(dest, basename) if dest.endswith("/") else dest
    if failure := remote_stat_failure(dest_file):
        return failure
    if os.path.isdir(dest_file):
        if is_content:  # the action's own failure, after its remote stat
            return action_result({"failed": True, "msg": "can not use content with a dir as dest"})
        dest_file = os.path.join(dest_file, basename)
        if failure := remote_stat_failure(dest_file):
            return failure
    # the action stats the destination following links only with ``follow``: a link it does not
    # follow has no checksum, so the copy module always runs and replaces the link by a file; one
    # it follows is compared, and written, where it leads (the module's realpath)
    follow = boolean(params.get("follow", False))
    link = os.path.islink(dest_file)
    if (os.path.exists(dest_file) if follow else os.path.lexists(dest_file)) and not params["force"]:
        return None
    target = os.path.realpath(dest_file) if link and follow and os.path.exists(dest_file) else dest_file
    new_checksum = _sha1(data)
    writes = (link and not follow) or not os.path.isfile(dest_file) or checksum(dest_file) != new_checksum
    directory = os.path.dirname(dest_file) or "."
    shown = header or (dest_file if is_content else after_header)  # the diff's "after"
    if writes and not ctx.check_mode and (failure := _module_refusal(params, action_args, new_checksum)):
        # the copy module the action hands a file to refuses its arguments, or the file it was sent
        # when the task gives another checksum, before anything
        diff = [content_diff(dest_file, data, shown, ctx.no_log)] if ctx.diff else []
        return {"changed": False, "checksum": new_checksum, "diff": diff, "failed": True, **failure}
    # the copy module fails on a missing directory (it creates one for 'dest/' only) before it
    # sets any owner or group
    if writes and not ctx.check_mode and not os.path.isdir(directory) and not dest.endswith("/"):
        return {"changed": False, "failed": True, "checksum": new_checksum,
                "msg": f"Destination directory {os.path.dirname(dest_file)} does not exist"}
    # the copy module writes the file before it looks the owner and group up (set_fs_attributes_if_different)
    missing = unknown_owner(params.get("owner"), params.get("group")) if writes and not ctx.check_mode else None
    if not (writes and ctx.check_mode) and missing is None:  # in check mode the action says changed
        check_ownership(dest_file, params.get("owner"), params.get("group"))  # without the module
    result: dict[str, Any] = {"diff": []}
    exact = action_args is not None
    action_args = action_args if action_args is not None else {"dest": dest, "mode": params.get("mode")}
    preserved = params.get("mode") if action_args.get("mode") == "preserve" else None
    if writes:
        if ctx.diff:
            result["diff"].append(content_diff(dest_file, data, shown, ctx.no_log))
        if ctx.check_mode:  # the action answers, without its copy module
            result["changed"] = True
            return action_result(result)
        if not os.path.isdir(directory):
            make_directories(directory, params.get("directory_mode"))
        # the copy module backs the file up first: a validation that fails leaves the backup behind
        backup_file = backup(target) if params["backup"] and os.path.exists(target) else None
        if link and not follow:  # "allow for conversion from symlink": an empty file in its place
            os.unlink(dest_file)
            open(dest_file, "wb").close()
        sent = remote_source(dest_file)
        if params.get("validate"):
            failure = validation_failure(params["validate"], data, dest_file, sent=sent)
            if failure:  # the module's fail_json (no backup_file), with what the copy action already had
                lines = {f"{key}_lines": failure[key].splitlines() for key in ("stdout", "stderr") if key in failure}
                return {"changed": False, **failure, **lines, "checksum": new_checksum, "diff": result["diff"]}
        module_params = ActionArgs((k, v) for k, v in action_args.items() if k not in ("content", "decrypt"))
        module_params.update(src=sent, dest=action_dest(action_args).get("dest", dest),
                             _original_basename=original_basename or basename,
                             follow=boolean(action_args.get("follow", False)))
        if not action_args.get("checksum"):
            module_params["checksum"] = new_checksum
        if preserved:
            module_params["mode"] = preserved
        invocation = module_args(module_params, COPY_MODULE_SPEC, validate("ansible.legacy.copy", module_params,
                                                                            COPY_MODULE_SPEC))
        write_atomically(target, data)
        if missing:  # fail_json(path=...) with the written file's facts; the action adds its checksum
            module_dest = target if os.sep in target else f".{os.sep}{target}"
            return {**path_facts({"changed": False, "failed": True, "msg": missing, "path": module_dest}),
                    "checksum": new_checksum}
        with _action_checksum(new_checksum):
            set_mode(target, params["mode"], False, None)
        result.update(dest=target, src=module_params["src"], md5sum=hashlib.md5(data).hexdigest(),
                      checksum=new_checksum, changed=True)
        if backup_file is not None:
            result["backup_file"] = backup_file
        return {**path_facts(result), "invocation": invocation} if exact else path_facts(result)
    # same content: only attributes may change, through the file module
    file_args = ActionArgs((k, v) for k, v in action_args.items() if k in REAL_FILE_ARGS)
    # a followed link: the file module is given what it leads to (the action's lnk_source)
    file_args.update(dest=target if target != dest_file else dest, _original_basename=original_basename or basename,
                     recurse=False, state="file")
    file_args.pop("src", None)
    if preserved:
        file_args["mode"] = preserved
    with _action_checksum(new_checksum):
        attributes = file_module.run(file_args, ctx, action="ansible.legacy.file")
    if not ctx.diff:
        attributes.pop("diff", None)
    result.update(attributes)
    result.setdefault("checksum", new_checksum)
    if "path" in result:
        result.setdefault("dest", result["path"])
    return result


def _module_refusal(params: Mapping[str, Any], action_args: Mapping[str, Any] | None,
                    new_checksum: str) -> dict[str, Any] | None:
    """The copy module's failure before it writes: its arguments refused (``params["refused"]``),
    or a ``checksum`` the task gives that the file it was sent does not have."""
    if params.get("refused"):
        return {"msg": params["refused"]}
    expected = (action_args if action_args is not None else params).get("checksum")
    if expected and expected != new_checksum:
        return {"msg": "Copied file does not match the expected checksum. Transfer failed.",
                "expected_checksum": expected}
    return None


@contextlib.contextmanager
def _action_checksum(new_checksum: str) -> Iterator[None]:
    """A module the copy action ran that fails (a mode it cannot set): the action adds its checksum."""
    try:
        yield
    except ModuleError as exc:
        result = dict(exc.result or {})
        if not result.get("checksum"):
            result["checksum"] = new_checksum
        raise ModuleError(str(exc), result) from None


def make_directories(directory: str, mode: Any) -> None:
    """The copy module's ``os.makedirs`` for a ``dest/``, then ``directory_mode`` on each
    directory it created (``adjust_recursive_directory_permissions``), outermost first."""
    created = []
    missing = directory
    while missing and not os.path.isdir(missing):
        created.append(missing)
        missing = os.path.dirname(missing)
    os.makedirs(directory)
    for path in reversed(created):
        set_mode(path, mode, False, None)
