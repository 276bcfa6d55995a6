"""``python tests/platform/dying_platform.py FAULT platform serve ARGS...``:
``tablesim platform serve ARGS...`` built with a fault hook that misbehaves at
one moment, for the crash tests (the product reads no fault from anywhere: a
platform is handed its hook by whoever builds it).

FAULT is one of:

- ``exit_after_debit``: the process ends at once (``os._exit(70)``, as a
  SIGKILL would: nothing flushed, nothing said) once a batch's debits are
  confirmed, before its bets are sent to the table;
- ``exit_before_ack``: the same once a round's credits are confirmed, before
  its result is acknowledged;
- ``results_never_handed``: every result is acknowledged without being
  settled, as a consumer that skipped them would (what the backstop is for).
"""

from __future__ import annotations

import os
import sys

from tablesim.platform import faults, service

#: exit status of a process ended at its moment (the tests tell it from a crash)
EXIT = 70


class Dying(faults.Faults):
    def __init__(self, exit_at: str | None = None, skip: str | None = None) -> None:
        self.exit_at, self.skip = exit_at, skip

    def at(self, moment: str) -> None:
        if moment == self.exit_at:
            os._exit(EXIT)

    def skips(self, moment: str) -> bool:
        return moment == self.skip


HOOKS = {
    "exit_after_debit": Dying(exit_at=faults.AFTER_DEBIT),
    "exit_before_ack": Dying(exit_at=faults.BEFORE_ACK),
    "results_never_handed": Dying(skip=faults.HAND_RESULTS),
}


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in HOOKS:
        print(f"dying_platform: error: the first argument is one of {', '.join(HOOKS)}", file=sys.stderr)
        sys.exit(2)
    hook, built = HOOKS[argv[0]], service.Platform

    class WithHook(built):  # (what ``platform serve`` builds, handed this hook)
        def __init__(self, **options) -> None:
            super().__init__(**options, faults=hook)

    service.Platform = WithHook
    from tablesim.cli.main import cli

    cli(args=argv[1:], prog_name="tablesim")


if __name__ == "__main__":
    main(sys.argv[1:])
