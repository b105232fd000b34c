"""The local dashboard (`engram ui`, and under `engram serve --http` at /ui): search with `why`,
a memory's page with its decay curve, the review queue, promotion candidates, a gc preview,
the graph and the store's numbers; touch, promote, archive and delete behind a confirmation page.

Server-rendered (Starlette, which the MCP SDK brings, and Jinja2 templates with autoescaping):
no JavaScript except the graph page's (vis-network, inlined), nothing fetched from elsewhere.
Every page goes through the same services as the MCP tools and the CLI. Access takes the HTTP
token (`engram token show`): typed once on the login page, it opens a session whose random id
the browser keeps as a cookie (never the token itself), HttpOnly and SameSite=Strict, so another
site cannot make the browser act here; actions are POSTs that also check the Origin header when
the browser sends one.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, tzinfo
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from engram.app import App
from engram.core.models import Memory
from engram.core.ranking import why_summary
from engram.core.scoring import Policy, score_curve
from engram.core.timeutil import day_in, minute_in
from engram.errors import ConfigError, EngramError, NotFoundError, StoreError
from engram.services.results import RelatedMemory
from engram.services.validation import MAX_LIMIT
from engram.web.graph_page import graph_html

COOKIE = "engram_ui"  # and the server's port: `cookie_name`
SESSION_SECONDS = 12 * 3600.0  # a sign-in lasts a working day
MAX_SESSIONS = 100  # signed-in browsers remembered at once
# The methods that only read: any other changes something, and must come from this site.
READS = frozenset({"GET", "HEAD"})
ACTIONS = {
    "touch": "Touch (count a use: it fades more slowly)",
    "promote": "Promote to the vault (permanent)",
    "archive": "Archive (kept, out of search)",
    "unarchive": "Unarchive (back in search)",
    "delete": "Delete for good",
}
# What a memory's page offers, by its status: an archived memory was offered touch, promote
# (refused: archived memories cannot be promoted) and archive again, and no way back (probe).
OFFERED = {
    "active": ("touch", "promote", "archive", "delete"),
    "promoted": ("touch", "archive", "delete"),
    "archived": ("unarchive", "delete"),
}
# An action that finds the memory as it would leave it says so ("Nothing to do: …").
ALREADY = {
    "promote": "it is promoted already",
    "archive": "it is archived already",
    "unarchive": "it is not archived",
}
# Sent with every page: memories are private (not kept in the browser's cache after signing
# out, the address not passed on to another site as a referrer), and no content is sniffed as
# another type. Not "no-referrer": a browser then sends its own forms' POSTs with Origin
# "null", which the actions refuse as another site's.
PRIVATE_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}
GC_PREVIEW = 100  # memories listed by the gc page
SEARCH_ROWS = 20  # hits on the search page (the page says so when there may be more)
RELATED_ROWS = 50  # relations listed on a memory's page
LIST_ROWS = 50  # review and promotion candidates listed
GRAPH_MEMORIES = 2_000  # as `engram graph --html`: beyond it, the most alive
# The sign-in form is one token (at most 512 characters): anyone who can reach the port may
# post to it, so nothing larger is read (a 300 MB upload was spooled to disk before the check).
LOGIN_FORM_BYTES = 4_096
LOGIN_READ_SECONDS = 10.0  # a sign-in form is a few bytes: what takes longer is not a browser
_TEMPLATES = Path(str(resources.files("engram.web") / "templates"))


def dashboard(app: Callable[[], App], token: str) -> Starlette:
    """The dashboard as an ASGI app (mount it at /ui); `app` gives the App on first use."""
    env = Environment(loader=FileSystemLoader(_TEMPLATES), autoescape=select_autoescape(["html"]))
    # Signed-in browsers: a random session id each, until it expires or signs out. The cookie
    # was a fixed digest of the token: valid forever, across restarts, with no way to sign out,
    # and sent by the browser to any port of 127.0.0.1 (cookies know no ports).
    sessions: dict[str, float] = {}

    def flash_mark(message: str) -> str:
        """A redirect's message is signed with the token: a link could otherwise make a page
        say that a memory was deleted, or touched, when nothing was done."""
        signed = hmac.new(token.encode(), message.encode("utf-8", "surrogatepass"), "sha256")
        return signed.hexdigest()[:32]

    def flashed(request: Request, message: str) -> bool:
        return _same(request.query_params.get("flash", ""), flash_mark(message))

    env.globals.update(list_rows=LIST_ROWS, cli_rows=MAX_LIMIT)

    def page(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        # The menu and "Sign out" only for a browser signed in (they led a signed-out one to
        # "Sign in first.").
        values.setdefault("signed_in", authorized(request))
        html = env.get_template(name).render(base=_base(request), **values)
        return HTMLResponse(html, status_code=status, headers=PRIVATE_HEADERS)

    def authorized(request: Request) -> bool:
        # The scheme in any case (RFC 7235), as /mcp takes it: "bearer <token>" was refused.
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        cookie = request.cookies.get(cookie_name(request), "")
        bearer = scheme.lower() == "bearer" and _same(given.strip(), token)
        return bearer or sessions.get(cookie, 0.0) > time.monotonic()

    async def call(operation: Callable[[App], Any]) -> Any:
        return await run_in_threadpool(lambda: operation(app()))

    def guarded(
        handler: Callable[[Request], Any],
    ) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            if not authorized(request):
                if request.method == "GET":  # back to this page once signed in
                    asked = quote(_asked(request), safe="")
                    return RedirectResponse(f"{_base(request)}/login?next={asked}", 303)
                return page(request, "login.html", 401, error="Sign in first.", signed_in=False)
            if request.method not in READS and not _same_origin(request):
                return page(request, "error.html", 403, message="Refused: another site.")
            try:
                response: Response = await handler(request)
            except NotFoundError as exc:
                return page(request, "error.html", 404, message=str(exc))
            except (StoreError, ConfigError) as exc:
                # Busy, locked, unreachable, or a store that cannot be opened (not a SQLite
                # file: it said 400, as if the request were at fault): the server's trouble.
                return page(request, "error.html", 503, message=str(exc))
            except EngramError as exc:
                return page(request, "error.html", 400, message=str(exc))
            return response

        return run

    async def login(request: Request) -> Response:
        if request.method == "GET":
            return page(request, "login.html", next=_next(request, request.query_params))
        form = await _small_form(request)
        if isinstance(form, int):
            return page(request, "login.html", form, error="That is not a sign-in form.")
        given = form.get("token", "").strip()
        if not _same(given, token):
            wrong = "That is not the token."
            return page(request, "login.html", 401, error=wrong, next=_next(request, form))
        now = time.monotonic()
        for sid in [sid for sid, until in sessions.items() if until <= now]:
            del sessions[sid]
        while len(sessions) >= MAX_SESSIONS:  # the oldest sign-in goes first
            del sessions[min(sessions, key=sessions.__getitem__)]
        sid = secrets.token_urlsafe(32)
        sessions[sid] = now + SESSION_SECONDS
        # The page asked for before signing in (it went to the search page whatever it was).
        response = RedirectResponse(_next(request, form) or f"{_base(request)}/", status_code=303)
        response.set_cookie(
            cookie_name(request),
            sid,
            max_age=int(SESSION_SECONDS),
            httponly=True,
            samesite="strict",
            path=_base(request) or "/",
        )
        return response

    async def logout(request: Request) -> Response:
        sessions.pop(request.cookies.get(cookie_name(request), ""), None)
        response = RedirectResponse(f"{_base(request)}/login", status_code=303)
        response.delete_cookie(cookie_name(request), path=_base(request) or "/")
        return response

    async def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        # Archived memories are out of search unless asked for: nothing else led to them.
        archived = request.query_params.get("archived") == "1"
        status = "all" if archived else None
        hits, zone = await call(
            lambda a: (
                a.search.search(query or None, status=status, limit=SEARCH_ROWS),
                a.context.local_zone(),
            )
        )
        # The day each was saved, as search hits over MCP say it: which of two is the newer.
        rows = [(h, why_summary(h), day_in(h.memory.created_at, zone)) for h in hits]
        named = request.query_params.get("deleted", "")[:200]
        # Only what this dashboard just did: any text in a link was shown as "Deleted …".
        deleted = named if flashed(request, f"deleted {named}") else None
        return page(
            request,
            "search.html",
            query=query,
            rows=rows,
            deleted=deleted,
            most=SEARCH_ROWS,
            archived=archived,
        )

    async def memory(request: Request) -> Response:
        ident = request.path_params["memory_id"]

        def read(a: App) -> tuple[Any, float, dict[str, Any], tzinfo, list[RelatedMemory], bool]:
            m = a.memories.get(ident)
            now = a.context.now_epoch()
            times, scores = score_curve(a.context.policy, m, now)
            curve = list(zip(times.tolist(), scores.tolist(), strict=True))
            zone = a.context.local_zone()
            # Its relations, each to the memory at the other end: what supersedes it, what a
            # merge took in, what it causes (a helper's probe could not follow any of them).
            linked = a.graph.related(ident, depth=1, limit=RELATED_ROWS + 1)  # one: more?
            chart = _chart(curve, now, a.context.policy, zone)
            return m, a.memories.score(m), chart, zone, linked, a.ltm.vault.configured

        m, current, chart, zone, linked, vault = await call(read)
        # Promote only where there is a vault to write to: offered without one, it failed
        # after its confirmation page (a helper's probe).
        offered = _offered(m, vault)
        done = request.query_params.get("done", "")
        # Only what this dashboard just did: any action named in a link was shown done.
        named = request.query_params.get("action", "")
        unchanged = done == "unchanged" and flashed(request, f"unchanged {named} {ident}")
        return page(
            request,
            "memory.html",
            m=m,
            score=current,
            chart=chart,
            saved=minute_in(m.created_at, zone),
            used=minute_in(m.last_used, zone),
            linked=linked[:RELATED_ROWS],
            more_linked=len(linked) > RELATED_ROWS,  # 50 of 94 were shown as all (a probe)
            actions={name: ACTIONS[name] for name in offered},
            done=done if done in ACTIONS and flashed(request, f"{done} {ident}") else None,
            already=ALREADY.get(named) if unchanged else None,
        )

    async def action(request: Request) -> Response:
        """GET (and HEAD, which Starlette answers wherever GET is) asks to confirm; only a
        POST acts."""
        ident, name = request.path_params["memory_id"], request.path_params["action"]
        if name not in ACTIONS:
            return page(request, "error.html", 404, message=f"No action {name!r}.")
        if request.method in READS:  # HEAD as well: it ran the action (a probe)
            m, stays, vault = await call(
                lambda a: (
                    a.memories.get(ident),
                    a.memories.left_by_deleting(ident) if name == "delete" else [],
                    a.ltm.vault.configured,
                )
            )
            if name not in _offered(m, vault):  # "Promote?" of an archived memory (a probe)
                said = f"{ACTIONS[name].split(' (')[0]} is not offered for this memory"
                by_status = name in OFFERED.get(m.status.value, ACTIONS)
                why = "no vault" if by_status else f"it is {m.status.value}"
                return page(request, "error.html", 400, message=f"{said} ({why}).")
            return page(request, "confirm.html", m=m, action=name, label=ACTIONS[name], stays=stays)
        operations: dict[str, Callable[[App], bool]] = {
            "touch": lambda a: _touched(a, ident),
            "promote": lambda a: a.promotion.promote(ident).count > 0,
            "archive": lambda a: _status_changed(a, ident, a.memories.archive),
            "unarchive": lambda a: _status_changed(a, ident, a.memories.unarchive),
            "delete": lambda a: _deleted(a, ident),
        }
        changed = await call(operations[name])
        if name == "delete":
            mark = flash_mark(f"deleted {ident}")
            target = f"{_base(request)}/?deleted={quote(ident)}&flash={mark}"
        elif not changed:
            # Promoted, archived or active already: it said "Done: archive." of nothing done.
            mark = flash_mark(f"unchanged {name} {ident}")
            query = f"done=unchanged&action={name}&flash={mark}"
            target = f"{_base(request)}/memory/{quote(ident)}?{query}"
        else:
            mark = flash_mark(f"{name} {ident}")
            target = f"{_base(request)}/memory/{quote(ident)}?done={name}&flash={mark}"
        return RedirectResponse(target, status_code=303)

    async def review(request: Request) -> Response:
        rows = await call(lambda a: a.maintenance.review_candidates(LIST_ROWS))
        return page(request, "list.html", title="Review queue", rows=rows, kind="review")

    async def promotion(request: Request) -> Response:
        rows = await call(lambda a: a.maintenance.promotion_candidates(LIST_ROWS))
        title = "Promotion candidates"
        return page(request, "list.html", title=title, rows=rows, kind="promote")

    async def gc(request: Request) -> Response:
        def preview(a: App) -> tuple[Any, list[Any], int, tzinfo]:
            result = a.maintenance.gc(dry_run=True, limit=GC_PREVIEW)
            # The preview stops at GC_PREVIEW; how many are due in all is counted apart (the
            # page said "100 memories have faded" of a store with 151 due).
            total = a.maintenance.stats().due_for_gc if result.has_more else result.count
            listed = a.memories.get_many(result.memory_ids) if result.memory_ids else []
            return result, listed, total, a.context.local_zone()

        result, memories, total, zone = await call(preview)
        rows = [(m, day_in(m.last_used, zone)) for m in memories]
        return page(request, "gc.html", result=result, rows=rows, total=total)

    async def graph(request: Request) -> Response:
        snapshot = await call(lambda a: a.graph.snapshot(GRAPH_MEMORIES))
        return HTMLResponse(
            graph_html(snapshot, back=f"{_base(request)}/", memory_url=f"{_base(request)}/memory/"),
            headers=PRIVATE_HEADERS,
        )

    async def stats(request: Request) -> Response:
        return page(request, "stats.html", s=await call(lambda a: a.maintenance.stats()))

    async def missing(request: Request, exc: Exception) -> Response:
        # In the dashboard's own page, not a bare "Not Found" (a helper's probe).
        code = getattr(exc, "status_code", 404)
        told = {405: "This page opens from a button of the dashboard, not from a link."}
        return page(request, "error.html", code, message=told.get(code, "No such page."))

    return Starlette(
        exception_handlers={404: missing, 405: missing},
        routes=[
            Route("/login", login, methods=["GET", "POST"]),
            Route("/logout", guarded(logout), methods=["POST"]),
            Route("/", guarded(search)),
            Route("/memory/{memory_id}", guarded(memory)),
            Route("/memory/{memory_id}/{action}", guarded(action), methods=["GET", "POST"]),
            Route("/review", guarded(review)),
            Route("/promotion", guarded(promotion)),
            Route("/gc", guarded(gc)),
            Route("/graph", guarded(graph)),
            Route("/stats", guarded(stats)),
        ],
    )


def cookie_name(request: Request) -> str:
    """The sign-in cookie of the server that answers: cookies know no ports, so two Engram
    servers on 127.0.0.1 (`engram ui` and `engram serve --http`) overwrote each other's and
    signed each other out."""
    server = request.scope.get("server")
    return f"{COOKIE}_{server[1]}" if server else COOKIE


def _base(request: Request) -> str:
    """Where the dashboard is mounted ("/ui"), for links and redirects."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def _asked(request: Request) -> str:
    """The page a request asked for: its path and query."""
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def _next(request: Request, fields: Mapping[str, str]) -> str | None:
    """`next` of a sign-in, if it is a page of this dashboard: never another site ("//evil",
    "https://…", "/\\evil"), nor a path outside it ("/ui/../mcp", its dots written as they
    are or escaped, led out of the dashboard), nor the sign-in or sign-out page."""
    wanted = fields.get("next", "")
    inside = f"{_base(request)}/"
    if len(wanted) > 2_000 or not wanted.startswith(inside) or wanted.startswith("//"):
        return None
    if "\\" in wanted or any(ord(c) < 0x21 or c == "\x7f" for c in wanted):
        return None
    segments = unquote(urlsplit(wanted).path).split("/")
    if any(part in (".", "..") for part in segments) or segments[-1] in ("login", "logout"):
        return None
    return wanted


