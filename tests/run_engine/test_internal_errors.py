"""A module or filter that raises fails its task, as in ansible: no traceback, a recap, ignore_errors
honoured, nothing written in check mode (recaps compared with ansible-playbook -c local by hand:
ok=6 changed=1 skipped=1 ignored=4 for the first playbook, in check mode)."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import run_playbook

RAISING = """
- hosts: localhost
  gather_facts: false
  tasks:
    - lineinfile: {path: "{{ playbook_dir }}/f.txt", regexp: "(", line: x, create: true}
      ignore_errors: true
    - debug: msg="{{ 'abc' | regex_replace('(', 'x') }}"
      ignore_errors: true
    - stat: {path: "/tmp/a\\u0000b"}
      ignore_errors: true
    - command: "echo \\u0000"
      ignore_errors: true
    - copy: {src: "{{ playbook_dir }}/does-not-exist", dest: "{{ playbook_dir }}/out"}
      ignore_errors: true
    - copy: {content: x, dest: "{{ playbook_dir }}/newdir/out", mode: preserve}
      ignore_errors: true
    - debug: msg=end
"""


def test_raising_modules_and_filters_fail_their_task_and_the_run_goes_on(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, RAISING, check=True)
    assert "Traceback" not in out
    assert code == 0
    assert 'FAILED! => {"changed": false, "msg": "Task failed: Module failed: missing ), unterminated subpattern' in out
    assert ("\"msg\": \"Task failed: Finalization of task args for 'ansible.builtin.debug' failed: Error while "
            "resolving value for 'msg': The filter plugin 'ansible.builtin.regex_replace' failed: missing ), "
            "unterminated subpattern at position 0\"") in out  # the filter, as ansible-playbook 2.19 words it
    assert "Module failed: embedded null byte" in out
    assert "ok=6    changed=1    unreachable=0    failed=0    skipped=1    rescued=0    ignored=4" in out
    assert [t["task"] for t in data["tasks"]][-1] == "debug"
    assert sorted(os.listdir(tmp_path)) == ["site.yml"]  # check mode wrote nothing


def test_a_raising_module_without_ignore_errors_stops_the_host_with_a_recap(tmp_path: Path) -> None:
    code, out, _ = run_playbook(tmp_path, """
    - hosts: localhost
      gather_facts: false
      tasks:
        - stat: {path: "/tmp/a\\u0000b"}
        - debug: msg=never
      """)
    assert code == 2 and "Traceback" not in out
    assert "failed=1" in out and "never" not in out


def test_a_file_that_includes_itself_fails_the_include(tmp_path: Path) -> None:
    """ansible-playbook recurses until Python gives up (exit 250, no recap)."""
    code, out, _ = run_playbook(tmp_path, """
    - hosts: localhost
      gather_facts: false
      tasks:
        - include_tasks: self.yml
      """, files={"self.yml": "- debug: msg=again\n- include_tasks: self.yml\n"})
    assert code == 2 and "Traceback" not in out
    assert "include_tasks nested 100 levels deep: does a file include itself?" in out
    assert "PLAY RECAP" in out


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_mode, p.stat().st_size) for p in sorted(root.rglob("*"))}


def test_random_module_arguments_in_check_mode_never_write_nor_raise(tmp_path_factory) -> None:
    """Random arguments for the engine's modules, pointing at files that exist or not."""
    import json

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    here = "{{ playbook_dir }}/"
    values = st.one_of(st.sampled_from([f"{here}exists.txt", f"{here}missing.txt", f"{here}dir",
                                        f"{here}missing/deep.txt", f"{here}exists.txt/below", f"{here}dir/",
                                        f"{here}missing/", "exists.txt", "missing.txt", "", "(", "0644",
                                        "preserve", "u+x", "yes", "no", "absent", "present", "touch", "directory",
                                        "link", "hard", "{{ nope }}", "a\u0000b"]),
                       st.booleans(), st.integers(-1, 5000), st.none())
    modules = ["copy", "file", "lineinfile", "template", "stat", "command", "shell", "debug", "assert", "fail",
               "blockinfile", "replace", "find", "tempfile", "slurp", "wait_for", "raw", "script", "get_url", "uri",
               "unarchive", "git"]
    options = ["path", "dest", "src", "content", "regexp", "line", "state", "mode", "create", "backup", "force",
               "follow", "recurse", "msg", "that", "creates", "removes", "chdir", "_raw_params", "insertafter",
               "remote_src", "directory_mode", "validate", "block", "marker", "replace", "after", "before",
               "paths", "patterns", "contains", "prefix", "suffix", "search_regex", "timeout", "executable", "url",
               "checksum", "format", "exclude_path", "remove", "repo", "version"]

    @settings(max_examples=200, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(module=st.sampled_from(modules), args=st.dictionaries(st.sampled_from(options), values, max_size=5))
    def check(module: str, args: dict) -> None:
        root = tmp_path_factory.mktemp("fuzz")
        (root / "exists.txt").write_text("line\n")
        (root / "dir").mkdir()
        playbook = ("- hosts: localhost\n  gather_facts: false\n  tasks:\n"
                    f"    - {module}: {json.dumps(args)}\n      ignore_errors: true\n")
        (root / "site.yml").write_text(playbook)
        before = _snapshot(root)
        cwd = os.getcwd()
        os.chdir(root)  # relative paths land here too
        try:
            code, out, _ = run_playbook(root, playbook, check=True)
        finally:
            os.chdir(cwd)
        assert "Traceback" not in out
        assert code == 0, out
        assert _snapshot(root) == before, f"{module} {args} wrote in check mode"

    check()


MISSING = """
- hosts: localhost
  gather_facts: false
  tasks:
    - copy: {src: "{{ playbook_dir }}/made.txt", dest: "{{ playbook_dir }}/out", remote_src: true, mode: preserve}
      ignore_errors: true
    - file: {src: "{{ playbook_dir }}/made.txt", dest: "{{ playbook_dir }}/hard", state: hard}
      ignore_errors: true
    - file: {src: made.txt, dest: "{{ playbook_dir }}/link", state: link}
      ignore_errors: true
    - template: {src: "{{ playbook_dir }}/adir", dest: "{{ playbook_dir }}/out"}
      ignore_errors: true
    - copy: {content: x, dest: "{{ playbook_dir }}/exists.txt/below"}
      ignore_errors: true
    - copy: {content: x, dest: "{{ playbook_dir }}/nodir/out"}
      ignore_errors: true
    - file: {path: "{{ playbook_dir }}/nodir/out", state: touch}
      ignore_errors: true
"""


def test_missing_files_fail_with_ansibles_messages(tmp_path: Path) -> None:
    """The messages of ansible-playbook -c local 2.19 (scenario missing_files records the statuses)."""
    (tmp_path / "adir").mkdir()
    code, out, _ = run_playbook(tmp_path, MISSING, files={"exists.txt": "x\n"})
    root = str(tmp_path)
    assert code == 0 and "Traceback" not in out
    for message in (
        f'"msg": "Source {root}/made.txt not found"',
        f'"dest": "{root}/hard", "msg": "src does not exist", "src": "{root}/made.txt"',
        f'"msg": "src file does not exist, use \'force=yes\' if you really want to create the link: {root}/made.txt"',
        f'"msg": "Task failed: An error occurred while trying to read the file \'{root}/adir\': [Errno 21]',
        f'"msg": "Task failed: Failed to get information on remote file ({root}/exists.txt/below): Not a directory"',
        f'"msg": "Destination directory {root}/nodir does not exist"',
        '"msg": "Error, could not touch target."',
    ):
        assert message in out
    assert '"msg": "Task failed: Module failed' not in out  # the [ERROR] block says it, not the result
    assert sorted(os.listdir(tmp_path)) == ["adir", "exists.txt", "site.yml"]
