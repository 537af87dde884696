"""The ``constructed`` inventory plugin: variables and groups computed with Jinja2 from the inventory.

A port of ansible-core 2.19's ``plugins/inventory/constructed.py`` and the ``Constructable``
mixin (``_compose``, ``_set_composite_vars``, ``_add_host_to_composed_groups``,
``_add_host_to_keyed_groups``). Hosts are processed in inventory order; for each host the
``compose`` entries are set first, then the ``groups`` conditionals and ``keyed_groups`` are
evaluated against its variables re-read after composing. Group names are sanitised like
ansible's plugins do (``to_safe_group_name`` with ``force``). With ``strict: false`` an entry
whose expression fails is skipped; with ``strict: true`` it stops the source with an error.

Expressions run in the one bounded Jinja2 environment of :mod:`engine.templating.templar` (what a task's
templates see: ansible's filters and tests, native types), so an unknown filter fails the
expression, as in ansible, and a known one gives what it gives in a playbook. This module is
only called by the inventory loader on explicit commands; importing it runs nothing.
The facts of a persistent fact cache (ansible reads its cache plugin's entry of each host) are
given by the caller: they top the host's variables, as strings ansible does not template again.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.inventory.combine import combine_vars
from engine.inventory.data import InventoryError, sort_groups, to_safe_group_name
from engine.inventory.trust import as_ansible_tags, trusted_variables, with_moments
from engine.templating.bounds import evaluation
from engine.templating.lazy_variables import Layered, LazyVariables
from engine.templating.load_time import is_template
from engine.values import UnsafeText

if TYPE_CHECKING:
    from engine.inventory.data import Host, InventoryData
    from engine.inventory.vars_files import VarsFiles

EMPTY_KEY_VALUES = (None, "")
"""Keyed-group values that ``default_value`` / ``trailing_separator`` apply to (ansible's ``should_default_value``)."""


class ConstructedError(InventoryError):
    """A ``constructed`` source that ansible refuses to apply."""


def _sanitize_group_name(name: str) -> str:
    """ansible's inventory plugins always replace invalid characters (``force=True, silent=True``)."""
    return to_safe_group_name(name, force=True, silent=True)


class ExpressionSyntaxError(ValueError):
    """An expression Jinja2 cannot compile (bad syntax, unknown filter or test)."""


# --- Jinja ---------------------------------------------------------------------------------

def _environments() -> tuple[Any, Any]:
    """The one bounded environment of :mod:`engine.templating.templar`, for bare expressions and for
    conditionals and templates alike: ansible 2.19 escapes the backslashes of string constants only
    inside ``{{ }}``, which a bare expression (``compose``, ``keyed_groups``) does not have, so
    ``'\\1'`` there is Jinja's escape sequence, as in a conditional."""
    from engine.templating.templar import bounded_environment

    environment = bounded_environment()
    return environment, environment


class ConstructedTemplar:
    """Evaluates constructed's expressions and conditionals like ansible's templar does."""

    def evaluate_expression(self, expression: Any, variables: Mapping[str, Any]) -> Any:
        """A bare Jinja2 expression (``var1 + var2``), with its native result."""
        if not isinstance(expression, str):
            raise TypeError(f"Expressions must be {str!r}, got {type(expression)!r}.")
        return self._evaluate(_environments()[0], expression, variables)

    def evaluate_conditional(self, conditional: Any, variables: Mapping[str, Any]) -> bool:
        """A conditional: an expression (or a whole ``{{ }}`` template naming one) that must give a boolean."""
        if conditional is None or (isinstance(conditional, str) and not conditional.strip()):
            return False
        if type(conditional) is bool:
            return conditional
        if not isinstance(conditional, str):
            raise TypeError("Conditional expressions must be strings.")
        result = expression = conditional.strip()
        if expression.startswith(("{{", "{%")) and expression.endswith(("}}", "%}")):
            result = expression = self.template(expression, variables)
        if isinstance(expression, str):
            result = self._evaluate(_environments()[1], expression, variables)
        if isinstance(result, bool):
            return result
        raise TypeError(f"Conditional result ({bool(result)}) was derived from value of type "
                        f"{type(result).__name__!r}. Conditionals must have a boolean result.")

    def template(self, value: Any, variables: Mapping[str, Any]) -> Any:
        """A value that may contain ``{{ }}``; a single ``{{ expression }}`` keeps its native type."""
        if not is_template(value):
            return value
        text = value.strip()
        if text.startswith("{{") and text.endswith("}}") and text.count("{{") == 1 and "{%" not in text:
            return self._evaluate(_environments()[1], text[2:-2], variables)
        with evaluation():
            template = _environments()[1].from_string(value)
            return template.environment.concat(template.root_render_func(self._context(template, variables)))

    def _context(self, template: Any, variables: Mapping[str, Any]) -> Any:
        """A context over ``variables`` lazily templated, as ansible's templar gives a template
        (one for a whole evaluation: nested renders reuse it), with the environment's globals."""
        if not isinstance(variables, LazyVariables):
            lazy = LazyVariables(variables, lambda value: self._render_value(value, lazy))
            variables = lazy
        return template.new_context(Layered(variables, template.environment.globals), shared=True)

    def _render_value(self, value: Any, variables: LazyVariables) -> Any:
        """A variable's value with the templates in it (also inside lists and dicts) rendered.
        Strings ``compose`` made are :class:`UnsafeText` and, as in ansible, never templated again."""
        if isinstance(value, list):
            return [self._render_value(item, variables) for item in value]
        if isinstance(value, dict):
            return {key: self._render_value(item, variables) for key, item in value.items()}
        if isinstance(value, UnsafeText):
            return value
        return self.template(value, variables)

    def _evaluate(self, environment: Any, expression: str, variables: Mapping[str, Any]) -> Any:
        from jinja2 import TemplateSyntaxError, Undefined

        try:
            with warnings.catch_warnings():  # Jinja warns about escapes like '\\.' that ansible accepts silently
                warnings.simplefilter("ignore", DeprecationWarning)
                compiled = environment.compile_expression(expression, undefined_to_none=False)
        except TemplateSyntaxError as exc:  # includes unknown filters and tests, worded like ansible
            raise ExpressionSyntaxError(f"Syntax error in expression: {exc.message}") from None
        # like jinja's TemplateExpression.__call__, but over lazily templated variables
        template = compiled._template
        with evaluation():
            context = self._context(template, variables)
            for _ in template.root_render_func(context):
                pass
        result = context.vars["result"]
        if isinstance(result, Undefined):
            result._fail_with_undefined_error()
        return result


# --- the plugin ----------------------------------------------------------------------------

class ConstructedSource:
    """One ``constructed`` configuration applied to an inventory."""

    def __init__(self, inventory: InventoryData, config: Mapping[str, Any], vars_files: VarsFiles | None = None,
                 extra_vars: Mapping[str, Any] | None = None, facts: Mapping[str, Mapping[str, Any]] | None = None
                 ) -> None:
        self.inventory = inventory
        self.facts = facts or {}
        self.config = config
        self.vars_files = vars_files
        self.strict = bool(config.get("strict", False))
        self.use_vars_plugins = bool(config.get("use_vars_plugins", False))
        self.leading_separator = config.get("leading_separator", True)
        # ansible trusts the command line's variables as templates, as it trusts the inventory's files
        self.extra_vars = trusted_variables(extra_vars or {}) if config.get("use_extra_vars", False) else {}
        self.templar = ConstructedTemplar()
        if self.use_vars_plugins and vars_files is None:
            raise ConstructedError("use_vars_plugins needs the inventory's host_vars/group_vars, which are not "
                                   "available here")

    def apply(self) -> None:
        for name, host in list(self.inventory.hosts.items()):
            self.set_composite_vars(host)
            variables = with_moments(self.with_facts(host, self.host_variables(host)))  # compose may have added some
            self.add_to_composed_groups(name, variables)
            self.add_to_keyed_groups(name, variables)

    def host_variables(self, host: Host) -> dict[str, Any]:
        """What the expressions see: the host's groups' vars (by depth, priority, name), then its own."""
        merge = self.inventory.merge_hashes
        group_vars: dict[str, Any] = {}
        for group in sort_groups(host.get_groups()):
            group_vars = combine_vars(group_vars, group.get_vars(), merge)
        host_vars = host.get_vars()
        if self.use_vars_plugins and self.vars_files is not None:
            group_vars = combine_vars(group_vars, self.vars_files.variables(host.get_groups()), merge)
            host_vars = combine_vars(host_vars, self.vars_files.variables([host]), merge)
        return combine_vars(group_vars, host_vars, merge)

    def with_facts(self, host: Host, variables: dict[str, Any]) -> dict[str, Any]:
        """``variables`` topped with the host's cached facts (``combine_vars(hostvars, cache.get(host))``),
        which ansible never templates again."""
        from engine.inventory.trust import untrusted

        facts = self.facts.get(host.name)
        return variables if facts is None else combine_vars(variables, untrusted(dict(facts)),
                                                            self.inventory.merge_hashes)

    def _compose(self, expression: Any, variables: dict[str, Any]) -> Any:
        return self.templar.evaluate_expression(expression,
                                                combine_vars(variables, self.extra_vars, self.inventory.merge_hashes))

    def set_composite_vars(self, host: Host) -> None:
        compose = self.config.get("compose")
        if not compose or not isinstance(compose, dict):
            return
        variables = self.with_facts(host, trusted_variables(self.host_variables(host)))
        for varname, expression in compose.items():
            try:
                composite = self._compose(expression, variables)
            except Exception as exc:  # any failure of the expression: skipped unless strict, as ansible
                if self.strict:
                    raise ConstructedError(f"Could not set {varname} for host {host.name}: {exc}") from None
                continue
            self.inventory.set_variable(host.name, varname, as_ansible_tags(composite))

    def add_to_composed_groups(self, host: str, variables: dict[str, Any]) -> None:
        groups = self.config.get("groups")
        if not groups or not isinstance(groups, dict):
            return
        for raw_name, conditional in groups.items():
            group_name = _sanitize_group_name(raw_name)
            try:
                result = self.templar.evaluate_conditional(conditional, variables)
            except Exception as exc:
                if self.strict:
                    raise ConstructedError(f"Could not add host {host} to group {group_name}: {exc}") from None
                continue
            if result:
                self.inventory.add_child(self.inventory.add_group(group_name), host)

    def add_to_keyed_groups(self, host: str, variables: dict[str, Any]) -> None:
        keys = self.config.get("keyed_groups")
        if not keys or not isinstance(keys, list):
            return
        for keyed in keys:
            if not keyed or not isinstance(keyed, dict):
                raise ConstructedError(f"Invalid keyed group entry, it must be a dictionary: {keyed} ")
            self._add_to_keyed_group(host, keyed, variables)

    def _add_to_keyed_group(self, host: str, keyed: dict[str, Any], variables: dict[str, Any]) -> None:
        try:
            key = self._compose(keyed.get("key"), variables)
        except Exception as exc:
            if self.strict:
                raise ConstructedError(f"Could not generate group for host {host} from {keyed.get('key')} entry: "
                                       f"{exc}") from None
            return
        default_value = keyed.get("default_value")
        trailing_separator = keyed.get("trailing_separator")
        if trailing_separator is not None and default_value is not None:
            raise ConstructedError("parameters are mutually exclusive for keyed groups: "
                                   "default_value|trailing_separator")
        use_default = key in EMPTY_KEY_VALUES and default_value is not None
        if not (key or use_default):
            # an empty list or mapping is a valid key that simply makes no group
            if self.strict and key not in ([], {}):
                raise ConstructedError(f"No key or key resulted empty for {keyed.get('key')} in host {host}, "
                                       "invalid entry")
            return
        prefix = keyed.get("prefix", "")
        separator = keyed.get("separator", "_")
        try:
            parent_name = self.templar.template(keyed.get("parent_group"), variables)
        except Exception as exc:
            if self.strict:
                raise ConstructedError(f"Could not generate parent group {keyed.get('parent_group')!r} for group "
                                       f"{key!r}: {exc}") from None
            return
        if prefix == "" and self.leading_separator is False:
            separator_after_prefix = ""
        else:
            separator_after_prefix = separator
        for bare_name in _bare_group_names(key, use_default, default_value, separator, trailing_separator):
            group = self.inventory.add_group(_sanitize_group_name(f"{prefix}{separator_after_prefix}{bare_name}"))
            self.inventory.add_host(host, group)
            if parent_name:
                parent = _sanitize_group_name(parent_name)
                self.inventory.add_group(parent)
                self.inventory.add_child(parent, group)


def _bare_group_names(key: Any, use_default: bool, default_value: Any, separator: str,
                      trailing_separator: bool | None) -> list[Any]:
    """The group names a keyed group's value gives, before the prefix (ansible's rules per value type)."""
    if use_default:
        return [default_value]
    if isinstance(key, str):
        return [key]
    if isinstance(key, list):
        return [default_value if name in EMPTY_KEY_VALUES and default_value is not None else name for name in key]
    if isinstance(key, Mapping):
        names = []
        for name, value in key.items():
            bare = f"{name}{separator}{value}"
            if value in EMPTY_KEY_VALUES:
                if default_value is not None:
                    bare = f"{name}{separator}{default_value}"
                elif trailing_separator is False:
                    bare = name
            names.append(bare)
        return names
    raise ConstructedError(f"Invalid group name format, expected a string or a list of them or dictionary, "
                           f"got: {type(key)}")


def parse_constructed(inventory: InventoryData, path: str, config: Mapping[str, Any],
                      vars_files: VarsFiles | None = None, extra_vars: Mapping[str, Any] | None = None,
                      facts: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Apply the ``constructed`` configuration read from ``path`` to ``inventory``.

    ``vars_files`` gives the host_vars/group_vars files (for ``use_vars_plugins``); ``extra_vars``
    are used when the configuration sets ``use_extra_vars``; ``facts``, each host's cached facts.
    Raises :class:`ConstructedError` naming ``path`` when ansible would fail the source; changes
    already made stay, as in ansible.
    """
    try:
        ConstructedSource(inventory, config, vars_files, extra_vars, facts).apply()
    except InventoryError as exc:
        raise ConstructedError(f"Failed to parse {path!r}: {exc}") from None
