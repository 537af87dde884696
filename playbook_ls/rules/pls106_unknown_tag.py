"""unknown-tag

## What it does
Checks the tags a launch profile names in `job_tags` and `skip_tags` against the tags the
tasks of its playbook (of every checked playbook, if the profile names none) really carry,
inherited tags included, and suggests the closest known tag.

## Why is this bad?
ansible-playbook accepts any tag name: `--tags deplyo` runs nothing and succeeds, and
`--skip-tags depoly` skips nothing. A typo in a saved launch goes unnoticed for a long time.

## Example
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.debug:
        msg: deploying
      tags: deploy
```
```yaml title=".playbook-ls.yml"
profiles:
  deploy:
    playbook: playbook.yml
    job_tags: deplyo
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Deploy
      ansible.builtin.debug:
        msg: deploying
      tags: deploy
```
```yaml title=".playbook-ls.yml"
profiles:
  deploy:
    playbook: playbook.yml
    job_tags: deploy
```

## Claim
No task the profile's playbooks can reach carries the tag, so selecting it runs nothing more
than the `always` tasks. Rests on the tags the listing computes, compared with
ansible-playbook's `--list-tags`.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.loading.keywords import did_you_mean
from playbook_ls.rules.base import SPECIAL_TAGS, Finding, ProjectContext, Severity

CODE = "PLS106"
NAME = "unknown-tag"
SEVERITY = Severity.ERROR
SCOPE = "project"


def check(ctx: ProjectContext) -> Iterator[Finding]:
    for profile in ctx.profiles:
        known = ctx.profile_tags(profile)
        for field in ("job_tags", "skip_tags"):
            for tag in getattr(profile, field):
                if tag in SPECIAL_TAGS or tag in known:
                    continue
                yield Finding(f"profile '{profile.name}': {field} names '{tag}', which no task carries"
                              f"{did_you_mean(tag, known) or '; check the spelling'}", profile.field_span(field))
