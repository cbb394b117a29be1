"""A project whose knowledge the backstop moved out: 300 one-line lessons, one of them about
where sessions live, written and then cut to budget by the session end, which archives that
one (the oldest are kept, so it is the 100th). Shared by the search and recall tests."""

from __future__ import annotations

from orbital.events import Actor
from orbital.service import Orbital

LESSON = "Sessions live in Redis with a thirty minute expiry; the in-process cache lost them"
LESSON_ID = "sessions-live-in-redis-with-a-th"
_WORDS = ("cache", "schema", "deploy", "lint", "queue", "retry", "token", "index", "docker")
LESSONS = "".join(
    f"{i}. {LESSON}\n"
    if i == 100
    else f"{i}. Run the {_WORDS[i % 9]} check before the {_WORDS[(i * 4) % 9]} step ({i})\n"
    for i in range(1, 301)
)


def archive_the_lesson(service: Orbital, project: str) -> None:
    """Write the lessons as the agent and run the session end: the lesson is archived."""
    service.write_file(project, "LESSONS.md", LESSONS.encode(), actor=Actor.AGENT)
    service.session_end(project)
    archive = service.read_file(project, "LESSONS_ARCHIVE.md")
    assert f"<!--mem id:{LESSON_ID} " in archive
    assert LESSON not in service.read_file(project, "LESSONS.md")
