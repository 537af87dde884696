"""Loading: a playbook to the model. Resolution of playbooks, plays, blocks, tasks and imports, includes
and roles, the keyword table, paths searched as ansible searches them, and the model they fill. Reads
``engine/``'s own modules, parsing, templating, plugins (module and collection names) and, for what
ansible sets while loading, variables (magic variables, play context, variable sources).
"""
