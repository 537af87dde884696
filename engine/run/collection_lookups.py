"""A lookup of a collection installed nowhere ansible-playbook looks: ``community.general.dig``,
or a short name ansible-core's ``runtime.yml`` redirects to a collection (``filetree`` to
``community.general.filetree``). ansible-core 2.19's plugin loader then fails to import the
plugin's module and warns once per run ("Error loading plugin 'community.general.filetree': No
module named 'ansible_collections.community'"), and the lookup fails as an unknown one does ("The
lookup plugin 'filetree' was not found."). That is deterministic given which collections are
installed, so the engine does it too instead of declining the run."""

from __future__ import annotations

from typing import Any

from engine.plugins import load_failures


def target(name: str) -> str | None:
    """The fully qualified name ansible loads for the lookup ``name`` (see
    :func:`engine.plugins.load_failures.target`)."""
    return load_failures.target(name, "lookup")


def load_failure(name: str, collections: Any) -> str | None:
    """ansible's warning for the lookup ``name`` when its collection is installed nowhere
    ``collections`` (a CollectionFinder: the run's) looks; None when it is ansible-core's own, the
    collection is installed (ansible runs its plugin) or the installed ones are unknown."""
    return load_failures.load_failure(name, collections, "lookup")


def engine_lookup(name: str, collections: Any) -> Any:
    """The engine's own function for the lookup ``name`` of a collection (``community.general.filetree``,
    or ``filetree`` which ansible-core redirects to it) where that collection is installed where
    ansible-playbook looks, as ansible then runs the collection's plugin; None otherwise."""
    if target(name) != "community.general.filetree" or not installed("community.general", collections):
        return None
    from engine.run.filetree_lookup import lookup_filetree

    return lookup_filetree


def installed(collection: str, collections: Any) -> bool:
    """Whether ``collection`` is installed where the run's CollectionFinder looks (False when unknown)."""
    return collections is not None and collections.collection_dir(collection) is not None
