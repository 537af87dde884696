"""The language server: the state (:mod:`.server`), one module per group of LSP methods, and
:mod:`.setup`, which registers them all. Every answer comes from :mod:`playbook_ls.features`."""
