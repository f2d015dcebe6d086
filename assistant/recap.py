"""How a conversation is listed in a recap, one way for every front end (the recall_recent tool, the
CLI's `recap`, the app's ctrl+r, the offline mode's "what did we talk about yesterday"): a line with
its time and title, then its summary. Shown as stored, on your own screen: a title made without a
model holds no secret (it is masked when made), and what goes to a model passes the outbound gate."""
from __future__ import annotations

from memory.episodes import Episode
from memory.text import flat
from memory.time.clock import Clock


def episode_lines(clock: Clock, episode: Episode, title: str | None = None, summary: bool = True,
                  width: int | None = None) -> list[str]:
    """["- <when> <title>", "  <summary>"]: `title` replaces the stored one (a conversation in progress)."""
    lines = ["- " + episode.line(clock, title if title is not None else episode.title or "Untitled")]
    if summary and episode.summary:
        lines.append(f"  {flat(episode.summary, width)}")
    return lines
