"""run_once, serial, max_fail_percentage, no_log, delegate_to: the default callback's text as
ansible-playbook 2.19 prints it (recorded with ansible-playbook -c local, forks 1)."""

from __future__ import annotations

from pathlib import Path

from helpers import run_playbook, write

from engine.flow.batches import pct_to_int, serialized_batches
from engine.run.callback import host_label
from engine.run.censoring import CENSORED, censored_for_callback

HOSTS = "[web]\nh1\nh2\nh3\n\n[all:vars]\nansible_connection=local\n"


def run(tmp_path: Path, playbook: str) -> tuple[int, str, dict]:
    write(tmp_path, {"hosts.ini": HOSTS})
    return run_playbook(tmp_path, playbook, inventory=[str(tmp_path / "hosts.ini")])


def test_serial_batches_as_ansible_cuts_them() -> None:
    hosts = list("abcde")
    assert serialized_batches(hosts, []) == [hosts]
    assert serialized_batches(hosts, [2]) == [["a", "b"], ["c", "d"], ["e"]]
    assert serialized_batches(hosts, [1, "40%"]) == [["a"], ["b", "c"], ["d", "e"]]
    assert serialized_batches(hosts, ["10%"]) == [[h] for h in hosts]  # rounded down, at least 1
    assert serialized_batches(hosts, [1, 0]) == [["a"], ["b", "c", "d", "e"]]
    assert pct_to_int("50%", 3) == 1


def test_run_once_reports_the_first_host_and_registers_on_all(tmp_path: Path) -> None:
    code, out, record = run(tmp_path, """
        - hosts: all
          gather_facts: false
          tasks:
            - name: once
              command: echo hi
              run_once: true
              register: r
            - name: show
              debug: msg="{{ r.stdout }}"
        """)
    assert code == 0
    assert "TASK [once] ****" in out and "changed: [h1]\n\nTASK [show]" in out
    assert out.count('"msg": "hi"') == 3
    assert [t["host"] for t in record["tasks"] if t["task"] == "once"] == ["h1"]
    assert record["recap"]["h2"]["ok"] == 1


def test_serial_repeats_the_play_header_per_batch(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - name: batched
          hosts: all
          gather_facts: false
          serial: 2
          tasks:
            - debug: msg="{{ ansible_play_batch }}"
        """)
    assert code == 0
    assert out.count("PLAY [batched] ****") == 2
    assert "\"msg\": [\n        \"h3\"\n    ]" in out


def test_max_fail_percentage_prints_no_more_hosts_twice(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: all
          gather_facts: false
          max_fail_percentage: 20
          tasks:
            - fail: msg=x
              when: inventory_hostname == 'h2'
            - debug: msg=never
        - hosts: all
          tasks:
            - debug: msg=never
        """)
    assert code == 2
    assert out.count("NO MORE HOSTS LEFT ****") == 2
    assert "never" not in out


def test_a_failed_play_without_max_fail_percentage_prints_no_banner(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: all
          gather_facts: false
          any_errors_fatal: true
          tasks:
            - fail: msg=x
              when: inventory_hostname == 'h2'
        """)
    assert code == 2
    assert "NO MORE HOSTS LEFT" not in out


def test_no_log_lines_are_censored_as_ansible_prints_them(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: h1
          gather_facts: false
          tasks:
            - name: dbg
              debug: msg=secret
              no_log: true
            - name: items
              debug: msg="{{ item }}"
              loop: [a]
              no_log: true
            - name: failing
              fail: msg=secret
              no_log: true
              ignore_errors: true
        """)
    assert code == 0
    # ansible 2.19 shows a failure's message in its error block even under no_log (recorded with -c local)
    assert "[ERROR]: Task failed: Action failed: secret\n" in out
    assert "secret" not in out.replace("TASK [dbg]", "").replace("[ERROR]: Task failed: Action failed: secret\n", "")
    assert "TASK [dbg] ****" in out and "ok: [h1]\n" in out
    assert "ok: [h1] => (item=(censored due to no_log))\n" in out
    assert ('fatal: [h1]: FAILED! => {"censored": "the output has been hidden due to the fact that '
            "'no_log: true' was specified for this result\", \"changed\": false}\n...ignoring") in out


