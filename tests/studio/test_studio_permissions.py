"""The broker's permissions of config/nats/users.conf (the file
docs/studio.md shows), on a real nats-server: a table's user publishes its
own records and status and nothing else, the platform only bet requests,
the studio reads and publishes nothing of the tables'; a record or status
published by another user is refused by the broker, never stored or
delivered; and the tables, studio and operator do their work with exactly
these users."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import nats
import pytest

from natscluster import CONFIG
from natsserver import NATS_SERVER, NatsServer
from tablesim.studio import natsio, wire

PASSWORD = "sample-{}-password"


def tablesim(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def secured(tmp_path):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    (tmp_path / "users.conf").write_text((CONFIG / "users.conf").read_text())  # the sample, unchanged
    conf = tmp_path / "node.conf"
    conf.write_text("include users.conf\n")
    server = NatsServer(tmp_path / "store", args=("-c", str(conf))).start()
    yield server
    server.stop()


def url(server: NatsServer, user: str) -> str:
    return f"nats://{user}:{PASSWORD.format(user)}@127.0.0.1:{server.port}"


async def attempt(server: NatsServer, user: str, subject: str, body: bytes = b"{}") -> list[str]:
    """Publish as ``user``; the errors the broker sent back."""
    errors: list[str] = []

    async def on_error(exc):
        errors.append(str(exc))

    nc = await nats.connect(url(server, user), error_cb=on_error, allow_reconnect=False)
    try:
        await nc.publish(subject, body, headers={wire.MSG_ID: "F3-01:999"})
        await nc.flush()
        await asyncio.sleep(0.5)  # (the broker's -ERR comes after the publish)
    finally:
        await nc.close()
    return errors


async def stored(server: NatsServer, subject_filter: str) -> int:
    nc = await natsio.connect(url(server, "studio"), "test")
    try:
        info = await nc.jetstream().stream_info(wire.STREAM, subjects_filter=subject_filter)
        return sum((info.state.subjects or {}).values())
    finally:
        await nc.close()


async def statuses(server: NatsServer, user: str, forger: str) -> tuple[list, list[str]]:
    """What the studio hears on F3-01's status subject while ``forger`` publishes there."""
    heard: list = []

    async def hear(msg) -> None:
        heard.append(msg.data)

    nc = await nats.connect(url(server, "studio"))
    sub = await nc.subscribe("tablesim.F3-01.status", cb=hear)
    await nc.flush()
    errors = await attempt(server, forger, "tablesim.F3-01.status", b'{"state":"up"}')
    await asyncio.sleep(0.3)
    await sub.unsubscribe()
    await nc.close()
    return heard, errors


async def follow(studio_url: str) -> tuple[int, int]:
    """What studio serve's consumer makes of the stream: (tables, rounds)."""
    from tablesim.studio.consumer import StudioConsumer

    consumer = StudioConsumer(studio_url, durable="tablesim-studio")
    task = asyncio.create_task(consumer.run())
    try:
        await asyncio.wait_for(consumer.caught_up.wait(), 60)
        floor = consumer.floor.summary()["floor"]
        return floor["tables"], floor["rounds"]
    finally:
        consumer.stop()
        task.cancel()


def table_config(tmp_path: Path, server: NatsServer) -> Path:
    cfg = tmp_path / "F3-01.toml"
    cfg.write_text(f'[table]\nid = "F3-01"\ngame = "fortune3"\n\n[devices.shoe]\nbackend = "mock"\nseed = 3\n\n'
                   f'[studio]\nurls = ["{url(server, "F3-01")}"]\n')
    return cfg


