"""``tablesim run ... --record FILE`` and ``tablesim replay FILE``: a session's
device frames recorded on the serial drivers' transports and played back
through the same drivers and table code (docs/protocol.md, "Record and
replay"). Run in this process with click's CliRunner, so the leak check sees
every thread and descriptor the drivers and emulators used."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from drivers.tdl import crc16
from tablesim.cli.main import cli
from tablesim.harness.recording import FORMAT, RX, TX, Recording
from test_serial_support import no_leaks  # noqa: F401 - fixture (autouse): no thread or fd left behind

RECORDINGS = Path(__file__).resolve().parent / "recordings"
FORTUNE3 = RECORDINGS / "fortune3-emulated.jsonl"


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def json_results(stdout: str) -> list[dict]:
    """``replay --json`` output as recorded results: {"round_id", "result"}."""
    out = []
    for line in stdout.splitlines():
        obj = json.loads(line)
        out.append({"round_id": obj.pop("round_id"), "result": obj})
    return out


def round_lines(output: str, head: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(head)]


def test_the_committed_recording_is_small_and_complete():
    assert FORTUNE3.stat().st_size < 200_000
    recording = Recording.load(FORTUNE3)
    header = recording.header
    assert header["format"] == FORMAT and header["heartbeat"] == "off"
    assert (header["game"], header["mode"], header["time_scale"], header["rounds"]) == ("fortune3", "emulated", 0, 3)
    assert isinstance(header["seed"], int)
    assert recording.complete and len(recording.results) == 3
    assert {item.dir for item in recording.frames} == {TX, RX}
    assert recording.devices == ["shoe"]


def test_replaying_the_committed_recording_reproduces_its_results():
    recording = Recording.load(FORTUNE3)
    result = invoke("replay", str(FORTUNE3), "--json")
    assert result.exit_code == 0, result.output
    replayed = json_results(result.stdout)
    # every recorded field replayed the same; the recording predates the
    # results' stakes, which the replay adds
    assert [{**r, "result": {k: r["result"][k] for k in old["result"]}} for r, old in zip(replayed, recording.results)] \
        == recording.results
    assert all("stakes" in r["result"] and "stakes" not in old["result"] for r, old in zip(replayed, recording.results))

    shown = invoke("replay", str(FORTUNE3))
    assert shown.exit_code == 0, shown.output
    lines = round_lines(shown.stdout, "F3-EMU-")
    assert [line.split()[0] for line in lines] == [r["round_id"] for r in recording.results]
    assert "3 round(s) played (0 void)" in shown.stdout
    assert "matched the recording" in shown.stdout


def _tamper_card(path: Path, *, fix_crc: bool) -> int:
    """Change the rank of the first card the shoe reported; the tampered frame's line number."""
    lines = path.read_text().splitlines()
    for no, text in enumerate(lines):
        obj = json.loads(text)
        if obj["type"] != "frame" or obj["dir"] != RX:
            continue
        data = bytearray.fromhex(obj["hex"])
        at = data.find(b"|CRD|")
        if at < 0 or data.find(b"\r\n", at) < 0:
            continue
        fields_at = at + len(b"|CRD|")
        rank_at = data.index(b"|", data.index(b"|", fields_at) + 1) + 1  # round id | index | RANK
        data[rank_at] = ord("2") if data[rank_at] != ord("2") else ord("3")
        if fix_crc:
            stx = data.rfind(b"\x02", 0, at)
            etx = data.index(b"\x03", at)
            data[etx + 1:etx + 5] = b"%04X" % crc16(bytes(data[stx + 1:etx + 1]))
        obj["hex"] = data.hex()
        lines[no] = json.dumps(obj)
        path.write_text("\n".join(lines) + "\n")
        return no + 1
    raise AssertionError("no card frame in the recording")


def test_a_tampered_card_byte_fails_the_replay_naming_the_frame(tmp_path):
    copy = tmp_path / "tampered.jsonl"
    shutil.copy(FORTUNE3, copy)
    line = _tamper_card(copy, fix_crc=False)
    recording = Recording.load(copy)
    # The host answers the damaged frame NAK|CRC where the recorded host answered ACK.
    expected = next(item for item in recording.frames if item.line > line and item.dir == TX)
    result = invoke("replay", str(copy))
    assert result.exit_code == 1, result.output
    assert f"frame {expected.n} (line {expected.line}, shoe, host->device) does not match" in result.output
    assert "NAK|CRC" in result.output


def test_a_tampered_card_with_a_good_crc_changes_the_results(tmp_path):
    copy = tmp_path / "tampered.jsonl"
    shutil.copy(FORTUNE3, copy)
    _tamper_card(copy, fix_crc=True)
    result = invoke("replay", str(copy), "--json")
    assert result.exit_code == 1, result.output
    assert re.search(r"mismatch: round 1 \(F3-EMU-000001\) differs from the recording \(.*outcome", result.output)


