"""playbook-ls: effective tags and when for Ansible playbooks, in the editor and in CI."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _version() -> str:
    """The version pyproject.toml declares, its only source.

    From a source checkout (an editable install, or the tree on ``sys.path``) it is read from the
    checkout's pyproject.toml, which the installed metadata may lag behind; an installed wheel has
    it in the name of its ``.dist-info`` directory beside the package. The metadata API is the
    last resort only: it scans every ``sys.path`` entry, tens of milliseconds of start-up.
    """
    from pathlib import Path

    package = Path(__file__).resolve().parent
    try:
        text = (package.parent / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        text = ""
    if text:
        import tomllib

        try:
            project = tomllib.loads(text).get("project", {})
        except tomllib.TOMLDecodeError:
            project = {}
        if project.get("name") == "playbook-ls":
            return str(project["version"])
    installed = [d for d in package.parent.glob("playbook_ls-*.dist-info") if (d / "METADATA").is_file()]
    if len(installed) == 1:
        return installed[0].name[len("playbook_ls-"):-len(".dist-info")]
    from importlib.metadata import version

    return version("playbook-ls")


def __getattr__(name: str) -> Any:
    """``__version__``, worked out when first asked for: a listing never asks, and finding it
    (a directory scan, pathlib) is a tenth of a short listing's start-up."""
    if name == "__version__":
        version = globals()["__version__"] = _version()
        return version
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
