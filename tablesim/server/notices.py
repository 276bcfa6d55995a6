"""What the table tells about itself: a device quiet too long (a notice on
the console), whether the journal can commit (health), systemd's watchdog."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tablesim.server.stream import now_ts

#: real devices: a notice when the device the round waits for was quiet this long (seconds)
QUIET_NOTICE = 30.0
#: how long a look at the journal's free space stands (health, watchdog)
SPACE_CHECK_EVERY = 0.5


def _space_problem(journal) -> str | None:
    """A full disk under the journal (where the file really is, through a symlink)."""
    if journal.path == ":memory:" or journal.reserve <= 0:
        return None
    try:
        st = os.statvfs(Path(journal.path).resolve().parent)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize < journal.reserve:
        return f"the journal's disk is full (less than {journal.reserve // 1024} KiB free)"
    return None


class Notices:
    """What the served table tells about itself, owned by its ``TableRunner``
    (``runner.notices``): whether the quiet device was told of, the status
    systemd was last told, the last look at the journal's free space."""

    def __init__(self, runner) -> None:
        self.runner = runner
        self.quiet_noticed = False
        self._status_said: str | None = None
        self._space_checked: tuple[float, str | None] = (0.0, None)  # (when, the free-space problem found then)

    def notice_quiet(self, now: float) -> None:
        """Tell the console once when the device the round waits for stays quiet."""
        run = self.runner
        t = run.table
        if self.quiet_noticed or t.paused:
            return
        device = run.adapter.waiting_for()
        if device is None:
            return
        quiet = now - max(run.state_since, run.feed.last_report)
        if quiet < QUIET_NOTICE:
            return
        self.quiet_noticed = True
        run.stream.publish({
            "type": "notice", "level": "warning", "ts": now_ts(), "round_id": t.round_id,
            "text": (f"no report from the {device} for {int(quiet)} s while the round is {t.state.value}: "
                     "check the device; the dealer may call a misdeal, a supervisor may void the round"),
        })

    def feed_watchdog(self) -> None:
        """Ping systemd's watchdog only while the table can do its work: a
        journal that cannot commit stops the pings (and says why), so systemd
        sees the table as failed instead of well."""
        run = self.runner
        if not run.notifier.enabled:
            return
        problem = self.journal_problem()
        if problem != self._status_said:
            self._status_said = problem
            run.notifier.status(problem or f"{run.table.table_id}: {run.table.game}, serving")
        if problem is None:
            run.notifier.watchdog()

    def journal_problem(self) -> str | None:
        """Why the journal cannot commit now, or None: it failed for good, its
        last transaction failed, or its disk has less free space than an action
        needs. (Any thread: it reads, and caches the free space for a moment.)"""
        run = self.runner
        journal = run.journal
        if journal is None:
            return None
        if journal.failed:
            return f"the journal cannot commit: {journal.failed}"
        if run.storage_error is not None:
            return f"the journal's last commit failed: {run.storage_error}"
        now = time.monotonic()
        at, problem = self._space_checked
        if now - at > SPACE_CHECK_EVERY:
            problem = _space_problem(journal)
            self._space_checked = (now, problem)
        return problem
