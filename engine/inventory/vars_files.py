"""``group_vars/`` and ``host_vars/`` next to inventory sources and in the playbook directory:
ansible's ``host_group_vars`` vars plugin.

For every source that is a path (host lists are skipped) the directory is the source itself or
the file's directory; the playbook directory is one more such directory, read by its own
:class:`VarsFiles` because ansible merges it at its own precedence. In ``<dir>/group_vars``
(or ``host_vars``) the files for an entity named NAME are ``NAME``, else ``NAME.yml``,
``NAME.yaml``, ``NAME.json`` (the first that exists; ``[defaults] yaml_valid_extensions`` changes
the list); when that is a directory, every file in it (sorted, recursively, hidden and ``~`` files
skipped, only those extensions or none) is read
in order and combined, later files winning (merged recursively with ``hash_behaviour = merge``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from engine.inventory.combine import combine_vars
from engine.inventory.data import Group, Host, InventoryError
from engine.parsing.source import SourceCache
from engine.vault import NO_SECRETS, configured_secrets, encrypted_file_reason, is_encrypted_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    VarsData: TypeAlias = dict[str, Any] | str
    """A vars file's variables, or its ciphertext where it is vault-encrypted whole (``VarsFiles._read``)."""

YAML_FILENAME_EXTENSIONS = (".yml", ".yaml", ".json")


def source_directories(sources: Iterable[str]) -> list[str]:
    """The directories whose ``group_vars``/``host_vars`` apply, one per path source, in order."""
    dirs = []
    for source in sources:
        if not source or ("," in source and not os.path.exists(source)):
            continue
        path = source if os.path.isdir(source) else os.path.dirname(source)
        dirs.append(os.path.realpath(path or os.getcwd()))
    return dirs


def playbook_vars_directories(basedir: str) -> list[str]:
    """The directory whose vars files apply as the playbook's (ansible's ``basedir``): ``basedir``
    itself, or the directory of a file; none when it does not exist."""
    if os.path.isdir(basedir):
        return [os.path.realpath(basedir)]
    if os.path.isfile(basedir):
        return [os.path.realpath(os.path.dirname(basedir))]
    return []


def _suffix(ext: str) -> str:
    """What ansible's loader adds to a name for an extension: ``.yml`` as it is, ``yml`` after a dot."""
    return ext if "." in ext or not ext else "." + ext


def find_vars_files(path: str, name: str, extensions: Iterable[str] = YAML_FILENAME_EXTENSIONS) -> list[str]:
    """ansible's ``DataLoader.find_vars_files``: the files defining ``name`` under ``path``
    (``extensions``: ansible's ``yaml_valid_extensions``)."""
    extensions = tuple(extensions)
    base = os.path.join(path, name)
    for ext in ("", *extensions):
        candidate = base + _suffix(ext)
        if os.path.exists(candidate):
            return _dir_vars_files(candidate, extensions) if os.path.isdir(candidate) else [candidate]
    return []


def _dir_vars_files(path: str, extensions: tuple[str, ...]) -> list[str]:
    found = []
    for name in sorted(os.listdir(path)):
        if name.startswith(".") or name.endswith("~"):
            continue
        ext = os.path.splitext(name)[1]
        full = os.path.join(path, name)
        if os.path.isdir(full) and not ext:
            found.extend(_dir_vars_files(full, extensions))
        elif os.path.isfile(full) and (not ext or ext in extensions):
            found.append(full)
    return found


class VarsFileError(InventoryError):
    """A vars file ansible cannot load (YAML it cannot parse, a list instead of a mapping): its
    parser error, which stops ansible-inventory with exit code 4."""

    exit_code = 4


class VaultedFile(VarsFileError):
    """A vars file encrypted whole with ansible-vault: playbook-ls never decrypts, and ansible
    without a vault secret stops its parsing with this error (exit code 4)."""


class EncryptedVariables(InventoryError):
    """The combined variables of an entity one of whose vars files is encrypted whole, where ansible
    has vault secrets to decrypt it with: only ansible knows them, so nothing is shown on a guess."""

    exit_code = 1


