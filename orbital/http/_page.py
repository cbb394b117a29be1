"""The Workbench page (``/workbench``): server-rendered HTML and plain forms, acting as
``user`` through the signed-in person's Workbench token.

Every form posts here and is answered with a redirect back to the page (post/redirect/get),
which shows what the action did. Sign-in is a pasted token; the session lives in the store
(:mod:`orbital.service._page_sessions`) and every state-changing form carries the session's CSRF
token. The ``Host`` allowlist and the cross-site check guard these routes like the API's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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
from orbital.domain.trust import TrustAction
from orbital.errors import (
    Conflict,
    InvalidInput,
    Refused,
    UnknownAsk,
    UnknownEntry,
    UnknownProject,
)
from orbital.events import Actor
from orbital.http._page_lists import PAGE, Search, memory_panel, open_page
from orbital.http._sessions import LOGIN_COOKIE, SESSION_COOKIE, Notices, new_secret, same_secret
from orbital.http._texts import save_text, texts_of
from orbital.service import (
    Audience,
    Credential,
    Credentials,
    Orbital,
    PageSession,
    PageSessions,
    WriteOutcome,
)
from projections.entry_pages import MAX_SEARCH

LOGIN = f"{PAGE}/login"
_SAFE_METHODS = frozenset({"GET", "HEAD"})
#: Done, dropped and recently closed asks shown on the page (newest first); the API has all.
CLOSED_SHOWN = 50
#: What a person's mistakes can be; anything else is a problem-details error as on the API.
_PERSON_ERRORS = (UnknownAsk, UnknownEntry, Refused, InvalidInput, Conflict)
_HEADERS = [
    ResponseHeader(
        name="Content-Security-Policy",
        value="default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; "
        "form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'",
    ),
    ResponseHeader(name="X-Frame-Options", value="DENY"),
    # Not no-referrer: under it a browser sends `Origin: null` with the page's own forms.
    ResponseHeader(name="Referrer-Policy", value="same-origin"),
    ResponseHeader(name="Cache-Control", value="no-store"),
]


class SignInNeeded(Exception):
    """No live session: the person is sent to the sign-in form, told if a session ``ended``
    (it expired, the person signed out, or the token was revoked)."""

    def __init__(self, *, ended: bool) -> None:
        super().__init__("sign in first")
        self.ended = ended


@dataclass(frozen=True)
class Viewer:
    """The signed-in person: their session and the credential it verified again just now."""

    session: PageSession
    notices: Notices
    #: The project the page is narrowed to ("" for every project in reach).
    lens: str
    #: The submitted form's fields (empty on a GET).
    form: Mapping[str, str] = field(default_factory=dict)

    @property
    def credential(self) -> Credential:
        return self.session.credential

    def notify(self, kind: str, message: str) -> None:
        self.notices.add(self.session.session_id, kind, message)

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


async def _viewer(
    request: Request[Any, Any, Any],
    sessions: NamedDependency[PageSessions],
    notices: NamedDependency[Notices],
) -> Viewer:
    session_id = request.cookies.get(SESSION_COOKIE)
    session = sessions.get(session_id)  # expired, or its token revoked: None
    if session is None:
        raise SignInNeeded(ended=bool(session_id))
    if request.method in _SAFE_METHODS:
        return Viewer(session, notices, request.query_params.get("project", ""))
    submitted = await request.form()
    form = {k: v for k, v in submitted.items() if isinstance(v, str)}
    if not same_secret(session.csrf, form.get("csrf")):
        raise PermissionDeniedException(
            "the form's CSRF token is missing or stale; reload the Workbench page and "
            "submit the form again"
        )
    return Viewer(session, notices, form.get("lens", ""), form)


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
        viewer.notify("error", str(exc))
    else:  # a refusal's warnings say why, word for word
        for warning in outcome.warnings:
            viewer.notify("error" if outcome.refused else "info", warning)
        if outcome.events and not outcome.refused:
            viewer.notify("ok", done)
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
        "Your session ended (it expired, you signed out or the token was revoked); "
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
    session = sessions.start(credential)
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
                max_age=sessions.seconds,
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
def page(
    service: NamedDependency[Orbital],
    viewer: NamedDependency[Viewer],
    q: Annotated[str, QueryParameter(description="Search the entries.")] = "",
    offset: Annotated[int, QueryParameter(description="Live entries skipped.")] = 0,
    archived: Annotated[int, QueryParameter(description="Other entries skipped.")] = 0,
    asks: Annotated[int, QueryParameter(description="Open asks skipped.")] = 0,
) -> Template:
    """What waits on the person first (their asks, overdue first), then each project's
    memory, each a page at a time: the page's size follows its pages, not the projects."""
    credential = viewer.credential
    query = " ".join(q.split())[:MAX_SEARCH]
    search = Search(query, max(offset, 0), max(archived, 0), max(asks, 0))
    view = service.workbench(credential, project=viewer.lens or None, recently_closed=True)
    panels = [memory_panel(service, p, viewer.lens, search) for p in view.projects]
    conflicts = {p.project_id: service.conflicts(p.project_id) for p in view.projects}
    previews = {
        c.copy: service.preview_conflict(pid, c.copy, actor=credential.actor)
        for pid, copies in conflicts.items()
        for c in copies
    }
    reachable = [p.project_id for p in service.projects() if credential.reaches(p.project_id)]
    return Template(
        "workbench.html.j2",
        context={
            "view": view,
            "open_page": open_page(view.asks, viewer.lens, search),
            "closed_shown": CLOSED_SHOWN,
            "panels": panels,
            "search": search,
            "conflicts": {p: c for p, c in conflicts.items() if c},
            "previews": previews,
            "projects": reachable,
            "project_labels": service.names.labels(reachable),
            "lens": viewer.lens,
            "csrf": viewer.session.csrf,
            "notices": viewer.notices.take(viewer.session.session_id),
            "label": credential.label or credential.token_id,
            "file_names": MEMORY_FILES,
            "texts": {p.project_id: texts_of(service, p.project_id) for p in view.projects},
            "costs": {p.project_id: service.injection_cost(p.project_id) for p in view.projects},
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
    reachable = [
        p.project_id for p in service.projects() if viewer.credential.reaches(p.project_id)
    ]
    return _act(
        viewer,
        f"Opened “{data.text.strip()}” in {service.names.labels(reachable)[target]}.",
        lambda: service.ask_open(
            target,
            data.text,
            data.due.strip() or None,
            actor=viewer.credential.actor,
        ),
    )


# -- actions on an ask, an entry or a conflict copy ------------------------------------------

#: What a page action runs: (service, project, the ask/entry/copy id, the form, actor).
Run = Callable[[Orbital, str, str, Mapping[str, str], Actor], WriteOutcome]


def _action(path: str, done: str, run: Run) -> HTTPRouteHandler:
    """A form's route, ``/{project}/<path>`` with ``{item}`` the ask, entry or copy: runs
    ``run`` as the person and redirects back, ``done`` (``{item}`` filled in) reported."""

    @post(
        f"/{{project:str}}/{path}",
        status_code=303,
        sync_to_thread=True,
        name="page-" + path.replace("/{item:str}", "").replace("/", "-"),
    )
    def act(
        service: NamedDependency[Orbital],
        viewer: NamedDependency[Viewer],
        project: FromPath[str],
        item: FromPath[str],
    ) -> Redirect:
        target = _reached(viewer, project)
        actor = viewer.credential.actor
        return _act(
            viewer, done.format(item=item), lambda: run(service, target, item, viewer.form, actor)
        )

    return act


def _entry(action: EntryAction) -> Run:
    return lambda service, project, item, _form, actor: service.entry_action(
        project, item, action, actor=actor
    )


def _trust(action: TrustAction) -> Run:
    return lambda service, project, item, form, actor: service.trust.act(
        project, item, action, form.get("reason", ""), actor=actor
    )


def _add_entry(
    service: Orbital, project: str, item: str, form: Mapping[str, str], actor: Actor
) -> WriteOutcome:
    """The person's new decision or lesson (``item``: its file), through the write path."""
    title, body = form.get("title", ""), form.get("body", "")
    return service.write_entry(project, item, title, body, actor=actor)


def _change_entry(
    service: Orbital, project: str, item: str, form: Mapping[str, str], actor: Actor
) -> WriteOutcome:
    """The person's rewrite of entry ``item`` (its file named by the form)."""
    file, title, body = form.get("file", ""), form.get("title", ""), form.get("body", "")
    return service.write_entry(project, file, title, body, entry_id=item, actor=actor)


def _settle(keep: str) -> Run:
    return lambda service, project, item, _form, actor: service.resolve_conflict(
        project, item, keep, actor=actor
    )


_ACTIONS = [
    _action(
        "asks/{item:str}/done",
        "[{item}] marked done.",
        lambda service, project, item, form, actor: service.ask_close(
            project, item, "done", form.get("note", ""), actor=actor
        ),
    ),
    _action(
        "asks/{item:str}/drop",
        "[{item}] dropped; the agent will not propose it again.",
        lambda service, project, item, form, actor: service.ask_close(
            project, item, "dropped", form.get("reason", ""), actor=actor
        ),
    ),
    _action(
        "asks/{item:str}/reopen",
        "[{item}] is open again.",
        lambda service, project, item, _form, actor: service.ask_reopen(project, item, actor=actor),
    ),
    _action(
        "asks/{item:str}/confirm-reopen",
        "[{item}] is open again, on the agent's words you confirmed.",
        lambda service, project, item, _form, actor: service.ask_proposal(
            project, item, True, actor=actor
        ),
    ),
    _action(
        "asks/{item:str}/decline-reopen",
        "[{item}] stays dropped: the agent's reopen is declined.",
        lambda service, project, item, form, actor: service.ask_proposal(
            project, item, False, form.get("reason", ""), actor=actor
        ),
    ),
    _action(
        "entries/{item:str}/pin", "{item} pinned: it stays in the agent's view.", _entry("pin")
    ),
    _action("entries/{item:str}/unpin", "{item} unpinned.", _entry("unpin")),
    _action("entries/{item:str}/restore", "{item} restored to its file.", _entry("restore")),
    _action(
        "entries/{item:str}/dispute",
        "{item} disputed: the agent sees your reason beside it.",
        _trust("dispute"),
    ),
    _action(
        "entries/{item:str}/retract",
        "{item} retracted: out of the agent's view, moved to the archive.",
        _trust("retract"),
    ),
    _action("entries/{item:str}/reaffirm", "{item} reaffirmed: held true.", _trust("reaffirm")),
    _action(
        "entries/{item:str}/confirm",
        "{item} confirmed: it holds with the files it cites as they are now.",
        lambda service, project, item, _form, actor: service.citations.confirm(
            project, item, actor=actor
        ),
    ),
    _action(
        "texts/{item:str}", "The {item} is saved: agents see it from their next turn.", save_text
    ),
    _action(
        "files/{item:str}/add", "Added to {item}: agents see it from their next turn.", _add_entry
    ),
    _action(
        "entries/{item:str}/change",
        "{item} changed: agents see it from their next turn.",
        _change_entry,
    ),
    _action(
        "conflicts/{item:str}/keep-mine",
        "Your edited file was written as your change.",
        _settle("mine"),
    ),
    _action(
        "conflicts/{item:str}/keep-orbital",
        "Kept Orbital's text; yours is in the history.",
        _settle("orbital"),
    ),
]


def page_router() -> Router:
    return Router(
        PAGE,
        route_handlers=[
            login_form,
            login,
            logout,
            page,
            open_ask,
            *_ACTIONS,
        ],
        dependencies={"viewer": Provide(_viewer)},
        exception_handlers={SignInNeeded: _signed_out},
        response_headers=_HEADERS,
        include_in_schema=False,
    )
