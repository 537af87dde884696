"""Run-time templating: a sandboxed Jinja2 environment, built once per process, and the same
environment under static evaluation's limits for the values shown before a run.

Differs from :mod:`engine.templating.load_time` (static, for display) in what a run needs: native
types (``"{{ 3 }}"`` is the integer 3, as in ansible 2.19), lazily templated variables
(a variable whose value is a template is rendered when a template reads it), conditionals
that must come out boolean, and the filters and tests playbooks commonly use. A run's
:class:`Templar` computes what ansible computes; a bounded one (the variable model's, the
editor's) keeps to :mod:`engine.templating.bounds`' limits.
"""

from __future__ import annotations

import keyword
import re
import weakref
from collections.abc import Callable, Collection, Mapping
from functools import lru_cache, partial
from typing import Any, Protocol

from engine.booleans import FILTER_DEPRECATIONS
from engine.templating import read_names
from engine.templating.backslashes import escaping_backslashes
from engine.templating.bounds import (
    StaticRefusal,
    evaluation,
    static_evaluation_in_progress,
)
from engine.templating.defined_only import rendered_defined_only
from engine.templating.errors import (
    BrokenConditional,
    CallFailure,
    ConditionalRefused,
    PluginFailure,
    RunTimeOnly,
    StorageRefusal,
    TemplateFailure,
    UntrustedExpression,
    cause_of,
    evaluated_within_bounds,
    inline_if_undefined,
    refused_static,
    too_large_cause,
    too_large_reason,
    undefined_cause,
    value_origin,
)
from engine.templating.failure_messages import failure_message as _message
from engine.templating.failure_messages import marker_message as _marker_message
from engine.templating.failure_messages import syntax_message as _syntax_message
from engine.templating.finalize import (
    FINALIZED_TYPES,
    finalized,
    in_variable_value,
    omitted,
    syntax_error,
    variable_value,
)
from engine.templating.jinja_environment import (
    CONSTANT_TEMPLATE,
    bounded_environment,
    environment,
    is_captured_failure,
    is_template,
    options_environment,
    parsing_environment,
    template_constant,
)
from engine.templating.jinja_globals import DEFAULT_UNDEF
from engine.templating.lazy_variables import Layered, LazyVariables, PartlyRendered, own_copies, rendering_variable
from engine.templating.plugin_reports import reporting
from engine.templating.replacing import replacing
from engine.templating.tagged_retry import TaggedScope, tagged_failure
from engine.templating.template_syntax import (
    CONDITIONAL_AS_TEMPLATE,
    TEMPLATE_OVERRIDES,
    conditional_expression,
    newlines_at_end,
    possibly_template,
    template_header,
)
from engine.templating.type_names import native_type_name, tagged
from engine.templating.value_origins import expression_origin, failed_at, given_back
from engine.values import RunOrdered, YamlTimestamp


class Lookups(Protocol):
    """What a templar that may run lookups is given: the run's lookup context
    (engine.run.file_and_command_lookups.LookupContext). Static templating has none, so no lookup ever runs."""

    warn: Callable[[str], None] | None

    def template_globals(self, templar_of: Callable[[], Templar]) -> dict[str, Callable[..., Any]]:
        """``lookup``, ``query`` and ``q`` for the Jinja context of the templar ``templar_of()`` gives."""

    def invoke(self, templar: Templar, name: str, terms: list[Any], kwargs: dict[str, Any],
               invoked_as_with: bool = False) -> Any: ...



