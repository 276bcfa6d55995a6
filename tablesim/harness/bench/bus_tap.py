"""A listener on the studio's bus beside a benchmark: each record a table
publishes, the delay from the ``ts`` it was journaled with to its arrival
on the bus (this process's wall clock, the same machine's). It tells the
table's part of a delay (journal, outbox, broker) from the platform's."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from datetime import datetime



class BusTap:
    def __init__(self, url: str, table_id: str) -> None:
        self.url, self.subject = url, f"tablesim.{table_id}.*"  # (its records, as the studio names them)
        self.delays: Counter[int] = Counter()  # ms -> records
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()

    async def _run(self) -> None:
        import nats

        from tablecore.natsurl import split

        nc = await nats.connect(split(self.url))  # (a cluster's nodes, comma-separated: each one a server)

        async def took(msg) -> None:
            now = time.time()
            try:
                ts = json.loads(msg.data)["record"]["ts"]  # (the wire record's envelope: docs/studio.md)
                self.delays[int((now - datetime.fromisoformat(ts).timestamp()) * 1000)] += 1
            except Exception:  # (not a record: a bet, a status)
                pass

        await nc.subscribe(self.subject, cb=took)
        while not self._stop.is_set():
            await asyncio.sleep(0.1)
        await nc.close()

    def close(self) -> Counter[int]:
        self._stop.set()
        self._thread.join(10)
        return self.delays