@pytest.mark.parametrize("game, options, head", [
    ("wheel", [], "WHEEL-EMU-"),
    ("football", [], "FB-EMU-"),
    ("football", ["--fault", "display:readback"], "FB-EMU-"),
], ids=["wheel", "football", "football-readback-fault"])
def test_record_then_replay_reproduces_the_session(tmp_path, game, options, head):
    path = tmp_path / f"{game}.jsonl"
    run = invoke("run", "--game", game, *options, "--emulated", "--rounds", "2", "--seed", "4", "--time-scale", "0",
                 "--record", str(path))
    assert run.exit_code == 0, run.output
    recording = Recording.load(path)
    assert recording.complete and len(recording.results) == 2
    assert recording.header["faults"] == [o for o in options if o != "--fault"]

    replay = invoke("replay", str(path))
    assert replay.exit_code == 0, replay.output
    assert round_lines(replay.stdout, head) == round_lines(run.stdout, head) != []

    as_json = invoke("replay", str(path), "--json")
    assert as_json.exit_code == 0, as_json.output
    assert json_results(as_json.stdout) == recording.results


def test_a_recording_without_a_seed_gets_one(tmp_path):
    path = tmp_path / "wheel.jsonl"
    run = invoke("run", "--game", "wheel", "--emulated", "--rounds", "1", "--time-scale", "0", "--record", str(path))
    assert run.exit_code == 0, run.output
    seed = Recording.load(path).header["seed"]
    assert isinstance(seed, int) and f"players' seed {seed}" in run.stdout
    assert invoke("replay", str(path)).exit_code == 0


def test_a_frame_the_recording_never_saw_written_fails(tmp_path):
    copy = tmp_path / "short.jsonl"
    lines = FORTUNE3.read_text().splitlines()
    last_tx = max(i for i, text in enumerate(lines) if json.loads(text).get("dir") == TX)
    copy.write_text("\n".join(lines[:last_tx] + lines[last_tx + 1:]) + "\n")  # drop the last host frame
    result = invoke("replay", str(copy))
    assert result.exit_code == 1, result.output
    assert "mismatch:" in result.output


def test_record_needs_a_device_mode_with_frames(tmp_path):
    result = invoke("run", "--game", "wheel", "--mock", "--record", str(tmp_path / "x.jsonl"))
    assert result.exit_code == 2
    assert "--record applies to --emulated and --config" in result.output


def test_replay_of_a_file_that_is_not_a_recording(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "frame"}\n')
    result = invoke("replay", str(bad))
    assert result.exit_code == 2
    assert result.output.startswith("tablesim: error: ") and "not a recording line" in result.output


def test_two_tables_in_one_process_record_independently(tmp_path):
    """Each recorder listens on the devices it was attached to when they were
    opened (the registry's transport_wrapper setting), nothing global: two
    emulated tables running side by side write two recordings, each holding
    only its own table's frames, and a third table opened meanwhile without
    a recorder is recorded by neither."""
    from contextlib import ExitStack

    from tablesim.games.fortune3.dealer import play_simulated
    from tablesim.harness.devicetables import default_settings, game_table, open_serial, start_emulators
    from tablesim.harness.recording import Recorder
    import random

    paths = {tid: tmp_path / f"{tid}.jsonl" for tid in ("TA-01", "TB-01")}
    with ExitStack() as stack:
        tables = {}
        for i, tid in enumerate(("TA-01", "TB-01", "TC-01")):
            settings = default_settings("fortune3", None, {})
            urls = start_emulators(stack, "fortune3", settings, seed=i + 1, time_scale=0)
            recorder = None
            if tid in paths:
                recorder = Recorder(paths[tid], {"mode": "test", "table": tid})
                stack.callback(recorder.close)
            devices = open_serial(stack, urls, **(recorder.settings() if recorder else {}))
            table = game_table("fortune3", devices, settings, profile=None, table_id=tid)
            table.device_timeout = 10.0
            if recorder is not None:
                table.bus.subscribe(recorder.on_table_event)
            tables[tid] = table
        # interleaved: a round of each table in turn
        rngs = {tid: random.Random(7) for tid in tables}
        for _ in range(2):
            for tid, table in tables.items():
                play_simulated(table, rngs[tid])
                assert table.result is not None
    for tid, path in paths.items():
        recording = Recording.load(path)
        assert recording.complete and len(recording.results) == 2
        assert [r["round_id"] for r in recording.results] == [f"{tid}-000001", f"{tid}-000002"]
        text = "".join(item.data.decode("latin-1") for item in recording.frames)
        assert tid in text  # its rounds armed its shoe
        others = [o for o in ("TA-01", "TB-01", "TC-01") if o != tid]
        assert not any(o in text for o in others), f"{tid}'s recording holds another table's frames"
