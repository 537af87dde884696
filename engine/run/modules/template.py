"""template: render a controller-side Jinja2 file with the task's variables, then put it at
``dest`` exactly as copy would."""

from __future__ import annotations

import os
from typing import Any

from engine.run.modules import ModuleContext, ModuleError, action_result, before_module
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, boolean, validate
from engine.run.modules._content import action_dest, ensure_invocation, known_arguments, put, refused_arguments
from engine.run.modules._sources import find_source
from engine.run.template_vars import template_vars
from engine.templating.errors import TemplateFailure

SPEC = {
    "src": Arg(type="path", required=True),
    "dest": Arg(type="path", required=True),
    "backup": Arg(type="bool", default=False),
    "force": Arg(type="bool", default=True),
    "mode": Arg(type="raw"),
    "follow": Arg(type="bool", default=False),
    "validate": Arg(),
    "newline_sequence": Arg(default="\n", choices=("\n", "\r", "\r\n")),
    "block_start_string": Arg(),
    "block_end_string": Arg(),
    "variable_start_string": Arg(),
    "variable_end_string": Arg(),
    "comment_start_string": Arg(),
    "comment_end_string": Arg(),
    "trim_blocks": Arg(type="bool", default=True),
    "lstrip_blocks": Arg(type="bool", default=False),
    "output_encoding": Arg(default="utf-8"),
    **FILE_COMMON_ARGS,
}
# the template action's own options, which it does not hand to the copy action
_TEMPLATE_ONLY = ("newline_sequence", "block_start_string", "block_end_string", "variable_start_string",
                  "variable_end_string", "comment_start_string", "comment_end_string", "trim_blocks",
                  "lstrip_blocks", "output_encoding")
_DELIMITERS = (
    "block_start_string",
    "block_end_string",
    "variable_start_string",
    "variable_end_string",
    "comment_start_string",
    "comment_end_string",
)


def rendering_path(source: str) -> str:
    """Where ansible's template action writes the rendering it copies (a temporary directory of
    its local_tmp, the template's name), which its diff names as "after"."""
    import os
    import secrets
    import string

    from engine.config import config_value

    local_tmp = os.path.expanduser(config_value("ANSIBLE_LOCAL_TEMP", "defaults", "local_tmp") or "~/.ansible/tmp")
    letters = string.ascii_lowercase + string.digits + "_"
    name = "".join(secrets.choice(letters) for _ in range(8))
    return os.path.join(local_tmp, f"ansible-local-{os.getpid()}{name}",
                        "tmp" + "".join(secrets.choice(letters) for _ in range(8)), os.path.basename(source))


def template_searchpath(source: str, ctx: ModuleContext) -> tuple[str, ...]:
    """Where the template's {% include %} and {% import %} look (the template action's
    ``searchpath``): each of the task's search paths and the template's own directory, its
    ``templates/`` first."""
    import os

    # ctx.search_paths is ansible_search_path then the basedir, which a play's own task file shares;
    # the action appends the basedir and the template's directory again, and keeps the repeats
    basedir = ctx.search_paths[-1] if ctx.search_paths else "."
    paths = [*(ctx.search_paths[:-1] or ctx.search_paths), basedir, os.path.dirname(source)]
    return tuple(p for base in paths for p in (os.path.join(base, "templates"), base))


_ESCAPED = {"\\n": "\n", "\\r": "\r", "\\r\\n": "\r\n"}
"""newline_sequence written escaped, which the template action turns into the sequence itself."""


def _action_error(args: dict[str, Any]) -> str | None:
    """The template action's own check of its arguments, before its module sees any (raised)."""
    if args.get("state") is not None:
        return "'state' cannot be specified on a template"
    if args.get("src") is None or args.get("dest") is None:
        return "src and dest are required"
    sequence = args.get("newline_sequence", "\n")
    if _ESCAPED.get(sequence, sequence) not in ("\n", "\r", "\r\n"):
        return "newline_sequence needs to be one of: \n, \r or \r\n"
    return None


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    error = _action_error(args)
    if error is not None:
        return before_module({"changed": False, "failed": True, "msg": error})
    refused = refused_arguments(args, _TEMPLATE_ONLY)
    written_dest = args.get("dest")  # template_destpath, and the dest the action hands the copy action
    params = validate("template", known_arguments(action_dest(args), SPEC), SPEC, strict=False)
    params["newline_sequence"] = _ESCAPED.get(params["newline_sequence"], params["newline_sequence"])
    params["refused"] = refused
    try:
        source = find_source(params["src"], "templates", ctx.search_paths)
    except ModuleError as exc:
        return before_module({"changed": False, "failed": True, "msg": str(exc)})
    read = os.path.normpath(source)  # DataLoader reads path_dwim's of it: an empty src's "templates/" is "templates"
    try:
        # newline="": ansible reads the bytes, so a text that is no template keeps its "\r\n"
        with open(read, encoding="utf-8", newline="") as handle:
            source_text = handle.read()
    except OSError as exc:  # ansible's DataLoader words it so, and the action fails
        return before_module({"changed": False, "failed": True,
                              "msg": f"Task failed: An error occurred while trying to read the file {read!r}: {exc}"})
    try:
        delimiters = {name: params[name] for name in _DELIMITERS if params[name] is not None}
        rendered = ctx.render(source_text, template_vars(params["src"], source, written_dest, ctx.task_vars),
                              trim_blocks=params["trim_blocks"], lstrip_blocks=params["lstrip_blocks"],
                              newline_sequence=params["newline_sequence"], searchpath=template_searchpath(source, ctx),
                              **delimiters)
    except TemplateFailure as exc:  # the action's error, from the template file or the value that failed in it
        from engine.run.error_block import ERROR_KEY, Event
        from engine.templating.errors import value_origin

        return before_module({"changed": False, "failed": True, "msg": f"Task failed: {exc}",
                              ERROR_KEY: [Event(str(exc), value_origin(exc) or source)]})
    # a file that is one expression may render to a non-string, an empty one to None (ansible writes '')
    text = "" if rendered is None else str(rendered)
    if not params["dest"]:  # the copy action the template action hands the text to refuses it
        return before_module({"failed": True, "msg": "dest is required"})
    data = text.encode(params["output_encoding"])
    rendering = rendering_path(source)
    if params["mode"] == "preserve":  # the template file's mode
        params = {**params, "mode": f"0{os.stat(source).st_mode & 0o7777:03o}"}
    # what the template action hands the copy action: the task's arguments without the template's
    # own, the mode, the rendering as src, dest and follow
    action_args = {key: value for key, value in sorted(args.items()) if key not in _TEMPLATE_ONLY}
    action_args["mode"] = params["mode"]
    action_args.update(src=rendering, dest=written_dest, follow=boolean(args.get("follow", False)))
    result = put(data, params["dest"], params["src"].rsplit("/", 1)[-1], source, params, ctx, is_content=False,
                 header=rendering, action_args=action_args, original_basename=os.path.basename(source))
    if result is None:
        result = action_result({"dest": params["dest"], "src": rendering, "changed": False})
    return ensure_invocation(result, action_args, ctx.no_log)

