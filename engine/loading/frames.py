"""What every level of a playbook shares while it loads: the keywords a play, block or task sets
itself (its frame), the checks of its keys and vars, problems as values, and what is templated
while loading. The base of :class:`engine.loading.resolve.Resolver`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from engine.loading import keywords as kw
from engine.loading import paths
from engine.loading.model import (
    YAML_SYNTAX_HINT,
    Frame,
    Problem,
)
from engine.plugins.collection_search import CollectionFinder, is_fqcr
from engine.span import Span, YMap, YSeq
from engine.templating.load_time import (
    Unresolved,
    is_template,
    render,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.requirements import Requirement
    from engine.parsing.source import SourceCache

# ansible-playbook's exit codes for the errors we reproduce.
EXIT_ERROR = 1
EXIT_PARSER_ERROR = 4
EXIT_CRASH = 250  # ansible-playbook hits RecursionError on import cycles and reports a crash

# The class ansible names in "Vars in a <class> must be specified as a dictionary.", by frame kind.
_VARS_OWNERS = {"play": "Play", "block": "Block", "apply": "Block", "import_playbook": "PlaybookInclude",
                "import_tasks": "TaskInclude", "import_role": "IncludeRole", "roles": "RoleInclude",
                "dependency": "RoleInclude"}
# Names a variable cannot have beside non-identifiers (ansible's ``_jinja_bits.JINJA_KEYWORDS``).
JINJA_KEYWORDS = frozenset({"False", "None", "True", "false", "none", "not", "true"})
VARIABLE_NAME_HELP = ("Variable names must be strings starting with a letter or underscore character, and contain "
                      "only letters, numbers and underscores.")


def invalid_variable_name(name: Any) -> str | None:
    """``validate_variable_name``'s message for a name no variable can have (not a string, not an
    ASCII identifier, or a name Jinja reads as something else); None for a valid name."""
    if isinstance(name, str) and name.isidentifier() and name.isascii() and name not in JINJA_KEYWORDS:
        return None
    described = f"name {str(name)!r}" if isinstance(name, (str, int, float, bool, type(None))) else "name"
    if not isinstance(name, str):
        native = "dict" if isinstance(name, dict) else "list" if isinstance(name, list) else type(name).__name__
        described += f" of type {native!r}"
    return f"Invalid variable {described}."


def collection_list(value: Any) -> list[str]:
    """A ``collections:`` keyword's value as the list of names ansible validates it to."""
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value] if isinstance(value, list) else []


