"""Everything that knows Ansible, grouped in rooms (parsing, loading, templating, variables, flow,
plugins, launch, inventory, run) over a few shared modules. Imports nothing from playbook_ls."""