class VarsFiles:
    """Reads the vars files of hosts and groups from ``group_vars``/``host_vars`` in ``directories``
    (real paths, in order, later winning), combining them as ``merge_hashes`` (``hash_behaviour``)
    says.

    Each entity's files are looked for and read once, as ansible's vars plugin and loader cache
    them for the whole command: a 5,000-host ``--list`` asks for ``all``'s and each group's
    variables once per host."""

    def __init__(self, directories: list[str], cache: SourceCache, merge_hashes: bool = False,
                 extensions: Iterable[str] = YAML_FILENAME_EXTENSIONS) -> None:
        self.directories = directories
        self.extensions = tuple(extensions)
        self.cache = cache
        self.merge_hashes = merge_hashes
        self.warnings: list[str] = []
        self._contents: dict[tuple[str, str, str], list[tuple[str, VarsData]]] = {}
        self._files: dict[tuple[str, str], list[tuple[str, VarsData]]] = {}
        self._listings: dict[str, frozenset[str] | None] = {}

    def _entity_files(self, directory: str, entity: Host | Group) -> list[tuple[str, VarsData]]:
        """(path, variables) of each non-empty file defining ``entity`` in ``directory``'s
        ``host_vars``/``group_vars``."""
        subdir = "host_vars" if isinstance(entity, Host) else "group_vars"
        key = (directory, subdir, entity.name)
        if key not in self._contents:
            self._contents[key] = [(path, data) for path in self._find_files(directory, subdir, entity.name)
                                   if (data := self._read(path))]
        return self._contents[key]

    def _find_files(self, directory: str, subdir: str, name: str) -> list[str]:
        if name.startswith(os.path.sep):
            return []
        opath = os.path.join(directory, subdir)
        listed = self._listing(opath)
        if listed is not None:
            # most of a fleet's hosts have no file of their own: the directory is listed once,
            # not looked up four times per host (casefolded, for file systems that ignore case)
            if os.path.sep not in name and (os.path.altsep is None or os.path.altsep not in name) and \
                    name.casefold() not in listed:
                return []
            return find_vars_files(opath, name, self.extensions)
        return []

    def _listing(self, path: str) -> frozenset[str] | None:
        """The casefolded names of the entities with a file in directory ``path`` (each entry less
        any of the extensions, and as it is), read once; None when it is not a directory (a fleet's
        playbook directory without ``host_vars``: told once, not looked up per host)."""
        if path not in self._listings:
            suffixes = [suffix for suffix in {_suffix(ext).casefold() for ext in self.extensions} if suffix]
            try:
                self._listings[path] = frozenset(
                    stem for entry in os.listdir(path) for name in (entry.casefold(),)
                    for stem in (name, *(name[:-len(suffix)] for suffix in suffixes if name.endswith(suffix)))) \
                    if os.path.isdir(path) else None
            except OSError:
                self._listings[path] = None
            if self._listings[path] is None and os.path.exists(path):
                warning = f"Found {os.path.basename(path)} that is not a directory, skipping: {path}"
                if warning not in self.warnings:
                    self.warnings.append(warning)
        return self._listings[path]

    def files_of(self, entity: Host | Group) -> list[tuple[str, VarsData]]:
        """(path, variables) of each non-empty file defining ``entity``, directory by directory,
        in the order they are combined: where each value of :meth:`variables` comes from (a
        file's ciphertext where it is encrypted whole and ansible has secrets to decrypt it)."""
        subdir = "host_vars" if isinstance(entity, Host) else "group_vars"
        key = (subdir, entity.name)
        if key not in self._files:
            self._files[key] = [(path, data) for directory in self.directories
                                for path in self._find_files(directory, subdir, entity.name)
                                if (data := self._read(path))]
        return self._files[key]

    def variables(self, entities: Iterable[Host | Group]) -> dict[str, Any]:
        """The combined variables of ``entities`` (in order, later wins); raises :class:`InventoryError`
        naming the file and position for a file that is not YAML or not a mapping.

        Grouped as ansible's ``host_group_vars`` plugin combines them, which matters for
        ``hash_behaviour = merge``: directory by directory, each directory's files of all the
        entities (entity by entity, file by file) folded into one, then that into the result."""
        entities = list(entities)
        data: dict[str, Any] = {}
        for directory in self.directories:
            from_directory: dict[str, Any] = {}
            for entity in entities:
                for path, variables in self._entity_files(directory, entity):
                    if isinstance(variables, str):
                        raise EncryptedVariables(f"{path}: the variables of {entity.name} are known only to ansible: "
                                                 f"{encrypted_file_reason(path)}. Use ansible-inventory for them")
                    from_directory = combine_vars(from_directory, variables, self.merge_hashes)
            if from_directory:
                data = combine_vars(data, from_directory, self.merge_hashes)
        return data

    def _read(self, path: str) -> VarsData:
        loaded = self.cache.load(path)
        if loaded.error:
            unreadable = loaded.error.message.startswith("cannot read file")
            raise VarsFileError(f"{loaded.error}: " + ("every file there is read as variables: make it a readable "
                                                       "YAML file or move it away" if unreadable
                                                       else "fix the YAML in this vars file"))
        if not loaded.data:
            return {}
        if is_encrypted_text(loaded.data):
            if configured_secrets() is None:
                raise VaultedFile(NO_SECRETS)
            return loaded.data  # decrypted by ansible, never here: the variable levels say its names are the run's
        if not isinstance(loaded.data, dict):
            raise VarsFileError(f"Could not process {path!r}: it holds a {type(loaded.data).__name__}, "
                                 "variables must be a mapping")
        return loaded.data
