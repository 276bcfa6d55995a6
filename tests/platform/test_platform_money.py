"""Every credit paid, whatever a player bets and whatever dies: a player
with more bets in a round than one credit names is paid whole; a debit the
table never took, standing beside the player's other bets when the round
settles, does not stop their credit and is cancelled on its own; a credit
the wallet refuses for good is held for an operator at once, never retried
silently, and resolved by the operator's command."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from decimal import Decimal

from rig import OPENING, PAYS, ROOT, TABLE


def test_a_player_with_more_bets_than_one_credit_names_is_paid_whole(rig):
    platform = rig.platform(db="many.db")
    abe = platform.session(rig.token("abe"))
    before = rig.wallet_balance("abe")
    round_id = rig.open_round()
    for _ in range(120):  # (the wallet protocol's credit names at most 100 debits)
        assert platform.bet(abe, {"table": TABLE, "bet": "1", "amount": "1"}).status_code == 200
    symbol = rig.spin()
    want = before - 120 + (120 * (1 + PAYS["1"]) if symbol == "1" else 0)
    rig.wait_for(lambda: rig.wallet_balance("abe") == want and len(_credits(rig, round_id)) == 2,
                 what="abe's round credited in two parts")
    parts = _credits(rig, round_id)
    named = [d for row in parts for d in json.loads(row[5])]
    assert sorted(len(json.loads(row[5])) for row in parts) == [20, 100]
    assert len(set(named)) == 120 and all(row[4] == "ok" for row in parts)
    assert sum(Decimal(row[3]) for row in parts) == want - (before - 120)
    health = platform.health()
    assert health["held"] == 0 and health["settlement"]["refused"] == 0


def test_a_player_may_place_what_the_tables_file_says_in_a_round(rig):
    """``max_bets``: the most bets one player places in one round of a table;
    one more is refused before anything is debited, in words and by id."""
    from rig import TABLES

    limited = rig.folder / "limited.toml"
    limited.write_text(TABLES + 'max_bets = 3\n')
    platform = rig.platform(db="limited.db", tables=limited)
    lea = platform.session(rig.token("lea"))
    before = rig.wallet_balance("lea")
    rig.open_round()
    for spot in ("1", "3", "5"):
        assert platform.bet(lea, {"table": TABLE, "bet": spot, "amount": "2"}).json()["status"] == "placed"
    over = platform.bet(lea, {"table": TABLE, "bet": "10", "amount": "2"})
    assert over.status_code == 409 and over.json()["status"] == "too_many_bets", over.text
    assert over.json()["reason"] == {"id": "player.refusal.too_many_bets", "args": {"max": 3}}
    assert rig.wallet_balance("lea") == before - 6  # (nothing debited for the fourth)
    rig.spin()


def test_an_orphan_beside_a_players_bets_does_not_stop_their_credit(rig):
    """The platform dies between a debit and the bus while the same player has
    bets standing through another process: the round's credit names only what
    the table took and is paid at once; the orphan is cancelled at the dead
    process's next start, after the credit."""
    dying, alive = rig.platform(fault="exit_after_debit", db="dying.db"), rig.platform(db="alive.db")
    al_alive = alive.session(rig.token("al"))
    al_dying = dying.session(rig.token("al"))
    before = rig.wallet_balance("al")
    round_id = rig.open_round()
    for spot in ("1", "3"):
        assert alive.bet(al_alive, {"table": TABLE, "bet": spot, "amount": "10"}).status_code == 200
    try:
        dying.bet(al_dying, {"table": TABLE, "bet": "5", "amount": "15"}, timeout=20)
    except Exception:
        pass  # (the process died under the request)
    assert dying.proc.wait(20) == 70
    symbol = rig.spin()
    won = sum(10 * (1 + PAYS[s]) for s in ("1", "3") if s == symbol)
    # credited with the orphan still standing (15 taken, not yet returned)
    rig.wait_for(lambda: rig.wallet_balance("al") == before - 35 + won and _credits(rig, round_id),
                 what="al's credit paid beside the orphan")
    (credit,) = _credits(rig, round_id)
    assert credit[4] == "ok" and len(json.loads(credit[5])) == 2
    rig.platform(db="dying.db")  # the dead process's next start: its sweep finds the orphan
    rig.wait_for(lambda: rig.wallet_balance("al") == before - 20 + won, what="the orphan cancelled after the credit")
    kinds = [(r[1], r[4]) for r in rig.transactions(round_id)]
    assert kinds.count(("cancel", "ok")) == 1 and kinds.count(("credit", "ok")) == 1


def test_a_credit_refused_for_good_is_held_at_once_and_resolved_by_the_operator(rig):
    """The operator's wallet cancels one of a player's debits by itself before
    the round settles: the credit naming it can never succeed. It is held and
    alerted at once (not retried for ever, not hidden), listed by ``platform
    held``, and closed by the operator with a reason."""
    from tablesim.wallet.client import WalletClient
    from tablesim.wallet.signing import load_secret

    platform = rig.platform(db="held.db")
    ada = platform.session(rig.token("ada"))
    round_id = rig.open_round()
    placed = [platform.bet(ada, {"table": TABLE, "bet": spot, "amount": "7"}).json() for spot in ("10", "20")]
    assert all(p["status"] == "placed" for p in placed)

    async def cancel_in_the_wallet() -> None:
        async with WalletClient(rig.wallet.url, load_secret(rig.secret)) as w:
            out = await w.cancel("operator-x-1", player="ada", table=TABLE, round=round_id,
                                 debit=placed[0]["bet_id"])
            assert out.ok

    asyncio.run(cancel_in_the_wallet())
    rig.spin()
    rig.wait_for(lambda: platform.health()["held"] == 1, what="the refused credit held")
    health = platform.health()
    assert not health["ok"] and "held for an operator" in health["last_alert"]
    assert health["settlement"]["held"] == 1
    db = str(rig.folder / "held.db")
    listed = _cli("platform", "held", "--db", db, "--json")
    assert listed.returncode == 1, listed.stderr
    (item,) = json.loads(listed.stdout)["held"]
    assert (item["call"], item["player"], item["round"], item["status"]) == ("credit", "ada", round_id,
                                                                            "already_cancelled")
    again = _cli("platform", "resolve", item["id"], "--db", db, "--retry", "--wallet", rig.wallet.url,
                 "--secret", str(rig.secret))
    assert again.returncode == 1 and "already_cancelled" in again.stdout and "still held" in again.stdout
    bad = _cli("platform", "resolve", item["id"], "--db", db)
    assert bad.returncode == 2 and bad.stderr.startswith("tablesim: error:") and "Traceback" not in bad.stderr
    closed = _cli("platform", "resolve", item["id"], "--db", db, "--close", "paid by hand, ticket 4411")
    assert closed.returncode == 0, closed.stderr
    assert _cli("platform", "held", "--db", db).returncode == 0
    rig.wait_for(lambda: platform.health()["held"] == 0, what="the alert cleared")


def _credits(rig, round_id: str) -> list:
    return [r for r in rig.transactions(round_id) if r[1] == "credit"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          cwd=ROOT, env=None, timeout=60)
