"""A registered project as seen from one checkout: the record every layer names a project by
(the store keeps them)."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from pathlib import Path
from typing import NamedTuple, Protocol

from orbital.catalogue import MEMORY_DIR, PROJECT_ID_FILE
from orbital.errors import InvalidInput


def check_timezone(timezone: str) -> str:
    """``timezone`` if it is "" (the machine's local zone) or an IANA name, else refused."""
    if timezone:
        import zoneinfo  # here, not at the top: a read in the local zone never needs it

        try:
            zoneinfo.ZoneInfo(timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise InvalidInput(
                f"unknown timezone {timezone!r}: use an IANA name such as Europe/Berlin"
            ) from None
    return timezone


def this_machine() -> str:
    """This machine's name among a shared store's checkouts: ``ORBITAL_MACHINE``, else the
    host name (set it where the host name changes, e.g. in containers)."""
    named = os.environ.get("ORBITAL_MACHINE", "").strip()
    if named:
        return named
    if hasattr(os, "uname"):  # POSIX: gethostname(2)'s name, without importing socket
        return os.uname().nodename
    import socket

    return socket.gethostname()


def identity_in(root: str | Path) -> str | None:
    """The identity in a folder's committed ``orbital/project-id`` file, if it has one."""
    try:
        text = (Path(root) / MEMORY_DIR / PROJECT_ID_FILE).read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text.split()[0] if text else None


class Project(NamedTuple):
    """A project (its events are ``project_id``'s) in one checkout: the folder ``root`` on
    this machine, with its own checkpoints under ``checkout`` (the first checkout's id is the
    project's id)."""

    project_id: str
    root: str
    timezone: str
    registered_at: dt.datetime
    checkout: str

    def tz(self) -> dt.tzinfo:
        """The project's timezone; "" means the machine's local zone."""
        if self.timezone:
            import zoneinfo

            return zoneinfo.ZoneInfo(self.timezone)
        local = dt.datetime.now().astimezone().tzinfo
        assert local is not None
        return local


class Registry(Protocol):
    """The store's registry of checkouts, as :func:`locate` reads it."""

    def checkout_at(self, root: str | Path) -> Project | None: ...
    def project_with_identity(self, identity: str) -> str | None: ...
    def unclaimed_at(self, root: str | Path) -> Project | None: ...


def locate(registry: Registry, path: Path) -> Project | Path | None:
    """Which project the folder ``path`` is in — the one rule every entry point follows.

    Walking up from ``path``: a folder registered on this machine is that checkout; a folder
    whose committed id file names a known project is a checkout of it not registered yet (a
    clone, a moved folder: returned as the folder to join), and so is one registered under
    another machine name before identities existed. A nested clone of another project is
    therefore that project, never the registered folder around it. None: no project."""
    for candidate in (path, *path.parents):
        found = registry.checkout_at(candidate)
        if found is not None:
            return found
        identity = identity_in(candidate)
        if identity is not None and registry.project_with_identity(identity) is not None:
            return candidate
        if identity is None and registry.unclaimed_at(candidate) is not None:
            return candidate
    return None


def inside_project(root: str, path: str) -> bool:
    """``path`` names a plain file inside the project ``root``: walked from the root without
    following a link (:func:`open_inside`), so it never leads outside, whatever is swapped."""
    fd = open_inside(root, path)
    if fd is None:
        return False
    os.close(fd)
    return True


def open_inside(root: str, path: str) -> int | None:
    """A read descriptor of the regular file ``path`` names inside the project ``root``, or
    None. Each directory on the way is opened relative to the one before it with
    ``O_NOFOLLOW`` (no symlink, no ``..``), the file too, and what was opened is checked by
    its descriptor: the caller reads what was checked, never the name again."""
    if not path or path.startswith(("/", "~", "\\")) or "\x00" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    nofollow = os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=fd)
            os.close(fd)
            fd = inner
        found = os.open(parts[-1], os.O_RDONLY | os.O_NONBLOCK | nofollow, dir_fd=fd)
    except OSError:  # missing, a link, not a directory, no access: no file there
        return None
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(found).st_mode):  # a FIFO or a device is no file
        os.close(found)
        return None
    return found


