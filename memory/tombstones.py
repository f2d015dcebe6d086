"""Tombstones: what a forget leaves behind (schema 8 and 10), so a forgotten memory is not brought back by
an older export, from any file, in any order (SPEC F9). A tombstone is the forgotten row's uid and a hash of
its text, never the text.

The hash is slow on purpose (PBKDF2, 50,000 rounds: about 20 ms): the text of a memory can be short (a
PIN), and an export that carries the hash must not make guessing it cheap. It is of the text normalized
(NFKC, case folded, white space collapsed), so a copy edited by hand (decomposed accents, full-width
letters, another case or spacing) is still known; tombstones written before that (white space and case
folded only) are still matched (content_hashes). The importer compares it for records without a uid of
their own, and for records whose uid no tombstone names that were made before a forget already here
(memory.transfer.jsonl_import): an export's records otherwise carry the uid a tombstone names.
"""
from __future__ import annotations

import hashlib
import unicodedata

ROUNDS = 50_000
_SALT = b"assistant forgotten memory v1"


def normalized(text: str) -> str:
    """The text as a tombstone knows it: NFKC, case folded (NFKC again after folding: "ẞ" folds to "ss"),
    every run of white space one space, none at the ends."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())


def _digest(folded: str) -> str:
    return "pbkdf2-sha256:" + hashlib.pbkdf2_hmac("sha256", folded.encode("utf-8", "surrogatepass"), _SALT,
                                                  ROUNDS).hex()[:40]


def content_hash(text: str) -> str:
    """The tombstone hash of a memory's text (of its normalized form: a copy typed or edited again matches)."""
    return _digest(normalized(text))


def content_hashes(text: str) -> set[str]:
    """Every hash a tombstone of this text may hold: the normalized text's, and, when normalizing changes
    more than white space and case, the hash tombstones held before (white space and case folded only)."""
    new = normalized(text)
    legacy = " ".join(text.split()).casefold()
    return {_digest(new)} | ({_digest(legacy)} if legacy != new else set())
