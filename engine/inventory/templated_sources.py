"""When the inventory's template plugins, ``constructed`` and ``generator``, are followed where no
code may run (the server, ``check``, ``vars``, ``plan``).

Their configurations hold Jinja2 expressions and templates written in the repository. Evaluated in
the bounded sandbox every static template runs in (engine.inventory.constructed), with ansible's
own filters and tests and nothing else, they run no code: then the hosts, groups and variables
they make are read as ansible makes them. A configuration is left to the run (and its source is
not run, engine.inventory.unrun) when following it would need what only running code gives:

- a lookup (``lookup``, ``query``, ``q``): ansible runs the plugin, the sandbox has none;
- a filter or a test the sandbox lacks (one of a collection or of the repository's plugins,
  which ansible would run, where the sandbox would fail and a non-strict source skip silently);
- for ``constructed``, a source read before it that was not run (it may add hosts), or a
  persistent fact cache other than ``jsonfile`` (ansible tops each host's variables with its
  cached facts, which only ``jsonfile`` lets playbook-ls read).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

LOOKUP_CALLS = frozenset({"lookup", "query", "q"})
MEMORY_CACHES = frozenset({"memory", "ansible.builtin.memory", "ansible.legacy.memory"})
JSONFILE_CACHES = frozenset({"jsonfile", "ansible.builtin.jsonfile", "ansible.legacy.jsonfile"})


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _needs_code(text: str, environment: Any) -> str | None:
    """What in ``text`` (a template, or a bare expression) only running code gives, if anything."""
    from jinja2 import TemplateSyntaxError, nodes

    source = text if "{{" in text or "{%" in text else "{{ " + text + " }}"
    try:
        tree = environment.parse(source)
    except (TemplateSyntaxError, ValueError, RecursionError):
        return None  # it fails here as in ansible: a source that is not strict skips it alike
    for node in tree.find_all((nodes.Filter, nodes.Test, nodes.Call)):
        if isinstance(node, nodes.Filter) and node.name not in environment.filters:
            return f"the filter {node.name!r}, which playbook-ls does not run"
        if isinstance(node, nodes.Test) and node.name not in environment.tests:
            return f"the test {node.name!r}, which playbook-ls does not run"
        if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) and node.node.name in LOOKUP_CALLS:
            return f"a lookup ({node.node.name}), which only the run runs"
    return None


def refusal(plugin: str, config: Mapping[str, Any], earlier_not_run: bool, fact_caching: str) -> str | None:
    """Why ``config`` (of ``plugin``, ``constructed`` or ``generator``) cannot be followed without
    running code, or None when it can (see the module's docstring)."""
    from engine.inventory.constructed import _environments

    if plugin != "generator":
        if earlier_not_run:
            return "a source before it was not run: it may add hosts this one changes"
        if fact_caching not in MEMORY_CACHES | JSONFILE_CACHES:
            return f"it reads the hosts' facts from the {fact_caching!r} fact cache, which playbook-ls does not read"
    environment = _environments()[1]
    for text in _strings(dict(config)):
        why = _needs_code(text, environment)
        if why is not None:
            return f"it uses {why}"
    return None


def cached_facts() -> dict[str, dict[str, Any]]:
    """Each host's facts in ansible.cfg's persistent fact cache, as ``constructed`` reads them."""
    from engine.config import AnsibleConfig
    from engine.variables.fact_cache import configured_facts

    return {host: found.facts for host, found in configured_facts(AnsibleConfig.load()).items()}