def read_inside(root: str, path: str, limit: int) -> bytes | None:
    """The bytes of the file ``path`` names inside ``root`` (:func:`open_inside`), at most
    ``limit`` of them (a longer file: the first ``limit + 1``, for the caller to refuse);
    None when it names no plain file there."""
    fd = open_inside(root, path)
    if fd is None:
        return None
    chunks: list[bytes] = []
    try:
        got = 0
        while got <= limit:
            chunk = os.read(fd, limit + 1 - got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks)


# -- which store a project lives in, per user ---------------------------------------------
# A committed file names the project (its identity), never the store: the store's URL may hold
# a secret and differs per person. Each user's own record (``stores.json`` in their config
# folder) says, per identity, which stores know that project, newest first; every entry point
# that is not told a store (``--db``, ``ORBITAL_DB``) takes the first store of the folder's id.

#: The per-user record of which stores know which project.
STORES_FILE = "stores.json"


def config_dir() -> Path:
    """This user's Orbital settings folder: ``ORBITAL_CONFIG_DIR``, else the user config
    directory."""
    named = os.environ.get("ORBITAL_CONFIG_DIR", "").strip()
    if named:
        return Path(named)
    import platformdirs

    return Path(platformdirs.user_config_dir("orbital", appauthor=False))


def identity_above(path: str | Path) -> str | None:
    """The identity of the nearest folder at or above ``path`` with an id file."""
    start = Path(os.path.abspath(path))
    for candidate in (start, *start.parents):
        identity = identity_in(candidate)
        if identity is not None:
            return identity
    return None


def public_url(url: str) -> str:
    """``url`` without its password (PostgreSQL then takes it from ``PGPASSWORD`` or
    ``~/.pgpass``), so the record never holds a secret."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    user, at, host = parts.netloc.rpartition("@")
    if ":" not in user and "password" not in parts.query:
        return url  # nothing secret (and a SQLite path is kept as written)
    netloc = f"{user.partition(':')[0]}{at}{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _read_stores() -> dict[str, list[str]]:
    try:
        data = json.loads((config_dir() / STORES_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    known = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(known, dict):
        return {}
    return {
        identity: [s for s in stores if isinstance(s, str)]
        for identity, stores in known.items()
        if isinstance(identity, str) and isinstance(stores, list)
    }


def stores_knowing(identity: str) -> list[str]:
    """The stores this user's record says know project ``identity``, newest first."""
    return _read_stores().get(identity, [])


def remember_store(identity: str, url: str) -> None:
    """Record that the store at ``url`` (kept without its password) knows ``identity``, as
    the first store of that project. A record that cannot be written costs only the
    finding: ``ORBITAL_DB`` still works."""
    stored = public_url(url)
    known = _read_stores()
    if known.get(identity, [None])[0] == stored:
        return
    known[identity] = [stored, *(s for s in known.get(identity, []) if s != stored)]
    path = config_dir() / STORES_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{STORES_FILE}.{os.getpid()}.tmp")
        temp.write_text(json.dumps({"projects": known}, indent=1) + "\n", "utf-8")
        os.replace(temp, path)
    except OSError:
        pass


def store_for(folder: str | Path, given: str | None = None) -> str | None:
    """The store a command in ``folder`` uses: ``given`` (``--db``), else ``ORBITAL_DB``,
    else the first store this user's record names for the folder's project; None: the
    default store."""
    if given:
        return given
    named = os.environ.get("ORBITAL_DB", "").strip()
    if named:
        return named
    identity = identity_above(folder)
    if identity is None:
        return None
    stores = stores_knowing(identity)
    return stores[0] if stores else None
