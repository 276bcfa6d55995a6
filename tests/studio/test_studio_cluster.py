"""The studio on three clustered nats-servers made from config/nats/ (the
sample node configs, ports substituted): three tables publish while the
stream's leader is SIGKILLed, then the new leader too (no quorum: the
tables go on journaling), both restarted; every table's stream equals its
journal (nothing lost, doubled or out of order), ``audit verify --anchor
--complete`` passes for each, and ``studio report`` equals the journals'
sums. (scripts/studio_cluster.py does the work; this runs it small.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from natsserver import NATS_SERVER

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("TABLESIM_CLUSTER_TESTS"),
                    reason="the three-node leader-kill run: TABLESIM_CLUSTER_TESTS=1 (under a CPU burner on two "
                           "cores its tables' links once timed out for minutes after the first kill: being looked into)")
def test_leader_killed_then_quorum_lost_nothing_lost_doubled_or_reordered(tmp_path):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "studio_cluster.py"), "--tables", "3",
                           "--rounds", "12", "--delay", "1.0", "--workdir", str(tmp_path / "cluster"), "--json"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["ok"] and out["report_equals_journals"]
    assert out["init"][1].startswith("  stream TABLESIM: created (3 replica(s)")
    kill = out["leader_kill"]
    assert kill["records_published"] > 3 * 12 * 20
    assert kill["lost"] == kill["doubled"] == kill["out_of_order"] == 0
    assert out["first_kill"]["node"] != out["second_kill"]["node"]
    # the tables never waited for the stream (where a slow machine's elections
    # outlasted their rounds, none was left playing to show it)
    assert out["second_kill"]["journaled_without_quorum"] > 0 or out["second_kill"]["tables_playing"] == 0, out
    assert out["floor"]["tables"] == 3
