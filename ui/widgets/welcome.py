"""The welcome shown on an empty store, in place of the chat, until the user types."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ui import actions


class Welcome(VerticalScroll):
    """Shown on an empty store, in place of the chat, until the user types: what this is, the model,
    examples, keys. It scrolls on its own, from its first line (the chat is pinned to its last)."""

    can_focus = False

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__(id="welcome")
        self.keymap = keymap or {}
        self.model_line = "Model: connecting…"
        self.body = Static(self._text(), markup=False, id="welcome-text")

    def compose(self) -> ComposeResult:
        yield self.body

    @property
    def text(self) -> str:
        return self._text()

    def update(self, text: str) -> None:
        self.body.update(text)

    def set_model(self, label: str, has_model: bool) -> None:
        if has_model:
            self.model_line = f"Model: {label}, connected."
        else:
            self.model_line = (
                "No model connected: the built-in offline mode keeps reminders and notes, answers questions "
                "from what you told it, lists what is coming up and recaps, but cannot chat. To connect a "
                "model, set ANTHROPIC_API_KEY (Anthropic), run `ollama serve` (local, with "
                "`ollama pull llama3.2:3b`), or name an OpenAI-compatible server (LM Studio, llama-server, vLLM) "
                "as [openai] base_url in the config; then start assistant again.")
        self.update(self._text())

    def _text(self) -> str:
        def k(action_id: str) -> str:
            return actions.key_for(action_id, self.keymap)

        return (
            "Welcome to assistant, a chat assistant that remembers. What you tell it stays in one SQLite file "
            "on this machine; it reminds you on time and recaps what you talked about.\n\n"
            f"{self.model_line}\n\n"
            "Try:\n"
            "  remind me to call the plumber tomorrow at 9am\n"
            "  remember that the boiler code is 4471\n"
            "  what's coming up this week?\n"
            "  what did we talk about yesterday?\n\n"
            f"enter send · {k('newline')} new line · {k('recap')} recap · {k('focus-reminders')} reminders · "
            f"{k('conversations')} conversations · {k('help')} all keys · ctrl+p commands · {k('quit')} quit")
