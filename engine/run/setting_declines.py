"""Settings of ansible's the engine does not follow, declined before the run starts (``--engine
auto`` hands it to ansible-playbook) where they differ from their defaults:

- what changes ansible-playbook's text: the engine prints the default stdout callback's with its
  defaults only, so another stdout callback, callback plugins enabled, an option of the default
  callback or ``[diff]`` set otherwise;
- what changes templating: Jinja extensions (``jinja2_extensions``: Python modules ansible
  imports, which the engine neither has nor imports) and ``allow_broken_conditionals`` (a
  non-boolean conditional taken for its truth instead of failing).

Each setting is read as ansible reads it (engine.config.config_value: the environment first,
then ansible.cfg); a value equal to the default, written or not, changes nothing."""

from __future__ import annotations

from engine.config import config_value

DEFAULT_CALLBACKS = ("default", "ansible.builtin.default", "ansible.legacy.default")
# (environment variable, ini section, ini key, default) of the boolean options of ansible's default
# callback (its doc fragment default_callback) and the display settings it reads
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
    ("ANSIBLE_DIFF_ALWAYS", "diff", "always", False),
    ("ANSIBLE_ALLOW_BROKEN_CONDITIONALS", "defaults", "allow_broken_conditionals", False),
)


def _flag(value: str) -> bool | None:
    """ansible's ``boolean`` of a setting's text (None: not a boolean, which ansible refuses)."""
    text = value.strip().lower()
    if text in ("y", "yes", "on", "1", "true", "t", "1.0"):
        return True
    if text in ("n", "no", "off", "0", "false", "f", "0.0", ""):
        return False
    return None


def declined_settings() -> list[tuple[str, None]]:
    """(what, None) for each setting of this run that makes ansible do or print what the engine does not."""
    found: list[tuple[str, None]] = []

    def note(env: str, section: str, key: str, value: str) -> None:
        found.append((f"the setting {key} = {value.strip()} ([{section}] of ansible.cfg or {env})", None))

    callback = config_value("ANSIBLE_STDOUT_CALLBACK", "defaults", "stdout_callback")
    if callback is not None and callback.strip() not in DEFAULT_CALLBACKS:
        note("ANSIBLE_STDOUT_CALLBACK", "defaults", "stdout_callback", callback)
    enabled = config_value("ANSIBLE_CALLBACKS_ENABLED", "defaults", "callbacks_enabled")
    if enabled is not None and any(name.strip() for name in enabled.split(",")):
        note("ANSIBLE_CALLBACKS_ENABLED", "defaults", "callbacks_enabled", enabled)
    for env, section, key, default in _FLAGS:
        value = config_value(env, section, key)
        if value is not None and _flag(value) is not default:
            note(env, section, key, value)
    result_format = config_value("ANSIBLE_CALLBACK_RESULT_FORMAT", "defaults", "callback_result_format")
    if result_format is not None and result_format.strip() != "json":
        note("ANSIBLE_CALLBACK_RESULT_FORMAT", "defaults", "callback_result_format", result_format)
    extensions = config_value("ANSIBLE_JINJA2_EXTENSIONS", "defaults", "jinja2_extensions")
    if extensions is not None and any(name.strip() for name in extensions.split(",")):
        note("ANSIBLE_JINJA2_EXTENSIONS", "defaults", "jinja2_extensions", extensions)
    context = config_value("ANSIBLE_DIFF_CONTEXT", "diff", "context")
    if context is not None and context.strip() != "3":
        note("ANSIBLE_DIFF_CONTEXT", "diff", "context", context)
    return found
