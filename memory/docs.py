"""Search documents: one id space for every searchable text.

One keyword index and one vector index cover messages, memories, episode summaries and consolidated
summaries: doc_id = row id * DOC_SLOTS + type code (see DOC_TYPES). Only this module (and code that
works on arrays of ids) knows the scheme.
"""
from __future__ import annotations

DOC_TYPES = {"message": 0, "memory": 1, "episode": 2, "summary": 3}


DOC_TYPE_NAMES = {code: name for name, code in DOC_TYPES.items()}


DOC_SLOTS = 4  # doc_id = row id * DOC_SLOTS + type code; only here and in code working on arrays of ids


def doc_id(doc_type: str, row_id: int) -> int:
    return row_id * DOC_SLOTS + DOC_TYPES[doc_type]


def split_doc_id(value: int) -> tuple[str, int]:
    return DOC_TYPE_NAMES[value % DOC_SLOTS], value // DOC_SLOTS
