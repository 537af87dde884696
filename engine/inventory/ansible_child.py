"""Runs in a child process, under the Python of the installed ansible-core: reads one inventory
source with ansible's own ``InventoryManager.parse_source``, only the requested plugin enabled,
and prints what it added as one JSON document written by ansible's ``inventory_legacy`` encoder
(so values ansible does not trust keep their ``__ansible_unsafe`` mark and vaulted ones stay
encrypted).

This file is not imported by playbook-ls: :mod:`engine.inventory.external` runs it as a script,
with a JSON request on standard input: ``source``, ``plugin`` (the name to enable: ``auto`` or a
plugin's name), ``basedir`` (the playbook directory, whose ``inventory_plugins/`` ansible adds)
``trust`` (whether plain strings plugins set are trusted, when earlier sources decided it) and
``cache`` (false for ``--flush-cache``: the plugin's own cache is refreshed, not read).

The document's top level is laid out as ansible-inventory's ``--list`` (groups by name, host
variables under ``_meta.hostvars``), where that encoder marks variables' values: each group has
``vars``, ``hosts``, ``children`` and ``priority``; ``_meta`` also holds ``parsed``, the hosts and
groups in the order ansible made them, ``trust`` (as decided after this source) and
``failures`` (each plugin's reason for refusing).
"""

import json
import os
import re
import sys


def main() -> None:
    request = json.load(sys.stdin)
    os.environ["ANSIBLE_INVENTORY_ENABLED"] = request["plugin"]
    # the parent applies these settings itself; here a failure must come back as data
    os.environ["ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED"] = "False"
    os.environ["ANSIBLE_INVENTORY_UNPARSED_FAILED"] = "False"
    real_stdout, sys.stdout = sys.stdout, sys.stderr  # a plugin that prints must not corrupt the answer

    try:
        from ansible._internal._json._profiles import _inventory_legacy
        from ansible.utils.display import Display
    except ImportError as exc:
        sys.exit(f"playbook-ls reads inventory plugins with ansible-core 2.19, not this one ({exc})")

    display = Display()
    failures = []
    reported = display.error_as_warning

    def record(msg, exception=None, **kwargs):
        found = re.match(r"Failed to parse inventory with '(.*)' plugin", str(msg))
        if found is None:
            return reported(msg, exception, **kwargs)
        failures.append({"plugin": found.group(1), "message": str(exception)})
        return None

    display.error_as_warning = record
    shown = display.warning

    def warning(msg, *args, **kwargs):
        if not str(msg).startswith(("Unable to parse", "No inventory was parsed")):
            shown(msg, *args, **kwargs)

    display.warning = warning

    from ansible.plugins.loader import add_all_plugin_dirs, init_plugin_loader

    init_plugin_loader()
    if request.get("basedir"):
        add_all_plugin_dirs(request["basedir"])

    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader

    manager = InventoryManager(DataLoader(), sources=[])
    data = manager._inventory
    if request.get("trust") is not None:
        # the sources read before this one already decided whether plain strings plugins set
        # are trusted: ansible's inventory wrapper keeps that on the shared inventory
        from ansible._internal._json import AnsibleVariableVisitor, EncryptedStringBehavior

        data.__dict__["_inspector"] = AnsibleVariableVisitor(
            trusted_as_template=request["trust"], encrypted_string_behavior=EncryptedStringBehavior.PRESERVE)
    parsed = manager.parse_source(request["source"], cache=request.get("cache", True))
    inspector = data.__dict__.get("_inspector")
    document = {"_meta": {
        "parsed": bool(parsed), "failures": failures, "hosts": list(data.hosts), "groups": list(data.groups),
        "trust": None if inspector is None else bool(inspector.trusted_as_template),
        "hostvars": {name: dict(host.vars) for name, host in data.hosts.items()},
    }}
    for name, group in data.groups.items():
        document[name] = {"vars": dict(group.vars), "hosts": [host.name for host in group.hosts],
                          "children": [child.name for child in group.child_groups], "priority": group.priority}
    real_stdout.write(json.dumps(document, cls=_inventory_legacy.Encoder))


if __name__ == "__main__":
    main()