def test_delegated_results_name_both_hosts(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: h1,h2
          gather_facts: false
          tasks:
            - name: to localhost
              command: echo x
              delegate_to: localhost
            - name: per item
              debug: msg=x
              loop: [h1]
              delegate_to: "{{ item }}"
            - name: skipped
              debug: msg=x
              delegate_to: h3
              when: false
            - name: local_action
              local_action: command echo y
        """)
    assert code == 0
    assert "changed: [h1 -> localhost]\nchanged: [h2 -> localhost]\n" in out
    assert 'ok: [h1] => (item=h1) => {' in out and 'ok: [h2 -> h1] => (item=h1) => {' in out
    assert "skipping: [h1]\nskipping: [h2]\n" in out
    assert "*\nchanged: [h1 -> localhost]\nchanged: [h2 -> localhost]\n\nPLAY RECAP" in out


def test_a_delegate_that_is_not_local_is_unreachable(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: h1
          gather_facts: false
          tasks:
            - debug: msg=x
              delegate_to: far.example.org
            - ping:
              delegate_to: far.example.org
        """)
    assert code == 4
    # debug runs on the controller, as in ansible, which opens no connection for it
    assert "ok: [h1 -> far.example.org] => {" in out
    assert "fatal: [h1 -> far.example.org]: UNREACHABLE!" in out


def test_host_label_and_censoring_helpers() -> None:
    assert host_label("h1", {}, "h1") == "h1"
    assert host_label("h1", {"_ansible_delegated_vars": {"ansible_delegated_host": "db",
                                                         "ansible_host": "10.0.0.5"}}) == "h1 -> db(10.0.0.5)"
    censored = censored_for_callback({"changed": True, "stdout": "pw", "results": [{"item": "pw"}]})
    assert censored["censored"] == CENSORED and "stdout" not in censored
    assert censored["results"][0] == {"censored": CENSORED, "_ansible_no_log": True}


def test_add_host_and_group_by_change_later_plays(tmp_path: Path) -> None:
    code, out, record = run(tmp_path, """
        - hosts: web
          gather_facts: false
          tasks:
            - name: add
              add_host: {name: new1, groups: fresh, ansible_connection: local}
            - name: add again
              add_host: name=new1 groups=fresh
            - name: group
              group_by: {key: "g_{{ inventory_hostname }}"}
        - hosts: fresh:g_h2
          gather_facts: false
          tasks:
            - debug: msg="{{ groups['fresh'] }}"
        - hosts: nothere
          gather_facts: false
          tasks:
            - debug: msg=x
        """)
    assert code == 0
    assert "TASK [add] ****" in out and "changed: [h1]\n\nTASK [add again]" in out
    assert "ok: [h1]\n\nTASK [group]" in out
    assert [t["host"] for t in record["tasks"] if t["task"] == "debug"] == ["new1", "h2"]
    assert ("[WARNING]: Could not match supplied host pattern, ignoring: nothere\n\nPLAY [nothere] ****" in out)
    assert "skipping: no hosts matched" in out


def test_add_host_without_a_name_fails_as_the_action_does(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: web
          gather_facts: false
          tasks:
            - add_host: {groups: fresh}
        """)
    assert code == 2
    assert "name, host or hostname needs to be provided" in out


def test_no_log_keeps_the_retry_lines(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, """
        - hosts: h1
          gather_facts: false
          tasks:
            - name: retried
              command: /bin/false
              register: r
              until: r.rc == 0
              retries: 1
              delay: 0
              no_log: true
              ignore_errors: true
        """)
    assert code == 0
    # the error block comes between the retry line and the result's (ansible 2.19, recorded)
    assert "FAILED - RETRYING: [h1]: retried (1 retries left).\n[ERROR]: Task failed: Module failed: non-zero " \
        "return code\n" in out
    assert "\nfatal: [h1]: FAILED! => {\"attempts\"" in out
    assert "secret" not in out and '"censored": "the output has been hidden' in out
