"""Settings the engine does not follow decline the run before it starts (engine.run.setting_declines):
what changes ansible-playbook's text (another stdout callback, callback plugins enabled, the
default callback's options, ``[diff]``) and what changes templating (Jinja extensions, broken
conditionals allowed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write

from engine.flow.plan import RunOptions
from engine.run.preflight import make_run_plan, unknown_module_problems

SETTINGS = ("ANSIBLE_STDOUT_CALLBACK", "ANSIBLE_CALLBACKS_ENABLED", "ANSIBLE_DISPLAY_SKIPPED_HOSTS",
            "ANSIBLE_DISPLAY_OK_HOSTS", "ANSIBLE_CALLBACK_FORMAT_PRETTY", "ANSIBLE_CALLBACK_RESULT_FORMAT",
            "ANSIBLE_DIFF_ALWAYS", "ANSIBLE_DIFF_CONTEXT", "ANSIBLE_CHECK_MODE_MARKERS",
            "ANSIBLE_JINJA2_EXTENSIONS", "ANSIBLE_ALLOW_BROKEN_CONDITIONALS", "ANSIBLE_ANY_ERRORS_FATAL",
            "ANSIBLE_DUPLICATE_YAML_DICT_KEY", "ANSIBLE_CACHE_PLUGIN", "ANSIBLE_LOG_PATH", "ANSIBLE_MAX_DIFF_SIZE",
            "ANSIBLE_ACTION_WARNINGS", "ANSIBLE_SYSTEM_WARNINGS", "ANSIBLE_BECOME", "ANSIBLE_BECOME_USER",
            "ANSIBLE_BECOME_METHOD", "ANSIBLE_FACTS_MODULES", "ANSIBLE_TASK_TIMEOUT", "ANSIBLE_POLL_INTERVAL",
            "ANSIBLE_VERBOSITY", "ANSIBLE_NOCOWS", "ANSIBLE_COW_PATH", "ANSIBLE_EXECUTABLE", "ANSIBLE_NO_LOG",
            "ANSIBLE_RETRY_FILES_ENABLED", "ANSIBLE_PLAYBOOK_VARS_ROOT", "ANSIBLE_ALLOW_EMBEDDED_TEMPLATES",
            "ANSIBLE_ENABLE_TASK_DEBUGGER", "ANSIBLE_DEBUG", "ANSIBLE_ASK_PASS", "ANSIBLE_BECOME_ASK_PASS",
            "ANSIBLE_BECOME_PASSWORD_FILE", "ANSIBLE_CONNECTION_PASSWORD_FILE", "ANSIBLE_BECOME_EXE",
            "ANSIBLE_BECOME_FLAGS", "ANSIBLE_ASK_VAULT_PASS", "ANSIBLE_VAULT_PASSWORD_FILE",
            "ANSIBLE_VAULT_IDENTITY_LIST", "ANSIBLE_MODULE_STRICT_UTF8_RESPONSE")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANSIBLE_CONFIG", str(tmp_path / "ansible.cfg"))
    write(tmp_path, {"site.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: {msg: x}\n"})
    return tmp_path


def _declined(root: Path, config: str = "") -> list[str]:
    (root / "ansible.cfg").write_text(config)
    plan = make_run_plan(RunOptions(playbook=str(root / "site.yml"), inventory=["localhost,"]),
                         has_module=lambda action: True)
    return [str(problem) for problem in unknown_module_problems(plan)]


def test_default_callback_options_other_than_their_defaults_decline(project: Path) -> None:
    declined = _declined(project, "[defaults]\ndisplay_skipped_hosts = False\ncallback_result_format = yaml\n"
                                  "check_mode_markers = yes\n[diff]\nalways = True\ncontext = 1\n")
    assert [next(key for key in ("display_skipped_hosts = False", "callback_result_format = yaml",
                                 "check_mode_markers = yes", "context = 1") if key in problem)
            for problem in declined] == ["display_skipped_hosts = False", "check_mode_markers = yes",
                                         "callback_result_format = yaml", "context = 1"]


def test_flags_are_read_as_ansible_reads_a_boolean_setting(project: Path) -> None:
    """The config's boolean is not strict: text that is no boolean, and "1.0", read as false."""
    assert ["display_skipped_hosts = 1.0" in problem
            for problem in _declined(project, "[defaults]\ndisplay_skipped_hosts = 1.0\n")] == [True]
    assert _declined(project, "[defaults]\ncheck_mode_markers = maybe\n") == []


