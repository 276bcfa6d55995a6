"""``studio demo``'s addresses: the lines it prints and its ``--json`` object
name the same services at the same addresses (the demo itself, started
whole, is tested with ``--json`` in tests/studio/test_studio_demo.py)."""

from __future__ import annotations

import re

from click.testing import CliRunner
import click

from tablesim.cli import demo_cmd, demo_files


def test_the_lines_and_the_json_name_the_same_addresses(tmp_path):
    files = demo_files.prepare(tmp_path, 15.0)
    ports = {name: 20000 + i for i, name in enumerate([*demo_files.SERVICES, *(t for _, t, _ in demo_files.TABLES)])}

    @click.command()
    def show() -> None:
        demo_cmd._print_addresses(files, ports)

    text = CliRunner().invoke(show).output
    doc = demo_cmd.addresses(files, ports)
    lines = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    assert lines["floor"] == doc["floor"]["url"]
    for tid, table in doc["tables"].items():
        assert lines[f"console {tid}"] == table["link"]
        assert table["metrics"] == table["console"] + "metrics"
    assert lines["lobby"].partition("#token=")[0] == doc["lobby"]["url"]
    assert re.fullmatch(r"\S+", doc["lobby"]["launch_token"])
    assert lines["wallet"].split()[0] == doc["wallet"]["url"]
    assert lines["nats"].split()[0] == doc["nats"]["url"]
    assert lines["another launch link"].split() == doc["another_launch_link"]


def test_a_port_answered_by_another_protocol_is_not_ready_and_stops_nothing():
    # A child's HTTP port taken first by another program (a NATS server greets with its INFO line
    # at once): waiting for the child must go on, not end the demo with a traceback.
    import socket
    import threading

    from tablesim.cli.children import answers_http

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def greet() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(b'INFO {"server_id":"X","version":"2.9.10"}\r\n')
            conn.recv(1024)

    threading.Thread(target=greet, daemon=True).start()
    try:
        assert answers_http(f"http://127.0.0.1:{listener.getsockname()[1]}/health")(None) is False
    finally:
        listener.close()
