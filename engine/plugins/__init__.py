"""Plugins: which modules and plugins exist and what their documentation says. Collection search, plugin
name resolution, ansible's runtime routing, the module index and the documentation read from a
plugin's source without running it. Reads ``engine/``'s own modules, parsing and ``loading.paths``.
"""
