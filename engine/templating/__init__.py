"""Templating: Jinja2 as ansible runs it, bounded. The load-time renderer the loader uses, the templar a
task's values go through, the bounds every static evaluation keeps to, lazy variables, the lookups that
read nothing, and (in ``filters``) the filters and tests. Reads ``engine/``'s own modules and parsing,
never loading, flow or variables.
"""
