"""uri: an HTTP request (or a file:// read) and its answer, as ansible's action and module give
it: the response headers as keys, status checks, JSON bodies decoded, content and dest, creates and
removes; the action does not support check mode. form-multipart bodies are refused."""

from __future__ import annotations

import json
import os
import re
import urllib.error
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlencode, urljoin, urlparse

from engine.run.modules import ModuleContext, ModuleError, action_skip
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, check_type_int, validate
from engine.run.modules._files import checksum, path_facts, set_mode, write_atomically
from engine.run.modules._http import URL_ARGS, fetch, refuse_unsupported
from engine.run.modules._sources import find_source

SPEC = {
    **URL_ARGS,
    "url": Arg(required=True),
    "dest": Arg(type="path"),
    "url_username": Arg(aliases=("user",)),
    "url_password": Arg(aliases=("password",)),
    "body": Arg(type="raw"),
    "body_format": Arg(default="raw", choices=("form-urlencoded", "json", "raw", "form-multipart")),
    "src": Arg(type="path"),
    "method": Arg(default="GET"),
    "return_content": Arg(type="bool", default=False),
    "follow_redirects": Arg(default="safe", choices=("all", "no", "none", "safe", "urllib2", "yes")),
    "creates": Arg(type="path"),
    "removes": Arg(type="path"),
    "status_code": Arg(type="raw", default=[200]),
    "timeout": Arg(type="int", default=30),
    "headers": Arg(type="raw", default={}),
    "unix_socket": Arg(type="path"),
    "remote_src": Arg(type="bool", default=False),
    "ca_path": Arg(type="path"),
    "unredirected_headers": Arg(type="list", default=[]),
    "decompress": Arg(type="bool", default=True),
    "ciphers": Arg(type="list"),
    "use_netrc": Arg(type="bool", default=True),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}
JSON_CANDIDATES = {"json", "javascript"}
NAMED = True


def form_urlencoded(body: Any) -> Any:
    if isinstance(body, str) or not isinstance(body, (Mapping, Sequence)):
        return body
    pairs = []
    for key, values in (list(body.items()) if isinstance(body, Mapping) else list(body)):
        if isinstance(values, str) or not isinstance(values, (Mapping, Sequence)):
            values = [values]
        pairs += [(str(key), str(value)) for value in values if value is not None]
    return urlencode(pairs, doseq=True)


def _status_codes(raw: Any) -> list[int]:
    """``status_code`` as the module's spec has it: a list (a text split at commas) of ints, each
    checked as ``check_type_int`` does, an element it refuses named in ansible's words."""
    from engine.templating.type_names import native_type_name

    codes = []
    for item in raw if isinstance(raw, list) else str(raw).split(","):
        try:
            codes.append(check_type_int(item))
        except TypeError as exc:
            raise ModuleError(f"Elements value for option 'status_code' is of type {native_type_name(item)} "
                              f"and we were unable to convert to int: {exc}") from None
    return codes


def _content_type(response: Any) -> tuple[str, str, str]:
    headers = getattr(response, "headers", None)
    if headers is None or not hasattr(headers, "get_content_type"):
        return "application/octet-stream", "octet-stream", "utf-8"
    content_type = (headers.get_content_type() or "application/octet-stream").split(",")[0]
    charset = (headers.get_param("charset") or "utf-8").split(",")[0]
    return content_type, content_type.split("/")[1], str(charset)


