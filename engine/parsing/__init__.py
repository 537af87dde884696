"""Parsing: YAML and text to positioned values. The composer over ruamel.yaml, JSON read as ansible's
loader reads it, the parse store that keeps parses between runs, the source cache that hands them out,
and the splitter of ``key=value`` strings. Reads only the modules directly in ``engine/`` and the
loader's memoised path checks (``loading.paths``).
"""
