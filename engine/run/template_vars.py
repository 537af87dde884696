"""The variables ansible's template action and template lookup add to a template's own
(``_template_vars.generate_ansible_template_vars``)."""

from __future__ import annotations

import datetime
import os
import pwd
import time
from collections.abc import Mapping
from typing import Any

from engine.config import config_value


def template_vars(path: str, fullpath: str, dest: str | None, task_vars: Mapping[str, Any]) -> dict[str, Any]:
    """The variables ansible adds for the template ``path`` (as written) found at ``fullpath``:
    ``template_host``, ``template_path``, ``template_mtime``, ``template_uid``,
    ``template_run_date``, ``template_destpath`` (``dest``; None for the lookup),
    ``template_fullpath``, and ``ansible_managed`` unless the task's variables set it:
    ansible.cfg's ``[defaults] ansible_managed`` ("Ansible managed" by default), its ``{host}``,
    ``{uid}`` and ``{file}`` standing for those variables and strftime codes for the template's
    modification time."""
    stat = os.stat(fullpath)
    uid: int | str
    try:
        uid = pwd.getpwuid(stat.st_uid).pw_name
    except KeyError:
        uid = stat.st_uid
    variables: dict[str, Any] = {
        "template_host": os.uname()[1], "template_path": path,
        "template_mtime": datetime.datetime.fromtimestamp(stat.st_mtime), "template_uid": uid,
        "template_run_date": datetime.datetime.now(), "template_destpath": dest, "template_fullpath": fullpath,
    }
    if "ansible_managed" not in task_vars:
        managed = config_value(None, "defaults", "ansible_managed") or "Ansible managed"
        managed = managed.format(host="{{ template_host }}", uid="{{ template_uid }}", file="{{ template_path }}")
        variables["ansible_managed"] = time.strftime(managed, time.localtime(stat.st_mtime))
    return variables
