"""A group of bets as one journal record, and each bet's proof inside it.

A table takes the bets that arrive together (a remote platform's request,
the console's batch, whatever the intake groups) as one action: one
``input`` record named ``place_bets`` whose data is::

    {"bets": [[ref, position, bet, amount, player], ...], "root": "<hex>"}

one entry per bet *accepted*, in the order they were placed (``player`` null
for the position's own seat; a sixth element names the bet's actor when it
is not the record's). The record stands for what an older journal wrote as a
``place_bet`` input and a ``bet`` event per bet, and a ``bet_refs`` record
per 16 refs: a bet costs the table a share of one record's hash, commit,
signature and message instead of about two records each.

``root`` is the Merkle root of the entries (SHA-256; a leaf is
``0x00 || entry`` as compact JSON, a node ``0x01 || left || right``, an odd
node carried up as it is): a bet's receipt carries its entry and the path to
the root, signed once per record, so it proves one bet without carrying the
whole group. The shared core holds it because the table writes it, the
journal reads it back and the studio and the platform check it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterator

from tablecore.plainjson import quoted

#: the record: kind and name
KIND = "input"
NAME = "place_bets"
#: the journal format whose bets are batch records (1: a record per bet); each
#: round's first record says which format it was written in
FORMAT = 2
#: what a batch's signed root is prefixed with, so it never stands for a record's or a status's signature
ROOT_SIGNED = b"tablesim bet batch v1\x00"


def entry(ref: str | None, position: str, bet: str, amount: str, player: str | None = None,
          actor: str | None = None) -> list:
    """One bet of a batch record (``actor`` only when not the record's)."""
    out: list = [ref, position, bet, amount, player]
    if actor is not None:
        out.append(actor)
    return out


def is_batch(kind: str, name: str) -> bool:
    return name == NAME and kind == KIND


def bets_of(data: dict[str, Any], actor: str = "") -> Iterator[dict[str, Any]]:
    """Each bet of a batch record's data: ``{position, bet, amount, player, ref, actor}``
    (``player`` None: the position's own seat). Entries that are no bet are passed over
    (the audit's root check and the chain say the record was altered)."""
    for e in data.get("bets") or ():
        if not isinstance(e, list) or len(e) < 5:
            continue
        yield {"ref": e[0], "position": e[1], "bet": e[2], "amount": e[3], "player": e[4],
               "actor": e[5] if len(e) > 5 else actor}


def bet_event(e: list) -> dict[str, Any]:
    """An entry as the table's ``bet`` event of that bet holds it: ``{position, bet,
    amount}`` and ``player`` when named (what a listener that shows bets one by one,
    the live stream or its backfill from the journal, sends for it)."""
    if e[4] is None:
        return {"position": e[1], "bet": e[2], "amount": e[3]}
    return {"position": e[1], "bet": e[2], "amount": e[3], "player": e[4]}


#: compact JSON, made once (``json.dumps`` with arguments makes an encoder a call: most of a leaf's cost)
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _dumps(value: Any) -> bytes:
    return _encode(value).encode()


def text(e: list) -> str:
    """An entry as compact JSON, what its leaf hashes: the same text as the encoder's
    (``_encode``), joined from its strings at a third of the encoder's cost an entry
    (an entry of anything but strings and nulls: by the encoder)."""
    if type(e) is list:
        try:
            return "[%s]" % ",".join(["null" if x is None else quoted(x) for x in e])
        except TypeError:  # (not a string: an altered record's, or a test's)
            pass
    return _encode(e)


def leaf(e: list) -> bytes:
    return hashlib.sha256(b"\x00" + text(e).encode()).digest()


def levels(entries: list, texts: list[str] | None = None) -> list[list[bytes]]:
    """The tree, leaves first (what :func:`root` and :func:`paths` read: made once, read by both);
    ``texts``: a list to hold each entry's text as its leaf hashed it (a receipt's ``bet``)."""
    sha = hashlib.sha256
    if texts is None:
        texts = []
    texts[:] = [text(e) for e in entries]
    level = [sha(b"\x00" + t.encode()).digest() for t in texts]
    tree = [level]
    while len(level) > 1:
        up = [sha(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            up.append(level[-1])
        tree.append(up)
        level = up
    return tree


def record_text(texts: list[str], root_hex: str) -> str | None:
    """A group's record data, ``{"bets": entries, "root": root_hex}``, as the
    journal's canonical JSON writes it (sorted keys, compact, ASCII), joined
    from its entries' texts as their leaves hashed them (``levels``): the
    encoder's walk of every bet again was a twentieth of a bet's cost at the
    table. None where the two writings may differ: a text beyond ASCII or a
    DEL (canonical JSON escapes them, a leaf's text does not), or an object
    inside an entry (its keys sorted by one, not the other)."""
    joined = ",".join(texts)
    if not joined.isascii() or "\x7f" in joined or "{" in joined or not root_hex.isascii():
        return None
    return '{"bets":[%s],"root":%s}' % (joined, quoted(root_hex))


def root(entries: list, tree: list[list[bytes]] | None = None) -> str:
    """The Merkle root of ``entries`` (hex; that of no entry is the hash of nothing)."""
    if not entries:
        return hashlib.sha256(b"").hexdigest()
    return (tree or levels(entries))[-1][0].hex()


def paths(entries: list, tree: list[list[bytes]] | None = None) -> list[list[str]]:
    """Each entry's path to the root: the sibling hashes from the leaf up (hex; an
    odd node carried up has none at that level: the verifier knows by the count)."""
    if not entries:
        return []
    tree = tree or levels(entries)
    # Made from the root down: a node's path is its sibling's hash (none for an odd node
    # carried up), then its parent's path, copied whole (a list a node, not an append a
    # bet and a level: a ninth of the time for a group of 1,000).
    up: list[list[str]] = [[]]  # (the root's path: nothing)
    for level in reversed(tree[:-1]):
        hexed = [node.hex() for node in level]
        width = len(hexed)
        here: list[list[str]] = []
        for j in range(0, width - 1, 2):
            parent = up[j >> 1]
            here.append([hexed[j + 1], *parent])
            here.append([hexed[j], *parent])
        if width % 2:
            here.append(up[(width - 1) >> 1][:])
        up = here
    return up


def root_of_path(e: list, index: int, count: int, path: list[str]) -> str | None:
    """The root ``e`` at ``index`` of ``count`` entries leads to along ``path`` (None: the
    path does not fit the count)."""
    if not 0 <= index < count:
        return None
    node, at, width, steps = leaf(e), index, count, iter(path)
    try:
        while width > 1:
            sibling = at ^ 1
            if sibling < width:
                other = bytes.fromhex(next(steps))
                node = hashlib.sha256(b"\x01" + (node + other if at % 2 == 0 else other + node)).digest()
            at, width = at // 2, (width + 1) // 2
    except (StopIteration, ValueError):
        return None
    if next(steps, None) is not None:
        return None
    return node.hex()


def root_statement(table_id: str, seq: int, round_id: str, ts: str, root_hex: str, count: int) -> bytes:
    """What a batch's receipts share, signed once: which record of which table holds which bets."""
    return _dumps({"table_id": table_id, "seq": seq, "round_id": round_id, "ts": ts, "name": NAME,
                   "root": root_hex, "count": count})
