"""Every option that names the studio's NATS takes the option repeated as
one list of a cluster's nodes: each URL given is read (a bad second one is
refused in one line, exit 2, before anything is made), not only the last."""

from __future__ import annotations

import os

import pytest

from clirun import tablesim

GOOD, BAD = "nats://127.0.0.1:1", "nats//no-port"


@pytest.mark.parametrize("args, option", [
    (["platform", "serve", "--wallet", "http://127.0.0.1:1/wallet/v1", "--secret", "s", "--tables", "t", "--db",
      "{tmp}/p.db"], "--nats"),
    (["wallet", "reconcile", "--wallet", "http://127.0.0.1:1/wallet/v1", "--secret", "s"], "--nats"),
    (["studio", "serve"], "--nats"),
    (["studio", "report"], "--nats"),
    (["studio", "init"], "--nats"),
    (["audit", "verify", "--journal", "{tmp}/none.sqlite"], "--anchor"),
    (["run", "--game", "wheel", "--mock", "--rounds", "1", "--journal", "none"], "--studio"),
    (["serve", "--game", "wheel", "--mock"], "--studio"),
], ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else v)
def test_a_repeated_option_is_one_list_and_each_url_is_checked(tmp_path, args, option):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args] + [option, GOOD, option, BAD]
    res = tablesim(*argv, env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert res.returncode == 2, res
    assert res.stderr == f"tablesim: error: {option}: '{BAD}' is not a NATS URL (nats://HOST:PORT)\n", res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["xdg"]) and not list(tmp_path.rglob("*.sqlite"))
