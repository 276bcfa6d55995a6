"""Nothing face down on the bus: a Fortune 3 table publishing to a real
broker, everything on ``tablesim.<table>.>`` heard as it goes out and the
whole stream read after, and no dealer's card (nor a card set aside face
down) in any byte of any message before the record that reveals it; the
anchor still holds every record byte for byte, the round's result opens
every sealed value (each opening what was committed), and the platform's
reader shows the dealer's cards at the reveal."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time

import nats
import pytest

from tablesim.platform.player.public import PublicTable
from tablesim.studio import wire
from tablesim.studio.anchor import stream_messages, verify_anchor
from tablesim.studio.sealed import CARD_CODE, check_opened

from test_studio_publish import register_all, run_table, tablesim

TABLE = "F3-MOCK"


class Listener:
    """Every message on ``tablesim.<table>.>`` (core NATS: records, status, whatever
    else the table sends), in the order heard, on a thread and event loop of its own."""

    def __init__(self, url: str, table: str) -> None:
        self.url, self.subject = url, f"tablesim.{table}.>"
        self.heard: list[tuple[str, bytes]] = []
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> "Listener":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(30)
        return self

    async def _listen(self) -> None:
        self.nc = await nats.connect(self.url)

        async def took(msg) -> None:
            self.heard.append((msg.subject, msg.data))

        await self.nc.subscribe(self.subject, cb=took)
        await self.nc.flush()

    def records(self) -> list[bytes]:
        return [data for subject, data in list(self.heard) if subject.rsplit(".", 1)[-1] in wire.RECORD_KINDS]

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self.nc.close(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)


def face_down(path) -> tuple[dict[str, set[str]], dict[str, int]]:
    """From the journal (the truth): each round's face-down cards (the
    dealer's, and any set aside face down that was never dealt face up) and
    the seq of the record that reveals them (the dealer's hand)."""
    db = wire.open_reader(str(path))
    try:
        hidden: dict[str, set[str]] = {}
        shown: dict[str, set[str]] = {}
        reveal: dict[str, int] = {}
        for row in db.rows():
            data, rid = json.loads(row["data"]), row["round_id"]
            if row["kind"] != "event":
                continue
            if row["name"] == "card":
                (hidden if data.get("to") == "dealer" else shown).setdefault(rid, set()).add(data["card"])
            elif row["name"] == "card_set_aside":
                hidden.setdefault(rid, set()).update(c for c in data["card"].split() if not c.endswith("^"))
            elif row["name"] == "dealer":
                reveal.setdefault(rid, row["seq"])
        return {rid: codes - shown.get(rid, set()) for rid, codes in hidden.items()}, reveal
    finally:
        db.close()


def named(code: str, body: bytes) -> bool:
    """Whether ``body`` holds ``code`` in any form a record writes it
    (``"6D"``, ``{"$card":"6D"}``, ``"6D^"``, inside a text; a ten as ``T`` or ``10``)."""
    forms = {code, "10" + code[1:]} if code.startswith("T") else {code}
    return any(re.search(rb"(?<![A-Za-z0-9])" + re.escape(f.encode()) + rb"(?![A-Za-z0-9])", body) is not None
               for f in forms)


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_no_face_down_card_on_the_bus_before_its_reveal(nats_server, tmp_path, dealing):
    journal = tmp_path / f"{TABLE}.journal.sqlite"
    with Listener(nats_server.url, TABLE) as listener:
        done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "4", "--seed", "7",
                        "--dealing", dealing, "--journal", str(journal), "--studio", nats_server.url)
        register_all()
        assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
        [report] = verify_anchor(str(journal), nats_server.url)
        deadline = time.monotonic() + 60  # (what the broker holds, heard live too: a wait on that, not a pause)
        while len(listener.records()) < report.stream_records and time.monotonic() < deadline:
            time.sleep(0.05)
        heard = list(listener.heard)
    assert report.ok and report.anchored == report.journal_records == report.stream_records, report.lines()

    stream = [m.data for m in asyncio.run(stream_messages(nats_server.url, TABLE))]
    assert [data for subject, data in heard if subject.rsplit(".", 1)[-1] in wire.RECORD_KINDS] == stream

    hidden, reveal = face_down(journal)
    assert len(reveal) == 4 and all(len(hidden[rid]) >= 3 for rid in reveal)  # every round dealt the dealer
    firsts = {}
    for body in stream:
        rec = wire.decode(body)
        firsts.setdefault(rec.round_id, rec.seq)
    # Heard in order: until a round's reveal is heard, no message (a record, a
    # status, anything of the table) names a card of it that is face down.
    revealed: set[str] = set()
    checked = 0
    for subject, data in heard:
        rec = wire.decode(data) if subject.rsplit(".", 1)[-1] in wire.RECORD_KINDS else None
        if rec is not None and rec.name == "dealer":  # (the reveal itself shows them)
            revealed.add(rec.round_id)
        for rid, codes in hidden.items():
            if rid in revealed or (rec is not None and rec.seq < firsts[rid]):
                continue
            leaked = [c for c in codes if named(c, data)]
            assert not leaked, f"{subject}: {leaked} of round {rid} before its reveal: {data[:300]!r}"
            checked += 1
        if rec is None:
            assert not CARD_CODE.search(data.decode()), data
    assert revealed == set(reveal) and checked > 100

    # The reveal shows them, the result opens each sealed value, every opening what was committed.
    dealer = {}
    sealed = opened = 0
    for body in stream:
        doc, rec = json.loads(body), wire.decode(body)
        sealed += len(doc.get("sealed", []))
        if rec.name == "dealer":
            dealer[rec.round_id] = set(rec.data["cards"])
        if "opened" in doc:
            opened += len(doc["opened"]["values"])
            assert {v["value"] for v in doc["opened"]["values"] if v["path"] == ["card"]} >= hidden[rec.round_id]
    assert dealer == {rid: hidden[rid] for rid in reveal}
    assert sealed == opened > 0 and check_opened(stream) == []

    # The platform's reader: the dealer's cards hidden as dealt, shown at the reveal.
    view = PublicTable(TABLE, "fortune3")
    shown = [m for m in (view.shown(wire.decode(body)) for body in stream) if m is not None]
    to_dealer = [m["data"]["card"] for m in shown if m["kind"] == "card" and m["data"].get("to") == "dealer"]
    assert to_dealer and set(to_dealer) == {"??"}
    assert {m["round_id"]: set(m["data"]["cards"]) for m in shown if m["kind"] == "dealer"} == dealer


def test_an_opening_that_is_not_what_was_sealed_is_told(nats_server, tmp_path):
    journal = tmp_path / f"{TABLE}.journal.sqlite"
    done = run_table("fortune3", journal, nats_server.url, rounds=1, seed=3)
    assert done.returncode == 0, done.stderr
    stream = [m.data for m in asyncio.run(stream_messages(nats_server.url, TABLE))]
    assert check_opened(stream) == []
    index = next(i for i, body in enumerate(stream) if "opened" in json.loads(body))
    doc = json.loads(stream[index])
    value = next(v for v in doc["opened"]["values"] if v["path"] == ["card"])
    value["value"] = "AS" if value["value"] != "AS" else "KD"  # another card than the one dealt
    forged = stream[:index] + [wire.canonical(doc)] + stream[index + 1:]
    [problem] = check_opened(forged)
    assert f"record {value['seq']} ['card']: the opening is not what was sealed" in problem
