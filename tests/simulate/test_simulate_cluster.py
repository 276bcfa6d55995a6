"""``tablesim simulate --scheduler``: the same shares on a Dask cluster give
exactly the local run's result (a local Dask cluster on 127.0.0.1)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scheduler():
    """A Dask scheduler on a free port of 127.0.0.1 with two worker threads
    (in this process: they import the tablesim under test).

    Dask is imported here, not at the module's import: every test process
    collects every module, and Dask with NumPy took half a second of CPU in
    each of them, for the one process that runs this module."""
    distributed = pytest.importorskip("distributed")
    with _cluster_logs_apart():
        yield from _local_cluster(distributed)


@contextmanager
def _cluster_logs_apart():
    """The cluster's own log lines ("Receive client connection", "Remove
    client", ...) go to this test process's stderr, never into a command's.

    Dask sets up its loggers when it is imported: it gives "distributed" a
    handler of its own and stops it propagating, unless the root logger
    already has a handler, and under pytest it has (the log capture's, at
    collection). Left so, the scheduler's INFO lines reach the root logger,
    where a command run in this process (its log handler on the command's
    stderr) prints them: a line the scheduler logs late for one test's client
    lands in the next test's output.

    The same holds for the cluster's event loop: a future of the scheduler's or
    a worker's that timed out unread (tornado's "Timeout") is logged by
    asyncio when the collector frees it, in whichever thread runs then, and
    once that was a share's thread during the next command (CI saw it)."""
    handler = logging.StreamHandler(sys.stderr)  # pytest's capture of this test process
    loggers = [logging.getLogger(name) for name in ("distributed", "asyncio", "tornado")]
    saved = [log.propagate for log in loggers]
    for log in loggers:
        log.addHandler(handler)
        log.propagate = False
    try:
        yield
    finally:
        for log, propagate in zip(loggers, saved):
            log.removeHandler(handler)
            log.propagate = propagate


def _local_cluster(distributed):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                       host="127.0.0.1", scheduler_port=0, dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def local(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    """A local run, as its own process (its workers are forked processes)."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", "simulate", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def on_cluster(*args: str):
    """A run whose shares go to the cluster: this process is only its client."""
    return CliRunner().invoke(cli, ["simulate", *args])


@pytest.mark.slow
def test_a_cluster_run_is_the_local_run(scheduler, tmp_path):
    assert scheduler.startswith("tcp://127.0.0.1:")
    common = ["fortune3", "--rounds", "600", "--seed", "11", "--workers", "3", "--json"]
    here = local(*common, tmp=tmp_path)
    remote = on_cluster(*common, "--scheduler", scheduler, "--plot", str(tmp_path / "c.png"))
    assert here.returncode == 0, here.stderr
    assert remote.exit_code == 0, remote.output
    a, b = json.loads(here.stdout), json.loads(remote.stdout)
    assert b["scheduler"] == scheduler and a["workers"] == b["workers"] == 3
    for key in ("rounds", "void_rounds", "bets", "inside99", "outside999"):
        assert a[key] == b[key], key
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_default_shares_are_the_cluster_threads_and_another_seed_differs(scheduler, tmp_path):
    one = on_cluster("wheel", "--rounds", "400", "--seed", "1", "--json", "--scheduler", scheduler)
    two = on_cluster("wheel", "--rounds", "400", "--seed", "2", "--json", "--scheduler", scheduler)
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert a["workers"] == b["workers"] == 2
    assert a["bets"] != b["bets"]


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path):
    from tablesim.harness.ports import free_port

    port = free_port()  # a port nobody listens on
    out = on_cluster("wheel", "--rounds", "10", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert out.exit_code == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: --scheduler: cannot reach the Dask scheduler")


def test_the_clusters_log_lines_are_not_a_commands_output(scheduler):
    """The scheduler runs in this process: what it logs about a client (its
    connection, its removal) is the cluster's, not the command's output."""
    out = on_cluster("wheel", "--rounds", "50", "--seed", "1", "--json", "--scheduler", scheduler)
    assert out.exit_code == 0, out.output
    assert out.stderr == ""
    out = on_cluster("wheel", "--rounds", "10", "--scheduler", "tcp://127.0.0.1:1")  # at once: no late line
    assert out.exit_code == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
