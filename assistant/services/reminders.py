"""Reminders for a front end: the most urgent open ones (the sidebar), one in full, and the changes
(done, snooze, edit, forget), each recorded in the store (memory.changes), so ctrl+z, "undo" in the
chat and `assistant undo` put back the last one, wherever it was made (the changes service)."""
from __future__ import annotations

from assistant.forgetting import forget
from assistant.runtime import Runtime
from assistant.views import ReminderChange, ReminderDetail, ReminderPage, ReminderView
from memory import changes, memories, reminders
from memory.errors import InvalidInput
from memory.memories import Memory
from memory.time.clock import Clock

SIDEBAR_LIMIT = 50  # reminders a sidebar shows; the rest are counted (a calendar import holds thousands)


def reminder_view(r: reminders.Reminder, clock: Clock) -> ReminderView:
    """The one place a reminder becomes what the front ends show, field by field."""
    memory = r.memory
    relative = reminders.relative_time(r.due_at, clock.now(), clock)
    rule = memory.rule
    return ReminderView(memory.id, memory.content, r.status, clock.short(r.due_at), relative, r.due_at,
                        rule.describe() if rule else None,
                        due_now=relative == "now")  # relative_time's own "now": one rule for both


class ReminderService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def _change(self, before: Memory, after: Memory) -> ReminderChange:
        return ReminderChange(before, after, self.runtime.clock.short(after.due_at) if after.due_at else "")

    def page(self, within_days: int = 7, limit: int = SIDEBAR_LIMIT) -> ReminderPage:
        """The most urgent open reminders of the window (overdue first, mentioned or not), how many
        there are in all, and how many lie beyond it with the next one's day: as quick with 20,000 open
        reminders as with 20."""
        store, clock = self.runtime.store, self.runtime.clock
        items, total, overdue = reminders.urgent_open_reminders(store, within_days, limit)
        later = reminders.beyond_window(store, within_days)
        return ReminderPage([reminder_view(r, clock) for r in items], total, overdue, later.count,
                            clock.day(later.next_due_at) if later.next_due_at else "", later.next_due_at)

    def detail(self, memory_id: int) -> ReminderDetail:
        """One reminder as it is now (done or forgotten elsewhere: NotFound / InvalidInput)."""
        clock = self.runtime.clock
        memory = memories.get_memory(self.runtime.store, memory_id)
        if memory.due_at is None or memory.done_at is not None:
            raise InvalidInput(f"#{memory_id} is not an open reminder any more")
        status, label = reminders.label_for(memory, clock.now(), clock)
        return ReminderDetail(reminder_view(reminders.Reminder(memory, status, label), clock), memory.kind,
                              memory.importance, clock.short(memory.created_at),
                              clock.short(memory.reminded_at) if memory.reminded_at else None)

    def mark_done(self, memory_id: int) -> ReminderChange:
        store = self.runtime.store
        with changes.recorded(store, memory_id, "done"):
            before = memories.get_memory(store, memory_id)
            return self._change(before, reminders.mark_done(store, memory_id))

    def snooze(self, memory_id: int, when: str) -> ReminderChange:
        store = self.runtime.store
        with changes.recorded(store, memory_id, "snooze"):
            before = memories.get_memory(store, memory_id)
            return self._change(before, reminders.snooze(store, memory_id, when))

    def edit(self, memory_id: int, content: str | None = None, due: str | None = None) -> ReminderChange:
        """New text and/or a new due phrase (resolved as everywhere: memory.time.schedule); a phrase that
        cannot be understood raises InvalidInput and changes nothing."""
        content = content if content and content.strip() else None
        due = due.strip() if due and due.strip() else None
        if content is None and due is None:
            raise InvalidInput("nothing to change: give a new text or a new time")
        store = self.runtime.store
        action = "edit" if content and due else "move" if due else "rename"
        with changes.recorded(store, memory_id, action):
            before = memories.get_memory(store, memory_id)
            return self._change(before, reminders.update_memory(store, memory_id, content=content, due_at=due,
                                                                allow_past=False))

    def forget(self, memory_id: int) -> Memory:
        """Delete a reminder the one way every front end forgets (assistant.forgetting); the change is
        recorded, so undo brings it back with its id."""
        return forget(self.runtime, memory_id)
