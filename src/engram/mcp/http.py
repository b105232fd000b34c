"""MCP over HTTP (streamable HTTP), behind a bearer token.

One memory for several machines or a remote client. Every request must carry
`Authorization: Bearer <token>`: the token is ENGRAM_HTTP_TOKEN, or one generated at first
start and kept in the user's config directory (`http-token`, readable by the user only). It is
compared in constant time; a request without it gets 401 and reaches nothing. The server
listens on 127.0.0.1 unless told otherwise; it speaks plain HTTP, so a server reachable from
other machines belongs behind a TLS proxy (a warning says so).
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
from pathlib import Path

from engram.atomic import PRIVATE_FILE_MODE, write_atomically
from engram.config import MAX_TOKEN, MIN_TOKEN, Settings, config_dir, usable_token
from engram.errors import ConfigError
from engram.web.routing import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

TOKEN_FILE = "http-token"


class BearerToken:
    """ASGI middleware: HTTP requests without the token are answered 401 and go no further
    (the app's own lifespan events pass through)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            # The scheme is case-insensitive (RFC 7235): "bearer" and "BEARER" are Bearer.
            scheme, _, credentials = given.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(
                credentials.strip(), self._expected
            ):
                await _unauthorized(send)
                return
        await self.app(scope, receive, send)


class HostInLowerCase:
    """ASGI middleware: the Host header in lower case, as the SDK's check of it (an exact
    comparison with the allowed names, which are lower case) needs. A host name is the same
    in any case: `--host LOCALHOST` announced a URL whose requests were refused with 421,
    while the dashboard took them (a helper's probe)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = [
                (name, value.lower() if name == b"host" else value)
                for name, value in scope.get("headers") or []
            ]
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    body = json.dumps(
        {
            "error": "missing or wrong token: send 'Authorization: Bearer <token>' "
            "(ENGRAM_HTTP_TOKEN, or the http-token file in Engram's config directory)"
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="engram"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def token_for(settings: Settings, directory: Path | None = None) -> tuple[str, str]:
    """The token and where it comes from: the setting, else the token file (created with a
    fresh random token, owner-only, the first time)."""
    if settings.http_token:
        return settings.http_token, "ENGRAM_HTTP_TOKEN"
    path = token_path(directory)
    if path.exists():
        token = _read_token(path)
        if not token:
            return rotate_token(directory), str(path)  # an empty file: replace it
        _check_token_file(path, token)
        return token, str(path)
    return _first_token(path), str(path)


def _read_token(path: Path) -> str:
    """The token in the file; one that is not text (a hand edit in another encoding, a binary
    written over it) is refused as a bad token is (it was a UnicodeDecodeError traceback)."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        raise _bad_token_file(path) from None
    except IsADirectoryError:
        raise _token_is_a_folder(path) from None
    except PermissionError:
        raise ConfigError(
            f"the HTTP token file {path} cannot be read by this user (another user's file?): "
            "run as its owner, or set ENGRAM_HTTP_TOKEN"
        ) from None


def _token_is_a_folder(path: Path) -> ConfigError:
    return ConfigError(f"the HTTP token file {path} is a folder: remove or rename it")


def _bad_token_file(path: Path) -> ConfigError:
    return ConfigError(
        f"the HTTP token in {path} must be {MIN_TOKEN}-{MAX_TOKEN} characters of printable "
        "ASCII without spaces; `engram token rotate` writes a new one"
    )


def _check_token_file(path: Path, token: str) -> None:
    """A token file written or changed by hand is held to the setting's rules: a short token
    or one with spaces is refused (ENGRAM_HTTP_TOKEN refuses them; from the file they were
    taken as they were), and one others can read is made owner-only again, with a word."""
    if not usable_token(token):
        raise _bad_token_file(path)
    if os.name == "posix" and path.stat().st_mode & 0o077:
        if path.is_symlink():  # chmod would change the file it points to, wherever that is
            raise ConfigError(
                f"the HTTP token file {path} links to {path.resolve()}, which other users can "
                "read: make that file owner-only (chmod 600)"
            )
        try:
            path.chmod(PRIVATE_FILE_MODE)
        except PermissionError:
            raise ConfigError(
                f"the HTTP token file {path} can be read by other users and this user cannot "
                "make it private (another user's file?): fix its owner or run `chmod 600` on it"
            ) from None
        log.warning("%s could be read by other users: made owner-only (600)", path)


def bound_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything announces where it listens (a port held by
    another program was announced as Engram's, then the web server's bind error followed); a
    host or port that cannot be used is named as the option. It listens only once the server
    serves: a client that connects earlier is refused, not left waiting on a server still
    starting."""
    address = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        family, *_, where = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else "not a host name"
        raise ConfigError(f"--host {host}: not an address this machine knows ({reason})") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if os.name == "posix":  # as every web server: a restart may reuse a port in TIME_WAIT
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            # "::" is every address of the machine, IPv4 ones too, as users read it: listening
            # on IPv6 alone, it was refused at 127.0.0.1 and the LAN's IPv4 address, under a
            # log line saying other machines could reach it (a helper's probe).
            every = ipaddress.ip_address(where[0]).is_unspecified and socket.has_dualstack_ipv6()
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0 if every else 1)
        sock.bind(where)
    except OSError as exc:
        sock.close()
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ConfigError(f"--host {host}: not an address of this machine ({reason})") from None
        hint = "another program uses it" if exc.errno == errno.EADDRINUSE else reason
        raise ConfigError(
            f"--port {port}: cannot listen on {url_host(host)}:{port} ({hint}); choose another port"
        ) from None
    return sock


def loopback_hosts(
    listener: socket.socket, host: str = "", allowed: str = ""
) -> frozenset[str] | None:
    """The Host headers a server bound to loopback is reached by (None when bound elsewhere:
    then the names it is reached by are the operator's to know). Decided by the address the
    socket holds, not by how --host wrote it: "[::1]", "LOCALHOST" or "127.1" switched the
    checks off. Besides the usual names of loopback, the address bound and the name `host`
    the operator gave (127.0.1.1, a machine's own name in /etc/hosts: the URL the server
    announced answered every request with 421). On port 80 a browser leaves the port out.
    `allowed`: ENGRAM_HTTP_ALLOWED_HOSTS, the names a proxy on this machine forwards, taken as
    written."""
    address, port = listener.getsockname()[:2]
    if not ipaddress.ip_address(address).is_loopback:
        return None
    names = {"127.0.0.1", "localhost", "[::1]", url_host(address)}
    if host.strip():
        names.add(url_host(host.strip()).lower())
    local = {f"{name}:{port}" for name in names} | (names if port == 80 else set())
    return frozenset(local | proxied_hosts(allowed))


def proxied_hosts(allowed: str) -> set[str]:
    """The names of ENGRAM_HTTP_ALLOWED_HOSTS, lower-cased."""
    return {name.strip().lower() for name in allowed.split(",") if name.strip()}


def allowed_origins(hosts: frozenset[str] | None, allowed: str) -> list[str]:
    """The origins a browser may post from: loopback's over http, a proxy's names over https
    too (the proxy speaks TLS)."""
    proxied = proxied_hosts(allowed)
    plain = {f"http://{h}" for h in hosts or ()}
    return sorted(plain | {f"https://{h}" for h in proxied})


def url_host(host: str) -> str:
    """The host as a URL names it: an IPv6 address in brackets ("http://[::1]:8765")."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def token_path(directory: Path | None = None) -> Path:
    return (directory or config_dir()) / TOKEN_FILE


def _first_token(path: Path) -> str:
    """Create the token file unless another process just did, and return the token in it:
    two servers started together (`engram serve --http` and `engram ui`) used to write one
    each, and the first kept a token nobody could see. The file appears whole (a hard link of
    a finished temporary file), so the loser reads the winner's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        write_atomically(path, _new_token(), mode=PRIVATE_FILE_MODE, place=os.link)
    return _read_token(path)


def _new_token() -> bytes:
    return (secrets.token_urlsafe(32) + "\n").encode("utf-8")


def rotate_token(directory: Path | None = None) -> str:
    """Write a fresh random token to the token file (owner-only, replaced atomically): clients
    holding the old one are refused from the next request of a server started afterwards."""
    path = token_path(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        raise _token_is_a_folder(path)
    token = _new_token()
    # Owner-only from its first byte; a failed rotation leaves no stray copy behind.
    write_atomically(path, token, mode=PRIVATE_FILE_MODE)
    return token.decode("utf-8").strip()
