from __future__ import annotations

from pathlib import Path

from helpers import run_playbook

QUIZ = """
- hosts: localhost
  gather_facts: false
  vars: {cond1: true, cond2: true}
  roles:
    - role: sample
      when:
        - cond1 is defined and cond1|bool
        - cond2 is defined and cond2|bool
"""
SAMPLE = """
- name: roled task 1
  debug: {msg: "cond1 {{cond1}} , cond2 {{cond2}}"}
- name: set cond2 to false
  set_fact: {cond2: 0}
- name: roled task 2
  debug: {msg: "x"}
- name: set cond2 to true
  set_fact: {cond2: 1}
- name: roled task 3
  debug: {msg: "x"}
"""


def test_when_chain_is_reevaluated_for_every_task(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, QUIZ, {"roles/sample/tasks/main.yml": SAMPLE})
    assert code == 0
    assert data["recap"]["localhost"] == {"ok": 2, "changed": 0, "unreachable": 0, "failed": 0, "skipped": 3,
                                          "rescued": 0, "ignored": 0}
    assert [t["status"] for t in data["tasks"]] == ["ok", "ok", "skipped", "skipped", "skipped"]
    assert data["tasks"][0]["task"] == "sample : roled task 1"
    assert '"msg": "cond1 True , cond2 True"' in out
    assert "localhost                  : ok=2    changed=0    unreachable=0    failed=0    skipped=3    " \
           "rescued=0    ignored=0   \n" in out


BLOCKS = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: ignored
      fail: {msg: boom}
      ignore_errors: true
    - block:
        - name: breaks
          fail: {msg: inner}
        - name: never reached
          debug: {msg: no}
      rescue:
        - name: rescuer
          set_fact: {rescued_it: true}
      always:
        - name: always
          debug: {msg: "{{ rescued_it }}"}
          changed_when: true
          notify: [h1, topic]
    - name: loop
      debug: {msg: "{{ item }}"}
      loop: [1, 2, 3]
      when: item != 2
      register: looped
    - name: shape
      assert:
        that:
          - looped.results | length == 3
          - looped.results[1] is skipped
          - looped.results[0].item == 1
  handlers:
    - name: h2
      debug: {msg: second}
      listen: topic
    - name: h1
      debug: {msg: first}
    - name: not notified
      debug: {msg: never}
"""


def fake_modules(action: str):
    def debug(args, ctx):
        return {"changed": False, "msg": args.get("msg", "Hello world!")}

    def fail(args, ctx):
        return {"changed": False, "failed": True, "msg": args.get("msg", "Failed as requested from task")}

    def assert_(args, ctx):
        that = args["that"] if isinstance(args["that"], list) else [args["that"]]
        for condition in that:
            if not ctx.evaluate(condition):
                return {"changed": False, "failed": True, "assertion": condition, "msg": "Assertion failed"}
        return {"changed": False, "msg": "All assertions passed"}

    return {"debug": debug, "fail": fail, "assert": assert_}.get(action.rsplit(".", 1)[-1])


def test_block_rescue_always_loops_handlers(tmp_path: Path) -> None:
    code, out, data = run_playbook(tmp_path, BLOCKS, modules=fake_modules)
    assert code == 0, out
    statuses = [(t["task"], t["status"]) for t in data["tasks"]]
    assert statuses == [("ignored", "failed"), ("breaks", "failed"), ("rescuer", "ok"), ("always", "changed"),
                        ("loop", "ok"), ("shape", "ok"), ("h2", "ok"), ("h1", "ok")]
    assert data["recap"]["localhost"] == {"ok": 7, "changed": 1, "unreachable": 0, "failed": 0, "skipped": 0,
                                          "rescued": 1, "ignored": 1}
    assert "...ignoring" in out and "RUNNING HANDLER [h2]" in out
    assert "skipping: [localhost] => (item=2) \n" in out


def test_failure_stops_host_and_exit_code(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      tasks:
        - name: bad
          fail: {msg: stop}
        - name: after
          debug: {msg: no}
    """
    code, out, data = run_playbook(tmp_path, playbook, modules=fake_modules)
    assert code == 2
    assert [t["task"] for t in data["tasks"]] == ["bad"]
    assert 'fatal: [localhost]: FAILED! => {"changed": false, "msg": "stop"}' in out


def test_remote_host_is_unreachable(tmp_path: Path) -> None:
    playbook = """
    - hosts: all
      gather_facts: false
      tasks:
        - debug: {msg: hi}
        - ping:
    """
    # a connection the engine does not make: unreachable, in the engine's words
    (tmp_path / "hosts").write_text("db.example.com ansible_connection=community.docker.docker\n")
    code, out, data = run_playbook(tmp_path, playbook, modules=fake_modules, inventory=[str(tmp_path / "hosts")])
    assert code == 4
    # debug needs no connection (ansible runs it on the controller); ping does
    assert data["recap"]["db.example.com"]["ok"] == 1
    assert data["recap"]["db.example.com"]["unreachable"] == 1
    assert "--engine ansible" in out


def test_ssh_host_whose_name_does_not_resolve_is_unreachable_in_ssh_words(tmp_path: Path) -> None:
    playbook = """
    - hosts: all
      gather_facts: false
      tasks:
        - ping:
    """
    # .invalid never resolves (RFC 2606): ssh fails before connecting, and ansible says so in its words
    code, out, data = run_playbook(tmp_path, playbook, modules=fake_modules, inventory=["Db.Invalid,"])
    assert code == 4 and data["recap"]["Db.Invalid"]["unreachable"] == 1
    assert ('"msg": "Task failed: Failed to connect to the host via ssh: ssh: Could not resolve hostname db.invalid: '
            in out) and "--engine ansible" not in out


def test_precedence_and_extra_vars(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      vars: {a: play, b: play, c: play}
      roles: [r]
    """
    files = {"roles/r/defaults/main.yml": "a: default\nd: default\n", "roles/r/vars/main.yml": "b: rolevars\n",
             "roles/r/tasks/main.yml": """
        - set_fact: {c: fact}
        - assert:
            that: [a == 'play', b == 'rolevars', c == 'fact', d == 'default', e == 'extra', role_name == 'r']
          vars: {e: task}
        """}
    code, out, data = run_playbook(tmp_path, playbook, files, modules=fake_modules, extra_vars={"e": "extra"})
    assert code == 0, out


def test_tags_select_tasks_and_never(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      tasks:
        - {name: one, debug: {msg: 1}, tags: [a]}
        - {name: two, debug: {msg: 2}, tags: [never, b]}
        - {name: three, debug: {msg: 3}, tags: [always]}
    """
    _, _, data = run_playbook(tmp_path, playbook, modules=fake_modules)
    assert [t["task"] for t in data["tasks"]] == ["one", "three"]
    _, _, data = run_playbook(tmp_path, playbook, modules=fake_modules, tags=["b"])
    assert [t["task"] for t in data["tasks"]] == ["two", "three"]


def test_include_tasks_and_meta_end_host(tmp_path: Path) -> None:
    playbook = """
    - hosts: localhost
      gather_facts: false
      tasks:
        - include_tasks: inc.yml
          vars: {greeting: hello}
        - meta: end_host
        - name: not run
          debug: {msg: no}
    """
    files = {"inc.yml": "- name: included\n  debug: {msg: '{{ greeting }}'}\n"}
    code, out, data = run_playbook(tmp_path, playbook, files, modules=fake_modules)
    assert code == 0, out
    assert [(t["task"], t["status"]) for t in data["tasks"]] == [("include_tasks", "ok"), ("included", "ok")]
    assert "included: " in out and '"msg": "hello"' in out
