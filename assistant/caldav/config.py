"""The calendar a sync uses: the [caldav] settings, and the password from ASSISTANT_CALDAV_PASSWORD only (never
the config, the store or a log). Anything missing or unusable is BadInput: exit 2, one line."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from assistant.errors import BadInput
from assistant.settings import Settings
from memory.files import expand

PASSWORD_VARIABLE = "ASSISTANT_CALDAV_PASSWORD"
TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class CalendarConfig:
    url: str
    username: str
    calendar: str
    password: str = field(repr=False)
    ca_bundle: str = ""  # a CA file to trust; "" = the system's (verification is never turned off)
    timeout: float = TIMEOUT_SECONDS

    @property
    def account(self) -> str:
        """What the store's sync state belongs to: another server, user or calendar starts over."""
        return f"{self.url}\n{self.username}\n{self.calendar}"


def configured(settings: Settings) -> bool:
    """Whether a calendar server is set up (the app and the notifier sync only then)."""
    return bool(settings.caldav.url)


def calendar_config(settings: Settings, env: Mapping[str, str] | None = None) -> CalendarConfig:
    env = os.environ if env is None else env
    table = settings.caldav
    if not table.url:
        raise BadInput("no calendar server is set up: set caldav.url and caldav.username in the config (or "
                       "ASSISTANT_CALDAV__URL and ASSISTANT_CALDAV__USERNAME) and the password in "
                       f"{PASSWORD_VARIABLE}; docs/caldav.md says how")
    if not table.username.strip():
        raise BadInput("caldav.username is not set (or ASSISTANT_CALDAV__USERNAME)")
    password = env.get(PASSWORD_VARIABLE, "")
    if not password:
        raise BadInput(f"{PASSWORD_VARIABLE} is not set: the calendar password comes from the environment only")
    ca_bundle = ""
    if table.ca_bundle:
        path = expand(table.ca_bundle)
        if not path.is_file():
            raise BadInput(f"caldav.ca_bundle: no such file: {path}")
        ca_bundle = str(path)
    return CalendarConfig(table.url, table.username.strip(), table.calendar, password, ca_bundle)
