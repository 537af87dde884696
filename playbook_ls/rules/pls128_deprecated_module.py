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
from typing import Any

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
        note = deprecation(index, task.action, task.collections)
        if note is not None:
            span = getattr(data, "key_spans", {}).get(task.action) or task.span
            yield Finding(note, span)


def deprecation(index: Any, action: str, collections: tuple[str, ...] = ()) -> str | None:
    """What says ``action`` is deprecated, with the replacement, or None."""
    from engine.module_index import BUILTIN

    name = action if action.count(".") >= 2 else None
    if name is None:
        resolved = index.resolve(action, collections)
        if resolved is None or "." not in resolved:
            return None
        name = resolved
    name = name.removeprefix("ansible.legacy.")
    if name.count(".") < 2:
        name = f"{BUILTIN}.{name}"
    # the routing of the name as written, then of every name it redirects to
    for _ in range(10):
        entry = index.routing_entry(name)
        if not isinstance(entry, dict):
            break
        deprecated = entry.get("deprecation")
        if isinstance(deprecated, dict):
            text = deprecated.get("warning_text")
            where = f" (removal in {_removal(deprecated)})" if _removal(deprecated) else ""
            redirect = entry.get("redirect")
            instead = f" It now redirects to {redirect}." if isinstance(redirect, str) else ""
            return f"{name} is deprecated{where}: {text or 'see the collection'}.{instead}".replace("..", ".")
        redirect = entry.get("redirect")
        if not isinstance(redirect, str):
            break
        name = redirect if redirect.count(".") >= 2 else f"{BUILTIN}.{redirect}"
    resolved = index.resolve(name)
    doc = index.doc(resolved) if resolved else None
    deprecated = doc.get("deprecated") if isinstance(doc, dict) else None
    if not deprecated:
        return None
    details = deprecated if isinstance(deprecated, dict) else {}
    why = str(details.get("why") or "").strip().rstrip(".")
    instead = str(details.get("alternative") or "").strip().rstrip(".")
    removal = _removal(details)
    return (f"{resolved} is deprecated" + (f" (removal in {removal})" if removal else "") + (f": {why}" if why else "")
            + "." + (f" Instead: {instead}." if instead else ""))


def _removal(details: dict[str, Any]) -> str:
    version = details.get("removal_version") or details.get("removed_in")
    date = details.get("removal_date") or details.get("removed_at_date")
    return f"version {version}" if version else str(date) if date else ""
