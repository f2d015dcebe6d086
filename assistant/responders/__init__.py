"""What answers a turn: the Responder protocol (`protocol`) and its two implementations side by side,
the chat model's (`model`) and the offline mode's (`offline`)."""
