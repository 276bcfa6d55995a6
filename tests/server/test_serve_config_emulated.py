"""``tablesim serve --config FILE --emulated``: a technician tries their own
configuration's console with each device on its emulator, as ``tablesim run
--config FILE --emulated`` plays it, under a table id of its own."""

from __future__ import annotations

import signal

from server_process import Serve


def test_serve_a_configuration_on_its_emulators(env, tmp_path):
    journal = tmp_path / "wh.journal.sqlite"
    s = Serve(env, "--config", "wheel-line-judged", "--emulated", "--time-scale", "0", "--seed", "5", "--port", "0",
              "--journal", str(journal))
    try:
        head = next(line for line in s.lines if line.startswith("WH-JUDGED-EMU: "))
        assert "emulated (wheel line on /dev/" in head
        assert f"operator tokens: {tmp_path / 'wh.tokens.json'} (new)" in s.lines
        snap = s.state()
        assert snap["table_id"] == "WH-JUDGED-EMU", snap
        assert s.post("/api/actions/open_round").status_code == 200
        s.wait_state("betting_open")
        assert s.post("/api/bets", {"position": "1", "bet": "logo", "amount": "10"}).status_code == 200
        assert s.post("/api/actions/close_betting").status_code == 200
        assert s.wait_state("complete")["result"]["status"] == "settled"
    finally:
        assert s.stop(signal.SIGTERM) == 0
