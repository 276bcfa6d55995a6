"""Playing a simulation's shares on a Dask distributed cluster.

The shares are the same as on one machine: share k of K plays its rounds
with the seed "S/K/k" (``runner.py``), so a cluster run gives exactly the
result of a local run with the same seed and the same K, whichever worker
(or machine) plays which share. Each share is one Dask task; the scheduler
hands them to the workers, which must run the same tablesim version.
"""

from __future__ import annotations

from typing import Any, Callable

from tablecore.errors import InputError
from tablesim.harness.simulate.stats import Tally

#: how long to wait for the scheduler to answer (seconds)
CONNECT_TIMEOUT = 10


def _client_class():
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask distributed: pip install 'tablesim[cluster]'",
                         where="--scheduler") from None
    return Client


def connect(address: str, timeout: float = CONNECT_TIMEOUT):
    """A Dask client of the scheduler at ``address`` (tcp://HOST:PORT)."""
    Client = _client_class()
    _reachable(address, timeout)
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {exc}", where="--scheduler") from None
    return client


def _reachable(address: str, timeout: float) -> None:
    """A tcp:// scheduler nobody listens on is refused at once (Dask would
    retry until its timeout)."""
    import socket
    from urllib.parse import urlsplit

    if not address.startswith("tcp://"):
        return
    try:
        parts = urlsplit(address)
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or not port:
        raise InputError(f"{address!r} is not tcp://HOST:PORT", where="--scheduler")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}",
                         where="--scheduler") from None


def cluster_threads(client) -> int:
    """Worker threads the cluster has now (the default number of shares)."""
    workers = client.scheduler_info().get("workers", {})
    return sum(int(w.get("nthreads", 1)) for w in workers.values())


def _share(game: str, seed: str, rounds: int, options: dict[str, Any]) -> Tally:
    """One share, on a worker. Its table logs warnings only: a worker's
    logging is not the CLI's, and with debug logging on every table event
    of millions of rounds would be built and written."""
    import logging

    import structlog

    from tablesim.harness.simulate.runner import play_share

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    return play_share(game, seed, rounds, options, None)


def play_shares(client, game: str, seeds: list[str], shares: list[int], options: dict[str, Any],
                on_progress: Callable[[int], None] | None = None) -> list[Tally]:
    """Each share as one task on the cluster; the tallies in share order."""
    from distributed import as_completed

    futures = [client.submit(_share, game, seed, rounds, options, key=f"tablesim-share-{seed}-{rounds}", pure=False)
               for seed, rounds in zip(seeds, shares)]
    index = {f.key: k for k, f in enumerate(futures)}
    tallies: list[Tally | None] = [None] * len(futures)
    try:
        for future in as_completed(futures):
            try:
                tally = future.result()
            except Exception as exc:  # a worker's failure, e.g. tablesim missing there
                raise InputError(f"a share failed on the cluster: {type(exc).__name__}: {exc}",
                                 where="--scheduler") from None
            k = index[future.key]
            tallies[k] = tally
            if on_progress is not None:
                on_progress(shares[k])
    finally:
        for future in futures:
            future.release()
    return [t for t in tallies if t is not None]
