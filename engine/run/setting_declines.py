"""Settings of ansible's the engine does not follow, declined before the run starts (``--engine
auto`` hands it to ansible-playbook) where they differ from their defaults:

- what changes ansible-playbook's text: the engine prints the default stdout callback's with its
  defaults only, so another stdout callback, callback plugins enabled, an option of the default
  callback or ``[diff]`` ``context`` set otherwise (``[diff] always`` is the default of ``--diff``,
  engine.launch.prompting.given_diff);
- what changes templating: Jinja extensions (``jinja2_extensions``: Python modules ansible
  imports, which the engine neither has nor imports), ``allow_broken_conditionals`` (a
  non-boolean conditional taken for its truth instead of failing) and ``allow_embedded_templates``;
- what changes what a run does or leaves behind: ``executable`` (the shell of ``shell`` tasks),
  ``no_log`` for every task, retry files, ``playbook_vars_root``, the task debugger, ansible's
  debug output, strings that are no valid UTF-8 taken from modules' results
  (``module_strict_utf8_response`` off), and passwords asked for or read from files (``ask_pass``, ``become_ask_pass``,
  ``become_password_file``, ``connection_password_file``), ``become_exe`` and ``become_flags``.

Each setting is read as ansible reads it (engine.config.config_value: the environment first,
then ansible.cfg); a value equal to the default, written or not, changes nothing."""

from __future__ import annotations

from engine.booleans import boolean
from engine.config import config_value, named_setting

DEFAULT_CALLBACKS = ("default", "ansible.builtin.default", "ansible.legacy.default")
# (environment variable, ini section, ini key, default) of boolean settings: the options of
# ansible's default callback (its doc fragment default_callback), the display settings it reads,
# and those that change what a run does
_FLAGS: tuple[tuple[str, str, str, bool | None], ...] = (
    ("ANSIBLE_DISPLAY_SKIPPED_HOSTS", "defaults", "display_skipped_hosts", True),
    ("ANSIBLE_DISPLAY_OK_HOSTS", "defaults", "display_ok_hosts", True),
    ("ANSIBLE_DISPLAY_FAILED_STDERR", "defaults", "display_failed_stderr", False),
    ("ANSIBLE_SHOW_CUSTOM_STATS", "defaults", "show_custom_stats", False),
    ("ANSIBLE_SHOW_PER_HOST_START", "defaults", "show_per_host_start", False),
    ("ANSIBLE_CHECK_MODE_MARKERS", "defaults", "check_mode_markers", False),
    ("ANSIBLE_SHOW_TASK_PATH_ON_FAILURE", "defaults", "show_task_path_on_failure", False),
    # unset, results are indented where ansible asks (debug's); false turns that off too
    ("ANSIBLE_CALLBACK_FORMAT_PRETTY", "defaults", "callback_format_pretty", None),
    ("ANSIBLE_DISPLAY_ARGS_TO_STDOUT", "defaults", "display_args_to_stdout", False),
    ("ANSIBLE_ACTION_WARNINGS", "defaults", "action_warnings", True),
    ("ANSIBLE_SYSTEM_WARNINGS", "defaults", "system_warnings", True),
    ("ANSIBLE_ALLOW_BROKEN_CONDITIONALS", "defaults", "allow_broken_conditionals", False),
    ("ANSIBLE_ANY_ERRORS_FATAL", "defaults", "any_errors_fatal", False),
    ("ANSIBLE_ALLOW_EMBEDDED_TEMPLATES", "defaults", "allow_embedded_templates", True),
    ("ANSIBLE_NO_LOG", "defaults", "no_log", False),  # every result censored
    ("ANSIBLE_RETRY_FILES_ENABLED", "defaults", "retry_files_enabled", False),  # a .retry file written
    ("ANSIBLE_DEBUG", "defaults", "debug", False),
    ("ANSIBLE_ENABLE_TASK_DEBUGGER", "defaults", "enable_task_debugger", False),
    ("ANSIBLE_ASK_PASS", "defaults", "ask_pass", False),  # ansible prompts for passwords first
    ("ANSIBLE_BECOME_ASK_PASS", "privilege_escalation", "become_ask_pass", False),
    # off, ansible takes a string JSON gives that is no valid UTF-8 (a lone surrogate in a module's
    # result) instead of refusing it ("Refusing to deserialize an invalid UTF8 string value.")
    ("ANSIBLE_MODULE_STRICT_UTF8_RESPONSE", "defaults", "module_strict_utf8_response", True),
)
# settings followed with their default values only: (environment variable, section, key, the
# values that are the default; () where any value but an empty one changes something)
_VALUES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("ANSIBLE_STDOUT_CALLBACK", "defaults", "stdout_callback", DEFAULT_CALLBACKS),
    ("ANSIBLE_CALLBACKS_ENABLED", "defaults", "callbacks_enabled", ()),
    ("ANSIBLE_CALLBACK_RESULT_FORMAT", "defaults", "callback_result_format", ("json",)),
    ("ANSIBLE_DIFF_CONTEXT", "diff", "context", ("3",)),
    ("ANSIBLE_MAX_DIFF_SIZE", "defaults", "max_diff_size", ("104448",)),
    ("ANSIBLE_LOG_PATH", "defaults", "log_path", ()),  # ansible writes its log there
    ("ANSIBLE_JINJA2_EXTENSIONS", "defaults", "jinja2_extensions", ()),
    ("ANSIBLE_DUPLICATE_YAML_DICT_KEY", "defaults", "duplicate_dict_key", ("warn",)),
    # another cache keeps facts across runs (a jsonfile cache writes them)
    ("ANSIBLE_CACHE_PLUGIN", "defaults", "fact_caching", ("memory", "ansible.builtin.memory")),
    ("ANSIBLE_FACTS_MODULES", "defaults", "facts_modules",
     ("smart", "setup", "ansible.builtin.setup", "ansible.legacy.setup")),
    ("ANSIBLE_TASK_TIMEOUT", "defaults", "task_timeout", ("0",)),
    ("ANSIBLE_POLL_INTERVAL", "defaults", "poll_interval", ("15",)),  # an async task's poll without one
    ("ANSIBLE_VERBOSITY", "defaults", "verbosity", ("0",)),  # as -v: ansible's verbose text
    ("ANSIBLE_EXECUTABLE", "defaults", "executable", ("/bin/sh",)),  # the shell commands run in
    ("ANSIBLE_PLAYBOOK_VARS_ROOT", "defaults", "playbook_vars_root", ("top",)),  # which group_vars load
    ("ANSIBLE_BECOME_PASSWORD_FILE", "defaults", "become_password_file", ()),
    ("ANSIBLE_CONNECTION_PASSWORD_FILE", "defaults", "connection_password_file", ()),
    ("ANSIBLE_BECOME_EXE", "privilege_escalation", "become_exe", ()),
    ("ANSIBLE_BECOME_FLAGS", "privilege_escalation", "become_flags", ()),
)
# where ansible's Display looks for cowsay, which draws its banners unless nocows is on
COW_PATHS = ("/usr/bin/cowsay", "/usr/games/cowsay", "/usr/local/bin/cowsay", "/opt/local/bin/cowsay")


