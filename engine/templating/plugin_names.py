"""The Python names of ansible-core 2.19's filter and test functions.

Python names a function in the errors of a call it refuses ("dict_to_list_of_dict_key_value_elements()
got an unexpected keyword argument 'key'"), and ansible shows that error as the plugin's failure;
the same error of the engine's own function is worded with ansible's name (:func:`ansible_worded`).
Read from ``ansible.plugins.filter`` and ``ansible.plugins.test`` (``FilterModule.filters()``,
``TestModule.tests()``: the functions defined in ansible itself).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

FILTERS: dict[str, str] = {
    "b64decode": "b64decode", "b64encode": "b64encode", "bool": "to_bool", "checksum": "secure_hash_s", "combine":
    "combine", "comment": "comment", "commonpath": "commonpath", "d": "ansible_default", "default": "ansible_default",
    "dict2items": "dict_to_list_of_dict_key_value_elements", "difference": "difference", "extract": "extract",
    "fileglob": "fileglob", "flatten": "flatten", "from_json": "from_json", "from_yaml": "from_yaml", "from_yaml_all":
    "from_yaml_all", "groupby": "_cleansed_groupby", "hash": "get_hash", "human_readable": "human_readable",
    "human_to_bytes": "human_to_bytes", "intersect": "intersect", "items2dict":
    "list_of_dict_key_value_elements_to_dict", "log": "logarithm", "mandatory": "mandatory", "md5": "md5s",
    "password_hash": "get_encrypted_password", "path_join": "path_join", "pow": "power", "quote": "quote", "random":
    "rand", "regex_escape": "regex_escape", "regex_findall": "regex_findall", "regex_replace": "regex_replace",
    "regex_search": "regex_search", "rekey_on_member": "rekey_on_member", "root": "inversepower", "sha1":
    "secure_hash_s", "shuffle": "randomize_list", "strftime": "strftime", "subelements": "subelements",
    "symmetric_difference": "symmetric_difference", "ternary": "ternary", "to_datetime": "to_datetime", "to_json":
    "to_json", "to_nice_json": "to_nice_json", "to_nice_yaml": "to_nice_yaml", "to_uuid": "to_uuid", "to_yaml":
    "to_yaml", "type_debug": "type_debug", "union": "union", "unique": "unique", "unvault": "do_unvault", "urlsplit":
    "split_url", "vault": "do_vault"
}
TESTS: dict[str, str] = {
    "change": "changed", "changed": "changed", "contains": "contains", "failed": "failed", "failure": "failed",
    "falsy": "falsy", "finished": "finished", "isnan": "isnotanumber", "issubset": "issubset", "issuperset":
    "issuperset", "match": "match", "nan": "isnotanumber", "reachable": "reachable", "regex": "regex", "search":
    "search", "skip": "skipped", "skipped": "skipped", "started": "started", "subset": "issubset", "succeeded":
    "success", "success": "success", "successful": "success", "superset": "issuperset", "timedout": "timedout",
    "truthy": "truthy", "unreachable": "unreachable", "uri": "is_uri", "url": "is_url", "urn": "is_urn",
    "vault_encrypted": "vault_encrypted", "vaulted_file": "vaulted_file", "version": "version_compare",
    "version_compare": "version_compare"
}


def ansible_worded(message: str, plugin: Callable[..., Any], name: str, kind: str) -> str:
    """``message`` (a Python error of calling the engine's ``plugin``, the filter or test ``name``)
    with the function named as ansible's is, when Python named it at the start, and a set filter's
    list (the engine's ``RunOrdered``) as the lazy list ansible hands its plugins any list in."""
    message = re.sub(r"\bRunOrdered\b", "_AnsibleLazyTemplateList", message)
    own = getattr(inspect.unwrap(plugin), "__qualname__", None)
    ansible_name = (FILTERS if kind == "filter" else TESTS).get(name.removeprefix("ansible.builtin."))
    if not own or not ansible_name or not message.startswith(f"{own}() "):
        return message
    return f"{ansible_name}(){message[len(own) + 2:]}"
