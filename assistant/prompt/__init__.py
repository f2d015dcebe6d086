"""The system prompt, rebuilt from memory for every turn: its sections, the timeline and the
consolidated-summary block."""
