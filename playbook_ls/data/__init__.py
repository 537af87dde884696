"""Data files shipped with the package (``modules.json`` is written by scripts/gen_module_data.py)."""
