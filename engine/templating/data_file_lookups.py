"""The ``ini`` and ``csvfile`` lookups of ansible-core 2.19 (plugins/lookup/ini.py, csvfile.py):
a value read from an INI or Java properties file, or from a row of a CSV/TSV file.

Both parse with the Python modules ansible uses (configparser, csv), with the same options, so a
file reads the same, interpolation and parsing errors included; the inline ``key=value`` options
of a term ("user section=db file=app.ini") are split as the plugins split them, quirks and all.
An option set inline stays set for the following terms of the same call, as the plugins'
``set_option`` leaves it.

The file is read through the lookup set (``call.context.read_data``): a run's reads the
controller's file; static templating's (engine.templating.file_lookups.RepositoryLookups) reads
only the repository's own files, bounded, and leaves any other file's value to the run.
"""

from __future__ import annotations

import configparser
import csv
import io
import os
import re
from collections import defaultdict
from collections.abc import MutableSequence
from typing import Any

from engine.templating.file_search import find_file, missing_file
from engine.templating.pure_lookups import Call, LookupFailure, _bool_option, _integer, _options

# option -> default, in the order of the plugins' DOCUMENTATION (which decides the inline parser's
# choice when a phrase holds more than one "name=")
INI_OPTIONS: dict[str, Any] = {"type": "ini", "file": "ansible.ini", "section": "global", "re": False,
                               "encoding": "utf-8", "default": "", "case_sensitive": False, "allow_no_value": False,
                               "interpolation": True}
INI_BOOLEANS = frozenset({"re", "allow_no_value", "interpolation"})
CSV_OPTIONS: dict[str, Any] = {"col": 1, "keycol": 0, "default": None, "delimiter": "TAB", "file": "ansible.csv",
                               "encoding": "utf-8"}
CSV_INTEGERS = frozenset({"col", "keycol"})


def _find(call: Call, needle: Any) -> str | None:
    path = find_file(call.context, "files", str(needle))
    if path is None:
        missing_file(call, needle)
    return path


def _ini_option(name: str, value: Any) -> Any:
    return _bool_option(value) if name in INI_BOOLEANS else value


def _parse_params(term: str, names: list[str]) -> list[str]:
    """ini.py's ``_parse_params``: the term's phrases, an option's value running on over the
    following words without "=" (a key or a file name with spaces)."""
    params: defaultdict[str, str] = defaultdict(str)
    keys = []
    this_key = "key"
    for index, phrase in enumerate(term.split()):
        if "=" in phrase:
            for name in names:
                if f"{name}=" in phrase:
                    this_key = name
        if index == 0 or not params[this_key]:
            params[this_key] = phrase
            keys.append(this_key)
        else:
            params[this_key] += " " + phrase
    return [params[k] for k in keys]


def _inline_ini(term: str, opts: dict[str, Any]) -> str:
    """The key of a term with inline options, ``opts`` updated with them (ini.py's run)."""
    params = _parse_params(term, [*INI_OPTIONS, "allow_none"])
    key = term
    updated_key = False
    for param in params:
        if "=" in param:
            try:
                name, value = param.split("=")
            except ValueError as exc:  # raised from the unpacking error: both messages, chained
                raise ValueError(f"Could not use {param!r} from {params!r}: {exc}") from exc
            if name not in INI_OPTIONS:
                raise LookupFailure(f"{name!r} is not a valid option.")
            opts[name] = _ini_option(name, value)
        elif key == term:
            key = param
            updated_key = True
    if not updated_key:
        raise ValueError(f"No key to look up was provided as first term within string inline options: {term}")
    return key


def lookup_ini(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    if "allow_none" in kwargs:  # the alias of allow_no_value
        kwargs = {**{k: v for k, v in kwargs.items() if k != "allow_none"}, "allow_no_value": kwargs["allow_none"]}
    opts = {name: _ini_option(name, value) for name, value in _options(kwargs, INI_OPTIONS, "ini").items()}
    parser = configparser.ConfigParser(allow_no_value=opts["allow_no_value"],
                                       interpolation=configparser.BasicInterpolation() if opts["interpolation"]
                                       else None)
    if opts["case_sensitive"]:
        parser.optionxform = str  # type: ignore[assignment,method-assign]
    ret: list[Any] = []
    for term in terms:
        key = term
        if "=" in term or " " in term.strip():
            key = _inline_ini(term, opts)
        path = _find(call, opts["file"])
        config = io.StringIO()
        if opts["type"] == "properties":
            config.write("[java_properties]\n")
            opts["section"] = "java_properties"
        if path is None:
            raise LookupFailure(f"Invalid filename {path}.")
        config.write(_read(call, path, opts["encoding"]))
        config.seek(0)
        try:
            parser.read_file(config)
        except configparser.DuplicateOptionError as exc:
            raise ValueError(f"Duplicate option in {opts['file']!r}: {exc}") from exc
        try:
            if _bool_option(opts["re"]):
                value: Any = [v for k, v in parser.items(opts["section"]) if re.match(key, k)]
            else:
                try:
                    value = parser.get(opts["section"], key)
                except configparser.NoOptionError:
                    value = opts["default"]
        except configparser.NoSectionError:
            raise ValueError(f"No section {opts['section']!r} in {opts['file']!r}.") from None
        if isinstance(value, MutableSequence):
            ret.extend(value)
        elif value is not None:
            ret.append(value)
    return ret


def _read(call: Call, path: str, encoding: str) -> str:
    """DataLoader.get_text_file_contents: the file's text in ``encoding``, newlines as written; a
    file that cannot be read (a directory) fails as ``_get_file_contents`` words it, the path as
    ``path_dwim`` normalised it, its OSError chained."""
    path = os.path.normpath(path)
    try:
        return call.context.read_data(path).decode(encoding, errors="surrogateescape")
    except FileNotFoundError as exc:
        raise LookupFailure(f"Could not read file {path!r}: {exc}") from exc
    except OSError as exc:
        raise LookupFailure(f"An error occurred while trying to read the file {path!r}: {exc}") from exc


def _csv_option(name: str, value: Any) -> Any:
    return _integer(name, value, "csvfile", "int") if name in CSV_INTEGERS else value


def lookup_csvfile(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    from engine.parsing.splitter import parse_kv

    opts = {name: _csv_option(name, value) for name, value in _options(kwargs, CSV_OPTIONS, "csvfile").items()}
    if not terms:
        raise LookupFailure("Search key is required but was not found")
    ret: list[Any] = []
    for term in terms:
        kv = parse_kv(term)
        if "_raw_params" not in kv:
            raise LookupFailure("Search key is required but was not found")
        key = kv.pop("_raw_params")
        for name, value in kv.items():
            if name not in CSV_OPTIONS:
                raise ValueError(f"{name!r} is not a valid option")
            opts[name] = _csv_option(name, value)
        delimiter = "\t" if opts["delimiter"] == "TAB" else opts["delimiter"]
        path = _find(call, opts["file"])
        if path is None:
            raise TypeError("expected str, bytes or os.PathLike object, not NoneType")
        value = opts["default"]
        # csvfile.py opens the file in text mode (universal newlines) and reads it with csv.excel
        with call.context.open_text(path, opts["encoding"]) as handle:
            for row in csv.reader(handle, dialect=csv.excel, delimiter=delimiter):
                if row and row[opts["keycol"]] == key:
                    value = row[opts["col"]]
                    break
        if isinstance(value, MutableSequence):
            ret.extend(value)
        elif value is not None:
            ret.append(value)
    return ret


__all__ = ["lookup_csvfile", "lookup_ini"]
