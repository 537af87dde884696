"""get_url: a file downloaded (http, https, file://) to a destination, as ansible's module does
it: If-Modified-Since against an existing file, checksums (given or fetched from a URL), a HEAD
request in check mode, backups and the file attributes; the results keep its keys."""

from __future__ import annotations

import email.message
import hashlib
import os
import re
import shutil
import tempfile
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, validate
from engine.run.modules._files import backup, check_ownership, checksum, path_facts, set_mode, write_atomically
from engine.run.modules._http import URL_ARGS, fetch, refuse_unsupported

SPEC = {
    **URL_ARGS,
    "url_username": Arg(aliases=("username",)),
    "url_password": Arg(aliases=("password",)),
    "url": Arg(required=True),
    "dest": Arg(type="path", required=True),
    "backup": Arg(type="bool", default=False),
    "checksum": Arg(default=""),
    "timeout": Arg(type="int", default=10),
    "headers": Arg(type="raw"),
    "tmp_dest": Arg(type="path"),
    "unredirected_headers": Arg(type="list", default=[]),
    "decompress": Arg(type="bool", default=True),
    "ciphers": Arg(type="list"),
    "use_netrc": Arg(type="bool", default=True),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}


class _Fail(Exception):
    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result.get("msg"))
        self.result = result


def _fail(msg: str, **keys: Any) -> _Fail:
    return _Fail({"changed": False, "failed": True, "msg": msg, **keys})


def url_filename(url: str) -> str:
    return os.path.basename(urlsplit(url)[2]) or "index.html"


def _download(url: str, dest: str, params: dict[str, Any], last_mod_time: datetime | None,
              method: str = "GET") -> tuple[str, dict[str, Any]]:
    """The response saved to a temporary file, as url_get does; exits early on 304 and errors."""
    start = datetime.now(UTC)
    response, info = fetch(url, params, method=method, headers=params["headers"], timeout=params["timeout"],
                           last_mod_time=last_mod_time, decompress=params["decompress"])
    elapsed = (datetime.now(UTC) - start).seconds
    if info["status"] == 304:
        raise _Fail({"url": url, "dest": dest, "changed": False, "msg": info.get("msg", ""),
                     "status_code": info["status"], "elapsed": elapsed})
    if info["status"] == -1:
        raise _fail(info["msg"], url=url, dest=dest, elapsed=elapsed)
    if info["status"] != 200 and not url.startswith("file:/"):
        raise _fail("Request failed", status_code=info["status"], response=info["msg"], url=url, dest=dest,
                    elapsed=elapsed)
    directory = params["tmp_dest"]
    if directory and not os.path.isdir(directory):
        raise _fail(f"{directory} is a file but should be a directory." if os.path.exists(directory)
                    else f"{directory} directory does not exist.", elapsed=elapsed)
    handle, name = tempfile.mkstemp(dir=directory or None)
    with os.fdopen(handle, "wb") as out:
        shutil.copyfileobj(response, out)
    response.close()
    return name, info


