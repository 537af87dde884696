"""The lookups that read the controller's files by ansible's search path: ``file``, ``template``
and ``fileglob`` (``plugins/lookup/*.py`` of ansible-core 2.19). Shared by a run's lookups
(engine.run.file_and_command_lookups), which read the machine, and static templating's
(engine.templating.file_search.RepositoryLookups), which read only the repository's own files,
bounded, and leave any other to the run. The context given (``call.context``) finds and reads:
``find_file`` over its search paths, ``exists``, ``read_text`` and ``template_vars``."""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from typing import Any

from engine.templating.errors import TemplateFailure, value_origin
from engine.templating.file_search import find_file
from engine.templating.pure_lookups import Call, LookupFailure, _bool_option, _options


def missing_file(call: Call, needle: str) -> None:
    """LookupBase.find_file_in_search_path's warning for a file it does not find."""
    if call.context.warn is not None:
        call.context.warn(f"Unable to find '{needle}' in expected paths (use -vvvvv to see paths)")


def lookup_file(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    opts = _options(kwargs, {"lstrip": False, "rstrip": True}, "file")
    ret = []
    for term in terms:
        path = find_file(call.context, "files", term)
        try:
            if not path:
                raise LookupFailure("File not found. Use -vvvvv to see paths searched.")
            contents = call.context.read_text(path)
        except LookupFailure as exc:
            raise LookupFailure(f"Unable to access the file {term!r}: {exc}") from exc
        if _bool_option(opts["lstrip"]):
            contents = contents.lstrip()
        if _bool_option(opts["rstrip"]):
            contents = contents.rstrip()
        ret.append(contents)
    return ret


def lookup_template(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    delimiters = {"variable_start_string": "{{", "variable_end_string": "}}", "comment_start_string": "{#",
                  "comment_end_string": "#}"}
    opts = _options(kwargs, {"convert_data": True, "template_vars": {}, "jinja2_native": False, **delimiters,
                             "trim_blocks": True}, "template")
    if not isinstance(opts["template_vars"], Mapping):
        raise LookupFailure("template_vars must be a dictionary")
    # the lookup's include path: the template's directory, then each search path's templates/ and itself
    searchpath = [p for base in call.context.search_paths for p in (os.path.join(base, "templates"), base)]
    ret = []
    for term in terms:
        path = find_file(call.context, "templates", term)
        if not path:
            missing_file(call, term)
            raise LookupFailure(f"the template file {term} could not be found for the lookup")
        text = call.context.read_text(path)
        extra = {**call.context.template_vars(term, os.path.abspath(path), call.templar.variables),
                 **opts["template_vars"]}
        try:
            ret.append(call.templar.render_text(text, extra, trim_blocks=_bool_option(opts["trim_blocks"]),
                                                searchpath=(os.path.dirname(path), *searchpath),
                                                **{name: str(opts[name]) for name in delimiters}))
        except TemplateFailure as exc:  # ansible chains the error to the template file (its origin)
            if value_origin(exc) is None:
                exc.value_origin = os.path.abspath(path)  # type: ignore[attr-defined]
            raise
    return ret


def lookup_fileglob(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    ret: list[Any] = []
    for term in terms:
        term_file = os.path.basename(term)
        if term_file != term:
            found = [find_file(call.context, "files", os.path.dirname(term))]
            if found[0] is None:
                missing_file(call, os.path.dirname(term))
        else:
            found = []
            for path in call.context.search_paths or [call.context.basedir]:
                found += [os.path.join(path, "files"), path]
        for directory in found:
            if directory:
                hits = [g for g in glob.glob(os.path.join(directory, term_file)) if call.context.is_file(g)]
                if hits:
                    ret.extend(hits)
                    break
    return ret
