"""requirement-not-installed

## What it does
Reports a role or collection that a requirements file declares and that is not installed where
ansible-playbook would look for it, once per requirement, at its entry in the requirements file,
with the command that installs it. The files read are `requirements.yml` (and the like:
`ansible-role-requirements.yml`, `requirements-core.yml`), `roles/requirements.yml` and
`collections/requirements.yml` in the
playbook's directory and the directories above it, up to the top of the repository, in both of
ansible-galaxy's forms (a list of roles, or `roles:` and `collections:`); a role is matched by
the name ansible-galaxy installs it as (`name`, else the `src` repository's name).

Only what a checked playbook uses is reported: a role it names, a fully qualified role, module
or playbook of a declared collection. Those uses are not reported one by one as PLS109 or
PLS113: installing the requirement fixes them all, and nothing else can be checked about them
until it is installed (the role's tasks are not analysed).

## Why is this bad?
ansible-playbook refuses to start without them. That is usually expected on a machine that has
not run `ansible-galaxy install` yet, so this is a warning: a CI job that installs requirements
before checking can make it an error (`severity = { PLS123 = "error" }`), one that never does can
make it information or ignore it.

## Example
```yaml title="requirements.yml"
roles:
  - name: geerlingguy.java
```
```yaml title="playbook.yml"
- hosts: all
  roles:
    - geerlingguy.java
```

Use instead:
```yaml title="requirements.yml"
roles:
  - name: geerlingguy.java
```
```yaml title="roles/geerlingguy.java/tasks/main.yml"
- name: Install Java
  ansible.builtin.package:
    name: openjdk-17-jdk
```
```yaml title="playbook.yml"
- hosts: all
  roles:
    - geerlingguy.java
```
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.loading.model import join_sentences
from playbook_ls.rules.base import Finding, PlaybookContext, Related, Severity

CODE = "PLS123"
NAME = "requirement-not-installed"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    for problem in ctx.playbook.problems:
        requirement = problem.requirement
        if requirement is None:
            continue
        # the same message and place from every use: the runner keeps one finding per requirement
        message = join_sentences(requirement.describe(), f"Install it with `{requirement.install_command()}`.")
        related = [Related(problem.span, "used here")] if problem.span else []
        yield Finding(message, requirement.span or problem.span, related)
