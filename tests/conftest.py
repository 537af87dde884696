from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make `import ansible_tools` work in any import mode


def pytest_configure(config: object) -> None:
    """Commands under test keep their caches (parses, check results, routing) in one scratch
    directory for the session, not in the user's cache directory, unless a test chooses one;
    the secret the entries are sealed with too, in a scratch state directory."""
    import os
    import tempfile

    if "PLAYBOOK_LS_CACHE_DIR" not in os.environ:
        os.environ["PLAYBOOK_LS_CACHE_DIR"] = tempfile.mkdtemp(prefix="playbook-ls-test-cache-")
    if "XDG_STATE_HOME" not in os.environ:
        os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="playbook-ls-test-state-")
    # hosts run their modules with this Python, as the recordings were made: no interpreter
    # discovery (its warning and fact, engine.run.interpreter_discovery) unless a test asks for it
    os.environ.setdefault("ANSIBLE_PYTHON_INTERPRETER", sys.executable)