def _offered(m: Memory, vault: bool) -> list[str]:
    """The actions a memory's page offers: by its status, and promote only where there is a
    vault to write to."""
    return [n for n in OFFERED.get(m.status.value, ACTIONS) if vault or n != "promote"]


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == request.headers.get("host", "")


def _chart(
    curve: list[tuple[float, float]],
    now: float,
    policy: Policy,
    zone: tzinfo,
    width: int = 640,
    height: int = 220,
) -> dict[str, Any]:
    """An SVG line chart of a score curve, as the numbers the template draws: the line, the
    forget and promote thresholds, and "now". Drawn by hand (one polyline and three lines): a
    chart library would be the largest part of the page for this."""
    t0, t1 = curve[0][0], curve[-1][0]
    # Room above the highest point: a line at the top edge was drawn half outside the chart.
    top = max(1.0, policy.promote_threshold, *(s for _, s in curve)) * 1.1

    def x(t: float) -> float:
        return round((t - t0) / max(t1 - t0, 1.0) * width, 1)

    def y(s: float) -> float:
        return round(height - min(s, top) / top * height, 1)

    def label(t: float) -> str:
        return day_in(datetime.fromtimestamp(t, UTC), zone)

    return {
        "width": width,
        "height": height,
        "points": " ".join(f"{x(t)},{y(s)}" for t, s in curve),
        "forget": y(policy.forget_threshold),
        "promote": y(policy.promote_threshold),
        "now": x(min(max(now, t0), t1)),
        "start": label(t0),
        "end": label(t1),
    }


