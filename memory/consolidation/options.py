"""The consolidation knobs, apart from the pipeline: settings read their defaults from here, and
a command that only reads reminders must not import the pipeline (numpy, the vector index)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Options:
    # Calibrated for the bundled MiniLM: pair precision 0.86, recall 0.57 (tests/test_consolidation.py).
    similarity_threshold: float = 0.40
    min_cluster: int = 3
    max_cluster: int = 20
    neighbours: int = 10
    supersession_similarity: float = 0.35
    supersession_confidence: float = 0.8
