"""The moments a fault run acts at, and the hook a platform is built with.

The platform names each moment where a death would leave something half
done, and asks its hook there; what happens then is the hook's. A platform
is built with ``NO_FAULTS`` (nothing happens) unless the code that builds
it hands another: the fault runs and the tests start the platform through a
launcher of their own whose hook ends the process at a named moment, as a
SIGKILL would (``tests/platform/dying_platform.py``). Nothing here reads the
environment: a platform in production cannot be made to misbehave by a
variable left set.

- ``AFTER_DEBIT``: a batch's debits are confirmed, its bets not sent to the table yet;
- ``BEFORE_ACK``: a round's credits are confirmed, its result not acknowledged yet;
- ``HAND_RESULTS`` (asked with ``skips``): whether settlement acknowledges a
  result without settling it, as a consumer that skipped it would (what the
  backstop is for, ``backstop``).
"""

from __future__ import annotations

AFTER_DEBIT = "after_debit"
BEFORE_ACK = "before_ack"
HAND_RESULTS = "hand_results"
MOMENTS = (AFTER_DEBIT, BEFORE_ACK, HAND_RESULTS)


class Faults:
    """No fault at any moment."""

    def at(self, moment: str) -> None:
        """The platform reached ``moment``."""

    def skips(self, moment: str) -> bool:
        """Whether the work of ``moment`` is to be left undone."""
        return False


NO_FAULTS = Faults()
