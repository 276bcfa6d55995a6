"""Raw device traffic captured while a table plays and replayed as its
devices: ``tablesim devices record`` / ``tablesim devices replay`` (the
capture format: drivers/lineproto/capture.py, docs/drivers.md)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from tablesim.cli.main import cli


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.mark.parametrize("config", ["fortune3-line-codes", "wheel-line"])
def test_an_emulated_session_recorded_replays_with_identical_results(tmp_path, config):
    capture = tmp_path / "session.cap"
    live = invoke("devices", "record", "--config", config, "--emulated", "--out", str(capture), "--rounds", "3",
                  "--seed", "8", "--quiet")
    assert live.exit_code == 0, live.output
    lines = [json.loads(line) for line in capture.read_text().splitlines()]
    assert lines[0]["header"]["format"] == "tablesim-capture/1" and lines[-1] == {"end": True}
    assert len([x for x in lines if "result" in x]) == 3
    assert any(x.get("dir") == "rx" for x in lines) and any(x.get("cue") == "arm" for x in lines)
    replayed = invoke("devices", "replay", str(capture), "--quiet")
    assert replayed.exit_code == 0 and "replay: 3 rounds, every result as recorded" in replayed.output, replayed.output


def test_a_capture_whose_bytes_changed_does_not_replay_as_recorded(tmp_path):
    capture = tmp_path / "session.cap"
    assert invoke("devices", "record", "--config", "fortune3-line-codes", "--emulated", "--out", str(capture),
                  "--rounds", "2", "--seed", "8", "--quiet").exit_code == 0
    lines = [json.loads(line) for line in capture.read_text().splitlines()]
    first = next(x for x in lines if x.get("dir") == "rx")
    data = bytes.fromhex(first["hex"])
    suit = next(c for c in b"AHDC" if c in data)
    other = b"H"[0] if suit != b"H"[0] else b"D"[0]
    # the first card read as another (a card of another suit): the replayed round is not the recorded one
    first["hex"] = data.replace(bytes([suit]), bytes([other]), 1).hex()
    capture.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = invoke("devices", "replay", str(capture), "--quiet")
    assert result.exit_code == 1 and "replay mismatch: round 1" in result.output, result.output


def test_what_is_not_a_capture_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "x.cap"
    bad.write_text('{"hello": 1}\n')
    result = invoke("devices", "replay", str(bad))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "not a capture (its first line must be a tablesim-capture/1 header)" in result.output
    result = invoke("devices", "record", "--config", "fortune3-serial", "--emulated", "--out", str(bad))
    assert result.exit_code == 2 and "a capture records line devices; the shoe is serial" in result.output


def test_probe_is_a_subcommand_and_the_old_flag_still_works():
    new = invoke("devices", "probe", "--port", "loop://", "--timeout", "0.1")
    old = invoke("devices", "--probe", "--port", "loop://", "--timeout", "0.1")
    assert new.exit_code == old.exit_code == 1 and new.output == old.output and "loop://" in new.output


def test_a_replay_url_that_cannot_work_is_one_line(tmp_path):
    from drivers.serial.link_device import DeviceUnavailable
    from drivers.lineproto.kinds import LineShoe
    from drivers.lineproto.spec import line_settings
    from line_support import settings_of
    from tablecore.validate import Reader

    for url, why in ((f"replay:{tmp_path / 'none.cap'}", "cannot read the capture"),
                     (f"replay:{tmp_path / 'none.cap'}?speed=fast", r"a replay url takes \?speed=X")):
        settings = line_settings("shoe", Reader({**settings_of("fortune3-line-codes", "shoe"), "url": url}, "d"))
        with pytest.raises(DeviceUnavailable, match=why):
            LineShoe(**settings).open()
