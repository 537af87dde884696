"""What a template file may change of Jinja's syntax, as ansible's ``TemplateOverrides``: the
options the template action and lookup pass, and a file's own ``#jinja2:`` first line; and the
bare expression of a conditional, which ansible takes out of one wrapping ``{{ }}``.
"""

from __future__ import annotations

from typing import Any

from engine.templating.errors import TemplateFailure

# The block-syntax options ansible's template action passes as overrides; any other string is
# templated with ansible's environment defaults (trim_blocks on, lstrip_blocks off). ``searchpath``
# (a tuple of directories) is where {% include %}, {% import %} and {% extends %} find other
# files, as the action's copy_with_new_env(searchpath=...) gives its environment a file loader.
# The delimiters apply to the file and to what it includes or imports (ansible's overlay).
START_STRINGS = {"block_start_string": "{%", "variable_start_string": "{{", "comment_start_string": "{#"}
DELIMITERS = frozenset({*START_STRINGS, "block_end_string", "variable_end_string", "comment_end_string"})
# What a template's "#jinja2:" first line may set (ansible's TemplateOverrides fields).
HEADER_OVERRIDES = frozenset({*DELIMITERS, "line_statement_prefix", "line_comment_prefix", "trim_blocks",
                              "lstrip_blocks", "newline_sequence", "keep_trailing_newline"})
TEMPLATE_OVERRIDES = frozenset({"searchpath", *HEADER_OVERRIDES})
JINJA2_OVERRIDE = "#jinja2:"


def template_header(text: str) -> tuple[str, dict[str, Any]]:
    """The text after a "#jinja2: key: value, ..." first line, and the overrides it sets
    (``TemplateOverrides._extract_template_overrides``); a text without one, as it is."""
    import ast

    if not text.startswith(JINJA2_OVERRIDE):
        return text, {}
    eol = text.find("\n")
    try:
        if eol == -1:
            raise ValueError(f"Missing newline after {JINJA2_OVERRIDE!r} override.")
        found: dict[str, Any] = {}
        for pair in text[len(JINJA2_OVERRIDE):eol].split(","):
            if not pair.strip():
                raise ValueError(f"Empty {JINJA2_OVERRIDE!r} override pair not allowed.")
            if ":" not in pair:
                raise ValueError(f"Missing key-value separator `:` in {JINJA2_OVERRIDE!r} override pair {pair!r}.")
            key, value = pair.split(":", 1)
            if key.strip() not in HEADER_OVERRIDES:
                raise ValueError(f"Invalid {JINJA2_OVERRIDE!r} override key {key.strip()!r}.")
            found[key.strip()] = ast.literal_eval(value)
    except (ValueError, SyntaxError) as exc:  # AnsibleTemplateSyntaxError, raised from the cause
        raise TemplateFailure(f"Syntax error in template: {str(exc).strip()}") from exc
    return text[eol + 1:], found


def possibly_template(text: str, overrides: dict[str, Any]) -> bool:
    """``is_possibly_template``: whether ``text`` holds a start string of the syntax ``overrides``
    set (or a ``#jinja2:`` header); ansible writes any other text as it is, unrendered."""
    starts = [overrides.get(name, default) for name, default in START_STRINGS.items()]
    if not (starts[0] != starts[1] != starts[2] != starts[0]):  # TemplateOverrides._post_validate
        raise TemplateFailure("Block, variable and comment start strings must be different.")
    return text.startswith(JINJA2_OVERRIDE) or any(start in text for start in starts)


def newlines_at_end(text: str) -> int:
    """How many newlines end ``text`` (ansible gives back those Jinja drops from a template's end)."""
    return len(text) - len(text.rstrip("\n"))


CONDITIONAL_AS_TEMPLATE = ("Conditionals should not be surrounded by templating delimiters such as {{ }} or {% %}. "
                           "This feature will be removed from ansible-core version 2.23.")


def conditional_expression(conditional: str) -> str:
    """The bare expression ansible evaluates for a conditional: the text, stripped, without the
    ``{{ }}`` that wholly wraps it (one pair only)."""
    text = conditional.strip()
    if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1:
        text = text[2:-2].strip()
    return text
