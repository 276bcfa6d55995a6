"""A group's receipts read the Merkle tree the intake made its record's root of,
and only the tree of that very list of entries."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecore import betbatch
from tablesim.studio import receipts


def _entries(n: int) -> list:
    return [[f"ref-{i}", str(i % 7 + 1), "ante", "10", None] for i in range(n)]


def test_receipts_from_the_intakes_tree_are_those_made_afresh():
    key = Ed25519PrivateKey.generate()
    fresh = receipts.GroupProof(key, "T-1", 12, "T-1-000001", "2026-12-06T00:00:00.000000Z", _entries(37))
    entries = _entries(37)
    receipts.remember_tree(entries, betbatch.levels(entries))
    held = receipts.GroupProof(key, "T-1", 12, "T-1-000001", "2026-12-06T00:00:00.000000Z", entries)
    assert held.paths == fresh.paths and held.statement == fresh.statement
    for at in (0, 17, 36):
        r = held.receipt(at)
        assert betbatch.root_of_path(r["bet"], at, 37, r["path"]) == betbatch.root(entries)


def test_a_tree_is_read_only_for_its_own_list():
    entries, other = _entries(5), _entries(5)
    receipts.remember_tree(other, betbatch.levels(_entries(6)))  # (a wrong tree, under another list)
    proof = receipts.GroupProof(Ed25519PrivateKey.generate(), "T-1", 3, "r", "ts", entries)
    assert proof.paths == betbatch.paths(entries)


def test_the_trees_kept_are_bounded():
    for _ in range(200):
        e = _entries(2)
        receipts.remember_tree(e, betbatch.levels(e))
    assert len(receipts._TREES) <= 64


def test_every_path_of_a_group_of_any_size_leads_to_its_root_and_is_a_list_of_its_own():
    """The paths are made from the root down (a node's path: its sibling's hash, then its
    parent's): for every size, odd nodes carried up included, each bet's path, walked by the
    verifier, gives the group's root, and no two bets share a path's list."""
    for n in [*range(1, 40), 63, 64, 65, 200, 1001]:
        entries = _entries(n)
        tree = betbatch.levels(entries)
        got = betbatch.paths(entries, tree)
        assert len(got) == n and len({id(p) for p in got}) == n
        root = betbatch.root(entries, tree)
        for at in range(n):
            assert betbatch.root_of_path(entries[at], at, n, got[at]) == root
            assert len(got[at]) <= max(1, n - 1).bit_length()
    assert betbatch.paths([]) == []