def test_settings_equal_to_the_defaults_run(project: Path) -> None:
    assert _declined(project, "[defaults]\ndisplay_skipped_hosts = yes\ndisplay_ok_hosts = true\n"
                              "stdout_callback = ansible.builtin.default\ncallbacks_enabled =\n"
                              "callback_result_format = json\nretry_files_enabled = False\n"
                              "[diff]\nalways = no\ncontext = 3\n") == []


def test_the_environment_is_read_before_ansible_cfg(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_DISPLAY_OK_HOSTS", "true")
    assert _declined(project, "[defaults]\ndisplay_ok_hosts = False\n") == []
    monkeypatch.setenv("ANSIBLE_STDOUT_CALLBACK", "minimal")
    monkeypatch.setenv("ANSIBLE_CALLBACKS_ENABLED", "ansible.posix.profile_tasks")
    declined = _declined(project)
    assert len(declined) == 2
    assert "stdout_callback = minimal" in declined[0]
    assert "callbacks_enabled = ansible.posix.profile_tasks" in declined[1]


def test_pretty_results_set_either_way_declines(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset, debug's results are indented; false turns that off, true indents every result."""
    for value in ("false", "true"):
        monkeypatch.setenv("ANSIBLE_CALLBACK_FORMAT_PRETTY", value)
        assert any(f"callback_format_pretty = {value}" in problem for problem in _declined(project))


def test_templating_settings_decline(project: Path) -> None:
    """ansible imports the extensions named (``{% do %}``, ``{% break %}``) and takes a non-boolean
    conditional for its truth: the engine would fail both."""
    declined = _declined(project, "[defaults]\njinja2_extensions = jinja2.ext.do,jinja2.ext.loopcontrols\n"
                                  "allow_broken_conditionals = True\n")
    assert len(declined) == 2
    assert "allow_broken_conditionals = True" in declined[0]
    assert "jinja2_extensions = jinja2.ext.do,jinja2.ext.loopcontrols" in declined[1]
    assert _declined(project, "[defaults]\njinja2_extensions =\nallow_broken_conditionals = false\n") == []


def test_settings_that_change_what_a_run_does_or_writes_decline(project: Path) -> None:
    """any_errors_fatal stops every host at a failure, duplicate_dict_key fails or stays silent,
    a jsonfile fact cache and log_path write files, max_diff_size skips diffs, action_warnings
    hides modules' warnings: the engine follows none of them."""
    declined = _declined(project, "[defaults]\nany_errors_fatal = True\naction_warnings = no\n"
                                  "duplicate_dict_key = error\nfact_caching = jsonfile\nlog_path = ./ansible.log\n"
                                  "max_diff_size = 10\nfacts_modules = my.facts.gather\ntask_timeout = 5\n"
                                  "poll_interval = 1\n")
    assert [problem.split("the setting ")[1].split(" (")[0] for problem in declined] == [
        "action_warnings = no", "any_errors_fatal = True", "max_diff_size = 10", "log_path = ./ansible.log",
        "duplicate_dict_key = error", "fact_caching = jsonfile", "facts_modules = my.facts.gather",
        "task_timeout = 5", "poll_interval = 1"]
    assert _declined(project, "[defaults]\nany_errors_fatal = false\nduplicate_dict_key = warn\n"
                              "fact_caching = memory\nlog_path =\nmax_diff_size = 104448\nfacts_modules = smart\n"
                              "task_timeout = 0\npoll_interval = 15\n") == []


def test_privilege_escalation_settings_the_engine_cannot_follow_decline(project: Path) -> None:
    """The engine becomes nobody else: become for every task as another user, a default become
    user other than root, a method other than sudo are handed over; become as this user runs."""
    from engine.run.become import current_user

    declined = _declined(project, "[privilege_escalation]\nbecome = True\nbecome_user = deploy-x\n"
                                  "become_method = su\n")
    assert [problem.split("the setting ")[1].split(" (")[0] for problem in declined] == [
        "become_method = su", "become_user = deploy-x", "become = True"]
    # become's default user is root: nothing to become for root
    expected = 0 if current_user() == "root" else 1
    assert len(_declined(project, "[privilege_escalation]\nbecome = True\nbecome_method = sudo\n")) == expected


def test_verbosity_and_cowsay_from_settings_decline(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A verbosity in ansible.cfg is -v's text; a cowsay ansible finds draws every banner."""
    monkeypatch.setattr("engine.run.setting_declines.COW_PATHS", ())
    assert _declined(project, "[defaults]\nverbosity = 0\n") == []
    assert ["verbosity = 2" in problem for problem in _declined(project, "[defaults]\nverbosity = 2\n")] == [True]
    cow = project / "cowsay"
    cow.write_text("")
    monkeypatch.setenv("ANSIBLE_COW_PATH", str(cow))
    assert ["cowsay's banners" in problem for problem in _declined(project)] == [True]
    assert _declined(project, "[defaults]\nnocows = 1\n") == []


def test_settings_that_change_what_a_run_does_or_leaves_behind_decline(project: Path) -> None:
    """The shell of shell tasks, no_log everywhere, retry files, which playbook group_vars load,
    embedded templates, the debugger, passwords asked for or read from files."""
    declined = _declined(project, "[defaults]\nexecutable = /bin/bash\nno_log = True\nretry_files_enabled = yes\n"
                                  "playbook_vars_root = all\nallow_embedded_templates = False\n"
                                  "enable_task_debugger = True\nbecome_password_file = pw.txt\n"
                                  "[privilege_escalation]\nbecome_ask_pass = True\nbecome_flags = -E\n")
    assert sorted(problem.split("the setting ")[1].split(" (")[0] for problem in declined) == [
        "allow_embedded_templates = False", "become_ask_pass = True", "become_flags = -E",
        "become_password_file = pw.txt", "enable_task_debugger = True", "executable = /bin/bash",
        "no_log = True", "playbook_vars_root = all", "retry_files_enabled = yes"]
    assert _declined(project, "[defaults]\nexecutable = /bin/sh\nplaybook_vars_root = top\nno_log = False\n") == []


def test_asking_for_a_vault_password_declines_as_vault_secrets_do(project: Path) -> None:
    declined = _declined(project, "[defaults]\nask_vault_pass = True\n")
    assert len(declined) == 1 and "ask_vault_pass = True" in declined[0] and "never decrypts" in declined[0]


def test_module_output_taken_without_strict_utf8_declines(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``module_strict_utf8_response`` off: ansible takes a string of a module's result that is no
    valid UTF-8, which it refuses by default; the engine does not follow it. On, the default, runs."""
    declined = _declined(project, "[defaults]\nmodule_strict_utf8_response = False\n")
    assert len(declined) == 1 and "module_strict_utf8_response = False" in declined[0]
    assert _declined(project, "[defaults]\nmodule_strict_utf8_response = yes\n") == []
    monkeypatch.setenv("ANSIBLE_MODULE_STRICT_UTF8_RESPONSE", "0")
    assert any("ANSIBLE_MODULE_STRICT_UTF8_RESPONSE" in problem for problem in _declined(project))
