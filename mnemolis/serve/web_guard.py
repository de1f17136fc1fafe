"""What the HTTP API refuses before it looks at a request: other sites' pages.

A browser lets any web page send a "simple" cross-site request (a POST with
``Content-Type: text/plain``) to ``http://127.0.0.1:8686`` without asking
anyone; it only hides the reply. Two such requests unlocked a door. And a
page whose name is made to point at 127.0.0.1 (DNS rebinding) is, to the
browser, the daemon's own origin, so it may read the replies too. Every
route (`/events` too) therefore refuses:

* a ``Host`` that is not this daemon's: the address it listens on, an IP
  address when it listens on all of them, ``localhost``, a loopback address,
  or a name in ``http.allowed_hosts`` (**421**): a rebinding page's
  requests carry its own name;
* an ``Origin`` not in ``http.allowed_origins`` (**403**): browsers name the
  page that sends every cross-site request and every POST; programs (the
  CLI, curl, Home Assistant) send none;
* a POST (or any request with a body) whose ``Content-Type`` is not
  ``application/json`` (**415**): a page cannot send that type to another
  site without the daemon's leave (a CORS preflight), which only an allowed
  origin gets.

An allowed origin's requests get the CORS headers that let its page read the
reply, and its preflight (``OPTIONS``) an answer.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

JSON = "application/json"
DEFAULT_PORTS = {"http": 80, "https": 443}
#: How long a browser may remember a preflight's answer.
PREFLIGHT_MAX_AGE_S = 600


@dataclass(frozen=True)
class Refused:
    status: int
    code: str
    message: str


def normal_origin(text: str) -> str:
    """``scheme://host[:port]`` as a browser writes it in ``Origin`` (lower case, no
    default port); ValueError says what is wrong."""
    parts = urlsplit(text.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r} has a port that is not a number") from None
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{text!r} must be an origin such as http://dashboard.local:8123")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"{text!r} must be only scheme://host[:port], without a path")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    shown = "" if port is None or port == DEFAULT_PORTS[scheme] else f":{port}"
    return f"{scheme}://{host}{shown}"


def normal_host(text: str) -> str:
    """A name or an address as ``Host`` carries it, without the port (lower case, no
    trailing dot); ValueError says what is wrong."""
    raw = text.strip().lower().rstrip(".")
    bare = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw
    if bare and _is_address(bare):
        return bare
    labels = raw.split(".")
    if not raw or any(not label or len(label) > 63 for label in labels) or not all(
        c.isalnum() or c in "-_" for label in labels for c in label
    ):
        raise ValueError(f"{text!r} must be a host name such as mnemolis.local (no port)")
    return raw


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def host_of(header: str) -> str | None:
    """The name or address in a ``Host`` header, without its port; None when unreadable."""
    try:
        host = urlsplit(f"//{header.strip()}").hostname
    except ValueError:
        return None
    return host.rstrip(".") if host else None


class WebGuard:
    """The rules of one HTTP listener."""

    def __init__(
        self, bound: str, allowed_hosts: Iterable[str], allowed_origins: Iterable[str]
    ) -> None:
        bound = bound.lower()
        self.any_address = bound in ("0.0.0.0", "::", "")
        self.hosts = frozenset({"localhost", bound, *allowed_hosts}) - {""}
        self.origins = frozenset(allowed_origins)

    # ------------------------------------------------------------------ checks

    def host(self, header: str | None) -> Refused | None:
        """421 for a ``Host`` this daemon was not given (a rebinding page's name)."""
        if header is None:  # HTTP/1.0 without one: not a browser
            return None
        host = host_of(header)
        if host is not None and self._our_host(host):
            return None
        shown = (host or header)[:100]
        return Refused(
            421,
            "misdirected",
            f"This daemon does not answer to the name {shown!r}; if that is its own name, "
            "add it to http.allowed_hosts in sources/serve.yaml",
        )

    def _our_host(self, host: str) -> bool:
        if host in self.hosts:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False  # a name: only those it was given
        return address.is_loopback or self.any_address  # an address cannot be rebound

    def origin(self, header: str | None) -> Refused | None:
        """403 for a web page of a site not in ``http.allowed_origins``."""
        if header is None or self.allowed(header):
            return None
        return Refused(
            403,
            "forbidden_origin",
            f"Requests from web pages of {header[:100]!r} are refused; to allow that site, "
            "add it to http.allowed_origins in sources/serve.yaml",
        )

    def allowed(self, origin: str | None) -> bool:
        if origin is None:
            return False
        try:
            return normal_origin(origin) in self.origins
        except ValueError:
            return False  # "null" (a sandboxed page, a file) among them

    @staticmethod
    def content(method: str, length: int | None, content_type: str | None) -> Refused | None:
        """415 for a POST, or any body, that is not ``application/json`` (UTF-8)."""
        if method != "POST" and not length:
            return None
        kind, _, params = (content_type or "").partition(";")
        charset = dict(_param(p) for p in params.split(";") if "=" in p).get("charset", "utf-8")
        if kind.strip().lower() == JSON and charset.lower() in ("utf-8", "utf8"):
            return None
        return Refused(
            415,
            "unsupported_media_type",
            "Send the request as JSON, with Content-Type: application/json",
        )

    # ------------------------------------------------------------------ CORS

    def cors(self, origin: str | None) -> dict[str, str]:
        """What lets an allowed origin's page read the reply."""
        if origin is None or not self.allowed(origin):
            return {}
        return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}

    def preflight(self, origin: str, routes: Mapping[str, object]) -> dict[str, str]:
        """The answer to an allowed origin's ``OPTIONS``: what it may send."""
        return {
            **self.cors(origin),
            "Access-Control-Allow-Methods": ", ".join(sorted({str(m) for m in routes})),
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_S),
        }


def _param(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    return key.strip().lower(), value.strip().strip('"')
