"""A local memory for a personal assistant: one SQLite file, a clock, reminders, episodes,
hybrid search, a timeline and idle-time consolidation. Usable without the app."""
from memory.errors import DateParseError, ImportFailed, InvalidInput, MemoryLibError, NotFound, StoreUnusable
from memory.store import Store
from memory.time.clock import Clock

__all__ = ["Clock", "DateParseError", "ImportFailed", "InvalidInput", "MemoryLibError", "NotFound", "Store",
           "StoreUnusable"]
