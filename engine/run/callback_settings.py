"""The settings that change what ansible-playbook prints, beyond the default stdout callback's own
defaults: the engine prints that callback's text with its defaults only, so a run whose
environment or ansible.cfg sets another stdout callback, enables callback plugins, or sets an
option of the default callback to another value is declined before it starts (``--engine auto``
hands it to ansible-playbook) rather than shown otherwise.

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
)


def _flag(value: str) -> bool | None:
    """ansible's ``boolean`` of a setting's text (None: not a boolean, which ansible refuses)."""
    text = value.strip().lower()
    if text in ("y", "yes", "on", "1", "true", "t", "1.0"):
        return True
    if text in ("n", "no", "off", "0", "false", "f", "0.0", ""):
        return False
    return None


def declined_callback_settings() -> list[tuple[str, None]]:
    """(what, None) for each setting of this run that makes ansible print what the engine does not."""
    found: list[tuple[str, None]] = []

    def note(env: str, section: str, key: str, value: str) -> None:
        found.append((f"{key} = {value.strip()} ([{section}] of ansible.cfg or {env}: the default "
                      "callback's text with other settings)", None))

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
    context = config_value("ANSIBLE_DIFF_CONTEXT", "diff", "context")
    if context is not None and context.strip() != "3":
        note("ANSIBLE_DIFF_CONTEXT", "diff", "context", context)
    return found
