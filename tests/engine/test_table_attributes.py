"""A table keeps few attributes of its own (the engine bench's speed).

CPython (3.11) keeps the instance attributes of a class in one shared,
compact layout while the class has at most about thirty attribute names
(29 for its first instance; see ``SHARED_KEYS_MAX_SIZE`` in
``Objects/dictobject.c``); past that, each instance holds a plain dict and
every attribute read of the table (``self.round``, ``self.machine``, a
method) is a dict lookup instead of an indexed load. A card's way through
the table reads a dozen of them: the engine bench's Fortune 3 lost 4 % of
its rounds per second when its table grew to 30 names (football had 31).

So each built-in game's table, after rounds of its bench, keeps at most 28
names (one below what still fits): what is derived (``by_card`` from the
dealing mode) is a property, a device the table lacks stays the class's
None, the round's state is the round's."""

from __future__ import annotations

import pytest

from tablesim.games import registry

#: the most names a table's instance keeps (one below CPython's shared layout's room for a class's first instance)
MOST = 28


@pytest.mark.parametrize("game", registry.BUILTIN)
def test_a_tables_own_attributes_fit_the_shared_layout(game):
    sim = registry.spec(game).part("simulator")("bench")
    for _ in range(20):
        sim.play_round()
    names = sorted(vars(sim.table))
    assert len(names) <= MOST, f"{game}: {len(names)} attributes of its own: {names}"

