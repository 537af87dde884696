"""deprecated-module

## What it does
Checks for tasks that use a module its collection has deprecated: in its `meta/runtime.yml`
(`deprecation:`, which ansible-playbook warns about when it loads the task), or in the module's
own documentation (`deprecated:`, with the reason and the module to use instead). The message
names the replacement where the collection gives one.

A module that has been removed (a `tombstone:` in `runtime.yml`) is not this rule's: ansible
refuses to load the task, and PLS113 reports it with the collection's removal note.

## Why is this bad?
A deprecated module is removed in a later release of its collection; the playbook then stops
loading. Until then, every run prints a deprecation warning.

## Example
```yaml title="collections/ansible_collections/acme/tools/meta/runtime.yml"
plugin_routing:
  modules:
    send_note:
      redirect: acme.tools.notify
      deprecation:
        removal_version: 3.0.0
        warning_text: Use acme.tools.notify instead.
```
```python title="collections/ansible_collections/acme/tools/plugins/modules/notify.py"
DOCUMENTATION = '''
module: notify
short_description: Send a note
options:
  msg: {type: str}
'''
```
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Tell the team
      acme.tools.send_note:
        msg: deployed
```

Use instead:
```yaml title="playbook.yml"
- hosts: all
  tasks:
    - name: Tell the team
      acme.tools.notify:
        msg: deployed
```

## Fix
`check --fix` and the editor rename a module that `runtime.yml` redirects to its new name: the
same module runs, without the deprecation. A module deprecated only in its documentation has no
fix: its replacement is described in words, and may take other options.

## Claim
ansible-playbook prints "[DEPRECATION WARNING]" for a module deprecated in `runtime.yml`; one
deprecated in its documentation is listed as deprecated by `ansible-doc`.
"""

from __future__ import annotations

from collections.abc import Iterator

from playbook_ls.rules.base import Finding, PlaybookContext, Severity, is_generated
from playbook_ls.rules.module_args import index_of

CODE = "PLS128"
NAME = "deprecated-module"
SEVERITY = Severity.WARNING
SCOPE = "playbook"


def check(ctx: PlaybookContext) -> Iterator[Finding]:
    index = index_of(ctx.playbook.plugins)
    if index is None:
        return
    seen: set[int] = set()
    for _play, task in ctx.tasks():
        data = task.data
        if not isinstance(data, dict) or id(data) in seen or is_generated(task) or not isinstance(task.action, str):
            continue
        seen.add(id(data))
        note = index.deprecation(task.action, task.collections)
        if note is not None:
            span = getattr(data, "key_spans", {}).get(task.action) or task.span
            yield Finding(note, span)
