"""ansible.builtin.url: the content of each URL, read on the controller as ansible-core 2.19's
``plugins/lookup/url.py`` reads it (``open_url`` with the plugin's options), a list of its lines or
(``split_lines=False``) one text each, and its errors worded as the plugin words them."""

from __future__ import annotations

import os
import urllib.error
import urllib.parse
from typing import Any

from engine.run.modules._http import open_url
from engine.templating.errors import ForeignCause
from engine.templating.pure_lookups import Call, LookupFailure, _bool_option

# option -> (type, default); each but the first three may also come from ``ansible_lookup_url_<var>``
# and ``ANSIBLE_LOOKUP_URL_<ENV>`` (the plugin's documentation: var name, env name)
_OPTIONS: dict[str, tuple[str, Any]] = {
    "validate_certs": ("boolean", True),
    "split_lines": ("boolean", True),
    "use_proxy": ("boolean", True),
    "username": ("string", None),
    "password": ("string", None),
    "headers": ("dictionary", {}),
    "force": ("boolean", False),
    "timeout": ("float", 10.0),
    "http_agent": ("string", "ansible-httpget"),
    "force_basic_auth": ("boolean", False),
    "follow_redirects": ("string", "urllib2"),
    "use_gssapi": ("boolean", False),
    "use_netrc": ("boolean", True),
    "unix_socket": ("string", None),
    "ca_path": ("string", None),
    "unredirected_headers": ("list", None),
    "ciphers": ("list", None),
}
_NO_SETTING = ("validate_certs", "split_lines", "use_proxy", "username", "password", "headers")
_SETTING_NAMES = {"http_agent": "agent", "unredirected_headers": "unredir_headers"}
# what ansible's Request does that urllib here does not: the run is declined before it starts
UNSUPPORTED = ("use_gssapi", "unix_socket", "ca_path", "unredirected_headers", "ciphers")


def mask_url(url: str) -> str:
    """``ansible.module_utils.urls.mask_url``: the user and password of a URL as ``****``."""
    parsed = urllib.parse.urlparse(url)
    if not parsed.username and not parsed.password:
        return url
    if parsed.password:
        netloc = parsed.netloc.replace(f"{parsed.username}:{parsed.password}@", "****:****@")
    else:
        netloc = parsed.netloc.replace(f"{parsed.username}@", "****@")
    return urllib.parse.urlunparse(parsed._replace(netloc=netloc))


def _typed(name: str, value: Any, origin: str) -> Any:
    kind = _OPTIONS[name][0]
    if value is None or kind in ("string", "list", "dictionary"):
        return value
    if kind == "boolean":
        return _bool_option(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise LookupFailure(f"Config {name!r} for 'url' lookup plugin from {origin!r} has an invalid value: "
                            f"Invalid value provided for 'float': {value!r}") from None


def url_options(kwargs: dict[str, Any], variables: Any) -> dict[str, Any]:
    """The plugin's options: given in the call, else ``ansible_lookup_url_*`` variables, else the
    environment's ``ANSIBLE_LOOKUP_URL_*``, else the default (unknown names are ignored, as
    ``set_options`` ignores them)."""
    options = {}
    for name, (_kind, default) in _OPTIONS.items():
        setting = _SETTING_NAMES.get(name, name)
        var, env = f"ansible_lookup_url_{setting}", f"ANSIBLE_LOOKUP_URL_{setting.upper()}"
        if name in kwargs:
            options[name] = _typed(name, kwargs[name], "Direct")
        elif name not in _NO_SETTING and variables is not None and var in variables:
            options[name] = _typed(name, variables[var], "Variable")
        elif name not in _NO_SETTING and env in os.environ:
            options[name] = _typed(name, os.environ[env], "Environment")
        else:
            options[name] = default
    return options


def lookup_url(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    options = url_options(kwargs, getattr(call.templar, "variables", None))
    given = [name for name in UNSUPPORTED if options[name]]
    if given or options["follow_redirects"] in ("yes", "no"):
        raise LookupFailure(f"playbook-ls's engine does not implement the url lookup's "
                            f"{', '.join(given) or 'follow_redirects yes/no'}; run with --engine ansible")
    params = {"validate_certs": options["validate_certs"], "use_proxy": options["use_proxy"],
              "url_username": options["username"], "url_password": options["password"], "force": options["force"],
              "http_agent": options["http_agent"], "force_basic_auth": options["force_basic_auth"],
              "use_netrc": options["use_netrc"]}
    ret: list[Any] = []
    for term in terms:
        try:
            response = open_url(term, params, headers=options["headers"], timeout=options["timeout"],
                                follow_redirects=options["follow_redirects"])
        except urllib.error.HTTPError as exc:
            raise LookupFailure(f"Received HTTP error for {mask_url(term)}") from ForeignCause(exc)
        except urllib.error.URLError as exc:  # a certificate refused or no connection too: urllib wraps them
            raise LookupFailure(f"Failed lookup url for {mask_url(term)}") from ForeignCause(exc)
        content = response.read()
        if options["split_lines"]:
            ret.extend(line.decode("utf-8", errors="surrogateescape") for line in content.splitlines())
        else:
            ret.append(content.decode("utf-8", errors="surrogateescape"))
    return ret



def declined_options(call: Any) -> list[str]:
    """What a ``lookup('url', ..., OPTION=...)`` call (a Jinja Call node) gives that the engine
    does not do (:data:`UNSUPPORTED`, ``follow_redirects`` yes or no), found before the run: an
    option written with a value that is not a literal false or none, or (the call's ``**kwargs``)
    any. The same options from ``ansible_lookup_url_*`` variables and the environment: see
    :func:`declined_settings`."""
    from jinja2 import nodes

    if call.dyn_kwargs is not None:
        return ["options given as **kwargs"]
    found = []
    for keyword in call.kwargs:
        value = keyword.value.value if isinstance(keyword.value, nodes.Const) else keyword
        if keyword.key in UNSUPPORTED and value not in (None, False, "", [], {}):
            found.append(keyword.key)
        elif keyword.key == "follow_redirects" and (value is keyword or str(value) in ("yes", "no")):
            found.append("follow_redirects yes/no")
    return found


def declined_settings(texts: list[str]) -> list[str]:
    """The ``ansible_lookup_url_*`` variables of :data:`UNSUPPORTED` options (and
    ``follow_redirects``) that ``texts`` name, and such ``ANSIBLE_LOOKUP_URL_*`` environment
    variables set for the run."""
    settings = [_SETTING_NAMES.get(name, name) for name in (*UNSUPPORTED, "follow_redirects")]
    environment = {setting: os.environ.get(f"ANSIBLE_LOOKUP_URL_{setting.upper()}") for setting in settings}
    found = [f"ANSIBLE_LOOKUP_URL_{setting.upper()}" for setting, value in environment.items()
             if value and (setting != "follow_redirects" or value in ("yes", "no"))]
    names = [f"ansible_lookup_url_{setting}" for setting in settings]
    for text in texts:
        found += [name for name in names if name in text and name not in found]
    return found