def _compiled(env: Any, source: str, conditional: bool = False, escape: bool = False) -> Any:
    """``env.from_string(source)``, compiled once: Jinja only caches templates it loads by name,
    and compiling costs far more than rendering (a loop renders the same text per item). A
    ``conditional`` renders the template-looking string constants it holds first. ``escape``:
    compiled with ansible's backslash escaping (see :mod:`engine.templating.backslashes`).
    A source that does not compile (a filter nobody defines) fails the same way each time it is
    asked for, on each host, without being compiled again."""
    from jinja2 import TemplateSyntaxError

    compiled = _compile(env, source, conditional, escape)
    if isinstance(compiled, TemplateSyntaxError):  # a new one each time: a caller adds where it was met
        failure = TemplateSyntaxError(compiled.message or "", compiled.lineno, compiled.name, compiled.filename)
        failure.source, failure.translated = compiled.source, compiled.translated
        raise failure
    return compiled


@lru_cache(maxsize=1024)
def _compile(env: Any, source: str, conditional: bool, escape: bool) -> Any:
    from jinja2 import TemplateSyntaxError

    try:
        if escape:
            with escaping_backslashes():
                return env.from_string(source)
        if not conditional:
            return env.from_string(source)
        tree = _mark_conditional_constants(env.parse(source))
        return env.template_class.from_code(env, env.compile(tree), env.make_globals(None), None)
    except TemplateSyntaxError as exc:
        return exc


# ansible 2.19 (ALLOW_EMBEDDED_TEMPLATES) renders a conditional's template-looking string
# constants when it evaluates them, with a warning: in `'{{ n }}' in out.stdout` the constant
# becomes the native value of n (an int, so `in` fails as in ansible). This global does it.
CONDITIONAL_CONSTANT = "__pls_conditional_constant"


def _mark_conditional_constants(tree: Any) -> Any:
    return _constant_marker()().visit(tree)


@lru_cache(maxsize=1)
def _constant_marker() -> type:
    """The transformer marking a conditional's constant strings, made once (Jinja imported when first needed)."""
    from jinja2 import nodes
    from jinja2.visitor import NodeTransformer

    class Mark(NodeTransformer):
        def visit_Const(self, node: Any) -> Any:
            return template_constant(node, CONDITIONAL_CONSTANT)

        def visit_Call(self, node: Any) -> Any:
            if isinstance(node.node, nodes.Name) and node.node.name == CONSTANT_TEMPLATE:
                return node  # a lookup term: templated by the lookup, once
            return self.generic_visit(node)

    return Mark


_PLAIN_NAME = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
# names Jinja's parser reads as something else than a variable: constants, operators, keywords
_NOT_PLAIN = frozenset(keyword.kwlist) | {"true", "false", "none", "True", "False", "None"}


def _plain_name(text: str, expression: bool) -> str | None:
    """The variable ``text`` is made of alone (``{{ name }}``, or ``name`` as an expression),
    whose value is the template's: ``native_concat`` of one node gives the value itself."""
    match = _PLAIN_NAME.fullmatch(text) if not expression else None
    name = match.group(1) if match else (text if expression and text.isidentifier() else None)
    return None if name is None or name in _NOT_PLAIN else name


