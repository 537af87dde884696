"""unarchive: a tar archive (plain, gzip, bzip2, xz, zstd) unpacked into an existing directory
with GNU tar, as ansible's module and action do it: the archive found on the controller (this
machine) or, with remote_src, where it is; ``tar --diff`` decides whether it is unpacked already,
``creates`` skips, file attributes apply to every member. ansible's tar handlers do not support
check mode, so a tar is skipped there. A zip archive goes to ansible's zip handlers
(``engine.run.modules._zip``: zipinfo, then unzip), which answer in check mode too."""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
import shutil
import subprocess
from typing import Any

from engine.run.environment import remote_expand_user
from engine.run.modules import ModuleContext, ModuleError, action_result, action_skip
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, boolean, validate
from engine.run.modules._content import known_arguments
from engine.run.modules._files import check_ownership, path_facts, set_mode
from engine.run.modules._sources import find_source
from engine.run.modules._zip import ZipHandler, pick_zip

SPEC = {
    "src": Arg(type="path", required=True),
    "dest": Arg(type="path", required=True),
    "remote_src": Arg(type="bool", default=False),
    "creates": Arg(type="path"),
    "list_files": Arg(type="bool", default=False),
    "keep_newer": Arg(type="bool", default=False),
    "exclude": Arg(type="list", default=[]),
    "include": Arg(type="list", default=[]),
    "extra_opts": Arg(type="list", default=[]),
    "validate_certs": Arg(type="bool", default=True),
    "io_buffer_size": Arg(type="int", default=64 * 1024),
    "copy": Arg(type="bool", default=True),
    "decrypt": Arg(type="bool", default=True),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}
# the handlers ansible tries after its zip ones, with their compression flag
_HANDLERS = (("TgzArchive", "-z"), ("TarArchive", ""), ("TarBzipArchive", "-j"), ("TarXzArchive", "-J"),
             ("TarZstdArchive", "--use-compress-program=zstd"))
_LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "LC_MESSAGES": "C.UTF-8", "LANGUAGE": "C.UTF-8"}
_EMPTY_FILE = re.compile(r": : Warning: Cannot stat: No such file or directory$")
_DIFFERS = [re.compile(pattern) for pattern in (
    r": Mod time differs$", r": Warning: Cannot stat: No such file or directory$", r": Invalid owner",
    r": Invalid group", r": Symlink differs$", r": Contents differ$", r": Size differs$")]


class _Tar:
    def __init__(self, name: str, flag: str, tar: str, src: str, dest: str, params: dict[str, Any]) -> None:
        self.name, self.flag, self.tar, self.src, self.dest, self.params = name, flag, tar, src, dest, params
        self.excludes = [path.rstrip("/") for path in params["exclude"]]
        self._files: list[str] = []

    def _command(self, operation: str, attributes: bool = True) -> list[str]:
        command = [self.tar, operation, "-C", self.dest]
        if self.flag:
            command.append(self.flag)
        if self.params["extra_opts"]:
            command += ["--show-transformed-names", *self.params["extra_opts"]]
        if attributes:
            for name in ("owner", "group"):
                if self.params[name]:
                    command.append(f"--{name}={self.params[name]}")
            if self.params["keep_newer"]:
                command.append("--keep-newer-files")
        command += [f"--exclude={path}" for path in self.excludes]
        command += ["-f", self.src, *self.params["include"]]
        return command

    def _run(self, command: list[str]) -> tuple[int, str, str]:
        done = subprocess.run(command, cwd=self.dest, capture_output=True, check=False,
                              env={**os.environ, **_LOCALE})
        return (done.returncode, done.stdout.decode("utf-8", "surrogateescape"),
                done.stderr.decode("utf-8", "surrogateescape"))

    def files_in_archive(self) -> list[str]:
        if self._files:
            return self._files
        rc, out, err = self._run(self._command("--list", attributes=False))
        if rc != 0:
            raise ModuleError(f"Unable to list files in the archive: {err}")
        for line in out.splitlines():
            name = codecs.escape_decode(line.encode("utf-8", "surrogateescape"))[0].decode("utf-8", "surrogateescape")
            name = name[1:] if name.startswith("/") else name
            if not any(fnmatch.fnmatch(name, exclude) for exclude in self.excludes):
                self._files.append(name)
        return self._files

    def is_unarchived(self) -> bool:
        rc, out, err = self._run(self._command("--diff"))
        kept = []
        for line in out.splitlines() + err.splitlines():
            if _EMPTY_FILE.search(line):
                continue
            if os.getuid() == 0 and not self.params["owner"] and line.endswith(": Uid differs"):
                kept.append(line)
            if os.getuid() == 0 and not self.params["group"] and line.endswith(": Gid differs"):
                kept.append(line)
            if not self.params["mode"] and line.endswith(": Mode differs"):
                kept.append(line)
            kept += [line for regexp in _DIFFERS if regexp.search(line)]
        return not kept

    def unarchive(self) -> dict[str, Any]:
        command = self._command("--extract")
        rc, out, err = self._run(command)
        return {"cmd": command, "rc": rc, "out": out, "err": err}


