"""The directory modules run in: ansible's local connection runs every module in the loader's
basedir, the directory of the play's playbook (``ActionBase._low_level_execute_command`` sets
``connection.cwd``), so a relative ``dest: out.txt`` lands beside the playbook wherever
ansible-playbook was started. The engine's modules run in its own process, which changes into
that directory while one runs (an async job's thread too) and back once none does."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager


class _WorkDir:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.saved: str | None = None

    @contextmanager
    def inside(self, path: str) -> Iterator[None]:
        with self.lock:
            if self.users == 0:
                self.saved = os.getcwd()
            self.users += 1
            os.chdir(os.path.join(self.saved or os.getcwd(), path))  # a relative path from the start
        try:
            yield
        finally:
            with self.lock:
                self.users -= 1
                if self.users == 0 and self.saved is not None:
                    os.chdir(self.saved)
                    self.saved = None


    def absolute(self, path: str) -> str:
        """``path`` from the directory playbook-ls was started in, wherever a module is running."""
        with self.lock:
            return os.path.normpath(os.path.join(self.saved or os.getcwd(), path))


_WORKDIR = _WorkDir()


def absolute(path: str) -> str:
    """A controller-side path (a search path, a task file) made absolute before a module runs in
    the play's directory: relative, it would be read from there."""
    return _WORKDIR.absolute(path)


def module_directory(path: str) -> AbstractContextManager[None]:
    """Run what the ``with`` block holds in ``path`` (the play's basedir)."""
    return _WORKDIR.inside(path)
