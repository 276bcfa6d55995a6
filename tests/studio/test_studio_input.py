"""Hostile and bad input at the studio's edges: bet requests over the bus,
the wire format, URLs and the table configuration's [studio] section."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathlib import Path

from tablecore.errors import ConfigError, InputError
from tablesim.harness.tableconfig import load_table_config
from tablesim.studio import wire
from tablesim.studio.bus_bets import parse_request
from tablesim.studio.natsio import check_url
from examples import examples


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_bets_or_one_input_error(body):
    try:
        parsed = parse_request(body)
    except InputError:
        return
    assert parsed and all(isinstance(p, dict) for p in parsed)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                           max_leaves=12)


@settings(max_examples=examples(300), deadline=None)
@given(json_values)
def test_any_json_gives_checked_bets_or_reasons(doc):
    try:
        parsed = parse_request(json.dumps(doc).encode())
    except InputError:
        return
    for p in parsed:
        if "error" in p:
            assert p["ok"] is False and p["error"] == "bad_input" and p["detail"]
        else:  # only a fully checked bet reaches the table
            assert set(p) == {"position", "bet", "amount", "ref", "actor", "player"} and p["amount"] > 0


def test_bad_bets_name_the_field():
    [flt, noref, extra, ok] = parse_request(json.dumps({"bets": [
        {"ref": "a", "position": "1", "bet": "ante", "amount": 2.5},
        {"position": "1", "bet": "ante", "amount": "5"},
        {"ref": "c", "position": "1", "bet": "ante", "amount": "5", "odds": 3},
        {"ref": "d", "position": 2, "bet": "ante", "amount": 5},
    ]}).encode())
    assert flt["detail"].startswith("bets.0.amount:") and flt["ref"] == "a"
    assert noref["detail"].startswith("bets.1.ref: required")
    assert extra["detail"] == "bets.2.odds: unknown field"
    assert ok == {"position": "2", "bet": "ante", "amount": 5, "ref": "d", "actor": "bus"}  # no player: the position's own seat
    with pytest.raises(InputError, match="bets: a list of 1 to 1000 bets"):
        parse_request(b'{"bets": []}')


@pytest.mark.parametrize("url", ["http://x:1", "nats://host", "nats://:4222", "nats://h:99999", "", "4222"])
def test_bad_urls_are_refused(url):
    with pytest.raises(InputError, match="is not a NATS URL"):
        check_url(url)


def test_table_ids_that_are_no_subject_token_are_refused():
    with pytest.raises(InputError):
        wire.check_token("a.b", "table id")
    with pytest.raises(ValueError):
        wire.decode(b'{"v": 2, "record": {}}')


def test_table_config_studio_url(tmp_path):
    cfg = tmp_path / "t.toml"
    base = '[table]\nid = "W-1"\ngame = "wheel"\n\n[devices.wheel]\nbackend = "mock"\n\n'
    cfg.write_text(base + '[studio]\nurl = "nats://studio:4222"\n')
    assert load_table_config(cfg).studio_url == "nats://studio:4222"
    cfg.write_text(base + '[studio]\nurl = "studio:4222"\n')
    with pytest.raises(InputError, match="studio.url: 'studio:4222' is not a NATS URL"):
        load_table_config(cfg)
    cfg.write_text(base + '[studio]\nurl = "nats://s:1"\nstream = "X"\n')
    with pytest.raises(InputError, match="stream"):
        load_table_config(cfg)


def test_table_config_studio_signing_key(tmp_path):
    """``[studio] signing_key`` names the table's signing key, relative to the file."""
    from tablesim.harness.tableconfig import load_table_config

    base = (Path(__file__).resolve().parents[2] / "config" / "tables" / "fortune3-mock.toml").read_text()
    path = tmp_path / "t.toml"
    path.write_text(base + '\n[studio]\nurl = "nats://127.0.0.1:4222"\nsigning_key = "keys/t.sign.key"\n')
    config = load_table_config(path)
    assert config.studio_signing_key == tmp_path / "keys" / "t.sign.key"
    path.write_text(base + '\n[studio]\nurl = "nats://127.0.0.1:4222"\nsigning_key = ""\n')
    with pytest.raises(ConfigError, match="signing_key"):
        load_table_config(path)


def test_signing_key_files_are_kept_like_the_chain_key(tmp_path):
    import os

    from tablesim.studio import signing

    path = tmp_path / "T.sign.key"
    key = signing.signing_key_for(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert signing.public_hex(signing.signing_key_for(path)) == signing.public_hex(key)  # never overwritten
    os.chmod(path, 0o644)
    with pytest.raises(InputError, match="open to others"):
        signing.load_signing_key(path)
    os.chmod(path, 0o600)
    path.write_text("nope\n")
    with pytest.raises(InputError, match="not a tablesim signing key"):
        signing.load_signing_key(path)