def _pick(src: str, dest: str, params: dict[str, Any], check_mode: bool,
          action: str) -> _Tar | ZipHandler | dict[str, Any]:
    zipped, reasons = pick_zip(src, dest, params)  # ansible tries its zip handlers first
    if zipped is not None:
        return zipped
    if check_mode:  # TgzArchive's constructor ends a check-mode run
        return {"changed": False, "skipped": True,
                "msg": f"remote module ({action}) does not support check mode when using gtar"}
    tar = shutil.which("gtar") or shutil.which("tar")
    if tar is None:
        reasons.append("Unable to find required 'gtar' or 'tar' binary in the path")
    else:
        version = subprocess.run([tar, "--version"], capture_output=True, text=True, check=False).stdout
        if not (version.startswith("tar") and "GNU" in version):
            kind = "bsd" if version.startswith("bsdtar") else None
            reasons.append(f'Command "{tar}" detected as tar type {kind}. GNU tar required.')
        else:
            for name, flag in _HANDLERS:
                handler = _Tar(name, flag, tar, src, dest, params)
                try:
                    if handler.files_in_archive():
                        return handler
                    reasons.append(f'Command "{tar}" found no files in archive. Empty archive files are not supported.')
                except ModuleError as exc:
                    reasons.append(f'Command "{tar}" could not handle archive: {exc}')
    return {"changed": False, "failed": True,
            "msg": f'Failed to find handler for "{src}". Make sure the required command to extract the file is '
                   "installed.\n" + "\n".join(dict.fromkeys(reasons))}


_MODULE_NAME = "ansible.legacy.unarchive"  # the module the action runs, which its messages name


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    args = dict(args)
    if "copy" in args:  # the action plugin's old name for remote_src
        if "remote_src" in args:
            return {"changed": False, "failed": True,
                    "msg": "parameters are mutually exclusive: ('copy', 'remote_src')"}
        args["remote_src"] = not boolean(args.pop("copy"))  # the action's boolean(strict=False)
    if args.get("src") is None or args.get("dest") is None:
        return {"changed": False, "failed": True, "msg": "src (or content) and dest are required"}
    # the action reads src, dest, remote_src, creates and decrypt itself (its booleans leniently);
    # the module it runs checks every argument, once the archive and dest are found
    own = validate(_MODULE_NAME, known_arguments(args, SPEC), SPEC, strict=False)
    src, dest = own["src"], own["dest"]  # the module's dest: its ~ is $HOME
    # the action tests creates (as written, ``test -e``) and stats dest with a leading ~ expanded
    # as the user's home
    if own["creates"] and os.path.exists(creates := remote_expand_user(str(args["creates"]))):
        return action_skip(f"skipped, since {creates} exists")
    action_dest = remote_expand_user(str(args["dest"]))
    if not own["remote_src"]:
        if "://" in src:
            return {"changed": False, "failed": True,
                    "msg": f"Unsupported option, an URI src ({src}) is only supported when remote_src is True"}
        src = find_source(src, "files", ctx.search_paths, uncaught=True, decrypt=own["decrypt"])
    if not os.path.isdir(os.path.expanduser(os.path.expandvars(action_dest))):  # the stat module's path
        return action_result({"changed": False, "failed": True, "msg": f"dest '{action_dest}' must be an existing dir"})
    module_args = {name: value for name, value in args.items() if name != "decrypt"}
    params = validate(_MODULE_NAME, {**module_args, "src": src}, SPEC, mutually_exclusive=(("include", "exclude"),))
    if params["remote_src"] and "://" in src:  # the module would download it now
        raise ModuleError("playbook-ls's engine does not download an unarchive src; "
                          "run with --engine ansible to use ansible-playbook")
    check_ownership(dest, params["owner"], params["group"])
    result = _module(src, dest, params, ctx)
    if not os.path.isabs(dest):  # the module's first words
        result["warnings"] = [f"Relative destination path '{dest}' was resolved to absolute path "
                              f"'{os.path.abspath(dest)}'.", *result.get("warnings", [])]
    return result


def _module(src: str, dest: str, params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    """What ansible's unarchive module does once the action found the archive and ``dest``."""
    if not os.path.exists(src):
        return {"changed": False, "failed": True, "msg": f"Source '{src}' does not exist"}
    if not os.access(src, os.R_OK):
        return {"changed": False, "failed": True, "msg": f"Source '{src}' not readable"}
    src = os.path.abspath(src)
    if os.path.getsize(src) == 0:
        return {"changed": False, "failed": True, "msg": f"Invalid archive '{src}', the file is 0 bytes"}
    handler = _pick(src, os.path.abspath(dest), params, ctx.check_mode, _MODULE_NAME)
    if isinstance(handler, dict):
        return handler
    result: dict[str, Any] = {"handler": handler.name, "dest": dest, "src": src}
    unarchived = handler.is_unarchived()
    if ctx.check_mode:  # only a zip handler gets here in check mode
        result["changed"] = not unarchived
    elif unarchived:
        result["changed"] = False
    else:
        result["extract_results"] = handler.unarchive()
        if result["extract_results"]["rc"] != 0:
            return path_facts({**result, "changed": False, "failed": True, "msg": f"failed to unpack {src} to {dest}"})
        result["changed"] = True
    if isinstance(handler, ZipHandler) and handler.diff and ctx.diff:  # ansible's callback shows it in diff mode
        result["diff"] = {"prepared": handler.diff}
    top_folders: list[str] = []
    for name in [] if ctx.check_mode else handler.files_in_archive():
        result["changed"] = set_mode(os.path.join(handler.dest, name), params["mode"], False, None) or result["changed"]
        if "/" in name and name.split("/")[0] not in top_folders:
            top_folders.append(name.split("/")[0])
    for folder in top_folders:
        result["changed"] = set_mode(f"{dest}/{folder}", params["mode"], False, None) or result["changed"]
    if params["list_files"]:
        result["files"] = handler.files_in_archive()
    return path_facts(result)
