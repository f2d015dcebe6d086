"""Tombstones: what a forget leaves behind (schema 8 and 10), so a forgotten memory is not brought back by
an older export, from any file, in any order (SPEC F9). A tombstone is the forgotten row's uid and a hash of
its text, never the text.

The hash is slow on purpose (PBKDF2, 50,000 rounds: about 20 ms): the text of a memory can be short (a
PIN), and an export that carries the hash must not make guessing it cheap. It is compared only for records
that carry no uid of their own (a hand-written file), since an export's records carry the uid a tombstone
names.
"""
from __future__ import annotations

import hashlib

ROUNDS = 50_000
_SALT = b"assistant forgotten memory v1"


def content_hash(text: str) -> str:
    """The tombstone hash of a memory's text (white space and case folded, so a copy typed again matches)."""
    folded = " ".join(text.split()).casefold().encode("utf-8", "surrogatepass")
    return "pbkdf2-sha256:" + hashlib.pbkdf2_hmac("sha256", folded, _SALT, ROUNDS).hex()[:40]
