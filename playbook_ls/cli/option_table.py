"""The listing commands' options, declared once and read two ways.

argparse is built from this table for every command (:mod:`playbook_ls.cli.options`). A listing
command line in the plain forms alone is read from the same table by :func:`plain_listing_args`,
without argparse: its import (with gettext and locale) and building its parser were a
tenth of a cold ``list-tasks`` of a small playbook. Anything else (help, an unknown or
abbreviated option, ``--``, a value that starts with ``-``, a value outside the choices, no
playbook) goes to argparse, which parses it or says what is wrong, so both readings always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

LISTING_COMMANDS = ("list-tasks", "list-tags")


class Option:
    """One option as ``add_argument`` takes it: a value each time it is given, kept (``append``)
    or the last one wins. ``field`` is the job template field it overrides (``launch --help``)."""

    __slots__ = ("names", "dest", "append", "flag", "default", "choices", "metavar", "help", "field")

    def __init__(self, names: tuple[str, ...], *, append: bool = False, flag: bool = False, default: object = None,
                 choices: tuple[str, ...] = (), metavar: str | None = None, help: str | None = None,
                 field: str = "") -> None:
        """``flag``: an option without a value, true when given."""
        self.names = names
        self.dest = names[-1].lstrip("-").replace("-", "_")
        self.append = append
        self.flag = flag
        self.default = False if flag else default
        self.choices = choices
        self.metavar = metavar
        self.help = help
        self.field = field

    def argparse_keywords(self, launch_fields: bool = False) -> dict[str, object]:
        """The keywords of ``add_argument`` for this option."""
        keywords: dict[str, object] = {"default": self.initial(), "dest": self.dest}
        if self.flag:
            keywords["action"] = "store_true"
        if self.append:
            keywords["action"] = "append"
        if self.choices:
            keywords["choices"] = self.choices
        if self.metavar:
            keywords["metavar"] = self.metavar
        if self.help:
            keywords["help"] = f"{self.field}: {self.help}" if launch_fields and self.field else self.help
        return keywords

    def initial(self) -> object:
        """The value before the command line gives any (a fresh list for a list default)."""
        return list(self.default) if isinstance(self.default, (list, tuple)) else self.default


INVENTORY = Option(("-i", "--inventory"), append=True, default=(), metavar="INVENTORY",
                   help="inventory host list (a,b,) or file; repeatable")
TAGS = Option(("-t", "--tags"), append=True, field="job_tags",
              help="only tasks tagged with these (repeatable, comma-separated)")
SKIP_TAGS = Option(("--skip-tags",), append=True, field="skip_tags",
                   help="skip tasks tagged with these (repeatable, comma-separated)")
LIMIT = Option(("-l", "--limit"), field="limit", help="further limit hosts to a pattern")
EXTRA_VARS = Option(("-e", "--extra-vars"), append=True, default=(), metavar="VARS", field="extra_vars",
                    help="extra variables as key=value, YAML/JSON, or @file (repeatable)")
FORMAT = Option(("--format",), default="text", choices=("text", "json"))
VAULT_ID = Option(("--vault-id",), append=True, default=(), metavar="ID",
                  help="a vault identity ansible-playbook is given (label@FILE, FILE, label@prompt); repeatable. "
                       "Its secret is never read: vault-encrypted content stays the run's")
VAULT_PASSWORD_FILE = Option(("--vault-pass-file", "--vault-password-file"), append=True, default=(), metavar="FILE",
                             help="a vault password file ansible-playbook is given; repeatable. Never read or run "
                                  "here: vault-encrypted content stays the run's")
ASK_VAULT_PASS = Option(("-J", "--ask-vault-password", "--ask-vault-pass"), flag=True,
                        help="ansible-playbook asks for the vault password: vault-encrypted content stays the run's")
VAULT_OPTIONS = (VAULT_ID, VAULT_PASSWORD_FILE, ASK_VAULT_PASS)
"""ansible-playbook's vault options: where it gets secrets, so that encrypted content is the run's
rather than a failure (engine.vault); nothing here reads them."""

# Unset selection options stay None (no extra vars: []) so that a command can tell "not given"
# from "given empty", which a launch profile's own values depend on.
SELECTION_OPTIONS = (TAGS, SKIP_TAGS, LIMIT, EXTRA_VARS)
LISTING_OPTIONS = (INVENTORY, *SELECTION_OPTIONS, *VAULT_OPTIONS, FORMAT)
"""In the order ``list-tasks --help`` shows them, after the playbooks."""


def plain_listing_args(argv: Sequence[str]) -> SimpleNamespace | None:
    """What argparse makes of ``argv`` (without the handler), when ``argv`` is a listing command
    followed only by its playbooks in one run and its options as ``-i VALUE``, ``--inventory
    VALUE`` or ``--inventory=VALUE``; otherwise None."""
    if not argv or argv[0] not in LISTING_COMMANDS:
        return None
    by_name = {name: option for option in LISTING_OPTIONS for name in option.names}
    values = {option.dest: option.initial() for option in LISTING_OPTIONS}
    playbooks: list[str] = []
    playbooks_ended = False
    position = 1
    while position < len(argv):
        word = argv[position]
        position += 1
        if not word.startswith("-"):
            if playbooks_ended:  # argparse takes the first run only and refuses the rest
                return None
            playbooks.append(word)
            continue
        name, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        option = by_name.get(name)
        if option is None:
            return None
        if option.flag:
            if equals:
                return None  # argparse refuses a value given to a flag
            values[option.dest] = True
            playbooks_ended = bool(playbooks)
            continue
        if not equals:
            if position == len(argv) or argv[position].startswith("-"):
                return None
            value = argv[position]
            position += 1
        if option.choices and value not in option.choices:
            return None
        if option.append:
            values[option.dest] = [*(values[option.dest] or ()), value]
        else:
            values[option.dest] = value
        playbooks_ended = bool(playbooks)
    if not playbooks:
        return None
    return SimpleNamespace(command=argv[0], playbooks=playbooks, **values, mode=argv[0])