def _same(given: str, expected: str) -> bool:
    """Constant-time comparison of any text: `hmac.compare_digest` refuses non-ASCII strings
    (a TypeError, a 500 for "Bearer é"), so both sides are compared as UTF-8 bytes."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode())


def _deleted(app: App, ident: str) -> bool:
    """Deleting a memory that is not there (deleted in another tab, a stale link) deletes
    nothing: the page must not say "deleted"."""
    if not app.memories.delete([ident]):
        raise NotFoundError("memory", ident)
    return True


def _touched(app: App, ident: str) -> bool:
    """A touch always changes the memory (one more use)."""
    app.memories.touch(ident)
    return True


def _status_changed(app: App, ident: str, change: Callable[[list[str]], list[Memory]]) -> bool:
    """Archive or unarchive one memory; False if it was so already (nothing was done)."""
    before = app.memories.get(ident).status
    (after,) = change([ident])
    return after.status != before


async def _body_within(request: Request, most: int) -> bytes | None:
    """The request's body, or None once it is longer than `most` bytes (read no further)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > most:
            return None
    return body


async def _small_form(request: Request) -> dict[str, str] | int:
    """The fields of a URL-encoded form of at most LOGIN_FORM_BYTES, read no further; for
    anything else the status that says why not: 415 another kind of body (a JSON sign-in was
    told it was too large), 413 a larger one, 400 more fields than a sign-in form has or a
    client gone, 408 a body not sent within LOGIN_READ_SECONDS."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > LOGIN_FORM_BYTES:
        return 413
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return 415
    try:
        # A client that sends less than it declared, and waits, held the server open past
        # Ctrl-C or SIGTERM (its stop waits for every request but a GET), and one that hung
        # up logged a 49-line traceback (a helper's probe).
        body = await asyncio.wait_for(_body_within(request, LOGIN_FORM_BYTES), LOGIN_READ_SECONDS)
    except TimeoutError:
        return 408
    except ClientDisconnect:
        return 400
    if body is None:
        return 413
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=4)
    except ValueError:
        return 400
    return {name: values[0] for name, values in fields.items()}
