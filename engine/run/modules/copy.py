"""copy: put ``content`` or a controller-side ``src`` file or directory tree at ``dest``.
A ``src`` directory without a trailing slash is copied as itself into ``dest``; with one,
only its contents are."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from engine.run.modules import ModuleContext, ModuleError, action_result, before_module
from engine.run.modules import _remote_tree as remote_tree
from engine.run.modules import file as file_module
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, boolean, validate
from engine.run.modules._content import (
    action_dest,
    ensure_invocation,
    known_arguments,
    module_refusal,
    put,
    refused_arguments,
)
from engine.run.modules._copy_walk import SourceTree, walk_dirs
from engine.run.modules._files import remote_stat_failure
from engine.run.modules._sources import decryptable, find_source

SPEC = {
    "src": Arg(type="path"),
    "content": Arg(type="raw"),
    "dest": Arg(type="path"),
    "backup": Arg(type="bool", default=False),
    "force": Arg(type="bool", default=True),
    "mode": Arg(type="raw"),
    "directory_mode": Arg(type="raw"),
    "remote_src": Arg(type="bool", default=False),
    "local_follow": Arg(type="bool", default=True),
    "checksum": Arg(),
    "follow": Arg(type="bool", default=False),
    "validate": Arg(),
    "decrypt": Arg(type="bool", default=True),
    **FILE_COMMON_ARGS,
}


def _argument_error(params: dict[str, Any]) -> str | None:
    if not params["src"] and params["content"] is None:
        return "src (or content) is required"
    if not params["dest"]:
        return "dest is required"
    if params["src"] and params["content"] is not None:
        return "src and content are mutually exclusive"
    if params["content"] is not None and str(params["dest"]).endswith("/"):
        return "can not use content with a dir as dest"
    return None


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _walk(source: str, local_follow: bool) -> tuple[list[tuple[str, str]], list[str], SourceTree]:
    """The files to copy (file path, path relative to the copy root), the directories to make
    (relative, the source's own first when it is copied as itself) and the action's walk."""
    tree = walk_dirs(source, local_follow)
    prefix = "" if source.endswith("/") else os.path.basename(source.rstrip("/"))
    directories = ([prefix] if prefix else []) + [relative for _real, relative in tree.directories]
    if directories == [prefix] and not tree.files:
        # ansible's walk lists the directories below the source, never the source itself: it
        # comes with what it holds, and an empty one is not copied at all
        return tree.files, [], tree
    return tree.files, directories, tree


LINK_FILE_ARGS = ("mode", "owner", "group", "seuser", "serole", "selevel", "setype", "attributes", "unsafe_writes")
"""The task's arguments the copy action hands the file module with each link it makes."""


def _copy_links(tree: SourceTree, dest: str, params: dict[str, Any], ctx: ModuleContext) -> list[dict[str, Any]]:
    """The links of a source tree the action keeps as links, made by the file module (``state:
    link``, ``force``, the target as the source's link has it), after the files and directories,
    not following links at the destination when the tree has directories; their results, a
    failed one last."""
    results = []
    for target, relative in tree.symlinks:
        args: dict[str, Any] = {name: params[name] for name in LINK_FILE_ARGS if params.get(name) is not None}
        if args.get("mode") == "preserve":  # meaningless for a link: the action leaves it out
            del args["mode"]
        args.update(path=os.path.join(dest, relative), src=target, state="link", force=True)
        if tree.directories:
            args["follow"] = False
        results.append(file_module.run(args, ctx, action="ansible.legacy.file"))
        if results[-1].get("failed"):
            break
    return results


def _copy_tree(source: str, dest: str, params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    dest = dest if dest.endswith("/") else dest + "/"
    files, directories, tree = _walk(source, params["local_follow"] is not False)
    if tree.directories:  # the action follows links at the destination only for a flat tree
        params = {**params, "follow": False}
    # ansible copies the files first, each after a remote stat of its destination, and fails at the
    # first one it cannot stat (a file where the tree needs a directory) before creating anything
    for _full, relative in files:
        if failure := remote_stat_failure(os.path.join(dest, relative)):
            return failure
    if params["refused"] and not ctx.check_mode and any(_writes(full, os.path.join(dest, relative), params)
                                                         for full, relative in files):
        # the action copies the files first: those before the first it writes go to the file
        # module, the copy module refuses that one, and nothing else is made
        for full, relative in files:
            result = put(_read(full), dest, relative, full, params, ctx, is_content=False)
            if result is not None and result.get("failed"):
                return result
    changed = False
    single = None  # a tree of one file: the action's result is that file's (its diff too)
    for relative in directories:
        result = file_module.run(
            {"path": os.path.join(dest, relative), "state": "directory", "mode": params["directory_mode"]}, ctx,
            action="ansible.legacy.file")
        if result.get("failed"):
            return result
        changed = changed or result["changed"]
    for full, relative in files:
        if ctx.check_mode and not os.path.isdir(os.path.join(dest, os.path.dirname(relative))):
            changed = True  # its directory would have been created first
            # the action's check-mode result for the file: changed, with its diff from nothing
            single = put(_read(full), dest, relative, full, params, ctx, is_content=False) if ctx.diff \
                else action_result({"diff": [], "changed": True})
            continue
        result = put(_read(full), dest, relative, full, params, ctx, is_content=False)
        if result is None:
            continue
        if result.get("failed"):
            return result
        changed = changed or result["changed"]
        single = result
    links = _copy_links(tree, dest, params, ctx)
    if links and links[-1].get("failed"):
        return links[-1]
    changed = changed or any(result["changed"] for result in links)
    if links and len(files) == 1:  # the action's result is the last module's
        return {**links[-1], "dest": links[-1].get("dest", links[-1].get("path"))}
    # (a directory below the tree's own would be created after it, its result the action's instead)
    if single is not None and len(files) == 1 and len(directories) == (0 if source.endswith("/") else 1):
        if "path" in single and "dest" not in single:
            single["dest"] = single["path"]
        return single
    return action_result({"dest": dest, "src": source, "changed": changed})


def _writes(source: str, dest_file: str, params: dict[str, Any]) -> bool:
    """Whether copying ``source`` to ``dest_file`` writes it (not there, or other content)."""
    follow = params.get("follow")  # as put() decides it
    if (os.path.exists(dest_file) if follow else os.path.lexists(dest_file)) and not params["force"]:
        return False
    return (os.path.islink(dest_file) and not follow) or not os.path.isfile(dest_file) \
        or _read(dest_file) != _read(source)


def _content_file() -> str:
    """A name as the copy action's ``mkstemp`` makes for the content it writes on the controller."""
    handle, name = tempfile.mkstemp()
    os.close(handle)
    os.unlink(name)
    return name


def _content_basename() -> str:
    """The basename of the file the copy action writes ``content`` to (``mkstemp(prefix='.')``),
    which the module's ``_original_basename`` names."""
    import secrets

    letters = "abcdefghijklmnopqrstuvwxyz0123456789_"
    return "." + "".join(secrets.choice(letters) for _ in range(8))


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    action_args = dict(sorted(args.items()))  # the task's arguments, as the action holds them
    if args.get("content") is not None or not boolean(args.get("remote_src", False)):
        # the action copies to dest with its ~ expanded as the user's home; a remote source is
        # the module's, which expands dest itself
        args = action_dest(args)
    return ensure_invocation(_run(args, action_args, ctx), action_args, ctx.no_log)


def _run(args: dict[str, Any], action_args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    # the copy action checks its own arguments before its module validates them all
    error = _argument_error({name: args.get(name) for name in ("src", "content", "dest")})
    if error:
        return before_module({"failed": True, "msg": error})
    refused = refused_arguments(args)
    params = validate("copy", known_arguments(args, SPEC), SPEC, strict=False) | {"refused": refused}
    error = _argument_error(params)
    if error:
        return before_module({"failed": True, "msg": error})
    dest, content = params["dest"], params["content"]
    if content is not None:
        text = json.dumps(content) if isinstance(content, dict | list) else str(content)
        if params["mode"] == "preserve":  # ansible preserves the mode of the temporary file (mkstemp's)
            params = {**params, "mode": "0600"}
        # the action writes content to a temporary file; its diff names dest unless content is falsy
        header = None if content else _content_file()
        result = put(text.encode(), dest, os.path.basename(dest), dest, params, ctx, is_content=True, header=header,
                     action_args=action_args, original_basename=_content_basename())
        # a file left as it is (force off): the action's dest, src (content's temporary file), changed
        return action_result({"dest": dest, "src": _content_file(), "changed": False}) if result is None else result
    src = params["src"]
    if params["remote_src"]:  # the copy module itself looks at the source, and says so
        if refused := module_refusal({name: value for name, value in args.items() if name != "attributes"}):
            return {"changed": False, "failed": True, "msg": refused}
        if not os.path.exists(src):
            return {"changed": False, "failed": True, "msg": f"Source {src} not found"}
        if not os.access(src, os.R_OK):
            return {"changed": False, "failed": True, "msg": f"Source {src} not readable"}
        if remote_tree.handles(src, dest, params):
            # the module's own local_follow has no default: unset, it is None (neither followed nor kept)
            return remote_tree.copy_tree(src, dest, {**params, "local_follow": params["local_follow"]
                                                     if "local_follow" in args else None}, ctx)
        source = src
        directory = os.path.dirname(dest)
        if not os.path.isdir(src) and not dest.endswith("/") and not os.path.exists(dest) \
                and not os.path.isdir(directory or "."):  # the module's own check, before check mode's
            return {"changed": False, "failed": True, "msg": f"Destination directory {directory} does not exist"}
    else:
        try:
            source = find_source(src, "files", ctx.search_paths, decrypt=False)
        except ModuleError as exc:
            return before_module({"changed": False, "failed": True,
                                  "msg": f"Unexpected AnsibleActionFail error: {exc}"})
        decryptable(source, params["decrypt"])  # get_real_file's failure is the task's own
    if src.endswith("/") and not source.endswith("/"):
        source += "/"
    result = _copy_source(source, dest, params, ctx, None if params["remote_src"] else action_args)
    if params["remote_src"]:
        # ansible's action hands a remote source to the copy module, which returns no diff (its
        # diff is made by the action, from the controller's file, for a local source only)
        result.pop("diff", None)
    return result


def _copy_source(source: str, dest: str, params: dict[str, Any], ctx: ModuleContext,
                 action_args: dict[str, Any] | None) -> dict[str, Any]:
    if os.path.isdir(source):
        return _copy_tree(source, dest, params, ctx)
    if params["mode"] == "preserve":
        params = {**params, "mode": f"0{os.stat(source).st_mode & 0o7777:03o}"}
    result = put(_read(source), dest, os.path.basename(source), source, params, ctx, is_content=False,
                 action_args=action_args)
    return action_result({"dest": dest, "src": source, "changed": False}) if result is None else result
