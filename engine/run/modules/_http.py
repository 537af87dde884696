"""What ansible's ``fetch_url`` does with urllib, for file:// URLs and plain HTTP(S): the
request (user agent, cache control or If-Modified-Since, basic auth, headers) and the ``info``
dictionary its modules read (lower-cased response headers, msg, status, url, cookies)."""

from __future__ import annotations

import base64
import email.utils
import gzip
import http.client
import http.cookiejar
import io
import urllib.error
import urllib.request
from datetime import datetime
from typing import Any

from engine.run.modules import ModuleError
from engine.run.modules._args import Arg

# ansible's url_argument_spec
URL_ARGS: dict[str, Arg] = {
    "url": Arg(),
    "force": Arg(type="bool", default=False),
    "http_agent": Arg(default="ansible-httpget"),
    "use_proxy": Arg(type="bool", default=True),
    "validate_certs": Arg(type="bool", default=True),
    "url_username": Arg(),
    "url_password": Arg(),
    "force_basic_auth": Arg(type="bool", default=False),
    "client_cert": Arg(type="path"),
    "client_key": Arg(type="path"),
    "use_gssapi": Arg(type="bool", default=False),
}
_UNSUPPORTED = ("client_cert", "client_key", "ca_path", "ciphers", "unix_socket")


def refuse_unsupported(params: dict[str, Any]) -> None:
    """Options the bundled engine does not implement fail the task rather than be ignored."""
    given = [name for name in _UNSUPPORTED if params.get(name)]
    if params.get("use_gssapi"):
        given.append("use_gssapi")
    if given:
        raise ModuleError(f"playbook-ls's engine does not implement {', '.join(given)}; "
                          "run with --engine ansible to use ansible-playbook")


class _Redirects(urllib.request.HTTPRedirectHandler):
    """ansible's follow_redirects: 'all'/'yes'/'urllib2' follow, 'safe' only for GET and HEAD,
    'none'/'no' never (the 3xx answer is the response)."""

    def __init__(self, follow: str) -> None:
        self.follow = follow

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        if self.follow in ("none", "no") or (self.follow == "safe" and req.get_method() not in ("GET", "HEAD")):
            raise urllib.error.HTTPError(req.full_url, code, msg, headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def open_url(url: str, params: dict[str, Any], method: str = "GET", data: bytes | None = None,
             headers: dict[str, str] | None = None, timeout: float = 10, last_mod_time: datetime | None = None,
             follow_redirects: str = "urllib2",
             cookies: http.cookiejar.CookieJar | None = None) -> Any:
    """The response of ``Request.open`` (ansible's ``open_url``), which raises urllib's errors as they come."""
    handlers: list[Any] = [_Redirects(follow_redirects), urllib.request.HTTPCookieProcessor(cookies)]
    if not params.get("use_proxy", True):
        handlers.append(urllib.request.ProxyHandler({}))
    if not params.get("validate_certs", True):
        import ssl

        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        handlers.append(urllib.request.HTTPSHandler(context=context))
    url, authorization = _configure_auth(url, params, handlers)
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, data=data, method=method.upper())
    if authorization:
        request.add_header("Authorization", authorization)
    if params.get("http_agent"):
        request.add_header("User-agent", params["http_agent"])
    if params.get("force"):
        request.add_header("cache-control", "no-cache")
    elif last_mod_time:
        request.add_header("If-Modified-Since", email.utils.format_datetime(last_mod_time, usegmt=True))
    for name, value in (headers or {}).items():
        request.add_header(name, str(value))
    return opener.open(request, None, timeout)


def _configure_auth(url: str, params: dict[str, Any], handlers: list[Any]) -> tuple[str, str | None]:
    """ansible's ``_configure_auth``: the URL without the credentials written in it, and the
    basic ``Authorization`` header to send (forced, or from ``~/.netrc``), or the handlers that
    answer the server's challenge."""
    import netrc
    import os
    import urllib.parse

    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "ftp":
        return url, None
    username, password = params.get("url_username"), params.get("url_password")
    netloc = parsed.netloc
    if not username and "@" in parsed.netloc:
        credentials, netloc = parsed.netloc.split("@", 1)
        username, password = credentials.split(":", 1) if ":" in credentials else (credentials, "")
        username, password = urllib.parse.unquote(username), urllib.parse.unquote(password)
        url = urllib.parse.urlunparse(parsed._replace(netloc=netloc))
    if username and not params.get("force_basic_auth"):
        manager = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        manager.add_password(None, netloc, username, password)
        handlers += [urllib.request.HTTPBasicAuthHandler(manager), urllib.request.HTTPDigestAuthHandler(manager)]
    elif username:
        return url, _basic(username, password)
    elif params.get("use_netrc", True):
        try:
            login = netrc.netrc(os.environ.get("NETRC")).authenticators(parsed.hostname or "")
        except OSError:
            login = None
        if login and login[0] and login[2]:
            return url, _basic(login[0], login[2])
    return url, None


def _basic(username: str, password: str | None) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password or ''}".encode()).decode()


def fetch(url: str, params: dict[str, Any], method: str = "GET", data: bytes | None = None,
          headers: dict[str, str] | None = None, timeout: float = 10, last_mod_time: datetime | None = None,
          follow_redirects: str = "urllib2", decompress: bool = True) -> tuple[Any, dict[str, Any]]:
    """(the response or None, info) as ``fetch_url`` returns them."""
    info: dict[str, Any] = {"url": url, "status": -1}
    cookies = http.cookiejar.CookieJar()
    response: Any = None
    try:
        response = open_url(url, params, method, data, headers, timeout, last_mod_time, follow_redirects, cookies)
        info.update({k.lower(): v for k, v in response.info().items()})
        merged: dict[str, str] = {}
        for name, value in response.headers.items():
            name = name.lower()
            merged[name] = f"{merged[name]}, {value}" if name in merged else value
        info.update(merged)
        info.update(msg=f"OK ({response.headers.get('Content-Length', 'unknown')} bytes)", url=response.geturl(),
                    status=response.code)
        if decompress and response.headers.get("content-encoding", "").lower() == "gzip":
            response = io.BytesIO(gzip.decompress(response.read()))
    except urllib.error.HTTPError as exc:
        response = exc
        try:
            body = exc.read() if exc.fp is not None else ""
        except Exception:  # noqa: BLE001
            body = ""
        info.update({k.lower(): v for k, v in (exc.headers or {}).items()})
        info.update(msg=str(exc), body=body, status=exc.code)
    except urllib.error.URLError as exc:
        info.update(msg=f"Request failed: {exc}", status=int(getattr(exc, "code", -1) or -1))
    except (ConnectionError, ValueError) as exc:
        raise ModuleError(str(exc)) from None
    except OSError as exc:
        info.update(msg=f"Connection failure: {exc}", status=-1)
    except http.client.BadStatusLine as exc:
        info.update(msg="Connection failure: connection was closed before a valid response was received: "
                        f"{exc.line}", status=-1)
    if response is not None and not isinstance(response, urllib.error.HTTPError):
        info["cookies"] = {cookie.name: cookie.value for cookie in cookies}
        info["cookies_string"] = "; ".join(f"{cookie.name}={cookie.value}" for cookie in cookies)
    return response, info
