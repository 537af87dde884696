"""Comma-separated host lists (``-i 'web1,web2:2222,'``): ansible-core's ``host_list`` plugin.

Each non-empty item is a host with an optional port; an item that is not an address (a range
such as ``web[1:3]``, which only the ``advanced_host_list`` plugin expands) is kept as written.
"""

from __future__ import annotations

from engine.inventory.addresses import AddressError, expand_hostpattern, parse_address
from engine.inventory.data import InventoryData


def parse_host_list(inventory: InventoryData, host_list: str, expand_ranges: bool = False) -> None:
    """Add every host of ``host_list`` to ``ungrouped``; ``expand_ranges`` gives ``advanced_host_list``."""
    for item in host_list.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            hosts, port = expand_hostpattern(item) if expand_ranges else _single(item)
        except AddressError:
            hosts, port = [item], None
        for host in hosts:
            if host not in inventory.hosts:
                inventory.add_host(host, group="ungrouped", port=port)


def _single(item: str) -> tuple[list[str], int | None]:
    host, port = parse_address(item, allow_ranges=False)
    return [host], port
