"""The command line: one module per command, wired into one parser by :mod:`playbook_ls.cli.main`."""
