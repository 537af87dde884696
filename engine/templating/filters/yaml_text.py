"""``from_yaml`` and ``from_yaml_all`` as ansible-core 2.19 reads a text (``plugins/filter/core.py``):
PyYAML's YAML 1.1 through its ``AnsibleInstrumentedLoader`` (libyaml's parser when PyYAML has it),
so ``yes`` and ``on`` are true, ``010`` is 8 and ``1:30`` is 90. ``from_yaml_all`` gives the list
of the documents (ansible makes a plugin's generator a list) and ``[]`` for None; ``from_yaml``
gives None for None. A value that is no string is given back, with ansible's deprecation warning.
A text PyYAML refuses fails as any filter plugin of ansible's fails, with PyYAML's message.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.booleans import FILTER_DEPRECATIONS
from engine.templating.errors import TemplateFailure


@cache
def _loader() -> type:
    """PyYAML's safe loader, on libyaml's parser when there is one (as ansible's is)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _not_text(name: str, value: Any) -> Any:
    from engine.templating.type_names import native_type_name

    report = FILTER_DEPRECATIONS.get()
    if report is not None:
        report(f"The {name} filter ignored non-string input of type {native_type_name(value)!r}. "
               "This feature will be removed from ansible-core version 2.23.")
    return value


def from_yaml(value: Any) -> Any:
    import yaml

    if value is None:
        return None
    if not isinstance(value, str):
        return _not_text("from_yaml", value)
    try:
        return yaml.load(str(value), Loader=_loader())  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise TemplateFailure(str(exc)) from None


def from_yaml_all(value: Any) -> Any:
    import yaml

    if value is None:
        return []
    if not isinstance(value, str):
        return _not_text("from_yaml_all", value)
    try:
        return list(yaml.load_all(str(value), Loader=_loader()))  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise TemplateFailure(str(exc)) from None


FILTERS = {"from_yaml": from_yaml, "from_yaml_all": from_yaml_all}
