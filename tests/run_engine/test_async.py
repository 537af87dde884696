"""async/poll and async_status as ansible-playbook 2.19 runs them on the local connection
(compared by hand with ansible-playbook -c local; jids and times differ run to run)."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import run_playbook

from engine.run.async_jobs import Jobs, async_settings


def test_polled_and_background_jobs_print_ansible_lines(tmp_path: Path) -> None:
    code, out, record = run_playbook(tmp_path, """
        - hosts: localhost
          gather_facts: false
          tasks:
            - name: polled
              command: echo hi
              async: 10
              poll: 1
            - name: items
              command: echo {{ item }}
              loop: [a]
              async: 10
              poll: 1
            - name: fails
              command: /bin/false
              async: 10
              poll: 1
              ignore_errors: true
            - name: fired
              command: sleep 0.2
              async: 10
              poll: 0
              register: fired
            - name: wait
              async_status: {jid: "{{ fired.ansible_job_id }}"}
              register: job
              until: job.finished
              retries: 10
              delay: 1
            - name: no async here
              debug: msg=x
              async: 5
              ignore_errors: true
        """)
    assert code == 0
    out = re.sub(r"j\d+\.\d+", "JID", out)
    assert "TASK [polled] ****" in out and "*\nASYNC OK on localhost: jid=JID\nchanged: [localhost]\n" in out
    assert "ASYNC OK on localhost: jid=JID\nchanged: [localhost] => (item=a)\n" in out
    # ansible 2.19 prints the task's error block between the two lines
    assert "ASYNC FAILED on localhost: jid=JID\n[ERROR]: Task failed: Module failed: non-zero return code\n" in out
    assert "\nfatal: [localhost]: FAILED! => {\"ansible_job_id\": \"JID\"" in out
    assert 'fatal: [localhost]: FAILED! => {"msg": "This action (debug) does not support async."}' in out
    assert {t["task"]: t["status"] for t in record["tasks"]}["wait"] == "changed"


def test_async_status_merges_the_job_result_over_its_status_fields() -> None:
    jobs = Jobs()
    answer = jobs.start(lambda: {"changed": True, "rc": 0, "stdout": "x\ny"}, "/jobs")
    assert answer == {"failed": False, "started": True, "finished": False, "ansible_job_id": answer["ansible_job_id"],
                      "results_file": f"/jobs/{answer['ansible_job_id']}", "changed": True}
    jobs.jobs[answer["ansible_job_id"]].thread.join()
    status = jobs.status(answer["ansible_job_id"], async_dir="/jobs")
    assert status["finished"] is True and status["started"] is True
    assert status["stdout_lines"] == ["x", "y"] and status["stderr_lines"] == [] and status["rc"] == 0
    unknown = jobs.status("j1.1")
    assert unknown["failed"] and unknown["msg"] == "could not find job" and unknown["finished"] is True
    assert async_settings(None, None) == (0, 15) and async_settings("5", 0) == (5, 0)
