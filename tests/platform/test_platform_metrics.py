"""``GET /metrics`` of every studio service as operators scrape them: the
table, the platform, the floor and the reference wallet, each a real
process; their counters move as a round is played and settled."""

from __future__ import annotations

import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families

import reaper
import webclient
from rig import ROOT, TABLE


def scrape(url: str) -> dict[tuple, float]:
    res = webclient.get(f"{url}/metrics", timeout=10)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/plain"), res.text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(res.text) for s in family.samples}


def value(found: dict, name: str, **labels) -> float:
    return sum(v for (n, ls), v in found.items() if n == name and labels.items() <= dict(ls).items())


def no_unbounded_labels(found: dict) -> None:
    for name, labels in found:
        assert not {"player", "round", "round_id", "transaction_id", "session"} & set(dict(labels)), name


def test_each_service_is_scraped_and_its_counters_move_as_a_round_settles(rig):
    floor = reaper.track(subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "studio", "serve", "--nats", rig.broker.url,
                              "--keys", str(rig.keys), "--port", "0"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=rig.env))
    try:
        floor_url = floor.stdout.readline().split("floor page ")[1].split()[0].rstrip("/")
        platform = rig.platform(db="metrics.db")
        wallet_url = rig.wallet.url.removesuffix("/wallet/v1")  # (its calls' base; /metrics is beside it)
        before = {"table": scrape(rig.base), "platform": scrape(platform.url), "wallet": scrape(wallet_url)}
        lea = platform.session(rig.token("lea"))
        round_id = rig.open_round()
        assert platform.bet(lea, {"table": TABLE, "bet": "1", "amount": "5"}).status_code == 200
        rig.spin()
        rig.wait_for(lambda: any(r[1] == "credit" for r in rig.transactions(round_id)), what="lea's credit")
        rig.wait_for(lambda: value(scrape(platform.url), "tablesim_platform_settlement_total", event="rounds_settled")
                     > value(before["platform"], "tablesim_platform_settlement_total", event="rounds_settled"),
                     what="the platform's settled round counted")
        table, plat, wallet = scrape(rig.base), scrape(platform.url), scrape(wallet_url)
        ids = {"table": TABLE, "game": "wheel"}
        assert value(table, "tablesim_rounds_total", outcome="settled", **ids) == \
            value(before["table"], "tablesim_rounds_total", outcome="settled", **ids) + 1
        assert value(table, "tablesim_studio_link_up", **ids) == 1
        assert value(table, "tablesim_bets_total", result="accepted", **ids) > \
            value(before["table"], "tablesim_bets_total", result="accepted", **ids)
        assert value(plat, "tablesim_platform_remote_bets_total", status="placed") == 1
        assert value(plat, "tablesim_platform_wallet_calls_total", call="debit", result="ok") + \
            value(plat, "tablesim_platform_wallet_calls_total", call="batch", result="ok") >= 1
        assert value(plat, "tablesim_platform_wallet_call_seconds_count") >= 2  # (the session's, the debit's)
        assert value(plat, "tablesim_platform_bus_connected") == 1
        assert value(wallet, "tablesim_wallet_writes_total", kind="debit", status="ok") > \
            value(before["wallet"], "tablesim_wallet_writes_total", kind="debit", status="ok")
        assert value(wallet, "tablesim_wallet_writes_total", kind="credit", status="ok") > \
            value(before["wallet"], "tablesim_wallet_writes_total", kind="credit", status="ok")
        assert value(wallet, "tablesim_wallet_request_seconds_count", call="authenticate") >= 1
        rig.wait_for(lambda: value(scrape(floor_url), "tablesim_floor_rounds_total", **ids) >= 1
                     and value(scrape(floor_url), "tablesim_floor_lag_records") == 0, what="the floor caught up")
        found = scrape(floor_url)
        assert value(found, "tablesim_floor_connected") == 1
        assert value(found, "tablesim_floor_bus_delay_seconds_count") >= value(found, "tablesim_floor_records_total")
        for each in (table, plat, wallet, found):
            no_unbounded_labels(each)
    finally:
        floor.terminate()
        floor.wait(10)
