"""The Workbench page (``/workbench``): server-rendered HTML and plain forms, acting as
``user`` through the signed-in person's Workbench token.

Every form posts here and is answered with a redirect back to the page (post/redirect/get),
which shows what the action did. Sign-in is a pasted token; the session lives server-side
(:mod:`orbital.http._sessions`) and every state-changing form carries the session's CSRF
token. The ``Host`` allowlist and the cross-site check guard these routes like the API's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote

import msgspec
from litestar import Request, Response, Router, get, post
from litestar.datastructures import Cookie, ResponseHeader
from litestar.di import NamedDependency, Provide
from litestar.exceptions import PermissionDeniedException
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, QueryParameter, URLEncodedBody
from litestar.response import Redirect, Template

from orbital.catalogue import MEMORY_FILES
from orbital.domain.entry_actions import EntryAction
from orbital.errors import InvalidInput, Refused, UnknownAsk, UnknownEntry, UnknownProject
from orbital.http._sessions import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    SESSION_SECONDS,
    PageSession,
    PageSessions,
    new_secret,
    same_secret,
)
from orbital.service import Audience, Credential, Credentials, Orbital, WriteOutcome

PAGE = "/workbench"
LOGIN = f"{PAGE}/login"
_SAFE_METHODS = frozenset({"GET", "HEAD"})
#: What a person's mistakes can be; anything else is a problem-details error as on the API.
_PERSON_ERRORS = (UnknownAsk, UnknownEntry, Refused, InvalidInput)
_HEADERS = [
    ResponseHeader(
        name="Content-Security-Policy",
        value="default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'",
    ),
    ResponseHeader(name="X-Frame-Options", value="DENY"),
    # Not no-referrer: under it a browser sends `Origin: null` with the page's own forms.
    ResponseHeader(name="Referrer-Policy", value="same-origin"),
    ResponseHeader(name="Cache-Control", value="no-store"),
]


class SignInNeeded(Exception):
    """No live session: the person is sent to the sign-in form, told if a session ``ended``
    (it expired, the server restarted, or the token was revoked)."""

    def __init__(self, *, ended: bool) -> None:
        super().__init__("sign in first")
        self.ended = ended


@dataclass(frozen=True)
class Viewer:
    """The signed-in person: their session and the credential it verified again just now."""

    session: PageSession
    credential: Credential
    #: The project the page is narrowed to ("" for every project in reach).
    lens: str

    @property
    def back(self) -> str:
        """Where a form's redirect returns to: the page as the person was viewing it."""
        return f"{PAGE}?project={quote(self.lens, safe='')}" if self.lens else PAGE


class SignIn(msgspec.Struct, frozen=True):
    token: str = ""
    csrf: str = ""


class AskForm(msgspec.Struct, frozen=True):
    project: str = ""
    text: str = ""
    due: str = ""


class NoteForm(msgspec.Struct, frozen=True):
    note: str = ""


class ReasonForm(msgspec.Struct, frozen=True):
    reason: str = ""


async def _viewer(
    request: Request[Any, Any, Any],
    sessions: NamedDependency[PageSessions],
    credentials: NamedDependency[Credentials],
) -> Viewer:
    session_id = request.cookies.get(SESSION_COOKIE)
    session = sessions.get(session_id)
    if session is None:
        raise SignInNeeded(ended=bool(session_id))
    credential = credentials.verify(session.token)
    if credential is None or credential.audience is not Audience.WORKBENCH:
        sessions.end(session.session_id)
        raise SignInNeeded(ended=True)
    lens = request.query_params.get("project", "")
    if request.method not in _SAFE_METHODS:
        form = await request.form()
        given, lens = form.get("csrf"), form.get("lens", "")
        if not isinstance(given, str) or not same_secret(session.csrf, given):
            raise PermissionDeniedException(
                "the form's CSRF token is missing or stale; reload the Workbench page and "
                "submit the form again"
            )
    return Viewer(session, credential, lens if isinstance(lens, str) else "")


def _signed_out(_request: Request[Any, Any, Any], exc: SignInNeeded) -> Response[Any]:
    target = f"{LOGIN}?ended=true" if exc.ended else LOGIN
    return Redirect(target, status_code=303, cookies=[_ended_cookie(SESSION_COOKIE, PAGE)])


def _ended_cookie(key: str, path: str) -> Cookie:
    return Cookie(key=key, value="", path=path, max_age=0, httponly=True, samesite="strict")