def declined_settings() -> list[tuple[str, None]]:
    """(what, None) for each setting of this run that makes ansible do or print what the engine does not."""
    found: list[tuple[str, None]] = []
    for env, section, key, default in _FLAGS:
        value = config_value(env, section, key)
        if value is not None and boolean(value) is not default:  # the config's non-strict boolean
            found.append((named_setting(env, section, key, value), None))
    for env, section, key, defaults in _VALUES:
        value = config_value(env, section, key)
        if value is not None and value.strip() not in defaults and (defaults or value.strip(" ,")):
            found.append((named_setting(env, section, key, value), None))
    return found + [(named, None) for named in (*_become_settings(), *_cows())]


def _cows() -> list[str]:
    """ansible draws its banners with cowsay when it finds it (``cowpath``, else its usual places)."""
    import os

    nocows = config_value("ANSIBLE_NOCOWS", "defaults", "nocows")
    if nocows is not None and boolean(nocows):
        return []
    path = config_value("ANSIBLE_COW_PATH", "defaults", "cowpath")
    # a cowpath that does not start leaves the banners as they are (Display's cowsay -l fails)
    found = next((cow for cow in ((path,) if path else COW_PATHS) if os.path.exists(cow)), None)
    return [f"cowsay's banners ({found}; nocows in [defaults] of ansible.cfg or ANSIBLE_NOCOWS turns them off)"] \
        if found else []


def _become_settings() -> list[str]:
    """``[privilege_escalation]``: the engine becomes no other user (engine.run.become) and takes
    become's defaults (sudo, root) from nowhere else, so a method other than sudo, another default
    user, or become on for every task as a user that is not this one is declined."""
    from engine.run.become import SUDO_METHODS, current_user

    section, found = "privilege_escalation", []
    method = config_value("ANSIBLE_BECOME_METHOD", section, "become_method")
    if method is not None and method.strip() not in SUDO_METHODS:
        found.append(named_setting("ANSIBLE_BECOME_METHOD", section, "become_method", method))
    user = config_value("ANSIBLE_BECOME_USER", section, "become_user")
    if user is not None and user.strip() not in ("", "root"):
        found.append(named_setting("ANSIBLE_BECOME_USER", section, "become_user", user))
    become = config_value("ANSIBLE_BECOME", section, "become")
    if become is not None and boolean(become) and (user or "root").strip() != current_user():
        found.append(named_setting("ANSIBLE_BECOME", section, "become", become))
    return found
