"""ansible 2.19's backslash escaping: in a template it compiles itself (a value of a playbook or
vars file, not a template file, a conditional or a template Jinja compiles while rendering, such as
an ``{% include %}``), the backslashes of the string constants inside ``{{ }}`` are doubled before
Jinja reads their escape sequences, so that a YAML double-quoted ``"{{ 'a\\\\nb' }}"`` is the text
``a\\nb`` and ``regex_replace('(\\\\w+)', '\\\\1')`` gets ``\\1``, not the character U+0001, as
ansible's ``AnsibleLexer`` does. ``{% %}`` statements are not escaped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a cold listing, which loads this module, 20 ms it needs nothing else for
    from typing import Any

_ESCAPING: ContextVar[bool] = ContextVar("escaping_backslashes", default=False)
_LEXERS: dict[tuple[Any, ...], Any] = {}


@contextmanager
def escaping_backslashes() -> Iterator[None]:
    """While compiling a template ansible compiles with ``escape_backslashes`` on."""
    token = _ESCAPING.set(True)
    try:
        yield
    finally:
        _ESCAPING.reset(token)


def lexer_for(env: Any) -> Any:
    """The lexer of ``env``'s syntax settings (one per combination, as Jinja keeps its own)."""
    key = (env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
           env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
           env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline)
    lexer = _LEXERS.get(key)
    if lexer is None:
        lexer = _LEXERS[key] = _lexer_class()(env)
    return lexer


def _lexer_class() -> type:
    from jinja2.lexer import TOKEN_STRING, TOKEN_VARIABLE_BEGIN, TOKEN_VARIABLE_END, Lexer

    class AnsibleLexer(Lexer):
        def tokeniter(self, *args: Any, **kwargs: Any) -> Iterator[tuple[int, str, str]]:
            tokens = super().tokeniter(*args, **kwargs)
            if not _ESCAPING.get():
                yield from tokens
                return
            # an expression compiled alone (compile_expression) starts inside the variable
            in_variable = (kwargs["state"] if "state" in kwargs else args[3] if len(args) > 3 else None) == "variable"
            for token in tokens:
                kind = token[1]
                if kind == TOKEN_VARIABLE_BEGIN:
                    in_variable = True
                elif kind == TOKEN_VARIABLE_END:
                    in_variable = False
                elif in_variable and kind == TOKEN_STRING:
                    token = token[0], kind, token[2].replace("\\", "\\\\")
                yield token

    return AnsibleLexer
