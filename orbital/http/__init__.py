"""The Litestar HTTP interface. Public API: :func:`create_app` and :class:`HttpSettings`."""

from orbital.http._app import create_app
from orbital.http._settings import HttpSettings, loopback_hosts

__all__ = ["HttpSettings", "create_app", "loopback_hosts"]
