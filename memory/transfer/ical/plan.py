"""What each calendar item becomes: the reminder it plans, and the all-or-nothing import of the plans."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from memory.errors import ImportFailed, InvalidInput
from memory.memories import insert_memory
from memory.store import Store
from memory.text import counted
from memory.time.due_phrases import localize
from memory.time.instants import check_instant, parse_stored, to_utc_iso
from memory.time.rules import Recurrence, format_rule, format_rule_time, parse_rule, parse_rule_time
from memory.transfer.ical.read import Item, item_error, read_calendar

# ---------------------------------------------------------------------------------------------
# Export


# ---------------------------------------------------------------------------------------------
# Import: where each component starts in the file


# ---------------------------------------------------------------------------------------------
# Import: reading one component


# ---------------------------------------------------------------------------------------------
# Import: what each item becomes


@dataclass
class CalendarImport:
    """What an .ics import did."""

    imported: int = 0
    already_present: int = 0
    past: int = 0
    cancelled: int = 0
    completed: int = 0
    undated: int = 0

    def to_json(self) -> dict[str, int]:
        return {"reminders": self.imported, "already_present": self.already_present,
                "skipped_past": self.past, "skipped_cancelled": self.cancelled,
                "skipped_completed": self.completed, "skipped_undated": self.undated}

    def describe(self) -> str:
        """"Imported 3 reminders (2 already present, 4 past skipped)."."""
        notes = [f"{n} {what}" for n, what in (
            (self.already_present, "already present"), (self.past, "past skipped"),
            (self.cancelled, "cancelled skipped"), (self.completed, "completed skipped"),
            (self.undated, "without a date skipped")) if n]
        return f"Imported {counted(self.imported, 'reminder')}" + (f" ({', '.join(notes)})" if notes else "") + "."


@dataclass
class _Plan:
    """A reminder to insert."""

    item: Item
    uid: str
    due_at: str
    recurrence: str | None = None
    occurrence_at: str | None = None


def _recurrence(item: Item) -> Recurrence:
    anchor = item.anchor
    assert anchor is not None
    if anchor.zone_name is None:
        raise item_error(item.block, item.label, f"a repeating item needs a time zone we know, and "
                                           f"{item.block.where('DTSTART')} has one that only its VTIMEZONE defines")
    start = (anchor.wall + item.due_offset).replace(microsecond=0)
    parts = parse_rule(item.rule or "")
    if "UNTIL" in parts:  # the rule is of reminder times now: the last occurrence's alarm moves with it
        parts["UNTIL"] = format_rule_time(parse_rule_time(parts["UNTIL"]) + item.due_offset)
    if parts.get("FREQ") == "YEARLY" and not {"BYMONTH", "BYMONTHDAY", "BYDAY", "BYYEARDAY", "BYWEEKNO"} & set(parts):
        # The same series spelled out: Recurrence.describe() needs BYMONTH/BYMONTHDAY on a yearly rule.
        parts.update(BYMONTH=str(start.month), BYMONTHDAY=str(start.day))
    recurrence = Recurrence(format_rule(parts), start, anchor.zone_name)
    try:
        recurrence.validate()
    except (TypeError, ValueError, AttributeError) as exc:
        raise item_error(item.block, item.label, f"{item.block.where('RRULE')} cannot be followed ({exc})") from None
    return recurrence


def _plan(uid: str, item: Item, overrides: list[Item], now: datetime, ours: bool) -> _Plan | None:
    """The reminder an item becomes, or None when it is over.

    A one-off event that has begun is over; a to-do stays open until it is completed, so an
    overdue one comes in overdue. Everything in a file we wrote was open when it was written.
    """
    anchor = item.anchor
    assert anchor is not None
    if item.rule is None:
        if not ours and item.kind == "VEVENT" and anchor.instant(item.over_offset) < now:
            return None
        return _Plan(item, uid, to_utc_iso(anchor.instant(item.due_offset)))
    recurrence = _recurrence(item)
    rule = recurrence.to_text()
    moved = {o.recurrence_id: o for o in overrides if o.anchor is not None and o.recurrence_id is not None}
    if ours:  # our own export names the current occurrence when it is not simply the next one
        for key, current in moved.items():
            if current.status != "CANCELLED":
                occurrence = localize(key + item.due_offset, anchor.zone)
                due = current.anchor.instant(current.due_offset)  # type: ignore[union-attr]
                return _Plan(item, uid, to_utc_iso(due), rule, to_utc_iso(occurrence))
    lead = item.over_offset - item.due_offset
    for due in recurrence.instances_after(now - lead - timedelta(seconds=1)):
        key = due.astimezone(anchor.zone).replace(tzinfo=None) - item.due_offset
        if key in item.exdates:
            continue
        override = moved.get(key)
        if override is None:
            return _Plan(item, uid, to_utc_iso(due), rule, to_utc_iso(due))
        assert override.anchor is not None
        if override.status == "CANCELLED" or override.anchor.instant(override.over_offset) < now:
            continue
        return _Plan(item, uid, to_utc_iso(override.anchor.instant(override.due_offset)), rule, to_utc_iso(due))
    return None


def _fallback_uid(item: Item) -> str:
    """A stable UID for an item without one (RFC 5545 requires it; some exporters forget), so a
    second import of the same file still adds nothing."""
    import hashlib

    anchor = f"{item.anchor.wall.isoformat()} {item.anchor.zone_name}" if item.anchor else ""
    digest = hashlib.sha256(f"{item.kind}\n{item.content}\n{anchor}\n{item.rule}".encode()).hexdigest()[:32]
    return f"ics-{digest}"


def import_calendar(store: Store, text: str) -> CalendarImport:
    """Import VEVENT/VTODO items as reminders; a bad item raises ImportFailed and nothing is written."""
    try:
        items, ours = read_calendar(text, store.clock.zone)
    except RecursionError:
        raise ImportFailed(1, "components are nested too deeply to be a calendar") from None
    except OverflowError:
        raise ImportFailed(1, "a date is out of range") from None
    now = store.clock.now()
    result = CalendarImport()
    series: dict[str, Item] = {}
    overrides: dict[str, list[Item]] = {}
    for item in items:
        if item.anchor is None:
            result.undated += 1
            continue
        uid = item.uid or _fallback_uid(item)
        if item.recurrence_id is not None:
            overrides.setdefault(uid, []).append(item)
        elif uid in series:
            result.already_present += 1  # the same item twice in one file (merged calendars)
        else:
            series[uid] = item
    for uid, moved in overrides.items():
        if uid not in series:  # a moved occurrence whose series is not in the file stands alone
            moved[0].recurrence_id = None
            series[uid] = moved[0]
    plans = []
    for uid, item in series.items():
        if item.status == "CANCELLED":
            result.cancelled += 1
        elif item.completed:
            result.completed += 1
        elif (plan := _checked_plan(uid, item, overrides.get(uid, []), now, ours)) is None:
            result.past += 1
        else:
            plans.append(plan)
    # Our own UIDs name rows of the store that wrote them; read back there they are already present.
    own = store.get_meta("store_uid")
    own_uid = re.compile(re.escape(own) + r"/memory/(\d+)") if own else None
    with store.transaction():
        for plan in plans:
            mine = own_uid.fullmatch(plan.uid) if own_uid else None
            if store.one("SELECT 1 FROM knowledge WHERE uid = ?", (plan.uid,)) is not None or (
                    mine and store.one("SELECT 1 FROM knowledge WHERE id = ?", (int(mine.group(1)),))):
                result.already_present += 1
                continue
            try:
                _insert(store, plan)
            except Exception as exc:  # InvalidInput (content), or a constraint the checks did not foresee
                raise ImportFailed(plan.item.block.line, f"{plan.item.label}: {exc}") from exc
            result.imported += 1
    return result


def _checked_plan(uid: str, item: Item, overrides: list[Item], now: datetime, ours: bool) -> _Plan | None:
    """_plan, with every instant it yields inside the years the store keeps."""
    try:
        plan = _plan(uid, item, overrides, now, ours)
        for instant in (plan.due_at, plan.occurrence_at) if plan else ():
            if instant:
                check_instant(parse_stored(instant), "due date")
        return plan
    except ImportFailed:
        raise  # already names its line
    except (InvalidInput, OverflowError, ValueError) as exc:
        why = "a date out of range" if isinstance(exc, OverflowError) else str(exc)
        raise ImportFailed(item.block.line, f"{item.label}: {why}") from None


def _insert(store: Store, plan: _Plan) -> None:
    item = plan.item
    from memory.new_memory import NewMemory  # pydantic: an import pays for it, a CalDAV sync that reads none not

    insert_memory(store, NewMemory(item.content, kind="reminder", importance=item.importance, private=item.private,
                                   due_at=plan.due_at, recurrence=plan.recurrence, occurrence_at=plan.occurrence_at,
                                   uid=plan.uid, source="imported"))