class Templar:
    """Templates values and evaluates conditionals against one set of variables."""

    def __init__(self, variables: Mapping[str, Any], lookups: Lookups | None = None, task_scope: bool = True,
                 bounded: bool = False, data: Collection[str] = (),
                 origin_of: Callable[[str, bool], Any] | None = None,
                 deprecate: Callable[[str, str], None] | None = None, *, tagging: bool = False) -> None:
        """``lookups``: the lookups a template may call (the run's, or engine.templating.pure_lookups.PureLookups
        for static templating); without it ``lookup``/``query``/``q`` are undefined and no lookup
        ever runs (no pipe, no password file). ``task_scope``: the variables are a task's or a
        play's, so ``vars`` names them all (not so for one host's ``hostvars``).

        ``bounded``: for static evaluation (a value shown before the run): every call of
        :meth:`template`, :meth:`evaluate` or :meth:`render_text` (and every read of
        :attr:`variables`) from outside is one :func:`~engine.templating.bounds.evaluation`, with its
        budget, deadline and size limits, and a value beyond them, nested too deeply, or inside
        itself fails as a :class:`TemplateFailure` (:func:`too_large_reason` tells the first two
        apart). A run's templar is not bounded: it computes what ansible computes. Any templar
        used while a static evaluation is in progress (``hostvars``' own) is bounded too.

        ``data``: the names of ``variables`` read as they are, never rendered (the magic
        variables, which ansible builds itself and does not trust as templates).

        ``origin_of(name, follow)``: where a variable's value is written (a run's: for a broken
        conditional's message, following a value that names another, and for the error of a
        variable's template, not following), or None. ``deprecate(message, conditional)``: a
        run's deprecation warning about a conditional as written."""
        settings = (variables, lookups, task_scope, bounded, data, origin_of, deprecate, tagging)
        self._set(settings)
        self.variables: LazyVariables = _TemplarVariables(self, settings)

    def _set(self, settings: tuple[Any, ...]) -> None:
        (self.raw, self.lookups, self.task_scope, self.bounded, self.data, self.origin_of, self.deprecate,
         self._tagging) = settings  # _tagging: variables handed to templates tagged as ansible's are (tagged_retry)
        self._globals: Mapping[str, Any] | None = None

    @classmethod
    def _of(cls, variables: _TemplarVariables, settings: tuple[Any, ...]) -> Templar:
        """A templar of ``settings`` over ``variables``, which outlived the templar they were made for."""
        templar = cls.__new__(cls)
        templar._set(settings)
        templar.variables = variables
        return templar

    def _variable(self, value: Any) -> Any:
        """A variable's value rendered for a template that reads it (its undefined items kept)."""
        with variable_value():
            return self.template(value)

    def _loop_failure(self, message: str, name: str) -> TemplateFailure:
        """A variable read while it renders: ansible chains the error to the variable's value."""
        failure = TemplateFailure(message)
        if self.origin_of is not None:
            failure.value_origin = self.origin_of(name, False)  # type: ignore[attr-defined]
        return failure

    def _deferred(self, name: str, exc: Exception) -> Any:
        """A variable whose template fails: undefined itself when it needs an undefined
        variable, else a captured failure, each failing with its message where a template uses
        it (ansible 2.19's markers), not where it is only mentioned."""
        message = str(exc)
        if cause_of(exc, RunTimeOnly) is not None:
            return None  # only the run knows it: whatever reads it is unknown, even behind default()
        if (isinstance(exc, (RecursionError, MemoryError)) or message.startswith("Recursive loop detected")
                or too_large_cause(exc) is not None):
            return None  # a loop, or a value too large to evaluate statically: refused where it is met
        env = bounded_environment() if self.bounded else environment()
        if isinstance(exc, CallFailure):  # the call's error, with no place of its own
            marker = env.captured_failure(hint=message, name=name)
            marker.raised = exc.__cause__ or exc
            return marker
        marker = env.undefined(hint=message, name=name) if undefined_cause(exc) else \
            env.captured_failure(hint=message, name=name)
        # ansible chains the error to the value that failed, innermost first (undef()'s shared marker has no origin)
        if self.origin_of is not None and message != DEFAULT_UNDEF:
            marker.value_origin = value_origin(exc) or self.origin_of(name, False)
        return marker

    def child(self, more: Mapping[str, Any], origins: Mapping[str, Any] | None = None) -> Templar:
        """A templar that also sees ``more`` (a loop item, say), taking precedence; ``origins``:
        where some of them are written (a loop item's place in its list)."""
        data = self.data if not any(name in self.data for name in more) else \
            frozenset(name for name in self.data if name not in more)
        origin_of = self.origin_of
        if origin_of is not None and more:
            parent, known = origin_of, origins or {}

            def origin_of(name: str, follow: bool) -> Any:
                return known.get(name) if name in more else parent(name, follow)
        return Templar(Layered(more, self.raw), self.lookups, self.task_scope, self.bounded, data, origin_of,
                       self.deprecate)

    def _within_bounds(self, function: Callable[..., Any], value: Any, **kwargs: Any) -> Any:
        """``function(value, **kwargs)`` as one static evaluation when this templar is bounded and
        none is in progress; otherwise as it is. A text refused once is refused at once after
        that, whatever the variables (as :func:`engine.templating.load_time.render` does): the same
        template is met on every host and at every hover."""
        if not self.bounded or static_evaluation_in_progress():
            return function(value, **kwargs)
        remembered = _refused_texts.get(value) if isinstance(value, str) else None
        if remembered is not None:
            raise refused_static(remembered)
        try:
            with evaluation():
                return evaluated_within_bounds(function, value, **kwargs)
        except TemplateFailure as exc:
            cause = too_large_cause(exc)
            if cause is not None and isinstance(value, str):
                if len(_refused_texts) >= _REFUSED_MEMORY:
                    _refused_texts.clear()
                _refused_texts[value] = cause.what
            raise

    def _scope(self, env: Any) -> Mapping[str, Any]:
        if self._globals is None:
            # each through the variables' templar: a function of this templar kept in its globals would be a cycle
            templar_of = self.variables.templar  # type: ignore[attr-defined]
            own = {CONDITIONAL_CONSTANT: partial(_conditional_constant, templar_of)}
            if self.lookups is not None:
                own.update(self.lookups.template_globals(templar_of))
            self._globals = Layered(own, env.globals)
        scope = Layered(self.variables, self._globals)
        if self._tagging:
            scope = TaggedScope(scope, self._written)
        if self.task_scope:  # get_vars sets 'vars' last: every variable, templated when read (each name noted)
            return Layered({"vars": read_names.NamedReads(self.variables)}, scope)
        return scope

    def _hostvars_alike(self) -> bool:
        """Whether the ``hostvars`` this templar's templates read is one object for every host reading
        it at the task (its ``read_alike``: engine.variables.followed_hostvars), as the names read
        record it (engine.templating.read_names.HOSTVARS_ALIKE)."""
        try:
            hostvars = self.raw["hostvars"]
        except Exception:  # noqa: BLE001 - none, or only the run's: not one known object
            return False
        alike = getattr(hostvars, "read_alike", None)
        return alike is not None and bool(alike())

    def _written(self, name: str) -> bool:
        return name not in self.data and self.origin_of is not None and self.origin_of(name, False) is not None

    def _conditional_constant(self, text: str) -> Any:
        if self.lookups is not None and self.lookups.warn is not None:
            self.lookups.warn("Jinja constant strings should not contain embedded templates. This feature will be "
                              "disabled by default in ansible-core 2.23.")
        return tagged(self.template(text))

    def run_lookup(self, name: str, terms: list[Any], **kwargs: Any) -> Any:
        """A lookup invoked as ``with_<name>`` (``_get_loop_items``): wantlist, first_found's with_ rules."""
        if self.lookups is None:
            raise TemplateFailure(f"lookups are not enabled here; cannot run the lookup {name!r}")
        lookups = self.lookups
        # bounded as a template is: with_sequence, with_nested... can make millions of items
        return self._within_bounds(lambda _value: lookups.invoke(self, name, terms, kwargs, invoked_as_with=True),
                                   None)

    def template(self, value: Any) -> Any:
        if self.bounded and not static_evaluation_in_progress():
            return self._within_bounds(self._template, value)
        return self._template(value)

    def _template(self, value: Any, containers: set[int] | None = None) -> Any:
        if isinstance(value, str):
            if type(value) is YamlTimestamp:  # what ansible's loader made of it, and its templates see
                return value.moment
            return self._render(value) if is_template(value) else value
        if not isinstance(value, list | dict):
            return value
        if static_evaluation_in_progress():  # a run meets a value inside itself as ansible does: too deep
            containers = set() if containers is None else containers
            if id(value) in containers:
                raise TemplateFailure(RECURSIVE_VALUE)
            containers.add(id(value))
        at: list[Any] = [None]  # the index or key being templated, for a failure's origin
        try:
            if isinstance(value, list):  # a run-ordered list stays one (its order is still the run's)
                found = [t for at[0], v in enumerate(value) if not omitted(t := self._template(v, containers))]
                return RunOrdered.made_from(value, found) if isinstance(value, RunOrdered) else found
            return {self._template(at[0], containers): t for at[0], v in value.items()
                    if not omitted(t := self._template(v, containers))}
        except Exception as exc:
            failed_at(exc, value, at[0])
            raise
        finally:
            if containers is not None:
                containers.discard(id(value))

    def render_text(self, text: str, variables: Mapping[str, Any] | None = None, **overrides: Any) -> Any:
        """A whole text (a template file), rendered as ansible's template action renders it with
        ``overrides`` (trim_blocks, lstrip_blocks, newline_sequence) in force and ``variables``
        (the action's template variables) over the task's."""
        unknown = set(overrides) - TEMPLATE_OVERRIDES
        if unknown:
            raise TypeError(f"unsupported template overrides: {', '.join(sorted(unknown))}")
        if not possibly_template(text, overrides):
            return text  # ansible does not render it: the text as it is
        body, header = template_header(text)
        # the header's settings win over the action's for Jinja; the newlines given back after the
        # rendering are counted on the whole text and use the action's newline_sequence, once
        syntax = {**overrides, **header}
        templar = self.child(variables) if variables else self
        result = templar._within_bounds(templar._render, body, overrides=tuple(sorted(syntax.items())),
                                        restore_newlines=not header)
        if header and isinstance(result, str):
            missing = newlines_at_end(text) - newlines_at_end(result)
            result += overrides.get("newline_sequence", "\n") * max(missing, 0)
        return result

    def _render(self, text: str, expression: bool = False, overrides: tuple[tuple[str, Any], ...] = (),
                restore_newlines: bool = True) -> Any:
        try:
            return self._render_once(text, expression, overrides, restore_newlines)
        except TemplateFailure as exc:
            if (again := rendered_defined_only(exc, text, expression, environment().parse, lambda more: self.child(
                    more)._render_once(text, expression, overrides, restore_newlines))) is not None:
                return again[0]  # it only asks whether a variable the run certainly sets is defined
            if self._tagging or self.bounded or self.origin_of is None or replacing() is not None:
                raise
            retry = Templar(self.raw, self.lookups, self.task_scope, data=self.data, origin_of=self.origin_of,
                            tagging=True)
            failure = tagged_failure(exc, text,
                                     lambda: retry._render_once(text, expression, overrides, restore_newlines))
            if failure is exc:
                raise
            raise failure from failure.__cause__

    def _render_once(self, text: str, expression: bool = False, overrides: tuple[tuple[str, Any], ...] = (),
                     restore_newlines: bool = True) -> Any:
        from jinja2 import TemplateError, TemplateNotFound, TemplateRuntimeError, TemplateSyntaxError, Undefined
        from jinja2.exceptions import SecurityError

        if read_names.recording():  # an expression's names are those of it in {{ }}
            read_names.note_template(f"{{{{ {text} }}}}" if expression else text, environment().parse, self.task_scope,
                                     self._hostvars_alike)

        if self.deprecate is not None and FILTER_DEPRECATIONS.get() is None:  # a run's: plugins may warn
            with reporting(self.deprecate, self.lookups.warn if self.lookups is not None else None):
                return self._render(text, expression, overrides, restore_newlines)

        bounded = static_evaluation_in_progress()
        if overrides:
            env = options_environment(overrides, bounded)
        else:
            env = bounded_environment() if bounded else environment()
        name = _plain_name(text, expression)
        try:
            scope = own_copies(text, self._scope(env))
            if name is not None and name in scope:  # what Jinja's Context.resolve_or_missing asks, uncompiled
                value = scope[name]
                if not isinstance(value, Undefined):  # a container some items of which failed fails whole
                    if isinstance(value, PartlyRendered) and not in_variable_value():  # (as it is given)
                        return finalized(value)
                    return value
            # a template file (overrides) and an expression are compiled without the escaping
            template = _compiled(env, "{{ " + text + " }}" if expression else text, expression,
                                 not expression and not overrides)
            context = template.new_context(scope, shared=True)
            nodes = template.root_render_func(context)  # type: ignore[attr-defined]
            markers = replacing()
            result = template.environment.concat(nodes) if markers is None else \
                markers.concat(template.environment.concat, nodes, lambda: self._template_origin(markers.origin),
                               _marker_message, is_captured_failure)
            if type(result) in (Undefined, range):
                if in_variable_value():  # Jinja's own Undefined (an inline `if` without `else`), a range: a value
                    return result  # handed on (text shows an Undefined as nothing), refused when stored
                raise StorageRefusal.of(result, text, expression, _message)
            if isinstance(result, Undefined):
                result._fail_with_undefined_error()
            if isinstance(result, FINALIZED_TYPES):
                result = finalized(result, top_level=True)
        except CallFailure as exc:
            if in_variable_value():  # a variable's template hands the call's error on bare
                raise
            raw = exc.__cause__ or exc  # the template finalizing it words it, as it does its own
            raise TemplateFailure(_message(raw, text) if expression else f"Error rendering template: {raw}") from raw
        except TemplateFailure:
            raise
        except TemplateSyntaxError as exc:  # create_template_error words it, and says why for an expression
            raise TemplateFailure(_syntax_message(exc, text, expression)) from exc
        except (ArithmeticError, TypeError, ValueError, AttributeError, KeyError, IndexError, TemplateNotFound) as exc:
            if getattr(exc, "raised_by_call", False) and in_variable_value():
                raise CallFailure(str(exc)) from exc
            # create_template_error: a Python error while rendering (an expression's caller words it)
            raise TemplateFailure(_message(exc, text) if expression else f"Error rendering template: {exc}") from exc
        except (TemplateError, SecurityError, StaticRefusal) as exc:
            # Jinja's "No filter named 'x' found.", its own Undefined's error: a template's error to ansible
            if (type(exc) is TemplateRuntimeError or inline_if_undefined(exc)) and not expression:
                raise TemplateFailure(f"Error rendering template: {exc}") from exc
            raise TemplateFailure(_message(exc, text)) from exc
        except re.error as exc:  # a run fails the task with it as with any error a filter raises
            if not bounded:
                raise
            raise TemplateFailure(_message(exc, text)) from exc
        if not expression and restore_newlines and isinstance(result, str):
            # ansible's _post_render_mutation: give back the trailing newlines Jinja dropped, but
            # only to text; "{{ true }}\n" stays the boolean True, as ansible 2.19 renders it.
            missing = newlines_at_end(text) - newlines_at_end(result)
            if missing > 0:
                result += dict(overrides).get("newline_sequence", "\n") * missing
        return result

    def _template_origin(self, top: Any) -> Any:
        """Where the template being rendered is written: the value of the variable being
        rendered, else ``top``."""
        name = rendering_variable()
        origin = self.origin_of(name, False) if name is not None and self.origin_of is not None else None
        return origin if origin is not None else top

    def value_of(self, expression: str) -> Any:
        """The native value of a bare Jinja expression (an operand of a condition)."""
        return self._within_bounds(self._render, expression, expression=True)

    def evaluate(self, conditional: Any) -> bool:
        """ansible 2.19's ``evaluate_conditional``: a bare expression (or one wholly wrapped
        in ``{{ }}``) that must come out boolean."""
        if isinstance(conditional, bool):
            return conditional
        if not isinstance(conditional, str):
            raise ConditionalRefused("Conditional expressions must be strings.")
        text = conditional_expression(conditional)
        if not text:
            raise ConditionalRefused("Empty conditional expressions are not allowed.")
        indirect = False
        try:
            result = self._within_bounds(self._render, text, expression=True)
            if text != conditional.strip() and isinstance(result, str):
                # an expression a variable holds, named wholly in {{ }}: ansible evaluates it in
                # turn when it trusts it, a string a file wrote (not a module's, not a rendering's)
                if not result.strip():
                    raise ConditionalRefused("Empty conditional expressions are not allowed.")
                if not self._written_as_is(text):
                    raise UntrustedExpression(expression_origin(text, self.variables, self.origin_of))
                indirect, text = True, result.strip()
                result = self._within_bounds(self._render, text, expression=True)
        except (UntrustedExpression, ConditionalRefused):
            raise
        except TemplateFailure as exc:
            # ansible 2.19 words an undefined variable as the conditional's, any other error as
            # the expression's (_normalize_and_evaluate_conditional); the expression is compiled
            # as one, so a syntax error is the expression parser's
            syntax = syntax_error(parsing_environment(), text)
            if syntax is not None:
                raise TemplateFailure(_syntax_message(syntax, text, True)) from exc
            if str(exc).startswith("Syntax error in expression") or isinstance(exc, PluginFailure):
                raise  # compiling it failed (an unknown filter), or a plugin did: ansible's own errors
            if getattr(exc, "captured", False) and value_origin(exc) is not None:
                raise  # the expression gave a variable's failure (`x is defined`): raised as it was made
            prefix = "Error while evaluating conditional" if undefined_cause(exc) else "Error rendering expression"
            raise TemplateFailure(f"{prefix}: {exc}") from exc
        if text != conditional.strip() and self.deprecate is not None and not isinstance(result, str) and not indirect:
            # a conditional wholly in {{ }} is rendered as a template first (2.19 deprecates it)
            self.deprecate(CONDITIONAL_AS_TEMPLATE, conditional)
        if isinstance(result, bool):
            return result
        raise BrokenConditional(bool(result), native_type_name(result),
                                expression_origin(text, self.variables, self.origin_of))

    def _written_as_is(self, text: str) -> bool:
        """Whether the expression ``text`` gives back a string a file wrote, without a template
        in it (a variable, a key of one, through ``default()``, or through a variable that is one
        other's template, which gives the other's value itself), rather than one a module, a
        fact or a rendering made."""
        if self.origin_of is None or not isinstance(self.variables, LazyVariables):
            return False
        path = given_back(text.strip(), self.variables)
        for _ in range(8):
            if path is None:
                return False
            name, *keys = path.split(".")
            if self.origin_of(name, False) is None:  # a result, a fact: no file wrote it
                return False
            try:
                value = self.variables.written(name)
            except KeyError:
                return False
            for key in keys:
                value = value.get(key) if isinstance(value, Mapping) else None
            if not isinstance(value, str):
                return False
            inner = _ONE_VARIABLE.fullmatch(value)
            if inner is None:
                return not is_template(value) and "{%" not in value
            path = inner.group(1)
        return False

    def evaluate_each(self, conditional: str, scopes: list[Mapping[str, Any]]) -> list[bool | None]:
        """:meth:`evaluate` of ``conditional`` with each of ``scopes`` (a loop's items, all with
        the same names) over these variables, in one rendering: a loop of a thousand items is
        one template run, not a thousand. None for an item whose result is not a boolean, and
        for every item when the rendering fails or the expression is one a rendering per item
        must see (``vars``, a lookup, Jinja's ``loop``, an embedded template): the caller
        evaluates those one by one, for ansible's own error."""
        text = conditional_expression(conditional)
        names = list(scopes[0]) if scopes else []
        if (not scopes or not text or _SEES_CONTEXT.search(text) or text != conditional.strip()
                or not all(name.isidentifier() for name in names)
                or any(marker in text for marker in ("{{", "}}", "{%", "%}", "{#", "#}"))):
            return [None] * len(scopes)
        read = [name for name in names if name in _names_in(text)]
        if len(read) == 1:  # the usual `item ...`: the loop's own target, nothing looked up per item
            loop, binds, values = read[0], "", [scope[read[0]] for scope in scopes]
        else:
            loop, values = "__pls_scope", scopes
            binds = "".join(f"{{% set {name} = __pls_scope[{name!r}] %}}" for name in read)
        # one letter per item: no call per item, whose bounds checks would cost more than the test
        source = (f"{{% for {loop} in __pls_items %}}{binds}{{% set __pls_value = ({text}) %}}"
                  "{{ 'T' if __pls_value is sameas true else 'F' if __pls_value is sameas false else 'N' }}"
                  "{% endfor %}")

        def render(_source: str) -> Any:
            env = bounded_environment() if static_evaluation_in_progress() else environment()
            template = _compiled(env, _source, True)
            context = template.new_context(Layered({"__pls_items": values}, self._scope(env)), shared=True)
            return template.environment.concat(template.root_render_func(context))

        try:
            letters = self._within_bounds(render, source)
        except Exception:  # noqa: BLE001 - each item again, alone, says which and how
            return [None] * len(scopes)
        if not isinstance(letters, str) or len(letters) != len(scopes):
            return [None] * len(scopes)
        return [True if letter == "T" else False if letter == "F" else None for letter in letters]


