"""The local model behind consolidation, as a small protocol: what is asked (instructions, JSON
schemas) and the two ways a call can fail. The app builds each request from these
(assistant.outbound.requests: the stored notes as escaped JSON values, through its privacy gate), so
this library never imports a model SDK nor shapes text for one.
"""
from __future__ import annotations

from typing import Any, Protocol

SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "key_facts": {"type": "array", "items": {"type": "string"}},
        "decisions": {"type": "array", "items": {"type": "object", "properties": {
            "decision": {"type": "string"}, "rationale": {"type": "string"},
            "outcome": {"type": ["string", "null"]}, "confidence": {"type": ["string", "number"]}}}},
        "superseded_facts": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["summary", "key_facts", "decisions", "superseded_facts"],
}
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {"supersedes": {"type": "boolean"}, "confidence": {"type": ["string", "number"]},
                   "reason": {"type": ["string", "null"]}},
    "required": ["supersedes", "confidence", "reason"],
}



class ConsolidationModel(Protocol):
    name: str

    def check(self) -> None:
        """Raise ModelUnavailable with one clear line when the model cannot be used."""

    def summarize(self, texts: list[str]) -> dict[str, Any]: ...

    def judge(self, newer: str, older: str) -> dict[str, Any]: ...


def confidence_value(value: Any) -> float:
    """Models say 0.9 or "high"; both become a number in [0, 1]."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return max(0.0, min(1.0, float(value)))
    return {"high": 0.9, "medium": 0.7, "low": 0.4}.get(str(value).strip().lower(), 0.0)


SUMMARIZE_INSTRUCTIONS = ("You consolidate a person's notes. Answer only with JSON with keys summary (2-3 "
                          "sentences), key_facts, decisions (decision, rationale, outcome, confidence) and "
                          "superseded_facts. Use only what the notes say.")
JUDGE_INSTRUCTIONS = ("Decide whether the NEWER note makes the OLDER note no longer true (supersedes it). "
                      "Be conservative: only when they clearly contradict. Answer JSON with keys "
                      "supersedes (boolean), confidence (high, medium or low) and reason.")
