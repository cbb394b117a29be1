"""The pages behind problem ``type`` URIs (``/problems/<slug>``): what each error means and
what to do about it, so the URI in an error response leads somewhere useful."""

from __future__ import annotations

from litestar import Router, get
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.response import Template

from orbital.http._problems import problem_types

#: slug -> what it means and what to do. Every type in :func:`problem_types` has one.
EXPLAINED: dict[str, str] = {
    "unknown-project": "No registered project has that id, or your token does not reach it "
    "(both read the same, so a token never learns which other projects exist). Register a "
    "directory with `orbital init`; the Workbench overview lists the projects you reach.",
    "unknown-file": "Only the memory files can be read or written here: PROJECT_STATE.md, "
    "DECISIONS.md, LESSONS.md, INDEX.md and ASKS.md (names match without regard to case).",
    "unknown-ask": "This project has no ask with that id. Ask ids are the six hex digits "
    "after the event word in ASKS.md lines, e.g. `- open a1b2c3 …`.",
    "unknown-entry": "No memory entry of this project has that id. Entry ids are in the "
    "files' `<!--mem id:…-->` comments, and in the Workbench's memory list.",
    "unknown-workspace": "No workspace has that name, or the project is in none, so it has no "
    "workspace context or lessons. `orbital workspace create NAME` makes one and `orbital init "
    "--workspace NAME` joins a project to it.",
    "text-too-long": "A workspace context holds at most 4,000 characters and a project "
    "description 2,000, counted on the text the agent receives (markup and @mentions "
    "included). The detail says how many characters to cut; nothing was saved.",
    "unsafe-path": "The file name tried to leave the project's orbital/ directory (`..`, an "
    "absolute path, a NUL byte or an encoded form of these). Nothing was read or written.",
    "too-large": "The request body is over the server's limit (set with `orbital serve "
    "--max-body-bytes`; status 413), or the memory file's content is over its size limit "
    "(ORBITAL_MAX_FILE_BYTES; status 400). Nothing was changed.",
    "invalid-encoding": "Memory files are UTF-8 text; send the content as UTF-8.",
    "invalid-input": "A value in the request cannot be used; the detail names it and says "
    "what is accepted. Correct it and send the request again.",
    "conflict": "What you changed was changed by someone else after you read it. Read it "
    "again and repeat your change on the new version.",
    "store-locked": "Another writer held the event store longer than the busy timeout. Wait "
    "the `Retry-After` seconds and send the request again; nothing was changed.",
    "store-gone": "The event store's file was deleted, moved or replaced while the server had "
    "it open; nothing was written. A deleted file the server still held is saved beside it "
    "(its /health detail says where); the person running the server puts it back.",
    "store-unreachable": "The event store's database server could not be reached (nothing "
    "listening, a host that does not resolve, a database or role that does not exist); "
    "nothing was read or written. The person running the server checks its database URL.",
    "store-read-only": "The event store cannot be written now (a read-only file or "
    "filesystem); reads still work and nothing was changed. Send the request again once it is "
    "writable.",
    "disk-full": "The disk holding the event store or the memory files is full; nothing was "
    "changed. Send the request again once there is space.",
    "store-corrupt": "The event store's database file is damaged; nothing was changed. The "
    "person running the server restores it from a backup.",
    "no-store": "There is no event store where the server was told to find one; nothing was "
    "written. `orbital init` creates one.",
    "unsafe-sqlite": "The SQLite library lacks the fix of the WAL-reset corruption bug, so the "
    "store was not opened; reinstall Orbital to get its own SQLite.",
    "malformed-event": "A stored event could not be read back; the server log names it. "
    "Nothing was changed.",
    "refused": "The request was understood, but the rules do not allow it (for example, "
    "pinning an archived entry: restore it first). The detail says why; nothing was changed.",
    "invalid-request": "The request could not be read: malformed JSON, or a missing or "
    "wrongly typed field (the detail names the field).",
    "unauthorized": "The request had no token, or an unknown or revoked one. Create a token "
    "with `orbital token create --audience agent|workbench` and send it as "
    "`Authorization: Bearer <token>`.",
    "forbidden": "This client may not make this request: the token is for the other surface "
    "(agent tokens open /api/v1/projects, Workbench tokens open /api/v1/workbench), the request "
    "was addressed to a host name this server does not answer as (a DNS-rebinding defence), "
    "a browser sent it on behalf of another site, or a Workbench form's CSRF token was "
    "missing or stale (reload the page and submit again).",
    "not-found": "No route has this path, or the thing it names does not exist. The API is "
    "described at /schema; the Workbench page is at /workbench.",
    "method-not-allowed": "The route exists but not with this HTTP method; /schema lists "
    "the methods of each route.",
    "http-error": "Another HTTP error; the status and the detail say which.",
    "unavailable": "Something Orbital depends on cannot be used now: the memory editor's "
    "model is not configured or did not answer, or a session transcript cannot be read. The "
    "request itself was fine; the detail says which part failed.",
    "internal-error": "Something failed on the server that no change to the request can fix. "
    "For an unexpected error the response holds no more; otherwise the detail says what is "
    "broken (e.g. the tokenizer's data). The server's log has the details.",
}


@get("/", sync_to_thread=False)
def problem_index() -> Template:
    types = [
        (slug, status, title, EXPLAINED[slug]) for slug, (status, title) in problem_types().items()
    ]
    return Template("problems.html.j2", context={"types": sorted(types)})


@get("/{slug:str}", sync_to_thread=False)
def problem_page(slug: FromPath[str]) -> Template:
    known = problem_types().get(slug)
    if known is None:
        raise NotFoundException(f"no problem type {slug!r}; the types are listed at /problems")
    status, title = known
    return Template("problems.html.j2", context={"types": [(slug, status, title, EXPLAINED[slug])]})


def problem_types_router() -> Router:
    return Router(
        "/problems", route_handlers=[problem_index, problem_page], include_in_schema=False
    )