class _TemplarVariables(LazyVariables):
    """A templar's variables, each rendered by the templar on its first read. They hold their
    templar weakly: a templar and its variables holding each other would be a reference cycle,
    which only the garbage collector frees, and a plan makes tens of thousands of templars, each
    with what it rendered. Variables that outlive their templar (a host's ``hostvars`` handed on)
    render with a new one of the same settings."""

    def __init__(self, templar: Templar, settings: tuple[Any, ...]) -> None:
        # (not LazyVariables.__init__: its callbacks, bound methods of the templar, are this class's methods)
        self._raw, self._data = settings[0], settings[4]
        self._done: dict[str, Any] = {}
        self._busy: set[str] = set()
        self._owner = weakref.ref(templar)
        self._settings = settings
        self._revived: Templar | None = None

    def templar(self) -> Templar:
        """The templar these variables render with."""
        templar = self._owner()
        if templar is None:
            templar = self._revived = Templar._of(self, self._settings)  # kept: its cycle is rare
            self._owner = weakref.ref(templar)
        return templar

    def _render(self, value: Any) -> Any:  # type: ignore[override]
        return self.templar()._variable(value)

    def _loop_error(self, message: str, key: str) -> Exception:  # type: ignore[override]
        return self.templar()._loop_failure(message, key)

    def _deferred(self, key: str, exc: Exception) -> Any:  # type: ignore[override]
        return self.templar()._deferred(key, exc)


def _conditional_constant(templar_of: Callable[[], Templar], text: str) -> Any:
    return templar_of()._conditional_constant(text)


# a template that is one variable, or a key of one: it gives back that value itself
_ONE_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}")


@lru_cache(maxsize=1024)
def _names_in(expression: str) -> frozenset[str]:
    """Every name ``expression`` mentions (empty when it does not parse: the rendering will say so)."""
    from jinja2 import TemplateSyntaxError, meta

    try:
        return frozenset(meta.find_undeclared_variables(parsing_environment().parse("{{ " + expression + " }}")))
    except (TemplateSyntaxError, ValueError, RecursionError):
        return frozenset()


# names whose meaning in one rendering of a whole loop is not what it is in one item's
_SEES_CONTEXT = re.compile(r"\b(?:vars|lookup|query|q|loop|self|caller|varargs|kwargs|namespace)\b")


RECURSIVE_VALUE = "Recursive loop detected in template: the value contains itself (a YAML alias inside itself?)"


_REFUSED_MEMORY = 1024
_refused_texts: dict[str, str] = {}  # template text -> why a bounded templar refused it


__all__ = ["Templar", "TemplateFailure", "bounded_environment", "environment", "too_large_reason"]