def _reached(viewer: Viewer, project: str) -> str:
    """The project, if the person's credential reaches it (else unknown, as on the API)."""
    if not viewer.credential.reaches(project):
        raise UnknownProject(project)
    return project


def _act(viewer: Viewer, done: str, action: Callable[[], WriteOutcome]) -> Redirect:
    """Run a page action and report it on the next page view."""
    try:
        outcome = action()
    except _PERSON_ERRORS as exc:
        viewer.session.notify("error", str(exc))
    else:
        for warning in outcome.warnings:
            viewer.session.notify("info", warning)
        if outcome.events:
            viewer.session.notify("ok", done)
    return Redirect(viewer.back, status_code=303)


# -- sign-in --------------------------------------------------------------------------------


def _sign_in_page(message: str = "", status: int = 200) -> Template:
    secret = new_secret()
    return Template(
        "login.html.j2",
        context={"csrf": secret, "message": message},
        status_code=status,
        cookies=[
            Cookie(
                key=LOGIN_COOKIE,
                value=secret,
                path=LOGIN,
                httponly=True,
                samesite="strict",
                max_age=3600,
            )
        ],
    )


@get("/login", sync_to_thread=False)
def login_form(
    request: Request[Any, Any, Any],
    sessions: NamedDependency[PageSessions],
    ended: Annotated[bool, QueryParameter(description="The last session ended.")] = False,
) -> Response[Any]:
    if sessions.get(request.cookies.get(SESSION_COOKIE)) is not None:
        return Redirect(PAGE, status_code=303)
    message = (
        "Your session ended (it expired, the server restarted or the token was revoked); "
        "paste your Workbench token again."
        if ended
        else ""
    )
    return _sign_in_page(message)


@post("/login", status_code=303, sync_to_thread=True)
def login(
    request: Request[Any, Any, Any],
    sessions: NamedDependency[PageSessions],
    credentials: NamedDependency[Credentials],
    data: URLEncodedBody[SignIn],
) -> Response[Any]:
    expected = request.cookies.get(LOGIN_COOKIE)
    if not expected or not same_secret(expected, data.csrf):
        return _sign_in_page("The sign-in form expired; paste the token again.", 403)
    credential = credentials.verify(data.token.strip())
    if credential is None:
        return _sign_in_page(
            "That token is unknown or revoked. Create one with "
            "`orbital token create --audience workbench`.",
            401,
        )
    if credential.audience is not Audience.WORKBENCH:
        return _sign_in_page(
            "That is an agent token; the Workbench needs a token created with "
            "`--audience workbench`.",
            403,
        )
    session = sessions.start(data.token.strip())
    return Redirect(
        PAGE,
        status_code=303,
        cookies=[
            Cookie(
                key=SESSION_COOKIE,
                value=session.session_id,
                path=PAGE,
                httponly=True,
                samesite="strict",
                max_age=SESSION_SECONDS,
            ),
            _ended_cookie(LOGIN_COOKIE, LOGIN),
        ],
    )


@post("/logout", status_code=303, sync_to_thread=False)
def logout(sessions: NamedDependency[PageSessions], viewer: NamedDependency[Viewer]) -> Redirect:
    sessions.end(viewer.session.session_id)
    return Redirect(LOGIN, status_code=303, cookies=[_ended_cookie(SESSION_COOKIE, PAGE)])


# -- the page -------------------------------------------------------------------------------


@get("/", sync_to_thread=True)
def page(service: NamedDependency[Orbital], viewer: NamedDependency[Viewer]) -> Template:
    credential = viewer.credential
    view = service.workbench(credential, project=viewer.lens or None, recently_closed=True)
    entries = {p.project_id: service.memory_entries(p.project_id) for p in view.projects}
    conflicts = {p.project_id: service.conflicts(p.project_id) for p in view.projects}
    reachable = [p.project_id for p in service.projects() if credential.reaches(p.project_id)]
    return Template(
        "workbench.html.j2",
        context={
            "view": view,
            "entries": entries,
            "conflicts": {p: c for p, c in conflicts.items() if c},
            "projects": reachable,
            "lens": viewer.lens,
            "csrf": viewer.session.csrf,
            "notices": viewer.session.take_notices(),
            "label": credential.label or credential.token_id,
            "file_names": MEMORY_FILES,
        },
    )


