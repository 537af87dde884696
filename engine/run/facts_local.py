"""``ansible_local``: the ``*.fact`` files of ``fact_path``, as ansible's local fact collector
(``module_utils/facts/system/local.py``) reads them.

Each file matching ``*.fact`` (a glob: no hidden file) gives the fact named after its file name
with every ``.fact`` removed. An executable one is run through the module's ``run_command``
(its path split as words, no shell): a program that cannot be started fails the whole setup
("Error executing command.", as ``run_command`` fails the module), one that exits non-zero gives
"Failure executing fact script (...)". Any other file is read as ``get_file_content`` reads it
(stripped; an unreadable or undecodable one as empty). The text is JSON, else INI (each option
read with the parser's interpolation); what cannot be read becomes an error string in place of
the fact, and each such error is also a warning of the module.
"""

from __future__ import annotations

import configparser
import glob
import json
import os
import shlex
import stat
import subprocess
from io import StringIO
from typing import Any


class FactScriptFailure(Exception):
    """A fact program that could not be started: ``result`` is the module's failed result."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result.get("msg"))
        self.result = result


def local_facts(fact_path: str, warnings: list[str]) -> dict[str, Any]:
    """``{"local": {...}}`` for ``fact_path``; the module's warnings are appended to ``warnings``.
    Raises :class:`FactScriptFailure` as ansible's module fails."""
    local: dict[str, Any] = {}
    if not fact_path or not os.path.exists(fact_path):
        return {"local": local}
    for path in sorted(glob.glob(fact_path + "/*.fact")):
        key = os.path.basename(path).replace(".fact", "")
        try:
            executable = stat.S_IXUSR & os.stat(path).st_mode
        except OSError as exc:
            local[key] = _warned(f"Could not stat fact ({path}): {exc}", warnings)
            continue
        if executable:
            rc, out, err = _run(path)
            if rc != 0:
                local[key] = _warned(f"Failure executing fact script ({path}), rc: {rc}, err: {err}", warnings)
                continue
        else:
            out = _file_content(path)
        local[key] = _parsed(path, out, warnings)
    return {"local": local}


def _warned(message: str, warnings: list[str]) -> str:
    warnings.append(message)
    return message


def _run(path: str) -> tuple[int, str, str]:
    """``module.run_command(path)``: its words, no shell; a program that cannot start fails the module."""
    from engine.run.modules import module_exception

    argv = shlex.split(path)
    try:
        done = subprocess.run(argv, capture_output=True, check=False)
    except OSError as exc:
        raise FactScriptFailure({
            "failed": True, "changed": False, "msg": "Error executing command.", "rc": exc.errno,
            "cmd": " ".join(shlex.quote(word) for word in argv), "stdout": "", "stderr": "",
            "stdout_lines": [], "stderr_lines": [], **module_exception("Error executing command.", exc, as_bytes=True),
        }) from None
    return done.returncode, *(out.decode("utf-8", "surrogateescape") for out in (done.stdout, done.stderr))


def _file_content(path: str) -> str:
    """``get_file_content(path, default='')``: the text stripped, '' when it cannot be read."""
    if not (os.path.exists(path) and os.access(path, os.R_OK)):
        return ""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, ValueError):  # ansible ignores any error there (a jail, a text that does not decode)
        return ""


def _parsed(path: str, out: str, warnings: list[str]) -> Any:
    """The fact of one file's text, as the collector's loop makes it (its quirks kept: an option
    that fails to interpolate leaves the error string as the fact, which the next option then
    fails to index, "Failed to convert ...")."""
    try:
        try:
            return json.loads(out)
        except ValueError:
            parser = configparser.ConfigParser()
            try:
                parser.read_file(StringIO(out))
            except configparser.Error:
                return _warned(f"error loading facts as JSON or ini - please check content: {path}", warnings)
            fact: Any = {}
            for section in parser.sections():
                if section not in fact:
                    fact[section] = {}
                for option in parser.options(section):
                    try:
                        value = parser.get(section, option)
                    except configparser.Error as exc:
                        fact = _warned(f"error loading facts as ini - please check content: {path} ({exc})", warnings)
                        continue
                    fact[section][option] = value
            return fact
    except Exception as exc:  # noqa: BLE001 - the collector's own catch-all, worded as it words it
        return _warned(f"Failed to convert ({path}) to JSON: {exc}", warnings)
