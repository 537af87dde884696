"""profile-runs-never-task

## What it does
Checks every launch profile against the tasks of its playbook: a profile whose `job_tags`
select a tag that a `never` task only inherits (from its play, role entry, import or block),
and whose `skip_tags` lack `never`, runs that task. It is reported twice: on the profile and
on the task.

## Why is this bad?
The task was marked `never` to keep it out of ordinary launches, and this saved launch runs
it anyway. Selecting a task by a tag written next to its `never` is the intended opt-in and
is not reported.

## Example
```yaml title="playbook.yml"
- hosts: all
  tags: web
  tasks:
    - name: Drop the database
      ansible.builtin.command: dropdb app
      tags: never
```
```yaml title=".playbook-ls.yml"
profiles:
  web:
    playbook: playbook.yml
    job_tags: web
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tags: web
  tasks:
    - name: Drop the database
      ansible.builtin.command: dropdb app
      tags: never
```
```yaml title=".playbook-ls.yml"
profiles:
  web:
    playbook: playbook.yml
    job_tags: web
    skip_tags: never
```

## Claim
A launch with the profile's `job_tags` and `skip_tags` runs the `never` task named, as
`ansible-playbook --list-tasks --tags ... --skip-tags ...` with the same selection shows.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.flow.tags import Selection, should_run
from playbook_ls.rules.base import (
    Finding,
    PlaybookContext,
    Related,
    Severity,
    never_exposure,
    tag_origins,
    task_anchor,
    where,
)

CODE = "PLS107"
NAME = "profile-runs-never-task"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    profiles = [p for p in ctx.launching() if p.job_tags]
    if not profiles:
        return
    for _play, task in ctx.tasks():
        exposure = never_exposure(task)
        if exposure is None or task.handler:
            continue
        for profile in profiles:
            selection = Selection.from_options(profile.job_tags, profile.skip_tags)
            if not should_run(task.tag_set(), selection) or should_run(exposure.own, selection):
                continue
            selecting = {tag: frames for tag, frames in exposure.inherited.items() if tag in selection.only_tags}
            if not selecting:
                continue
            origins = ", ".join(tag_origins(tag, frames) for tag, frames in selecting.items())
            task_span, profile_span = task_anchor(task), profile.field_span("job_tags")
            yield Finding(f"profile '{profile.name}' runs '{task.display_name()}' ({where(task_span)}), a 'never' "
                          f"task, because its job_tags select {origins}; add 'never' to the profile's skip_tags",
                          profile_span, [Related(task_span, "the never task")] if task_span else [])
            yield Finding(f"launch profile '{profile.name}' ({where(profile_span)}) runs this 'never' task: its "
                          f"job_tags select {origins}; add 'never' to that profile's skip_tags",
                          task_span, [Related(profile_span, "the profile")] if profile_span else [])
