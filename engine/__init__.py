"""Everything that knows Ansible: loading, resolution, tag selection. Imports nothing from playbook_ls."""
