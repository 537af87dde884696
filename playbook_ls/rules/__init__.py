"""The rule registry, shared by ``playbook-ls check`` and the language server.

Each rule is a module (see :mod:`playbook_ls.rules.base` for what it declares); its docstring
is its documentation, rendered to docs/rules/ by ``scripts/gen_rule_docs.py``.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

# The registry: one module per rule, in code order.
_MODULES = (
    "pls101_never_reachable",
    "pls102_never_with_always",
    "pls103_include_tags_not_inherited",
    "pls104_when_changed_inside",
    "pls105_when_with_jinja_delimiters",
    "pls106_unknown_tag",
    "pls107_profile_runs_never_task",
    "pls108_skip_always",
    "pls109_unresolved_import",
    "pls110_import_cycle",
    "pls111_yaml_syntax",
    "pls112_unknown_keyword",
    "pls113_invalid_playbook",
    "pls114_reserved_tag_name",
    "pls115_unresolved_template",
    "pls116_dynamic_include",
    "pls117_duplicate_role_skipped",
    "pls118_unused_noqa",
    "pls119_role_vars_override",
    "pls120_dead_role_default",
    "pls121_fact_overridden_by_extra_vars",
    "pls122_undefined_variable",
    "pls123_requirement_not_installed",
    "pls124_unsupported_module_option",
    "pls125_missing_required_option",
    "pls126_value_not_in_choices",
    "pls127_option_wrong_type",
    "pls128_deprecated_module",
)
RULES: dict[str, ModuleType] = {
    module.CODE: module for module in (import_module(f"{__name__}.{name}") for name in _MODULES)
}
BY_NAME: dict[str, ModuleType] = {module.NAME: module for module in RULES.values()}


def lookup(code_or_name: str) -> ModuleType | None:
    """A rule by code (``PLS101``) or name (``never-reachable-by-inherited-tag``)."""
    return RULES.get(code_or_name.upper()) or BY_NAME.get(code_or_name)


def matching(prefix: str) -> list[str]:
    """Codes selected by a code, a code prefix (``PLS1``, ``ALL``) or a rule name."""
    if prefix.upper() == "ALL":
        return list(RULES)
    rule = BY_NAME.get(prefix)
    if rule is not None:
        return [rule.CODE]
    return [code for code in RULES if code.startswith(prefix.upper())]
