"""A booby-trapped Ansible repository: every trap, if it ever runs, creates its own marker file.

``build_trap_repo(root)`` writes the repository to ``root/repo`` and creates the empty
directory ``root/markers``. A trap that runs creates ``root/markers/<trap name>``;
:func:`markers` lists the ones that fired. :func:`planted` lists every trap with the kind of
execution that would fire it, so that a test can fire them on purpose (to prove that they
are live) and a test of playbook-ls (command line today, language server later) can prove
that none of them fires.

What is planted: an ansible.cfg naming an inventory script, vault password and vault-id
client scripts, and repository plugin directories of every type; executable inventory
scripts (also one without an extension and one that is valid YAML too), inventory plugin
configurations (a repository plugin, a collection plugin, ``constructed`` and ``generator``
with lookups); group_vars/host_vars with ``!vault`` values, a vault-encrypted file and
connection variables that run commands; playbooks, task files, roles (with library/,
module_utils/, filter_plugins/, ...) and a collection under collections/ whose every
templated place holds a ``lookup('pipe')``/``query('pipe')``, a repository filter, test or
lookup, a Jinja2 sandbox escape from :data:`JINJA_ESCAPES` or an ``!unsafe`` value;
``!!python/object/apply`` YAML tags; playbook-ls settings (``.playbook-ls.yml`` and
pyproject.toml) with the same; Python project files (conftest.py, sitecustomize.py,
setup.py, a build backend, ...) and packages named like the modules playbook-ls imports
(``engine``, ``playbook_ls``, ``jinja2``, ``json``, ...); a ``.git`` whose configuration runs
commands (core.fsmonitor); and a poisoned ``playbook-ls check`` cache in ``.cache/playbook-ls``.

Trap names are ``<where>.<what>``: ``site.vars.lookup-pipe`` is the ``lookup('pipe')`` in
the play vars of ``site.yml``. Only files under ``root`` are written; marker paths are
absolute because a trap may run with any working directory.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shlex
import stat
import textwrap
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

__all__ = ["JINJA_ESCAPES", "Kind", "Trap", "build_trap_repo", "describe_fired", "escape", "marker_dir", "markers",
           "pipe_lookup", "planted", "repo_dir"]


class Kind(StrEnum):
    """What it takes to fire a trap."""

    PYTHON = "python"  # a Python file that is imported or run (plugins, modules, conftest.py, ...)
    SCRIPT = "script"  # an executable file that is run (inventory scripts, vault password scripts, ...)
    JINJA = "jinja"  # Jinja2 that escapes an environment that is not sandboxed; ``payload`` fires it
    YAML = "yaml"  # a ``!!python/...`` tag that an unsafe YAML loader constructs
    GIT = "git"  # repository git configuration that git commands run (core.fsmonitor)
    PICKLE = "pickle"  # a pickle that runs a command when unpickled
    ANSIBLE = "ansible"  # needs ansible itself: lookups, repository filters and tests, inventory plugins, modules


@dataclass(frozen=True)
class Trap:
    name: str
    kind: Kind
    path: str  # the file that holds the trap, relative to the repository, with / separators
    payload: str = ""  # JINJA: the template text that fires it when rendered without a sandbox


# Jinja2 sandbox escapes. Each runs the shell command CMD when rendered by a plain
# jinja2.Environment (tests/safety/test_no_code_runs.py proves it), and none may run in
# playbook-ls's sandbox. Only single quotes inside, so each fits in a double-quoted YAML string.
JINJA_ESCAPES: dict[str, str] = {
    "cycler": "{{ cycler.__init__.__globals__.os.system('CMD') }}",
    "lipsum": "{{ lipsum.__globals__.os.popen('CMD').read() }}",
    "joiner": "{{ joiner.__init__.__globals__.os.system('CMD') }}",
    "namespace": "{{ namespace.__init__.__globals__.os.system('CMD') }}",
    "template-reference": "{{ self._TemplateReference__context.cycler.__init__.__globals__.os.system('CMD') }}",
    "self-builtins": "{{ self.__init__.__globals__.__builtins__.__import__('os').system('CMD') }}",
    "mro-subclasses": "{% for c in ''.__class__.__mro__[1].__subclasses__() %}{% if c.__name__ == 'catch_warnings' %}"
                      "{{ c.__init__.__globals__['__builtins__']['__import__']('os').system('CMD') }}"
                      "{% endif %}{% endfor %}",
    "attr-filter": "{{ (cycler | attr('__init__') | attr('__globals__'))['os'].system('CMD') }}",
    "subscript": "{{ cycler['__init__']['__globals__']['os']['system']('CMD') }}",
    "concatenated-name": "{{ (lipsum | attr('_' ~ '_globals_' ~ '_'))['os'].system('CMD') }}",
    "set-then-call": "{% set o = lipsum.__globals__['os'] %}{{ o.system('CMD') }}",
    "macro-globals": "{% macro m() %}{% endmacro %}{{ m.__init__.__globals__.__builtins__.__import__('os')"
                     ".system('CMD') }}",
    "dict-get": "{{ lipsum.__globals__.get('__builtins__').get('__import__')('os').system('CMD') }}",
}

_SAFE_PATH = re.compile(r"[A-Za-z0-9_./+-]+")
_TOKEN = re.compile(r"<<(touch|path|py|jinja|bare) ([^\s>]+)(?: ([^\s>]+))?>>")
_NAME = re.compile(r"[a-z0-9][a-z0-9.+-]*")
_MANIFEST = "traps.json"


def repo_dir(root: Path) -> Path:
    return root / "repo"


def marker_dir(root: Path) -> Path:
    return root / "markers"


def markers(root: Path) -> list[str]:
    """The names of the traps that fired (sorted)."""
    directory = marker_dir(root)
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []


def describe_fired(root: Path) -> str:
    """The traps that fired, one a line with their kind and file, for assertion messages."""
    traps = {trap.name: trap for trap in planted(root)}
    lines = []
    for name in markers(root):
        trap = traps.get(name)
        lines.append(f"  {name}: {trap.kind} trap in {trap.path}" if trap else f"  {name}: not planted in a file")
    return "\n".join(lines)


def pipe_lookup(root: Path, name: str) -> str:
    """A ``lookup('pipe')`` template creating marker ``name``, for traps passed on a command line."""
    return "{{ lookup('pipe', 'touch %s') }}" % (marker_dir(root) / name)


def escape(root: Path, which: str, name: str) -> str:
    """The sandbox escape ``which`` from :data:`JINJA_ESCAPES`, creating marker ``name``."""
    return JINJA_ESCAPES[which].replace("CMD", f"touch {marker_dir(root) / name}")


def planted(root: Path) -> list[Trap]:
    """Every trap :func:`build_trap_repo` planted under ``root``."""
    return [Trap(item["name"], Kind(item["kind"]), item["path"], item["payload"])
            for item in json.loads((root / _MANIFEST).read_text(encoding="utf-8"))]


class _Builder:
    def __init__(self, root: Path) -> None:
        self.repo = repo_dir(root)
        self.markers = marker_dir(root)
        if not _SAFE_PATH.fullmatch(str(self.markers)):
            raise ValueError(f"marker paths must be shell- and YAML-safe; use a plainer directory than {root}")
        self.traps: dict[str, Trap] = {}

    def marker(self, name: str) -> str:
        return str(self.markers / name)

    def _plant(self, name: str, kind: Kind, path: str, payload: str = "") -> None:
        if not _NAME.fullmatch(name):
            raise ValueError(f"bad trap name {name!r}")
        if name in self.traps:
            raise ValueError(f"trap {name!r} planted twice")
        self.traps[name] = Trap(name, kind, path, payload)

    def _expand(self, path: str, text: str, kind: Kind) -> str:
        def replace(match: re.Match[str]) -> str:
            token, first, second = match.groups()
            if token in ("jinja", "bare"):
                escape, name = first, second
                if not name:
                    raise ValueError(f"{path}: {match[0]} needs an escape and a trap name")
                payload = JINJA_ESCAPES[escape].replace("CMD", f"touch {self.marker(name)}")
                self._plant(name, Kind.JINJA, path, payload)
                if token == "jinja":
                    return payload
                if not (payload.startswith("{{ ") and payload.endswith(" }}") and payload.count("{{") == 1):
                    raise ValueError(f"{path}: the escape {escape!r} has no bare-expression form")
                return payload[3:-3]
            self._plant(first, Kind(second) if second else kind, path)
            marker = self.marker(first)
            if token == "touch":
                return f"touch {marker}"
            if token == "path":
                return marker
            return f"open({marker!r}, 'w').close()"  # py: one statement, no imports (the repo may shadow them)

        return _TOKEN.sub(replace, text)

    def write(self, path: str, text: str, kind: Kind = Kind.ANSIBLE, executable: bool = False) -> None:
        """Write ``path`` (relative to the repository) after expanding the trap tokens in ``text``:
        ``<<touch NAME [KIND]>>`` a shell command creating the marker, ``<<path NAME [KIND]>>`` its
        path, ``<<py NAME [KIND]>>`` a Python statement creating it, ``<<jinja ESCAPE NAME>>`` a
        sandbox escape from :data:`JINJA_ESCAPES`, ``<<bare ESCAPE NAME>>`` the same without braces
        (for ``when``). ``KIND`` defaults to ``kind``."""
        target = self.repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        content = self._expand(path, textwrap.dedent(text).lstrip("\n"), kind)
        target.write_text(content, encoding="utf-8")
        if executable:
            target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)

    def python(self, path: str, name: str, body: str = "", executable: bool = False) -> None:
        """A Python file that creates marker ``name`` when imported or run; ``body`` follows."""
        head = "#!/usr/bin/env python3\n" if executable else ""
        self.write(path, f"{head}<<py {name} python>>\n{textwrap.dedent(body)}", Kind.PYTHON, executable)

    def script(self, path: str, name: str, output: str = "") -> None:
        """An executable shell script that creates marker ``name`` and prints ``output``."""
        self.write(path, f"#!/bin/sh\n<<touch {name} script>>\nprintf '%s\\n' {shlex.quote(output)}\n",
                   Kind.SCRIPT, executable=True)


def _plugin_class(module: str, base: str, name: str, body: str) -> str:
    """A plugin class ansible accepts (so that ansible gets as far as running the next trap),
    also importable without ansible."""
    return textwrap.dedent(f"""
        try:
            from ansible.plugins.{module} import {base}
        except ImportError:  # run on its own, to prove the trap is live
            {base} = object


        class {name}({base}):
        """) + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"


INVENTORY_PLUGIN = _plugin_class("inventory", "BaseInventoryPlugin", "InventoryModule", """
    NAME = "evil_inv"

    def verify_file(self, path):
        return False
    """)
VARS_PLUGIN = _plugin_class("vars", "BaseVarsPlugin", "VarsModule", """
    REQUIRES_ENABLED = True

    def get_vars(self, loader, path, entities, cache=True):
        return {}
    """)
LOOKUP_PLUGIN = _plugin_class("lookup", "LookupBase", "LookupModule", """
    def run(self, terms, variables=None, **kwargs):
        return []
    """)


def build_trap_repo(root: Path) -> Path:
    """Write the trapped repository under ``root`` and return its path (``root/repo``)."""
    builder = _Builder(root)
    builder.markers.mkdir(parents=True, exist_ok=True)
    for part in (_ansible_cfg, _inventories, _variables, _playbooks, _tasks_and_templates, _roles, _collection,
                 _plugins, _python_project, _playbook_ls_settings, _git, _check_cache):
        part(builder)
    (root / _MANIFEST).write_text(json.dumps([asdict(t) for t in builder.traps.values()], indent=1),
                                  encoding="utf-8")
    return builder.repo


# A vault-encrypted file (the ciphertext is made up: nothing here is ever decrypted).
VAULT_FILE = """\
$ANSIBLE_VAULT;1.1;AES256
62313365396662343061393464336163383764373764613633653634306231386433626436623361
6134333665353966363534333632666535333761666131620a663537646436643839616531643561
63396265333966386166373634626465326664316661636536303734346536323936653335643037
3036663962653334330a363764323764626266393131363661623664653664336535323934303062
3462
"""


def _ansible_cfg(b: _Builder) -> None:
    b.write("ansible.cfg", """
        # Everything ansible would load from here runs code from the repository.
        [defaults]
        inventory = inventory.py
        vault_password_file = vault-pass.sh
        vault_identity_list = dev@vault-id-client.py
        filter_plugins = ./filter_plugins
        lookup_plugins = ./lookup_plugins
        test_plugins = ./test_plugins
        library = ./library
        module_utils = ./module_utils
        action_plugins = ./action_plugins
        callback_plugins = ./callback_plugins
        callbacks_enabled = evil_callback
        stdout_callback = evil_stdout
        vars_plugins = ./vars_plugins
        vars_plugins_enabled = host_group_vars, evil_vars
        strategy_plugins = ./strategy_plugins
        strategy = evil_strategy
        connection_plugins = ./connection_plugins
        cache_plugins = ./cache_plugins
        fact_caching = evil_cache
        become_plugins = ./become_plugins
        inventory_plugins = ./inventory_plugins
        collections_path = ./collections
        roles_path = ./roles:./more_roles

        [inventory]
        enable_plugins = evil_inv, host_list, script, auto, yaml, ini, toml, constructed, generator
        """)


def _inventories(b: _Builder) -> None:
    hosts = json.dumps({"all": {"hosts": ["somehost"]}, "_meta": {"hostvars": {}}})
    b.python("inventory.py", "inventory-script", f"print({hosts!r})\n", executable=True)
    b.script("vault-pass.sh", "vault-password-file", "not-the-password")
    b.python("vault-id-client.py", "vault-id-client", "print('not-the-password')\n", executable=True)
    b.write("inventory.yml", """
        plugin: evil_inv
        evil_option: "{{ lookup('pipe', '<<touch inventory-yml.option.pipe>>') }}"
        """)
    b.write("inventory/hosts.ini", """
        [web]
        somehost ansible_host="{{ lookup('pipe', '<<touch inventory-dir.ini-hostvar.pipe>>') }}"
        otherhost ansible_ssh_common_args="-o ProxyCommand='<<touch inventory-dir.ini-proxycommand>>'"

        [web:vars]
        evil="<<jinja cycler inventory-dir.ini-groupvar.cycler>>"
        """)
    b.python("inventory/dynamic.py", "inventory-dir.script", f"print({hosts!r})\n", executable=True)
    b.script("inventory/dynamic-sh", "inventory-dir.script-without-extension", "{}")
    # a shell script that is valid YAML too (its shebang is a YAML comment), executable
    b.write("inventory/polyglot.yml", "#!/bin/sh\n<<touch inventory-dir.executable-yml script>>; echo '{}'\n",
            executable=True)
    b.write("inventory/evil.yml", """
        plugin: evil_ns.evil_coll.evil_coll_inv
        """)
    b.write("inventory/zz-constructed.yml", """
        plugin: ansible.builtin.constructed
        strict: false
        compose:
          evil: "lookup('pipe', '<<touch inventory-dir.constructed-compose.pipe>>')"
        groups:
          evil_group: "lookup('pipe', '<<touch inventory-dir.constructed-groups.pipe>>') == ''"
        keyed_groups:
          - key: "query('pipe', '<<touch inventory-dir.constructed-keyed-groups.query>>')"
        """)
    b.write("inventory/generated.config", """
        plugin: ansible.builtin.generator
        hosts:
          name: "{{ lookup('pipe', '<<touch inventory-dir.generator-name.pipe>>') }}-{{ app }}"
        layers:
          app: [a]
        """)


def _variables(b: _Builder) -> None:
    b.write("group_vars/all/main.yml", """
        gv_vault: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          6231336539666234
        gv_pipe: "{{ lookup('pipe', '<<touch group-vars.pipe>>') }}"
        gv_escape: "<<jinja joiner group-vars.joiner>>"
        gv_unsafe: !unsafe "{{ lookup('pipe', '<<touch group-vars.unsafe-pipe>>') }}"
        """)
    (b.repo / "group_vars/all/vault.yml").write_text(VAULT_FILE, encoding="utf-8")
    b.write("group_vars/web.yml", """
        ansible_become_password: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          6231336539666234
        ansible_connection: evil_conn
        """)
    b.write("host_vars/somehost.yml", """
        hv_pipe: "{{ lookup('pipe', '<<touch host-vars.pipe>>') }}"
        ansible_python_interpreter: "/bin/sh -c '<<touch host-vars.python-interpreter>>' #"
        ansible_ssh_common_args: "-o ProxyCommand='<<touch host-vars.proxycommand>>'"
        """)
    b.write("vars/evil.yml", """
        vf_pipe: "{{ lookup('pipe', '<<touch vars-files.pipe>>') }}"
        vf_query: "{{ query('pipe', '<<touch vars-files.query>>') }}"
        vf_escape: "<<jinja lipsum vars-files.lipsum>>"
        vf_escape2: "<<jinja template-reference vars-files.template-reference>>"
        vf_filter: "{{ 'x' | evil_filter }}"
        vf_tag_value: vf-tag
        """)
    b.write("vars/fallback.yml", """
        fb_pipe: "{{ lookup('pipe', '<<touch vars-files-fallback.pipe>>') }}"
        """)
    b.write("vars/included.yml", """
        iv_pipe: "{{ lookup('pipe', '<<touch include-vars.pipe>>') }}"
        iv_escape: "<<jinja namespace include-vars.namespace>>"
        """)
    (b.repo / "vars/vaulted.yml").write_text(VAULT_FILE, encoding="utf-8")
    b.write("vars/python_tags.yml", """
        apply_system: !!python/object/apply:os.system ["<<touch yaml-tag.vars-file.os-system>>"]
        apply_call: !!python/object/apply:subprocess.call [["touch", "<<path yaml-tag.vars-file.subprocess-call>>"]]
        apply_exec: !!python/object/apply:builtins.exec ["<<py yaml-tag.vars-file.exec>>"]
        """, Kind.YAML)
    b.write("extra_vars.yml", """
        ev_pipe: "{{ lookup('pipe', '<<touch extra-vars-file.pipe>>') }}"
        ev_escape: "<<jinja self-builtins extra-vars-file.self-builtins>>"
        ev_escape2: "<<jinja mro-subclasses extra-vars-file.mro-subclasses>>"
        ev_unsafe: !unsafe "<<jinja subscript extra-vars-file.unsafe-subscript>>"
        """)


def _playbooks(b: _Builder) -> None:
    b.write("site.yml", """
        # Every templated value is a trap: templating it with ansible, or outside a sandbox, runs code.
        - ansible.builtin.import_playbook: plays/templated.yml
        - ansible.builtin.import_playbook: "{{ lookup('pipe', '<<touch site.import-playbook-path.pipe>>') }}"
        - ansible.builtin.import_playbook: "<<jinja cycler site.import-playbook-path.cycler>>"

        - name: site play
          hosts: all
          gather_facts: false
          collections:
            - evil_ns.evil_coll
          module_defaults:
            ansible.builtin.debug:
              msg: "{{ lookup('pipe', '<<touch site.module-defaults.pipe>>') }}"
          environment:
            EVIL: "{{ lookup('pipe', '<<touch site.environment.pipe>>') }}"
          vars_files:
            - vars/evil.yml
            - vars/vaulted.yml
            - ["{{ lookup('pipe', '<<touch site.vars-files-path.pipe>>') }}", vars/fallback.yml]
            - "<<jinja set-then-call site.vars-files-path.set-then-call>>"
          vars_prompt:
            - name: prompted
              prompt: "Password {{ lookup('pipe', '<<touch site.vars-prompt-prompt.pipe>>') }}"
              default: "{{ lookup('pipe', '<<touch site.vars-prompt-default.pipe>>') }}"
              private: false
            - name: prompted_escape
              prompt: Anything?
              default: "<<jinja cycler site.vars-prompt-default.cycler>>"
              private: false
          vars:
            v_pipe: "{{ lookup('pipe', '<<touch site.vars.lookup-pipe>>') }}"
            v_pipe_fqcn: "{{ lookup('ansible.builtin.pipe', '<<touch site.vars.lookup-pipe-fqcn>>') }}"
            v_query: "{{ query('pipe', '<<touch site.vars.query-pipe>>') }}"
            v_q: "{{ q('pipe', '<<touch site.vars.q-pipe>>') }}"
            v_template_lookup: "{{ lookup('template', 'templates/evil.j2') }}"
            v_repo_lookup: "{{ lookup('evil_lookup', 'x') }}"
            v_collection_lookup: "{{ lookup('evil_ns.evil_coll.evil_coll_lookup', 'x') }}"
            v_filter: "{{ 'x' | evil_filter }}"
            v_collection_filter: "{{ 'x' | evil_ns.evil_coll.evil_coll_filter }}"
            v_collection_filter_short: "{{ 'x' | evil_coll_filter }}"
            v_test: "{{ 'x' is evil_test }}"
            v_vault: !vault |
              $ANSIBLE_VAULT;1.1;AES256
              6231336539666234
            v_unsafe: !unsafe "{{ lookup('pipe', '<<touch site.vars.unsafe-pipe>>') }}"
            v_unsafe_escape: !unsafe "<<jinja lipsum site.vars.unsafe-lipsum>>"
            v_cycler: "<<jinja cycler site.vars.cycler>>"
            v_lipsum: "<<jinja lipsum site.vars.lipsum>>"
            v_joiner: "<<jinja joiner site.vars.joiner>>"
            v_namespace: "<<jinja namespace site.vars.namespace>>"
            v_template_reference: "<<jinja template-reference site.vars.template-reference>>"
            v_self_builtins: "<<jinja self-builtins site.vars.self-builtins>>"
            v_mro: "<<jinja mro-subclasses site.vars.mro-subclasses>>"
            v_attr: "<<jinja attr-filter site.vars.attr-filter>>"
            v_subscript: "<<jinja subscript site.vars.subscript>>"
            v_concatenated: "<<jinja concatenated-name site.vars.concatenated-name>>"
            v_set: "<<jinja set-then-call site.vars.set-then-call>>"
            v_macro: "<<jinja macro-globals site.vars.macro-globals>>"
            v_dict_get: "<<jinja dict-get site.vars.dict-get>>"
            v_indirect: "{{ v_pipe }}{{ v_cycler }}{{ v_unsafe }}{{ ev_pipe | default('') }}"
          tags:
            - site
            - "{{ v_indirect }}"
            - "{{ v_unsafe_escape }}"
            - "{{ lookup('pipe', '<<touch site.play-tags.pipe>>') }}"
            - "<<jinja template-reference site.play-tags.template-reference>>"
          pre_tasks:
            - name: "pre {{ lookup('pipe', '<<touch site.pre-task-name.pipe>>') }}"
              ansible.builtin.debug:
                msg: "{{ lookup('pipe', '<<touch site.pre-task-args.pipe>>') }}"
              tags: ["{{ lookup('pipe', '<<touch site.pre-task-tags.pipe>>') }}"]
              when: "lookup('pipe', '<<touch site.pre-task-when.pipe>>') == ''"
          roles:
            - role: evil_role
              tags: ["{{ lookup('pipe', '<<touch site.roles-entry-tags.pipe>>') }}",
                     "<<jinja joiner site.roles-entry-tags.joiner>>"]
              vars:
                r_var: "<<jinja namespace site.roles-entry-vars.namespace>>"
              when: "<<bare subscript site.roles-entry-when.subscript>>"
            - role: "{{ lookup('pipe', '<<touch site.roles-entry-name.pipe>>') }}"
            - "<<jinja self-builtins site.roles-entry-name.self-builtins>>"
            - role: trapped_deps
            - role: evil_ns.evil_coll.coll_role
            - other_role
          tasks:
            - name: imported tasks
              ansible.builtin.import_tasks: tasks/evil.yml
              tags: "<<jinja attr-filter site.import-tasks-tags.attr-filter>>"
            - ansible.builtin.import_tasks: "{{ lookup('pipe', '<<touch site.import-tasks-path.pipe>>') }}"
            - ansible.builtin.import_tasks: "<<jinja set-then-call site.import-tasks-path.set-then-call>>"
            - ansible.builtin.include_tasks: "{{ lookup('pipe', '<<touch site.include-tasks-path.pipe>>') }}"
            - ansible.builtin.include_tasks:
                file: "<<jinja dict-get site.include-tasks-path.dict-get>>"
            - ansible.builtin.import_role:
                name: "{{ lookup('pipe', '<<touch site.import-role-name.pipe>>') }}"
            - ansible.builtin.import_role:
                name: "<<jinja concatenated-name site.import-role-name.concatenated-name>>"
            - ansible.builtin.import_role:
                name: evil_role
                tasks_from: "{{ lookup('pipe', '<<touch site.import-role-tasks-from.pipe>>') }}"
            - ansible.builtin.include_role:
                name: "{{ lookup('pipe', '<<touch site.include-role-name.pipe>>') }}"
            - ansible.builtin.include_vars: vars/included.yml
            - ansible.builtin.include_vars:
                file: "{{ lookup('pipe', '<<touch site.include-vars-path.pipe>>') }}"
            - name: with_pipe runs a command per item, no Jinja2 needed
              ansible.builtin.debug: msg={{ item }}
              with_pipe:
                - "<<touch site.with-pipe>>"
            - name: loop over a query
              ansible.builtin.debug: msg={{ item }}
              loop: "{{ query('pipe', '<<touch site.loop-query.pipe>>') }}"
            - name: a module from the repository's library/
              evil_module:
                arg: "{{ lookup('pipe', '<<touch site.module-args.pipe>>') }}"
            - name: a module from the repository's collection
              evil_ns.evil_coll.evil_coll_module: {}
            - name: shell
              ansible.builtin.shell: "<<touch site.shell-module>>"
            - name: script
              ansible.builtin.script: files/evil.sh
            - name: template
              ansible.builtin.template:
                src: templates/evil.j2
                dest: /nonexistent/evil
            - name: a condition that escapes
              ansible.builtin.debug: msg=hi
              when: "<<bare dict-get site.when.dict-get>> is defined"
            - block:
                - ansible.builtin.debug: msg=in block
              tags: "<<jinja mro-subclasses site.block-tags.mro-subclasses>>"
              when: "<<bare lipsum site.block-when.lipsum>>"
              rescue:
                - ansible.builtin.command: "<<touch site.rescue-command>>"
          handlers:
            - name: "handler {{ lookup('pipe', '<<touch site.handler-name.pipe>>') }}"
              listen: "{{ lookup('pipe', '<<touch site.handler-listen.pipe>>') }}"
              ansible.builtin.debug: msg=handler
        """)
    b.write("listed.yml", """
        # Resolves completely (list-tasks exits 0), so every listing step runs over its traps.
        - name: listed play
          hosts: all
          gather_facts: false
          vars_files:
            - vars/evil.yml
          vars:
            l_pipe: "{{ lookup('pipe', '<<touch listed.vars.pipe>>') }}"
            l_cycler: "<<jinja cycler listed.vars.cycler>>"
            l_mro: "<<jinja mro-subclasses listed.vars.mro-subclasses>>"
            l_unsafe: !unsafe "<<jinja template-reference listed.vars.unsafe-template-reference>>"
            l_tag: listed
          tags: [listed_play, "{{ l_tag }}"]
          roles:
            - role: evil_role
              tags: [role_entry]
          tasks:
            - name: "listed task {{ lookup('pipe', '<<touch listed.task-name.pipe>>') }}"
              ansible.builtin.debug:
                msg: "{{ lookup('pipe', '<<touch listed.task-args.pipe>>') }} <<jinja lipsum listed.task-args.lipsum>>"
              tags: [listed, "{{ vf_tag_value }}"]
              when: "<<bare cycler listed.when.cycler>>"
            - name: listed with_pipe
              ansible.builtin.debug: msg={{ item }}
              with_pipe: ["<<touch listed.with-pipe>>"]
            - ansible.builtin.import_tasks: tasks/evil.yml
            - name: listed block
              tags: [block]
              block:
                - name: in block
                  ansible.builtin.command: "<<touch listed.command-module>>"
                  vars:
                    b_escape: "<<jinja dict-get listed.block-task-vars.dict-get>>"
        """)
    b.write("plays/templated.yml", """
        - name: "{{ lookup('pipe', '<<touch templated.play-name.pipe>>') }}"
          hosts: "{{ lookup('pipe', '<<touch templated.play-hosts.pipe>>') }}"
          tasks:
            - ansible.builtin.debug: msg=hi
        - name: "<<jinja template-reference templated.play-name.template-reference>>"
          hosts: "<<jinja mro-subclasses templated.play-hosts.mro-subclasses>>"
          tasks:
            - evil_plays_module: {}
        - hosts: "<<jinja self-builtins templated.unnamed-play-hosts.self-builtins>>"
          tasks:
            - ansible.builtin.debug: msg=hi
        - ansible.builtin.import_playbook: evil_ns.evil_coll.coll_playbook
        """)
    b.python("plays/library/evil_plays_module.py", "playbook-adjacent-library-module")
    b.python("plays/filter_plugins/evil_plays_filters.py", "playbook-adjacent-filter-plugin",
             "class FilterModule:\n    def filters(self):\n        return {}\n")
    b.write("playbooks/python_tags.yml", """
        - hosts: all
          vars:
            apply_system: !!python/object/apply:os.system ["<<touch yaml-tag.playbook.os-system>>"]
          tasks:
            - ansible.builtin.debug:
                msg: !!python/object/apply:subprocess.call [["touch", "<<path yaml-tag.playbook.subprocess-call>>"]]
              tags: !!python/object/apply:builtins.exec ["<<py yaml-tag.playbook.exec>>"]
        """, Kind.YAML)
    b.write("playbooks/collection.yml", """
        - hosts: all
          collections: [evil_ns.evil_coll]
          roles:
            - coll_role
          tasks:
            - evil_coll_module:
                x: "{{ 'x' | evil_coll_filter }}"
              tags: ["{{ lookup('evil_coll_lookup', 'x') }}"]
        """)


def _tasks_and_templates(b: _Builder) -> None:
    b.write("tasks/evil.yml", """
        - name: "imported task {{ lookup('pipe', '<<touch tasks-file.name.pipe>>') }}"
          ansible.builtin.debug:
            msg: "<<jinja namespace tasks-file.args.namespace>>"
          vars:
            t_pipe: "{{ lookup('pipe', '<<touch tasks-file.vars.pipe>>') }}"
            t_escape: "<<jinja macro-globals tasks-file.vars.macro-globals>>"
          tags: [imported]
          when: "<<bare lipsum tasks-file.when.lipsum>>"
          changed_when: "lookup('pipe', '<<touch tasks-file.changed-when.pipe>>') == ''"
          failed_when: "<<bare joiner tasks-file.failed-when.joiner>>"
          until: "query('pipe', '<<touch tasks-file.until.query>>')"
          delegate_to: "{{ lookup('pipe', '<<touch tasks-file.delegate-to.pipe>>') }}"
          notify: "{{ lookup('pipe', '<<touch tasks-file.notify.pipe>>') }}"
          loop: "{{ query('pipe', '<<touch tasks-file.loop.query>>') }}"
          loop_control:
            label: "{{ lookup('pipe', '<<touch tasks-file.loop-label.pipe>>') }}"
        - ansible.builtin.set_fact:
            f: "<<jinja cycler tasks-file.set-fact.cycler>>"
          tags: [imported]
        - ansible.builtin.command: "<<touch tasks-file.command-module>>"
        - ansible.builtin.raw: "<<touch tasks-file.raw-module>>"
        - ansible.builtin.script: files/evil.sh
        - local_action: command <<touch tasks-file.local-action>>
        - evil_module: {}
        - ansible.builtin.debug:
            msg: "{{ 'x' is evil_test }} {{ lookup('evil_lookup', 'x') }}"
        """)
    b.write("templates/evil.j2", """
        {{ lookup('pipe', '<<touch template-file.pipe>>') }}
        <<jinja mro-subclasses template-file.mro-subclasses>>
        {% include 'evil-include.j2' %}
        """)
    b.write("templates/evil-include.j2", "<<jinja cycler template-file.included.cycler>>\n")
    b.script("files/evil.sh", "script-module-file")


def _roles(b: _Builder) -> None:
    role = "roles/evil_role"
    b.write(f"{role}/tasks/main.yml", """
        - name: "role task {{ lookup('pipe', '<<touch role.task-name.pipe>>') }}"
          evil_role_module:
            x: "{{ 'x' | evil_role_filter }}"
          tags: [role]
          when: "<<bare joiner role.when.joiner>>"
        - ansible.builtin.import_tasks: more.yml
        - ansible.builtin.template:
            src: evil.j2
            dest: /nonexistent/evil
          tags: [role]
        - ansible.builtin.include_vars: extra.yml
        - ansible.builtin.script: evil.sh
        """)
    b.write(f"{role}/tasks/more.yml", """
        - name: role more
          ansible.builtin.debug:
            msg: "{{ lookup('evil_role_lookup', 'x') }} <<jinja subscript role.more-args.subscript>>"
          tags: [role_more]
        """)
    b.write(f"{role}/handlers/main.yml", """
        - name: "role handler {{ lookup('pipe', '<<touch role.handler-name.pipe>>') }}"
          listen: "<<jinja joiner role.handler-listen.joiner>>"
          ansible.builtin.debug: msg=h
        """)
    b.write(f"{role}/defaults/main.yml", """
        role_default_pipe: "{{ lookup('pipe', '<<touch role.defaults.pipe>>') }}"
        role_default_escape: "<<jinja cycler role.defaults.cycler>>"
        role_default_unsafe: !unsafe "<<jinja lipsum role.defaults.unsafe-lipsum>>"
        role_default_vault: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          6231336539666234
        """)
    b.write(f"{role}/vars/main.yml", """
        role_var_pipe: "{{ lookup('pipe', '<<touch role.vars.pipe>>') }}"
        role_var_escape: "<<jinja mro-subclasses role.vars.mro-subclasses>>"
        """)
    b.write(f"{role}/vars/extra.yml", """
        role_extra_pipe: "{{ lookup('pipe', '<<touch role.include-vars.pipe>>') }}"
        """)
    b.write(f"{role}/meta/main.yml", """
        galaxy_info:
          author: "{{ lookup('pipe', '<<touch role.meta-author.pipe>>') }}"
          description: "<<jinja self-builtins role.meta-description.self-builtins>>"
        dependencies:
          - role: dep_role
            tags: [dep]
            vars:
              dep_var: "<<jinja lipsum role.meta-dependency-vars.lipsum>>"
        """)
    b.write(f"{role}/meta/argument_specs.yml", """
        argument_specs:
          main:
            options:
              x:
                default: "{{ lookup('pipe', '<<touch role.argument-specs-default.pipe>>') }}"
        """)
    b.python(f"{role}/library/evil_role_module.py", "role.library-module")
    b.python(f"{role}/module_utils/evil_role_utils.py", "role.module-utils")
    b.python(f"{role}/filter_plugins/evil_role_filters.py", "role.filter-plugin", """
        def evil_role_filter(value):
            <<py role.filter-plugin-call ansible>>
            return value


        class FilterModule:
            def filters(self):
                return {"evil_role_filter": evil_role_filter}
        """)
    b.python(f"{role}/lookup_plugins/evil_role_lookup.py", "role.lookup-plugin", LOOKUP_PLUGIN)
    b.python(f"{role}/action_plugins/evil_role_module.py", "role.action-plugin")
    b.write(f"{role}/templates/evil.j2", """
        {{ lookup('pipe', '<<touch role.template-file.pipe>>') }}
        <<jinja cycler role.template-file.cycler>>
        """)
    b.script(f"{role}/files/evil.sh", "role.script-module-file")
    b.write(f"{role}/files/looks-like-a-playbook.yml", """
        - hosts: all
          tags: ["{{ lookup('pipe', '<<touch role.files-yaml.pipe>>') }}"]
          tasks: []
        """)
    b.write(f"{role}/tests/test.yml", """
        - hosts: localhost
          vars:
            t: "<<jinja attr-filter role.tests-playbook.attr-filter>>"
          roles:
            - evil_role
        """)
    b.write(f"{role}/molecule/default/converge.yml", """
        - hosts: all
          tasks:
            - ansible.builtin.include_role:
                name: "{{ lookup('pipe', '<<touch role.molecule-converge.pipe>>') }}"
        """)
    b.python(f"{role}/molecule/default/tests/test_default.py", "role.molecule-testinfra")
    b.write("roles/dep_role/tasks/main.yml", """
        - name: dependency task
          ansible.builtin.debug:
            msg: "{{ dep_var }}"
          tags: [dep_task]
        """)
    b.write("roles/trapped_deps/meta/main.yml", """
        dependencies:
          - role: "{{ lookup('pipe', '<<touch trapped-deps.dependency-name.pipe>>') }}"
          - "<<jinja namespace trapped-deps.dependency-name.namespace>>"
          - role: dep_role
            tags: ["{{ lookup('pipe', '<<touch trapped-deps.dependency-tags.pipe>>') }}"]
        allow_duplicates: "{{ lookup('pipe', '<<touch trapped-deps.allow-duplicates.pipe>>') }}"
        """)
    b.write("roles/trapped_deps/tasks/main.yml", """
        - ansible.builtin.debug: msg=trapped
        """)
    b.write("more_roles/other_role/tasks/main.yml", """
        - name: "other role {{ lookup('pipe', '<<touch other-role.task-name.pipe>>') }}"
          ansible.builtin.debug: msg=other
        """)


def _collection(b: _Builder) -> None:
    base = "collections/ansible_collections/evil_ns/evil_coll"
    b.write(f"{base}/galaxy.yml", """
        namespace: evil_ns
        name: evil_coll
        version: 1.0.0
        readme: README.md
        authors: ["{{ lookup('pipe', '<<touch collection.galaxy-authors.pipe>>') }}"]
        """)
    b.write(f"{base}/meta/runtime.yml", """
        requires_ansible: ">=2.15"
        plugin_routing:
          filter:
            routed_filter:
              redirect: evil_ns.evil_coll.evil_coll_filter
        """)
    b.python(f"{base}/__init__.py", "collection.package-init")
    b.python(f"{base}/plugins/filter/evil_coll_filters.py", "collection.filter-plugin", """
        def evil_coll_filter(value):
            <<py collection.filter-plugin-call ansible>>
            return value


        class FilterModule:
            def filters(self):
                return {"evil_coll_filter": evil_coll_filter}
        """)
    b.python(f"{base}/plugins/test/evil_coll_tests.py", "collection.test-plugin")
    b.python(f"{base}/plugins/lookup/evil_coll_lookup.py", "collection.lookup-plugin", LOOKUP_PLUGIN)
    b.python(f"{base}/plugins/modules/evil_coll_module.py", "collection.module")
    b.python(f"{base}/plugins/module_utils/evil_coll_utils.py", "collection.module-utils")
    b.python(f"{base}/plugins/action/evil_coll_module.py", "collection.action-plugin")
    b.python(f"{base}/plugins/inventory/evil_coll_inv.py", "collection.inventory-plugin",
             INVENTORY_PLUGIN.replace("evil_inv", "evil_ns.evil_coll.evil_coll_inv"))
    b.python(f"{base}/plugins/callback/evil_coll_callback.py", "collection.callback-plugin")
    b.python(f"{base}/plugins/vars/evil_coll_vars.py", "collection.vars-plugin", VARS_PLUGIN)
    b.write(f"{base}/roles/coll_role/tasks/main.yml", """
        - name: "collection role {{ lookup('pipe', '<<touch collection.role-task-name.pipe>>') }}"
          ansible.builtin.debug:
            msg: "<<jinja dict-get collection.role-task-args.dict-get>>"
          tags: [coll_role]
        """)
    b.python(f"{base}/roles/coll_role/library/coll_role_module.py", "collection.role-library-module")
    b.write(f"{base}/playbooks/coll_playbook.yml", """
        - hosts: all
          tags: ["{{ lookup('pipe', '<<touch collection.playbook-tags.pipe>>') }}"]
          tasks: []
        """)


def _plugins(b: _Builder) -> None:
    b.python("filter_plugins/evil_filters.py", "filter-plugin", """
        def evil_filter(value):
            <<py filter-plugin-call ansible>>
            return value


        class FilterModule:
            def filters(self):
                return {"evil_filter": evil_filter}
        """)
    b.python("test_plugins/evil_tests.py", "test-plugin", """
        class TestModule:
            def tests(self):
                return {"evil_test": lambda value: True}
        """)
    b.python("lookup_plugins/evil_lookup.py", "lookup-plugin", LOOKUP_PLUGIN)
    b.python("library/evil_module.py", "library-module", "print('{}')\n", executable=True)
    b.python("module_utils/evil_utils.py", "module-utils")
    b.python("action_plugins/evil_module.py", "action-plugin")
    b.python("action_plugins/debug.py", "action-plugin-shadowing-debug")
    b.python("callback_plugins/evil_callback.py", "callback-plugin")
    b.python("callback_plugins/evil_stdout.py", "stdout-callback-plugin")
    b.python("vars_plugins/evil_vars.py", "vars-plugin", VARS_PLUGIN)
    b.python("strategy_plugins/evil_strategy.py", "strategy-plugin")
    b.python("connection_plugins/evil_conn.py", "connection-plugin")
    b.python("cache_plugins/evil_cache.py", "cache-plugin")
    b.python("become_plugins/evil_become.py", "become-plugin")
    b.python("inventory_plugins/evil_inv.py", "inventory-plugin", INVENTORY_PLUGIN)
    # what ansible.cfg's jinja2_extensions (deprecated) would import, were the repository on sys.path
    b.python("evil_jinja_ext.py", "jinja2-extension", "EvilExtension = None\n")


def _python_project(b: _Builder) -> None:
    """Files Python tools pick up from the working directory, and modules that shadow the ones
    playbook-ls imports if the repository ever ends up on ``sys.path``."""
    for path in ("conftest.py", "sitecustomize.py", "usercustomize.py", "setup.py", "noxfile.py", "evil_backend.py",
                 "__main__.py", "evil_pytest_plugin.py"):
        b.python(path, "python-project." + path.removesuffix(".py").strip("_").replace("_", "-"))
    for package in ("engine", "playbook_ls", "jinja2", "ruamel", "yaml", "markupsafe", "pygls", "lsprotocol"):
        b.python(f"{package}/__init__.py", f"shadow.{package.replace('_', '-')}")
    b.python("playbook_ls/__main__.py", "shadow.playbook-ls-main")
    for module in ("json", "tomllib", "configparser", "pickle", "hashlib", "fnmatch", "argparse", "typing_extensions"):
        b.python(f"{module}.py", f"shadow.{module.replace('_', '-')}")
    b.write("pyproject.toml", """
        [build-system]
        requires = []
        build-backend = "evil_backend"
        backend-path = ["."]

        [project]
        name = "trap"
        version = "0"

        [tool.pytest.ini_options]
        addopts = "-p evil_pytest_plugin"

        [tool.playbook-ls]
        roles_path = ["more_roles"]
        exclude = ["{{ lookup('pipe', '<<touch pyproject.exclude.pipe>>') }}"]

        [tool.playbook-ls.profiles.trap]
        playbook = "site.yml"
        inventory = "inventory.py"
        job_tags = "site,{{ lookup('pipe', '<<touch pyproject.profile-job-tags.pipe>>') }}"

        [tool.playbook-ls.profiles.trap.extra_vars]
        pv_pipe = "{{ lookup('pipe', '<<touch pyproject.profile-extra-vars.pipe>>') }}"
        pv_escape = "<<jinja cycler pyproject.profile-extra-vars.cycler>>"
        """)
    b.script(".envrc", "direnv-envrc")


def _playbook_ls_settings(b: _Builder) -> None:
    b.write(".playbook-ls.yml", """
        roles_path: [more_roles]
        profiles:
          trap:
            playbook: site.yml
            inventory: inventory.py
            limit: "{{ lookup('pipe', '<<touch settings.profile-limit.pipe>>') }}"
            job_tags: "site,{{ lookup('pipe', '<<touch settings.profile-job-tags.pipe>>') }}"
            skip_tags: ["<<jinja lipsum settings.profile-skip-tags.lipsum>>"]
            extra_vars:
              pv_pipe: "{{ lookup('pipe', '<<touch settings.profile-extra-vars.pipe>>') }}"
              pv_escape: "<<jinja cycler settings.profile-extra-vars.cycler>>"
              pv_python: !!python/object/apply:os.system ["<<touch settings.profile-extra-vars.yaml-tag yaml>>"]
            survey:
              - variable: sv
                type: text
                default: "{{ lookup('pipe', '<<touch settings.profile-survey-default.pipe>>') }}"
        """)


def _git(b: _Builder) -> None:
    """A hand-made ``.git`` whose config runs commands on ``git status`` / ``git ls-files`` / ``git diff``."""
    git = b.repo / ".git"
    for directory in ("objects", "refs/heads"):
        (git / directory).mkdir(parents=True, exist_ok=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    b.write(".git/config", """
        [core]
        \trepositoryformatversion = 0
        \tbare = false
        \tfsmonitor = "<<touch git.core-fsmonitor>>; true"
        \tpager = "<<touch git.core-pager>>; cat"
        \tsshCommand = "<<touch git.core-ssh-command>>; ssh"
        [diff]
        \texternal = "<<touch git.diff-external>>; true"
        [filter "evil"]
        \tclean = "<<touch git.filter-clean>>; cat"
        \tsmudge = "<<touch git.filter-smudge>>; cat"
        [diff "evil"]
        \ttextconv = "<<touch git.diff-textconv>>; cat"
        """, Kind.GIT)
    b.write(".gitattributes", "*.yml filter=evil diff=evil\n")
    hook = ".git/hooks/post-checkout"
    b.script(hook, "git.post-checkout-hook")


class _System:
    """Pickles as a call of ``os.system(command)``; unpickling needs nothing from this module."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (self.command,))


CACHE_IN_REPO = ".cache/playbook-ls"  # where PLAYBOOK_LS_CACHE_DIR=.cache/playbook-ls or XDG_CACHE_HOME=.cache point


def _check_cache(b: _Builder) -> None:
    """A poisoned ``playbook-ls check`` result cache, named as ``check .`` run in the repository
    names its cache file (``playbook_ls/check/cache.py``), in ``.cache/playbook-ls``: inert unless
    the cache directory is set to a path inside the repository."""
    from playbook_ls.check.cache import entry_name

    name = "check-cache.pickle"
    data = pickle.dumps({"format": 1, "fingerprint": _System(f"touch {b.marker(name)}")}, protocol=2)
    for repo in dict.fromkeys((os.path.abspath(b.repo), os.path.realpath(b.repo))):  # getcwd() is the real path
        path = f"{CACHE_IN_REPO}/{entry_name(repr(sorted([repo])))}"
        (b.repo / path).parent.mkdir(parents=True, exist_ok=True)
        (b.repo / path).write_bytes(data)
        if name not in b.traps:
            b.traps[name] = Trap(name, Kind.PICKLE, path)
