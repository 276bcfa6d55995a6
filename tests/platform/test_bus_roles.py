"""The studio's bus closed by role (``tablesim studio credentials``), on the
rig's real broker with a real table and platform: an attacker holding any
one role's credentials cannot place or decide in a player's name, answer
in a table's place (join its queue group), or read another table's records
(a face-down card among them) through the JetStream API; while the table,
the platform and settlement do their work under their own roles."""

from __future__ import annotations

import asyncio
import json
import time

import nats

from rig import TABLE
from tablesim.studio import natsio, wire

OTHER = "F3-REMOTE"  # another table's user on the same broker


async def _as(broker, role: str, act) -> list[str]:
    """Do ``act(nc)`` as ``role``; the permission errors the broker sent back."""
    errors: list[str] = []

    async def on_error(exc):
        errors.append(str(exc))

    url = broker.role_url(role)
    nc = await nats.connect(url, error_cb=on_error, allow_reconnect=False, inbox_prefix=natsio.inbox_prefix(url))
    # The act runs beside the wait for the broker's answer: a refused request
    # would otherwise wait out its own timeout for a reply that never comes.
    acting = asyncio.ensure_future(act(nc))
    try:
        deadline = time.monotonic() + 5
        while not any("permissions violation" in e for e in errors) and time.monotonic() < deadline:
            if acting.done() and not acting.cancelled():
                if (exc := acting.exception()) is not None and not isinstance(exc, (nats.errors.Error, asyncio.TimeoutError)):
                    raise exc
            await asyncio.sleep(0.02)
    finally:
        acting.cancel()
        await asyncio.gather(acting, return_exceptions=True)
        await nc.close()
    return errors


def refused(broker, role: str, act) -> bool:
    return any("permissions violation" in e for e in asyncio.run(_as(broker, role, act)))


def test_only_the_platform_places_and_decides(rig):
    bet = json.dumps({"v": 1, "bets": [{"ref": "forged-1", "position": "ann", "bet": "1", "amount": "5",
                                        "round": "x"}]}).encode()
    for role in (OTHER, "studio"):
        assert refused(rig.broker, role, lambda nc: nc.request(wire.bets_subject(TABLE), bet, timeout=2)), role
        assert refused(rig.broker, role, lambda nc: nc.publish(wire.decisions_subject(OTHER), b"{}")), role


def test_nobody_answers_in_a_tables_place(rig):
    """Nobody but the table's own user may subscribe to its bets or decisions,
    so nobody can join its queue group and tell a player ``placed``."""
    for role in (OTHER, "studio", "platform"):
        for subject in (wire.bets_subject(TABLE), wire.decisions_subject(TABLE)):
            assert refused(rig.broker, role,
                           lambda nc: nc.subscribe(subject, queue=f"tablesim-{TABLE}")), (role, subject)
    # and the table still answers the platform's bets
    platform = rig.platform(db="roles.db")
    kim = platform.session(rig.token("kim"))
    rig.open_round()
    assert platform.bet(kim, {"table": TABLE, "bet": "1", "amount": "2"}).json()["status"] == "placed"


def test_a_table_reads_nothing_of_another_table(rig):
    """No direct reads (by number or last by subject), no reader on another
    table's subjects or on the whole stream, no use of the studio's or the
    platform's readers: a table's role reads its own subjects only."""
    js_api = "$JS.API"
    attempts = {
        "by number": lambda nc: nc.request(f"{js_api}.STREAM.MSG.GET.{wire.STREAM}",
                                           json.dumps({"last_by_subj": f"tablesim.{TABLE}.event"}).encode(),
                                           timeout=2),
        "direct": lambda nc: nc.request(f"{js_api}.DIRECT.GET.{wire.STREAM}.tablesim.{TABLE}.event", b"",
                                        timeout=2),
        "reader of its subjects": lambda nc: nc.request(
            f"{js_api}.CONSUMER.CREATE.{wire.STREAM}.spy.tablesim.{TABLE}.*", b"{}", timeout=2),
        "reader of all": lambda nc: nc.request(f"{js_api}.CONSUMER.CREATE.{wire.STREAM}", b"{}", timeout=2),
        "the platform's reader": lambda nc: nc.request(
            f"{js_api}.CONSUMER.MSG.NEXT.{wire.STREAM}.tablesim-platform", b"1", timeout=2),
        "its records live": lambda nc: nc.subscribe(f"tablesim.{TABLE}.>"),
    }
    for what, act in attempts.items():
        assert refused(rig.broker, OTHER, act), what


def test_no_role_writes_a_tables_records_but_the_table(rig):
    for role in (OTHER, "platform", "studio"):
        assert refused(rig.broker, role, lambda nc: nc.publish(wire.record_subject(TABLE, "event"), b"{}")), role


def test_the_studios_role_reads_the_whole_stream(rig):
    """The floor's and the anchor's role reads what the operator reads (its
    readers are its own; its permissions give it nothing to publish)."""
    import subprocess
    import sys

    from rig import ROOT

    rig.open_round()
    rig.spin()

    def report(url: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "tablesim.cli.main", "studio", "report", "--nats", url, "--json",
                              "--keys", str(rig.keys)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                             env=rig.env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    as_studio, as_admin = report(rig.broker.role("studio")), report(rig.broker.url)
    assert as_studio["records"] == as_admin["records"] >= 10
