"""A registered project: the record every layer names a project by (the store keeps them)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Project:
    project_id: str
    root: str
    timezone: str
    registered_at: dt.datetime

    def tz(self) -> dt.tzinfo:
        """The project's timezone; "" means the machine's local zone."""
        if self.timezone:
            return zoneinfo.ZoneInfo(self.timezone)
        local = dt.datetime.now().astimezone().tzinfo
        assert local is not None
        return local
