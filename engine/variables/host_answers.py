"""The names each host answers in its own way, which no reading of one host's inventory answers for
another: the one list the mechanisms that class hosts by equal inventory answers start from (the
plan's shared outcomes, engine.flow.host_outcome; the classes of a ``group_by`` or a setter,
engine.variables.change_classes; the review's value classes, playbook_ls.review.value_classes).
Each tells some of them apart by a key part of its own (the name, the groups) and reads the
hosts one by one for the rest."""

from __future__ import annotations

NAME = frozenset({"inventory_hostname", "inventory_hostname_short"})
"""The host's name."""
GROUPS = frozenset({"group_names"})
"""The groups the host is in."""
BATCH = frozenset({"play_hosts", "ansible_play_batch"})
"""The host's batch, less the hosts failed or ended by then."""
PLAY_LISTS = frozenset({"ansible_play_hosts", "ansible_play_hosts_all"})
"""The play's hosts: the same on every host of a batch, not across batches or ended hosts."""
BY_COMPUTED_NAME = frozenset({"vars", "hostvars"})
"""Every variable at once, reached by a computed name (``hostvars``: other hosts' too)."""
RESCUE = frozenset({"ansible_failed_task", "ansible_failed_result"})
"""Set on the host when a rescue section starts."""
SOURCE = frozenset({"inventory_dir", "inventory_file"})
"""The inventory source that named the host: host variables of its own level (an inventory key tells them)."""

OWN_ANSWERS = NAME | GROUPS | BATCH | BY_COMPUTED_NAME | RESCUE | SOURCE
"""Every name a host answers in its own way (or the run fills in as it goes)."""
