"""The check the CalDAV tests make for a secret in the Radicale server's storage (tests/caldav_server.py): it
must see a secret stored there whatever it looks like, and never take the server's own ids and digests for one."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.caldav_server import Radicale

DIGEST = "ab4471cd" * 8  # an etag's sha256 holding the PIN's digits
ITEM_ID = "1f3e2a4b-4471-4c2d-9e8f-0123456789ab"  # a uuid4 with the PIN as a whole group


def storage(tmp_path: Path, item: str) -> Radicale:
    """A server's storage folder as Radicale leaves it (an item and its cache entry); no server is started."""
    server = Radicale.__new__(Radicale)
    server.folder = tmp_path
    calendar = tmp_path / "storage" / "collection-root" / "alice" / "reminders"
    (calendar / ".Radicale.cache" / "item").mkdir(parents=True)
    (calendar / f"{ITEM_ID}.ics").write_text(item)
    (calendar / ".Radicale.cache" / "item" / f"{ITEM_ID}.ics").write_text(f'"{DIGEST}" {ITEM_ID}\n{item}')
    return server


def vtodo(summary: str) -> str:
    return f"BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:{ITEM_ID}\r\nSUMMARY:{summary}\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"


@pytest.mark.parametrize(("summary", "secret"), [
    ("api token 3f9a1c0d8e7b6a5f4e3d2c1b0a998877 for the bank", "3f9a1c0d8e7b6a5f4e3d2c1b0a998877"),  # hex itself
    ("bank PIN-4471", "4471"),
    ("wifi password is hunter2\\;x", "hunter2;x"),  # iCalendar TEXT escapes a semicolon
    ("pay the rent " + "and the water bill " * 2 + "bank PIN is 44\r\n 71, thanks", "4471"),  # folded at 75 octets
])
def test_a_secret_the_server_stores_is_seen(tmp_path: Path, summary: str, secret: str) -> None:
    assert storage(tmp_path, vtodo(summary)).holds(secret)


def test_the_servers_ids_and_digests_are_not_a_secret(tmp_path: Path) -> None:
    assert not storage(tmp_path, vtodo("bank PIN is [secret], pay the rent")).holds("4471")
