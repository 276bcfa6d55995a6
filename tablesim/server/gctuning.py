"""The served table's garbage collector: full collections between rounds,
not in the middle of a betting window.

Python's full (generation 2) collection walks every object that survived
two younger ones. While bets stream in, those are the round's bets, their
records and the clients' queued frames: with 500 console and board
clients connected and 5,000 bets a second, each full collection held the
whole process for 40-70 ms, so every bet answer waiting behind one (the
p99 of the bet answers went from 10 ms to 75-85 ms, ``tablesim bench
--only ws_fanout``). Young collections still run, once ``YOUNG`` objects
more were made than freed (a cycle of short-lived objects is freed within
a fraction of a second); the full collection is
made when a round ends, when no bet can come, and by Python itself only
after ``FULL_AFTER`` younger ones (a round that lasts very long, a table
stuck in an incident) so nothing is held back for ever.
"""

from __future__ import annotations

import gc

#: Python's own full collection only after this many middle-generation ones
#: (its default is 10): a hundred times rarer, so within a round it seldom comes
FULL_AFTER = 1000
#: a young collection once this many objects more were made than freed (Python's 700
#: came every few bets of a group under way, each walking the group's live objects
#: again, and every tenth a middle one: 7.8 us of the table's CPU a bet at 10,000
#: bets/s over the bus, gc callbacks; the platform's collector does the same)
YOUNG = 7000

_deferred = False


def settle() -> None:
    """(At start-up, once the table is recovered.) Move everything built so
    far (the web stack, the libraries, the recovered table) out of the
    collector's sight: Python's full collections otherwise walk those few
    hundred thousand long-lived objects again and again while bets stream
    in (the acknowledgements' p99 at 5,000 bets/s: 53-60 ms with them, 10 ms
    without, ``tablesim bench --only bet_intake``). Nothing is leaked:
    frozen objects are still freed by reference counting. Then full
    collections wait for the ends of rounds."""
    global _deferred
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG), middle, FULL_AFTER)
    _deferred = True


def round_over() -> None:
    """(The table's thread, a round's last events handed to the clients.)
    The full collection that was held back, if any is."""
    if _deferred:
        gc.collect()
