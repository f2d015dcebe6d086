"""Hybrid search over the store: keyword (FTS5 BM25) and vector similarity, fused into one ranking.

`hybrid` ranks; `embeddings` turns texts into vectors and keeps them in step with the rows, in the
block-quantised vector index (memory.vectors, a storage layer below the schema, whose migration 5 fills it).
"""
from memory.search.hybrid import (
    EMBED_PER_SEARCH,
    MODES,
    STOPWORDS,
    Fusion,
    Hit,
    Searcher,
    cited,
    query_words,
    untouched,
)

__all__ = ["EMBED_PER_SEARCH", "MODES", "STOPWORDS", "Fusion", "Hit", "Searcher", "cited", "query_words",
           "untouched"]