def _wanted_checksum(params: dict[str, Any], url: str, dest: str, result: dict[str, Any]) -> tuple[str, str]:
    """(algorithm, hex digest) from ``checksum`` ('' when none), fetching a checksum file URL."""
    given = params["checksum"]
    if not given:
        return "", ""
    try:
        algorithm, value = given.split(":", 1)
    except ValueError:
        raise _fail("The checksum parameter has to be in format <algorithm>:<checksum>", **result) from None
    if urlsplit(value).scheme in ("http", "https", "ftp", "file"):
        listing, _ = _download(value, dest, params, None)
        with open(listing) as handle:
            lines = [line.rstrip("\n") for line in handle]
        os.remove(listing)
        filename = url_filename(url)
        found = None
        if len(lines) == 1 and len(lines[0].split()) == 1:
            found = lines[0]
        else:
            for line in lines:
                match = re.match(r"^(\w+) ?\((?P<path>.+)\) ?= (?P<digest>[\w.]+)$", line) or \
                    re.match(r"^(?P<digest>[\w.]+)\s+(\*|\./|\.)?(?P<path>.+)$", line)
                if match and match.group("path").lstrip("./") == filename or \
                        match and match.group("path") == filename:
                    found = match.group("digest")
                    break
        if found is None:
            raise _fail(f"Unable to find a checksum for file '{filename}' in '{value}'")
        value = found
    value = re.sub(r"\W+", "", value).lower()
    try:
        int(value, 16)
    except ValueError:
        raise _fail("The checksum format is invalid", **result) from None
    if algorithm not in hashlib.algorithms_available:
        raise ModuleError(f"Could not hash file with unsupported algorithm '{algorithm}'")
    return algorithm, value


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "get_url") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    refuse_unsupported(params)
    url, dest = params["url"], params["dest"]
    result: dict[str, Any] = {"changed": False, "checksum_dest": None, "checksum_src": None, "dest": dest,
                              "elapsed": 0, "url": url}
    try:
        return _run(params, ctx, url, dest, result)
    except _Fail as failure:  # AnsibleModule adds the path facts of an existing dest to failures too
        return path_facts(failure.result)


def _run(params: dict[str, Any], ctx: ModuleContext, url: str, dest: str, result: dict[str, Any]) -> dict[str, Any]:
    check_ownership(dest, params["owner"], params["group"])
    dest_is_dir = os.path.isdir(dest)
    algorithm, wanted = _wanted_checksum(params, url, dest, result)
    force, last_mod_time = params["force"], None
    if not dest_is_dir and os.path.exists(dest):
        mismatch = bool(not force and wanted and checksum(dest, algorithm) != wanted)
        if not force and wanted and not mismatch:
            result["changed"] = set_mode(dest, params["mode"], ctx.check_mode, None)
            return path_facts({**result, "msg": "file already exists but file attributes changed"
                               if result["changed"] else "file already exists"})
        last_mod_time = datetime.fromtimestamp(os.path.getmtime(dest), UTC)
        if mismatch:
            params["force"] = True
    start = datetime.now(UTC)
    source, info = _download(url, dest, params, last_mod_time, "HEAD" if ctx.check_mode else "GET")
    result["elapsed"] = (datetime.now(UTC) - start).seconds
    result["src"] = source
    try:
        if dest_is_dir:
            message = email.message.Message()
            message["content-disposition"] = info.get("content-disposition", "")
            filename = message.get_param("filename", header="content-disposition")
            filename = os.path.basename(str(filename)) if filename else url_filename(info["url"])
            dest = result["dest"] = os.path.join(dest, filename)
        result["checksum_src"] = checksum(source)
        if os.path.exists(dest):
            if not os.access(dest, os.W_OK):
                raise _fail(f"Destination {dest} is not writable", **result)
            result["checksum_dest"] = checksum(dest)
        elif not os.path.exists(os.path.dirname(dest)):
            raise _fail(f"Destination {os.path.dirname(dest)} does not exist", **result)
        if ctx.check_mode:
            result["changed"] = result["checksum_src"] != result["checksum_dest"]
            return path_facts({**result, "msg": info.get("msg", "")})
        if wanted:
            got = checksum(source, algorithm)
            if got != wanted:
                raise _fail(f"The checksum for {source} did not match {wanted}; it was {got}.", **result)
        if result["checksum_src"] != result["checksum_dest"]:
            if params["backup"] and os.path.exists(dest):
                result["backup_file"] = backup(dest)
            with open(source, "rb") as handle:
                write_atomically(dest, handle.read())
            result["changed"] = True
    finally:
        if os.path.exists(source):
            os.remove(source)
    result["changed"] = set_mode(dest, params["mode"], False, None) or result["changed"]
    result["md5sum"] = checksum(dest, "md5")
    backup_file = result.pop("backup_file", None)
    if backup_file:
        result["backup_file"] = backup_file
    return path_facts({**result, "msg": info.get("msg", ""), "status_code": info.get("status", "")})