def load_tags(value: Any) -> list[Any]:
    """``Taggable._load_tags``: a list stays, a string is split on commas."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [item.strip() for item in value.split(",")]
    raise TypeError("tags must be specified as a list")


def flatten(values: list[Any]) -> list[Any]:
    flat: list[Any] = []
    for value in values:
        flat.extend(value if isinstance(value, list) else [value])
    return flat


def _hashable(tag: Any) -> bool:
    try:
        hash(tag)
    except TypeError:
        return False
    return True


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


# what ansible takes from the inventory while loading (the groups and hosts it names, and what a
# host's variables are): a template that needs them is resolved with the inventory given
INVENTORY_NAMES = ("groups", "hostvars", "group_names", "inventory_hostname", "inventory_hostname_short",
                   "ansible_play_hosts", "ansible_play_hosts_all", "ansible_play_batch", "play_hosts")


def undefined_hint(value: Any, otherwise: str) -> str:
    """What to do about a template that cannot be resolved while loading: where the value comes
    from when it is the inventory's (``groups['kafka_broker']`` is defined by the inventory, not
    by play vars), else ``otherwise``."""
    import re

    text = value if isinstance(value, str) else repr(value)
    used = [name for name in INVENTORY_NAMES if re.search(rf"\b{name}\b", text)]
    if not used:
        return otherwise
    return (f"'{used[0]}' comes from the inventory: give ansible-playbook the inventory that defines the groups "
            "and hosts this template names (-i, or inventory in ansible.cfg).")


def _seq_copy(value: YSeq) -> YSeq:
    copy = YSeq(value.span)
    copy.extend(value)
    copy.item_spans = list(value.item_spans)
    return copy


class FrameLoading:
    """Problems, frames and static templating, for the loaders of plays, blocks, tasks and imports.

    The state they share is the :class:`~engine.loading.resolve.Resolver`'s, set in its ``__init__``."""

    sources: SourceCache
    extra_vars: dict[str, Any]
    magic: dict[str, Any]
    problems: list[Problem]
    load_warnings: list[tuple[bool, str]]
    collections: CollectionFinder
    plugins: Any  # engine.plugins.names.PluginNames, once a playbook is loaded
    _loaded_dirs: list[str]

    def problem(self, code: str, message: str, span: Span | None, hint: str = "", fatal: bool = True,
                exit_code: int = EXIT_PARSER_ERROR, requirement: Requirement | None = None,
                after_load: bool = False, chain: tuple[tuple[str, Span | None, str | None], ...] = (),
                warnings: tuple[str, ...] = ()) -> None:
        self.problems.append(Problem(code, message, span, hint, fatal, exit_code, requirement, after_load, chain,
                                     warnings))

    def _collection_hint(self, name: str, otherwise: str) -> tuple[Requirement | None, str]:
        """For a missing ``name``: the requirements-file entry of its collection, when ``name`` is
        fully qualified and one declares it, and the hint to install it (else ``otherwise``)."""
        from engine.loading.requirements import install_hint

        requirement = self.requirement_for("collection", name) if is_fqcr(name) else None
        return requirement, install_hint(requirement) or otherwise

    def requirement_for(self, kind: str, name: str) -> Requirement | None:
        """The requirements-file entry declaring the missing role or collection ``name`` (for a
        collection, the one a fully qualified name is in), when it is not installed here."""
        if kind == "collection":
            name = ".".join(name.split(".")[:2])
            if self.collections.collection_dir(name) is not None:
                return None  # installed: what is missing is missing from the collection itself
        from engine.loading.requirements import declared  # only for what is missing

        return declared(self.sources.load, self._loaded_dirs, kind, name)

    def load_yaml(self, path: str, span: Span | None) -> Any:
        loaded = self.sources.load(path)
        if loaded.error is not None:
            code = "yaml-syntax" if paths.exists(path) else "unresolved-import"
            unreadable = loaded.error.message.startswith("cannot read file")
            chain: tuple[tuple[str, Span | None, str | None], ...] = ()
            if code == "yaml-syntax" and not unreadable:  # AnsibleYAMLParserError, as ansible words it
                from engine.parsing.yaml_hints import ansible_yaml_failure

                try:
                    text: str | None = self.sources.read_text(path)
                except (OSError, UnicodeDecodeError):
                    text = None
                failure = ansible_yaml_failure(loaded.error, text)
                chain = ((str(failure), failure.span, failure.help),)
            self.problem(code, loaded.error.message, loaded.error.span,
                         YAML_SYNTAX_HINT if code == "yaml-syntax" and not unreadable else "", chain=chain)
            return None
        return loaded.data

    def with_magic(self, variables: Mapping[str, Any], basedir: str) -> dict[str, Any]:
        """``variables`` under the magic ones, as ``VariableManager.get_vars`` combines them last."""
        return {**variables, **self.magic, "playbook_dir": os.path.abspath(basedir)}

    def _check_keys(self, ds: YMap, allowed: frozenset[str] | set[str], what: str) -> bool:
        for key in ds:
            if key not in allowed:
                where = ds.key_spans.get(key, ds.span)
                message = f"'{key}' is not a valid attribute for a {what}"  # ansible's words (chain)
                self.problem("unknown-keyword", message + kw.did_you_mean(str(key), allowed), where,
                             "Check the spelling, or move it where it belongs.", chain=((message, where, None),))
                return False
        return True

    def frame(self, kind: str, label: str, ds: Mapping[str, Any], variables: Mapping[str, Any],
              exclude: frozenset[str] = frozenset(), owner: str | None = None) -> Frame:
        """A frame holding the inheritable keywords (and vars) that ``ds`` sets itself."""
        frame = Frame(kind, label, getattr(ds, "span", None))
        spans = getattr(ds, "value_spans", {})
        for key, value in ds.items():
            if key in exclude or not (key in kw.INHERITED or key == "vars"):
                continue
            if key == "vars" and not self._valid_vars(value, owner or _VARS_OWNERS.get(kind, "Task"),
                                                      spans.get(key, frame.span)):
                continue
            if key == "tags":
                try:
                    value = flatten(load_tags(value))
                except TypeError:
                    where = spans.get(key, frame.span)
                    self.problem("invalid-structure", "tags must be specified as a list", where,
                                 "Write 'tags: [a, b]' or 'tags: a,b'.", exit_code=EXIT_ERROR,
                                 chain=(("tags must be specified as a list", where, None),))
                    value = []
                if not all(map(_hashable, value)):  # a mapping or a nested list: ansible crashes on it
                    self.problem("invalid-structure", "a tag must be a word, not a mapping or a list",
                                 spans.get(key, frame.span), "Write each tag as a plain word.", exit_code=EXIT_ERROR)
                    value = [tag for tag in value if _hashable(tag)]
            elif key == "when":  # a copy that keeps where each condition is written, for its errors
                value = _seq_copy(value) if isinstance(value, YSeq) else as_list(value)
            frame.keywords[key] = value
            if key in spans:
                frame.keyword_spans[key] = spans[key]
        return frame

    def _valid_vars(self, value: Any, owner: str, span: Span | None) -> bool:
        """``Base._load_vars``: a mapping of valid variable names (or nothing)."""
        if value is None:
            return True
        if not isinstance(value, dict):
            message = f"Vars in a {owner} must be specified as a dictionary."
            self.problem("invalid-structure", message, span,
                         "Write 'vars:' as a mapping, 'name: value' on each line (not a list).",
                         chain=((message, span, None),))
            return False
        for name in value:
            invalid = invalid_variable_name(name)
            if invalid:  # at the name as written, as validate_variable_name's error shows it
                where = getattr(value, "key_spans", {}).get(name, span)
                # a boolean or null key carries no origin in ansible (its tags cannot hold on them)
                link = (invalid, None, VARIABLE_NAME_HELP, str(name)) if name is None or isinstance(name, bool) \
                    else (invalid, where, VARIABLE_NAME_HELP)
                self.problem("invalid-structure", invalid, where,
                             "Variable names must start with a letter or underscore and contain only letters, "
                             "numbers and underscores.", exit_code=EXIT_ERROR, chain=(link,))
                return False
        return True

    def render_static(self, value: Any, variables: Mapping[str, Any], span: Span | None,
                      exit_code: int = EXIT_PARSER_ERROR, after_load: bool = False) -> Any:
        """``value`` templated now; ``exit_code`` is ansible's when that fails (1 where its
        ``AnsibleUndefinedVariable`` is not turned into a parser error, as for role names);
        ``after_load``: ansible templates it only once the whole playbook is loaded."""
        if not is_template(value) and not isinstance(value, list):
            return value
        try:
            return render(value, variables)
        except Unresolved as exc:
            shown = repr(value) if len(repr(value)) <= 200 else f"{repr(value)[:200]}..."
            hint = "Simplify the template, or compute the value outside ansible and pass it with -e." \
                if exc.too_large else undefined_hint(value, "Define the variable in play vars, vars_files or pass "
                                                            "it with -e.")
            self.problem("unresolved-template", f"cannot resolve {shown} statically: {exc}", span, hint,
                         exit_code=exit_code, after_load=after_load)
            return None