def _response_filename(response: Any) -> str | None:
    filename = response.headers.get_param("filename", header="content-disposition")
    if filename:
        return os.path.basename(str(filename))
    path = urlparse(response.geturl())[2]
    name = os.path.basename(path.rstrip("/")) or None
    return unquote(name) if name else None


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "uri") -> dict[str, Any]:
    if ctx.check_mode:  # the action plugin says it does not support check mode
        return action_skip(f"This action ({action}) does not support check mode.")
    params = validate("ansible.legacy.uri", args, SPEC, mutually_exclusive=(("body", "src"),))
    refuse_unsupported(params)
    url, body, body_format = params["url"], params["body"], params["body_format"].lower()
    method, dest = params["method"].upper(), params["dest"]
    headers = dict(params["headers"] or {})
    status_codes = _status_codes(params["status_code"])
    if not re.match("^[A-Z]+$", method):
        return {"changed": False, "failed": True,
                "msg": "Parameter 'method' needs to be a single word in uppercase, like GET or POST."}
    if body_format == "json":
        if not isinstance(body, str):
            body = json.dumps(body)
        if "content-type" not in [header.lower() for header in headers]:
            headers["Content-Type"] = "application/json"
    elif body_format == "form-urlencoded":
        if not isinstance(body, str):
            body = form_urlencoded(body)
        if "content-type" not in [header.lower() for header in headers]:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body_format == "form-multipart":
        raise ModuleError("playbook-ls's engine does not implement body_format form-multipart; "
                          "run with --engine ansible to use ansible-playbook")
    for skip, reason in ((params["creates"] is not None and os.path.exists(params["creates"]),
                          f"skipped, since '{params['creates']}' exists"),
                         (params["removes"] is not None and not os.path.exists(params["removes"]),
                          f"skipped, since '{params['removes']}' does not exist")):
        if skip:  # the action base adds stdout_lines to a module's stdout
            return {"stdout": reason, "stdout_lines": [reason], "changed": False}
    data: bytes | None = None
    if params["src"]:
        source = params["src"] if params["remote_src"] else \
            find_source(params["src"], "files", ctx.search_paths, uncaught=True)
        try:
            with open(source, "rb") as handle:
                data = handle.read()
        except OSError:
            return {"changed": False, "failed": True, "msg": f"Unable to open source file {source}", "elapsed": 0}
        headers["Content-Length"] = str(len(data))
    elif body is not None:
        data = body.encode() if isinstance(body, str) else str(body).encode()
    last_mod_time = datetime.fromtimestamp(os.path.getmtime(dest), tz=UTC) \
        if dest is not None and os.path.isfile(dest) else None
    start = datetime.now(UTC)
    response, info = fetch(url, params, method=method, data=data, headers=headers, timeout=params["timeout"],
                           last_mod_time=last_mod_time, follow_redirects=params["follow_redirects"],
                           decompress=params["decompress"])
    elapsed = (datetime.now(UTC) - start).seconds
    if response is not None and dest is not None and os.path.isdir(dest):
        dest = os.path.join(dest, _response_filename(response) or "index.html")
    content_type, sub_type, charset = _content_type(response) if response is not None \
        else ("application/octet-stream", "octet-stream", "utf-8")
    suffix = sub_type.partition("+")[2] if "+" in sub_type else sub_type
    maybe_json = bool(content_type) and suffix.lower() in JSON_CANDIDATES
    content: bytes | None = None
    failed_answer = isinstance(response, urllib.error.HTTPError)
    if maybe_json or params["return_content"] or info["status"] not in status_codes:
        content = info.pop("body", b"") if response is None or failed_answer else response.read()
    elif response is not None and dest is not None:
        content = b"" if failed_answer else response.read()
    if isinstance(content, str):
        content = content.encode()
    text = content.decode(charset, "replace") if content is not None and (
        maybe_json or params["return_content"] or info["status"] not in status_codes) else None
    if isinstance(info.get("body"), bytes):  # left in the answer when not read as content, as text
        info["body"] = info["body"].decode("utf-8", "replace")
    result: dict[str, Any] = {"redirected": info["url"] != url, **info, "elapsed": elapsed,
                              "status": int(info["status"]), "changed": False}
    if response is not None and dest is not None:
        if result["status"] in status_codes and result["status"] != 304:
            if not os.path.exists(dest) or checksum(dest) != _sha1(content or b""):
                write_atomically(dest, content or b"")
            result["changed"] = set_mode(dest, params["mode"], False, None) or True
        result["path"] = dest
    answer = {key.replace("-", "_").lower(): value for key, value in result.items()}
    if "location" in answer:
        answer["location"] = urljoin(url, answer["location"])
    if text is not None and maybe_json:
        try:
            answer["json"] = json.loads(text)
        except ValueError:
            pass
    if result["status"] not in status_codes:
        answer["msg"] = f"Status code was {result['status']} and not {status_codes}: {answer.get('msg', '')}"
        answer["failed"] = True
    if params["return_content"]:
        answer["content"] = text
    return path_facts(answer) if "path" in answer else answer


def _sha1(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(data).hexdigest()
