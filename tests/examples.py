"""How many examples a property test tries.

The README's test command runs every property test with a share of its
examples (``QUICK``): every invariant is still tried on every run, in less
time, on a 2-core machine. ``--thorough`` runs each with all of them (CI runs
the property tests so, apart: ``python -m pytest -m property --thorough``).
A test asks for its full number with ``examples(n)``; a test that leaves it to
the profile gets the profile's share of hypothesis's 100.
"""

from __future__ import annotations

#: the share of a test's examples tried without ``--thorough``
QUICK = 0.4
#: the fewest examples a property test tries, whatever the share
FLOOR = 10

_share = {"value": QUICK}


def set_thorough(thorough: bool) -> None:
    _share["value"] = 1.0 if thorough else QUICK


def examples(full: int) -> int:
    """``full`` with ``--thorough``, else its share (at least ``FLOOR``, never more than ``full``)."""
    return min(full, max(FLOOR, round(full * _share["value"])))
