"""The lookups that read the controller's files by ansible's search path: ``file``, ``template``
and ``fileglob`` (``plugins/lookup/*.py`` of ansible-core 2.19). Shared by a run's lookups
(engine.run.file_and_command_lookups), which read the machine, and static templating's
(:class:`RepositoryLookups`, with ``first_found``, ``ini`` and ``csvfile``), which read only the
repository's own files, bounded, and leave any other to the run. The context given
(``call.context``) finds and reads: ``find_file`` over its search paths, ``exists``,
``read_text``, ``read_data``, ``open_text`` and ``template_vars``."""

from __future__ import annotations

import glob
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.templating.errors import TemplateFailure, value_origin
from engine.templating.file_search import find_file, lookup_first_found, missing_file, search_paths, unfrack
from engine.templating.lazy_variables import Layered
from engine.templating.pure_lookups import Call, LookupFailure, LookupFunction, PureLookups, _bool_option, _options


def lookup_file(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    opts = _options(kwargs, {"lstrip": False, "rstrip": True}, "file")
    ret = []
    for term in terms:
        path = find_file(call.context, "files", term)
        try:
            if not path:
                raise LookupFailure("File not found. Use -vvvvv to see paths searched.")
            contents = call.context.read_text(path)
        except LookupFailure as exc:
            raise LookupFailure(f"Unable to access the file {term!r}: {exc}") from exc
        if _bool_option(opts["lstrip"]):
            contents = contents.lstrip()
        if _bool_option(opts["rstrip"]):
            contents = contents.rstrip()
        ret.append(contents)
    return ret


def lookup_template(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    delimiters = {"variable_start_string": "{{", "variable_end_string": "}}", "comment_start_string": "{#",
                  "comment_end_string": "#}"}
    opts = _options(kwargs, {"convert_data": True, "template_vars": {}, "jinja2_native": False, **delimiters,
                             "trim_blocks": True}, "template")
    if not isinstance(opts["template_vars"], Mapping):
        raise LookupFailure("template_vars must be a dictionary")
    # the lookup's include path: the template's directory, then each search path's templates/ and itself
    searchpath = [p for base in call.context.search_paths for p in (os.path.join(base, "templates"), base)]
    ret = []
    for term in terms:
        path = find_file(call.context, "templates", term)
        if not path:
            missing_file(call, term)
            raise LookupFailure(f"the template file {term} could not be found for the lookup")
        text = call.context.read_text(path)
        extra = Layered(opts["template_vars"], call.context.template_vars(term, os.path.abspath(path),
                                                                           call.templar.variables))
        try:
            ret.append(call.templar.render_text(text, extra, trim_blocks=_bool_option(opts["trim_blocks"]),
                                                searchpath=(os.path.dirname(path), *searchpath),
                                                **{name: str(opts[name]) for name in delimiters}))
        except TemplateFailure as exc:  # ansible chains the error to the template file (its origin)
            if value_origin(exc) is None:
                exc.value_origin = os.path.abspath(path)  # type: ignore[attr-defined]
            raise
    return ret


def lookup_fileglob(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    ret: list[Any] = []
    for term in terms:
        term_file = os.path.basename(term)
        if term_file != term:
            found = [find_file(call.context, "files", os.path.dirname(term))]
            if found[0] is None:
                missing_file(call, os.path.dirname(term))
        else:
            found = []
            for path in call.context.search_paths or [call.context.basedir]:
                found += [os.path.join(path, "files"), path]
        for directory in found:
            if directory:
                hits = [g for g in glob.glob(os.path.join(directory, term_file)) if call.context.is_file(g)]
                if hits:
                    ret.extend(hits)
                    break
    return ret


@dataclass(frozen=True)
class RepositoryLookups(PureLookups):
    """Static templating's lookups for one task: those that read nothing, ``first_found``, which
    only asks whether files exist, and those that read a file of the repository and run nothing
    (``file``, ``template``, ``fileglob``, ``ini``, ``csvfile``). A candidate inside ``roots`` (the
    playbook's directory, the role's and the task file's: the repository playbook-ls reads) is
    looked up; one outside
    them (an absolute path, ``~``, a ``..`` that leaves them) is the controller's at run time, and
    so is the lookup's value when the search reaches it. ``repository`` (the directory of the
    playbook given to ansible-playbook) is inside too: a playbook imported from a subdirectory
    reads ``../templates/`` of the project as the run does."""

    basedir: str = ""
    search_paths: list[str] = field(default_factory=list)
    in_role: bool = False
    action: str = ""
    repository: str = ""

    def resolve(self, name: str) -> LookupFunction:
        from engine.templating.data_file_lookups import lookup_csvfile, lookup_ini
        from engine.templating.pure_lookups import short_name

        found = {"first_found": lookup_first_found, "file": lookup_file, "template": lookup_template,
                 "fileglob": _listed_order(lookup_fileglob), "ini": lookup_ini,
                 "csvfile": lookup_csvfile}.get(short_name(name))
        return found if found is not None else super().resolve(name)

    def exists(self, path: str) -> bool:
        self._inside(path)
        return os.path.exists(path)

    def is_file(self, path: str) -> bool:
        self._inside(path)
        return os.path.isfile(path)

    def _inside(self, path: str) -> None:
        from engine.templating.errors import RunTimeOnly

        roots = [os.path.realpath(root) for root in [self.repository, self.basedir, *self.search_paths] if root]
        # a link is followed to where it leads: the repository's only if that is inside it too
        for place in (unfrack(path), os.path.realpath(path)):
            if not any(os.path.commonpath([place, root]) == root for root in roots):
                raise RunTimeOnly(f"a lookup looks for {path!r}, outside the repository: only the run knows "
                                  "whether it exists and what it holds")

    def read_text(self, path: str) -> str:
        """A repository file's text, read bounded (engine.files); one that cannot be read is the run's."""
        return self.read_data(path).decode("utf-8", errors="surrogateescape")

    def read_data(self, path: str) -> bytes:
        """A repository file's bytes, read bounded (engine.files); one that cannot be read, or that is
        vault-encrypted (ansible decrypts it, or fails without vault secrets), is the run's."""
        from engine import files
        from engine.templating.errors import RunTimeOnly
        from engine.vault import is_encrypted_text

        self._inside(path)
        try:
            data = files.read_bytes(os.path.normpath(path))
        except OSError as exc:
            raise RunTimeOnly(f"the lookup reads {path!r}, which cannot be read here ({exc}): only the run "
                              "knows what it holds") from None
        if is_encrypted_text(data.decode("utf-8", errors="surrogateescape")):  # never its ciphertext
            raise RunTimeOnly(f"the lookup reads {path!r}, which is vault-encrypted: playbook-ls never decrypts, "
                              "so only the run knows what it holds")
        return data

    def open_text(self, path: str, encoding: str) -> io.StringIO:
        """A repository file as csvfile opens it (text in ``encoding``, universal newlines); one that
        does not decode is the run's (the run's error may come only after the row it looks for)."""
        from engine.templating.errors import RunTimeOnly

        try:
            return io.StringIO(self.read_data(path).decode(encoding), newline=None)
        except (UnicodeDecodeError, LookupError) as exc:
            raise RunTimeOnly(f"the lookup reads {path!r} as {encoding!r}, which fails here ({exc}): only the "
                              "run knows what it gives") from None

    def template_vars(self, path: str, fullpath: str, task_vars: Mapping[str, Any]) -> Mapping[str, Any]:
        """The template lookup's variables before the run: the template's path, and, as what only the
        run gives, the controller's name, the file's owner and time, the time of the run, and
        ``ansible_managed`` (made from the file's time) unless the task's variables set it."""
        runs = {"template_host", "template_uid", "template_mtime", "template_run_date"}
        if "ansible_managed" not in task_vars:
            runs.add("ansible_managed")
        return _TemplateVars({"template_path": path, "template_fullpath": fullpath, "template_destpath": None},
                             frozenset(runs))


def repository_lookups(role_path: str | None, task_file: str | None, basedir: str,
                       action: str = "", repository: str = "") -> RepositoryLookups:
    """The static lookups of a task in ``role_path`` (or none) written in ``task_file``, of a run of
    the playbook in the directory ``repository``."""
    return RepositoryLookups(basedir=basedir, search_paths=search_paths(role_path, task_file),
                             in_role=bool(role_path), action=action, repository=repository)


class _TemplateVars(Mapping[str, Any]):
    """The template lookup's variables before the run: ``known`` ones, and ``runs`` ones only the
    run gives (a template reading one is the run's)."""

    def __init__(self, known: dict[str, Any], runs: frozenset[str]) -> None:
        self._known, self._runs = known, runs

    def __getitem__(self, name: str) -> Any:
        from engine.templating.errors import RunTimeOnly

        if name in self._runs:
            raise RunTimeOnly(f"{name!r} of the template lookup is known only at run time")
        return self._known[name]

    def __iter__(self) -> Iterator[str]:
        return iter([*self._known, *self._runs])

    def __len__(self) -> int:
        return len(self._known) + len(self._runs)


def _listed_order(lookup: LookupFunction) -> LookupFunction:
    """``lookup`` (``fileglob``) with its files in the order the file system lists them, which is the
    run's: the files are known, their order is not (engine.values.RunOrdered)."""
    from engine.values import RunOrdered

    def listed(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
        found = lookup(terms, kwargs, call)
        if len(found) < 2:
            return found
        ordered = RunOrdered(found)
        ordered.why = "not known before the run: the files fileglob finds, in the order the file system lists them"
        return ordered

    return listed
