"""The morning briefing for a front end (SPEC F12): the day's as it is now, and the one the app shows at
its first launch of a day (assistant.briefing builds both)."""
from __future__ import annotations

from assistant.briefing import Briefing, briefing_for_launch, build_briefing
from assistant.runtime import Runtime


class BriefingService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def today(self) -> Briefing:
        return build_briefing(self.runtime.store, self.runtime.clock)

    def at_launch(self) -> Briefing | None:
        """The briefing at the app's launch: only the first launch of a day, only when the day has
        something in it (the day is marked in the store either way)."""
        return briefing_for_launch(self.runtime.store, self.runtime.clock)
