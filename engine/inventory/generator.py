"""The ``generator`` inventory plugin: hosts and groups from the cartesian product of layers.

A port of ansible-core 2.19's ``plugins/inventory/generator.py``: for every combination of the
``layers`` values (in the order the layers are written), the host ``hosts.name`` templated with
that combination is added, then its ``parents``, each templated the same way, made its groups
(recursively: a parent's own ``parents`` contain it), with their ``vars`` templated too (a string
a template makes is not trusted, see :mod:`engine.inventory.trust`). Templates
run in constructed's bounded sandbox; like constructed, this runs only on explicit commands.
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Any

from engine.inventory.constructed import ConstructedTemplar
from engine.inventory.data import InventoryError
from engine.inventory.trust import as_ansible_tags, trusting

if TYPE_CHECKING:
    from collections.abc import Mapping

    from engine.inventory.data import InventoryData


def _plain(name: Any) -> Any:
    """A name as a plain string (names are never marked), or as it came when not a string: the
    inventory then refuses it as ansible's does."""
    return str.__str__(name) if isinstance(name, str) else name


def _add_parents(inventory: InventoryData, templar: ConstructedTemplar, child: str, parents: list[Any],
                 variables: Mapping[str, Any]) -> None:
    for parent in parents:
        name = templar.template(parent.get("name"), variables)
        if not name:
            raise InventoryError(f"Element {child} has a parent with no name.")
        name = inventory.add_group(_plain(name))
        group = inventory.groups[name]
        for key, value in parent.get("vars", {}).items():
            # ansible passes anything but a string through untemplated, and sets it on the group itself,
            # not through the inventory (which copies what plugins set): every group gets that very object
            group.set_variable(key, as_ansible_tags(templar.template(trusting(value), variables))
                               if isinstance(value, str) else value)
        inventory.add_child(name, child)
        _add_parents(inventory, templar, name, parent.get("parents", []), variables)


def parse_generator(inventory: InventoryData, config: Mapping[str, Any]) -> None:
    """Add the hosts and groups the ``generator`` configuration ``config`` describes."""
    templar = ConstructedTemplar()
    layers = config["layers"]
    for combination in product(*layers.values()):
        # the layers' values come from the configuration, which ansible trusts
        variables = trusting(dict(zip(layers.keys(), combination, strict=True)))
        host = _plain(templar.template(config["hosts"]["name"], variables))
        inventory.add_host(host)
        _add_parents(inventory, templar, host, config["hosts"].get("parents", []), variables)
