"""The Litestar HTTP interface. Public API: :func:`create_app`."""

from orbital.http._app import create_app

__all__ = ["create_app"]
