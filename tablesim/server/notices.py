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
    """(A part of ``TableRunner``.)"""

    def _notice_quiet(self, now: float) -> None:
        """Tell the console once when the device the round waits for stays quiet."""
        if self._quiet_noticed or self.table.paused:
            return
        device = self.adapter.waiting_for()
        if device is None:
            return
        quiet = now - max(self.state_since, self.last_report)
        if quiet < QUIET_NOTICE:
            return
        self._quiet_noticed = True
        t = self.table
        self.stream.publish({
            "type": "notice", "level": "warning", "ts": now_ts(), "round_id": t.round_id,
            "text": (f"no report from the {device} for {int(quiet)} s while the round is {t.state.value}: "
                     "check the device; the dealer may call a misdeal, a supervisor may void the round"),
        })

    def _feed_watchdog(self) -> None:
        """Ping systemd's watchdog only while the table can do its work: a
        journal that cannot commit stops the pings (and says why), so systemd
        sees the table as failed instead of well."""
        if not self.notifier.enabled:
            return
        problem = self.journal_problem()
        if problem != self._status_said:
            self._status_said = problem
            self.notifier.status(problem or f"{self.table.table_id}: {self.table.game}, serving")
        if problem is None:
            self.notifier.watchdog()

    def journal_problem(self) -> str | None:
        """Why the journal cannot commit now, or None: it failed for good, its
        last transaction failed, or its disk has less free space than an action
        needs. (Any thread: it reads, and caches the free space for a moment.)"""
        journal = self.journal
        if journal is None:
            return None
        if journal.failed:
            return f"the journal cannot commit: {journal.failed}"
        if self.storage_error is not None:
            return f"the journal's last commit failed: {self.storage_error}"
        now = time.monotonic()
        at, problem = self._space_checked
        if now - at > SPACE_CHECK_EVERY:
            problem = _space_problem(journal)
            self._space_checked = (now, problem)
        return problem
