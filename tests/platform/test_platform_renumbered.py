"""The platform's picture when the stream is numbered anew under it (a
replicated stream's new leader that lacked the messages its predecessor
handed out numbers the next ones in their place; the three-node cluster
test's floor saw it): the message read last is held against the one the
stream's leader has there, another one there makes the whole stream read
again, and no record is applied twice, so no bet stands twice and every
result is there once. A real nats-server and a table's real records; the
former leader's message is put in the reader's memory (one broker cannot
number anew)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import nats
import pytest

from natsserver import NATS_SERVER
from tablesim.platform.follow import Follower
from tablesim.platform.rounds import Rounds
from tablesim.studio import signing, trust, wire

pytestmark = pytest.mark.skipif(NATS_SERVER is None, reason="nats-server is not installed")


def _play(tmp_path, url: str, rounds: int) -> None:
    done = subprocess.run([sys.executable, "-m", "tablesim.cli.main", "run", "--game", "wheel", "--mock", "--quiet",
                           "--rounds", str(rounds), "--journal", str(tmp_path / "WHEEL-MOCK.journal.sqlite"),
                           "--studio", url], capture_output=True, text=True)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr


def _keys(tmp_path):
    from tablesim.journal.location import data_dir

    keys = tmp_path / "keys.json"
    for path in sorted(data_dir().glob("*.sign.key")):
        trust.register(keys, path.name[: -len(".sign.key")], signing.public_hex(signing.load_signing_key(path)))
    return trust.load_trust(keys)


async def _until(cond, budget: float = 20.0):
    for _ in range(int(budget / 0.05)):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not within the budget")


def _picture(rounds: Rounds) -> dict:
    return {key: (sorted(r.refs), r.result is not None) for key, r in rounds.rounds.items()}


def test_a_stream_numbered_anew_is_read_again_whole_and_nothing_applied_twice(broker, tmp_path):
    """First a reconnection to the stream as it was: the reader goes on from
    its place, reading nothing again. Then the message at the place is not
    the one read there: the whole stream is read again, and nothing is
    applied twice."""
    _play(tmp_path, broker.url, 2)
    keys = _keys(tmp_path)

    async def reconnect(js) -> None:
        for info in await js.consumers_info(wire.STREAM):  # the reader's consumer gone: it makes another
            await js.delete_consumer(wire.STREAM, info.name)

    async def go():
        nc = await nats.connect(broker.url)
        js = nc.jetstream()
        rounds = Rounds()
        follower = Follower(lambda: js, keys, rounds, lambda: nc)
        reader = asyncio.ensure_future(follower.run())
        closed = lambda: sum(r.closed for r in rounds.rounds.values())  # noqa: E731
        try:
            await _until(lambda: closed() == 2 and follower.caught_up.is_set())
            await reconnect(js)
            await asyncio.get_running_loop().run_in_executor(None, _play, tmp_path, broker.url, 1)
            await _until(lambda: closed() == 3)
            assert follower.renumbered == 0 and follower.again == 0

            before, place, last = _picture(rounds), rounds.stream_seq, rounds.table_seq["WHEEL-MOCK"]
            follower._last_id = "WHEEL-MOCK:999999"  # what a former leader handed out at that stream seq
            await reconnect(js)
            # (read again from the first message: passed over, up to the place again)
            await _until(lambda: follower.renumbered == 1 and follower.again and rounds.stream_seq == place)
            assert follower.again >= 3  # the records applied before, read again and passed over
            assert _picture(rounds) == before and rounds.table_seq["WHEEL-MOCK"] == last
            assert follower.rejected == 0
        finally:
            reader.cancel()
            await nc.close()

    asyncio.run(go())