# -- asks -----------------------------------------------------------------------------------


@post("/asks", status_code=303, sync_to_thread=True)
def open_ask(
    service: NamedDependency[Orbital],
    viewer: NamedDependency[Viewer],
    data: URLEncodedBody[AskForm],
) -> Redirect:
    target = _reached(viewer, data.project)
    return _act(
        viewer,
        f"Opened “{data.text.strip()}” in {target}.",
        lambda: service.ask_open(
            target,
            data.text,
            data.due.strip() or None,
            actor=viewer.credential.actor,
        ),
    )


@post("/{project:str}/asks/{ask_id:str}/done", status_code=303, sync_to_thread=True)
def ask_done(
    service: NamedDependency[Orbital],
    viewer: NamedDependency[Viewer],
    project: FromPath[str],
    ask_id: FromPath[str],
    data: URLEncodedBody[NoteForm],
) -> Redirect:
    target = _reached(viewer, project)
    return _act(
        viewer,
        f"[{ask_id}] marked done.",
        lambda: service.ask_close(target, ask_id, "done", data.note, actor=viewer.credential.actor),
    )


@post("/{project:str}/asks/{ask_id:str}/drop", status_code=303, sync_to_thread=True)
def ask_drop(
    service: NamedDependency[Orbital],
    viewer: NamedDependency[Viewer],
    project: FromPath[str],
    ask_id: FromPath[str],
    data: URLEncodedBody[ReasonForm],
) -> Redirect:
    target = _reached(viewer, project)
    return _act(
        viewer,
        f"[{ask_id}] dropped; the agent will not propose it again.",
        lambda: service.ask_close(
            target, ask_id, "dropped", data.reason, actor=viewer.credential.actor
        ),
    )


@post("/{project:str}/asks/{ask_id:str}/reopen", status_code=303, sync_to_thread=True)
def ask_reopen(
    service: NamedDependency[Orbital],
    viewer: NamedDependency[Viewer],
    project: FromPath[str],
    ask_id: FromPath[str],
) -> Redirect:
    target = _reached(viewer, project)
    return _act(
        viewer,
        f"[{ask_id}] is open again.",
        lambda: service.ask_reopen(target, ask_id, actor=viewer.credential.actor),
    )


# -- memory entries -------------------------------------------------------------------------


def _entry_route(action: EntryAction, done: str) -> HTTPRouteHandler:
    @post(
        f"/{{project:str}}/entries/{{entry_id:str}}/{action}",
        status_code=303,
        sync_to_thread=True,
        name=f"page-entry-{action}",
    )
    def entry_action(
        service: NamedDependency[Orbital],
        viewer: NamedDependency[Viewer],
        project: FromPath[str],
        entry_id: FromPath[str],
    ) -> Redirect:
        target = _reached(viewer, project)
        return _act(
            viewer,
            f"{entry_id} {done}.",
            lambda: service.entry_action(target, entry_id, action, actor=viewer.credential.actor),
        )

    return entry_action


def _conflict_route(keep: str, done: str) -> HTTPRouteHandler:
    @post(
        f"/{{project:str}}/conflicts/{{copy:str}}/keep-{keep}",
        status_code=303,
        sync_to_thread=True,
        name=f"page-conflict-{keep}",
    )
    def settle(
        service: NamedDependency[Orbital],
        viewer: NamedDependency[Viewer],
        project: FromPath[str],
        copy: FromPath[str],
    ) -> Redirect:
        target = _reached(viewer, project)
        return _act(
            viewer,
            done,
            lambda: service.resolve_conflict(target, copy, keep, actor=viewer.credential.actor),
        )

    return settle


def page_router() -> Router:
    return Router(
        PAGE,
        route_handlers=[
            login_form,
            login,
            logout,
            page,
            open_ask,
            ask_done,
            ask_drop,
            ask_reopen,
            _entry_route("pin", "pinned: it stays in the agent's view"),
            _entry_route("unpin", "unpinned"),
            _entry_route("restore", "restored to its file"),
            _conflict_route("mine", "Your edited file was written as your change."),
            _conflict_route("orbital", "Kept Orbital's text; yours is in the history."),
        ],
        dependencies={"viewer": Provide(_viewer)},
        exception_handlers={SignInNeeded: _signed_out},
        response_headers=_HEADERS,
        include_in_schema=False,
    )
