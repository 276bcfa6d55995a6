"""Fault injection for the fault runs and the tests: ``TABLESIM_PLATFORM_FAULT``
names a moment at which the process dies at once (``os._exit``, as a
SIGKILL would: nothing flushed, nothing said), to show what the next start
does with what was left half done:

- ``exit_after_debit``: after a bet's debit is confirmed, before it is sent to the table;
- ``exit_before_ack``: after a round's credits are confirmed, before its result is acknowledged.

And one that is no death: ``results_never_handed`` acknowledges every
result settlement's consumer hands out without settling it, as a consumer
that skipped them would (what the backstop is for, ``backstop``).
"""

from __future__ import annotations

import os

VARIABLE = "TABLESIM_PLATFORM_FAULT"


def die_at(moment: str) -> None:
    if os.environ.get(VARIABLE) == moment:
        os._exit(70)


def faulty(moment: str) -> bool:
    """Whether the process was started to misbehave at ``moment``."""
    return os.environ.get(VARIABLE) == moment
