"""playbook-ls: effective tags and when for Ansible playbooks, in the editor and in CI."""

__version__ = "0.1.0"
