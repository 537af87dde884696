"""Which code computed a cached value: a cache entry is used only by the code that made it.

Each cache names the engine modules its values depend on (``tests/engine/test_code_files.py``
checks that every engine module they import, lazily or not, is named) and the libraries they use.
Their identity is each file's size and modification time, as for the other inputs of a cache: a
changed checkout or an upgraded library computes again instead of reading what older code made.
"""

from __future__ import annotations

import os

PARSER = (
    "parsing/yaml_compose.py", "parsing/yaml_scalars.py", "parsing/yaml_json.py", "parsing/loaded.py",
    "parsing/ruamel_package.py", "span.py", "values.py", "records.py", "lazy_regex.py", "templating/bounds.py",
)
"""What parses YAML and JSON into positioned values (the parse store's entries)."""
PARSER_LIBRARIES = ("_ruamel_yaml", "ruamel", "yaml")  # ruamel's C composer and package, PyYAML (its fallback)

ROUTING = ("plugins/routing.py", "files.py", "user_cache.py", *PARSER)
"""What reads a collection's ``meta/runtime.yml`` into its routing table (the cached large tables)."""

MODULE_DOCS = ("plugins/index.py", "plugins/docs.py", "plugins/names.py", "plugins/collection_search.py", *ROUTING)
"""What reads a module's documentation and a directory's summaries (the module docs shards)."""
MODULE_DOCS_LIBRARIES = ("yaml", *PARSER_LIBRARIES)

_ENGINE = os.path.dirname(os.path.abspath(__file__))
_identities: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}


def identity(modules: tuple[str, ...], libraries: tuple[str, ...] = ()) -> str:
    """The size and modification time of each engine module (paths under ``engine/``) and of each
    library's module or package ``__init__``, once per process."""
    key = (modules, libraries)
    if key not in _identities:
        paths = [(name, os.path.join(_ENGINE, name)) for name in modules]
        paths += [(library, _library_file(library)) for library in libraries]
        parts = []
        for name, path in paths:
            try:
                stat = os.stat(path)
                parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
            except OSError:
                parts.append(f"{name}:?")
        _identities[key] = "|".join(parts)
    return _identities[key]


def _library_file(library: str) -> str:
    """A library's own file without importing it: a module's, a package's ``__init__``, or for the
    ``ruamel`` namespace ``ruamel/yaml/__init__.py`` (which holds its version)."""
    from importlib.machinery import PathFinder  # not importlib.util, which imports more

    spec = PathFinder.find_spec(library)
    if spec is None:
        return ""
    if spec.has_location and spec.origin:
        return spec.origin
    locations = list(spec.submodule_search_locations or ())
    return os.path.join(locations[0], "yaml", "__init__.py") if locations else ""