def test_each_user_does_its_work_and_nothing_more(secured, tmp_path):
    admin = url(secured, "admin")
    init = tablesim("studio", "init", "--nats", admin)
    assert init.returncode == 0, init.stderr
    journal = tmp_path / "F3-01.journal.sqlite"
    done = tablesim("run", "--config", str(table_config(tmp_path, secured)), "--rounds", "1", "--quiet",
                    "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    assert "studio: every record published" in done.stdout  # the table's own user suffices
    pub = tmp_path / "F3-01.pub.json"
    assert tablesim("keys", "export-public", "--table", "F3-01", "--out", str(pub)).returncode == 0
    refused = tablesim("studio", "register-key", str(pub), "--nats", url(secured, "studio"))
    assert refused.returncode != 0 and "registered" not in refused.stdout  # the studio cannot register keys
    # said at once, in one line naming the refusal (not asked again as if a leader were being elected)
    assert refused.stderr.count("\n") == 1 and "refused this user: permissions violation" in refused.stderr.lower(), \
        refused.stderr
    reg = tablesim("studio", "register-key", str(pub), "--nats", admin)
    assert reg.returncode == 0, reg.stderr
    report = tablesim("studio", "report", "--nats", url(secured, "studio"), "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["floor"]["rounds"] == 1
    anchored = tablesim("audit", "verify", "--journal", str(journal), "--anchor", url(secured, "studio"), "--complete")
    assert anchored.returncode == 0, anchored.stderr
    assert "password" not in anchored.stdout + anchored.stderr  # (never printed)
    assert asyncio.run(follow(url(secured, "studio"))) == (1, 1)  # studio serve's durable consumer, its own user
    before = asyncio.run(stored(secured, "tablesim.F3-01.*"))
    for forger in ("FB-01", "WH-01", "platform", "studio"):  # a record on F3-01's subject, by anyone else
        errors = asyncio.run(attempt(secured, forger, "tablesim.F3-01.event", json.dumps({"v": 1}).encode()))
        assert any("permissions violation for publish" in e.lower() for e in errors), (forger, errors)
    assert asyncio.run(stored(secured, "tablesim.F3-01.*")) == before  # none of them stored


def test_a_status_of_another_user_is_refused(secured):
    for forger in ("FB-01", "platform", "studio"):
        heard, errors = asyncio.run(statuses(secured, "studio", forger))
        assert heard == [] and any("permissions violation" in e.lower() for e in errors), (forger, errors)
    heard, errors = asyncio.run(statuses(secured, "studio", "F3-01"))
    assert len(heard) == 1 and errors == []  # the table's own status goes through


def test_bets_only_from_the_platform(secured):
    assert asyncio.run(attempt(secured, "platform", "tablesim.F3-01.bets")) == []
    for other in ("FB-01", "studio"):
        errors = asyncio.run(attempt(secured, other, "tablesim.F3-01.bets"))
        assert any("permissions violation" in e.lower() for e in errors), (other, errors)


#: what a table's user may not do on the JetStream API: make a reader of the
#: whole stream or of another table's subjects, touch the studio's or the
#: platform's durable readers, list readers, change or empty the stream
TABLE_MAY_NOT = (
    "$JS.API.CONSUMER.CREATE.TABLESIM",
    "$JS.API.CONSUMER.CREATE.TABLESIM.reader",
    "$JS.API.CONSUMER.CREATE.TABLESIM.reader.tablesim.FB-01.event",
    "$JS.API.CONSUMER.DURABLE.CREATE.TABLESIM.reader",
    "$JS.API.CONSUMER.CREATE.TABLESIM.tablesim-studio.tablesim.F3-01.event",
    "$JS.API.CONSUMER.INFO.TABLESIM.tablesim-studio",
    "$JS.API.CONSUMER.MSG.NEXT.TABLESIM.tablesim-studio",
    "$JS.API.CONSUMER.DELETE.TABLESIM.tablesim-studio",
    "$JS.API.CONSUMER.INFO.TABLESIM.tablesim-platform",
    "$JS.API.CONSUMER.MSG.NEXT.TABLESIM.tablesim-platform",
    "$JS.API.CONSUMER.DELETE.TABLESIM.tablesim-platform",
    "$JS.API.CONSUMER.LIST.TABLESIM",
    "$JS.API.CONSUMER.NAMES.TABLESIM",
    "$JS.API.STREAM.UPDATE.TABLESIM",
    "$JS.API.STREAM.DELETE.TABLESIM",
    "$JS.API.STREAM.PURGE.TABLESIM",
    "$JS.API.STREAM.MSG.DELETE.TABLESIM",
    "$JS.API.STREAM.CREATE.OTHER",
    "tablesim.FB-01.live",
    "tablesim.platform.credited",  # (the platform's processes tell one another of players' balances)
)

#: whose replies (and questions) each user may not read: every inbox but its own
MAY_NOT_READ = {
    "F3-01": ("_INBOX.>", "_INBOX.FB-01.>", "_INBOX.platform.>", "_INBOX.studio.>", "_INBOX.*.*",
              "tablesim.FB-01.bets", "tablesim.FB-01.live", "tablesim.*.bets", "tablesim.platform.credited"),
    "platform": ("_INBOX.>", "_INBOX.F3-01.>", "_INBOX.studio.>", "tablesim.F3-01.bets"),
    "studio": ("_INBOX.>", "_INBOX.F3-01.>", "_INBOX.platform.>", "tablesim.F3-01.bets", "tablesim.F3-01.live",
               "tablesim.platform.credited"),
}


async def refusals(server: NatsServer, user: str, publish=(), subscribe=()) -> list[str]:
    """Each publish and subscription tried as ``user`` on one connection; the
    broker's errors (a permissions violation does not close the connection)."""
    errors: list[str] = []

    async def on_error(exc):
        errors.append(str(exc))

    nc = await nats.connect(url(server, user), error_cb=on_error, allow_reconnect=False,
                            inbox_prefix=natsio.inbox_prefix(url(server, user)))
    try:
        for subject in publish:
            await nc.publish(subject, b"{}")
        for subject in subscribe:
            await nc.subscribe(subject)
        await nc.flush()
        await asyncio.sleep(0.5)  # (the broker's -ERR comes after)
    finally:
        await nc.close()
    return [e.lower() for e in errors]


def refused(errors: list[str], kind: str, subject: str) -> bool:
    return any(f"permissions violation for {kind}" in e and f'"{subject.lower()}"' in e for e in errors)


def test_a_table_manages_no_reader_but_its_own_and_reads_no_reply_but_its_own(secured):
    errors = asyncio.run(refusals(secured, "F3-01", publish=TABLE_MAY_NOT, subscribe=MAY_NOT_READ["F3-01"]))
    missed = [s for s in TABLE_MAY_NOT if not refused(errors, "publish", s)]
    missed += [s for s in MAY_NOT_READ["F3-01"] if not refused(errors, "subscription", s)]
    assert missed == [], errors
    for user in ("platform", "studio"):
        errors = asyncio.run(refusals(secured, user, subscribe=MAY_NOT_READ[user]))
        assert [s for s in MAY_NOT_READ[user] if not refused(errors, "subscription", s)] == [], (user, errors)
    # what the table does need goes through: its own reader of its own subjects, its own replies
    own = ("$JS.API.CONSUMER.CREATE.TABLESIM.tablesim-reader-1.tablesim.F3-01.event", "tablesim.F3-01.live")
    assert asyncio.run(refusals(secured, "F3-01", publish=own, subscribe=("_INBOX.F3-01.>", "tablesim.F3-01.live"))) == []
    # ... and the platform's processes tell one another of the balances settlement moved
    credited = ("tablesim.platform.credited",)
    assert asyncio.run(refusals(secured, "platform", publish=credited, subscribe=credited)) == []


async def replies(server: NatsServer, user: str) -> str:
    """A JetStream request as ``user`` with tablesim's connection: the reply inbox it used."""
    nc = await natsio.connect(url(server, user), "test")
    try:
        await nc.jetstream(timeout=5).stream_info(wire.STREAM)
        return nc._resp_sub_prefix.decode()
    finally:
        await nc.close()


def test_each_users_replies_come_to_its_own_inbox(secured):
    assert tablesim("studio", "init", "--nats", url(secured, "admin")).returncode == 0
    for user in ("F3-01", "studio"):
        assert asyncio.run(replies(secured, user)).startswith(f"_INBOX.{user}.")


def test_the_docs_show_exactly_the_users_the_broker_runs():
    docs = (CONFIG.parents[1] / "docs" / "studio.md").read_text()
    assert "```\n" + (CONFIG / "users.conf").read_text() + "```" in docs
    node = (CONFIG / "studio-1.conf").read_text()
    assert "include users.conf" in node and "nats-route://studio-3:6222" in node


def test_the_sample_is_what_the_credentials_command_writes():
    from tablesim.studio.credentials import users_conf

    tables = ["F3-01", "FB-01", "WH-01"]
    written = users_conf(tables, {n: PASSWORD.format(n) for n in ("admin", "platform", "studio", *tables)})
    sample = (CONFIG / "users.conf").read_text()
    assert sample.endswith(written.split("\n", 3)[3])
