"""The assistant for a front end, by subject: one small service each, plain data back (assistant.views),
no SQL in widgets. `Services` builds them all from one Runtime, in this one place; a front end holds
it and gives each screen or pane only the services it uses.

| service | holds |
| --- | --- |
| `model` | the responder chosen at start-up (asked again when none answered), its name, the turn |
| `conversations` | past conversations and one read, the one in progress, a new one, one continued |
| `incognito` | a conversation that keeps nothing |
| `reminders` | the sidebar's reminders, one in full, done, snooze, edit, forget |
| `due` | reminders falling due: the next instant, announcements, desktop notifications, the store watch |
| `changes` | undo of the last recorded change, wherever it was made |
| `memories` | the Memories screen: pages, search, one in full, edit, private, pin, forget |
| `why` | what went into an answer |
| `recap` | the last 48 hours |
| `briefing` | the day's briefing |
| `status` | what the status line says |
| `consolidation` | whether it is due, a run, its end at quit |
| `embeddings` | the embedding model's load and rest, an import's backlog |
| `calendar` | the sync with a calendar server: its last end, the background `assistant sync` children |
| `backup` | the replicator kept running while a replica is set, the status line's warning when it is late |

Blocking methods (SQLite, embeddings, the Ollama check) are meant to be called from thread workers;
`model.turn` is an async iterator for an async worker.
"""
from __future__ import annotations

from assistant.runtime import Runtime
from assistant.services.backup import BackupService
from assistant.services.briefing import BriefingService
from assistant.services.calendar import CalendarService
from assistant.services.changes import ChangeService
from assistant.services.consolidation import ConsolidationService
from assistant.services.conversations import ConversationService
from assistant.services.due import DueService
from assistant.services.embeddings import EmbeddingService
from assistant.services.incognito import IncognitoService
from assistant.services.memories import MemoryService
from assistant.services.model import ModelService
from assistant.services.recap import RecapService
from assistant.services.reminders import ReminderService
from assistant.services.status import StatusService
from assistant.services.why import WhyService

__all__ = ["BackupService", "BriefingService", "CalendarService", "ChangeService", "ConsolidationService",
           "ConversationService", "DueService", "EmbeddingService", "IncognitoService", "MemoryService", "ModelService",
           "RecapService", "ReminderService", "Services", "StatusService", "WhyService"]


class Services:
    """Every service of one runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.model = ModelService(runtime)
        self.conversations = ConversationService(runtime, self.model)
        self.incognito = IncognitoService(self.model)
        self.reminders = ReminderService(runtime)
        self.due = DueService(runtime)
        self.changes = ChangeService(runtime)
        self.memories = MemoryService(runtime)
        self.why = WhyService(runtime)
        self.recap = RecapService(runtime)
        self.briefing = BriefingService(runtime)
        self.backup = BackupService(runtime, runtime.notice)
        self.status = StatusService(runtime, self.model, self.backup)
        self.consolidation = ConsolidationService(runtime)
        self.embeddings = EmbeddingService(runtime)
        self.calendar = CalendarService(runtime)
