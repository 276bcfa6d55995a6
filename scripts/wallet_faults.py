#!/usr/bin/env python3
"""Players' money under faults, on real processes, played as players play.

The studio's bus closed by role on a three-node ``nats-server`` cluster
(``tablesim studio credentials``, ``studio init --replicas 3``; or one
broker with ``--single-broker``), the reference wallet (``tablesim wallet
serve``) answering slowly, failing with temporary errors and dropping
answers after committing (``--fault``), a table of each game (``tablesim
serve --mock --studio --table-id``, each as its own role; Fortune 3 with
the shared remote hand) whose rounds this script drives through the
dealer's API (one round of them voided by a supervisor), and platform
processes side by side (``tablesim platform serve``, the platform's role).
The players bet through the platforms' HTTP API over a few rounds of each
game, several bets a player a round on several spots (one player places
more bets in one round than one wallet credit names), and the remote
players of Fortune 3 play, fold or let the timer fold them; meanwhile, at
random moments (``--seed``), the platforms, the wallet, a node of the
cluster and the tables are SIGKILLed and started again. Once everything is
back and settled:

- every player's balance in the wallet equals the opening balance minus
  the stakes plus the returns the tables' journals say, to the unit;
- no credit doubled or missing (each bet's debit named by exactly one
  credit), every void round's debits cancelled, no debit left standing
  that no table accepted, no write held for an operator;
- ``tablesim wallet reconcile`` exits 0 and ``tablesim wallet check`` (the
  conformance kit) passes on the reference wallet (started again without
  faults).

    python scripts/wallet_faults.py [--players 100] [--rounds 3] [--kills 10] [--seed 1] [--json]

Exit 0 when every check holds, 1 otherwise. Needs nats-server.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import random
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import httpx  # noqa: E402

from fault_checks import check, journal_rounds, read_wallet  # noqa: E402
from fault_play import Bets, Killer, Player, choose_bets, finish, open_round, state, void, wait_betting  # noqa: E402
from fault_procs import TABLESIM, Bus, PlatformProc, Table, Wallet, environment, wait_until  # noqa: E402
import webclient  # noqa: E402  (on the path fault_procs puts it on)

GAMES = (("fortune3", "F3-FAULT", "box"), ("football", "FB-FAULT", "box"), ("wheel", "WH-FAULT", "player"))
OPENING = Decimal("10000.00")
FAULTS = ("slow:0.3", "error:0.05", "drop-after-commit:0.05")


def remote_profile(work: Path) -> Path:
    """Fortune 3 with the shared remote hand and a short decision timer (a
    profile of its own name: the built-in one gives 20 s)."""
    root = HERE.parent / "config" / "rules" / "fortune3-macau-2008-remote.toml"
    text = root.read_text().replace('name = "macau-2008-remote"', 'name = "fault-run-remote"')
    path = work / "fault-run-remote.toml"
    path.write_text(text.replace("decision_seconds = 20", "decision_seconds = 6"))
    return path


def write_files(work: Path, players: list[str]) -> Path:
    secret = work / "wallet.secret"
    secret.write_text(secrets.token_hex(32) + "\n")
    secret.chmod(0o600)
    roster = "[currencies]\nMOP = \"0.01\"\n" + "".join(
        f'\n[[players]]\nid = "{p}"\ncurrency = "MOP"\nbalance = "{OPENING}"\n' for p in players)
    (work / "players.toml").write_text(roster + '\n[[players]]\nid = "kit"\ncurrency = "MOP"\nbalance = "100000.00"\n')
    tables = work / "tables.toml"
    tables.write_text("".join(f'[tables.{tid}]\ncurrency = "MOP"\nunit = "1"\nposition = "{pos}"\n\n'
                              for _, tid, pos in GAMES))
    return tables


def register_keys(work: Path, tables: list[Table]) -> Path:
    from tablesim.studio import signing, trust

    keys = work / "keys.json"
    for t in tables:
        key = signing.load_signing_key(next((work / "xdg").rglob(f"{t.table_id}.sign.key")))
        trust.register(keys, t.table_id, signing.public_hex(key))
    return keys


def in_parallel(calls) -> None:
    errors: list[BaseException] = []

    def run(call) -> None:
        try:
            call()
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def sessions(wallet: Wallet, platforms: list[PlatformProc], ids: list[str]) -> list[Player]:
    """A launch token of each player (as ``tablesim wallet token`` writes it), then a session on a platform;
    a refused attempt takes a fresh token (the wallet may have used the last one up before the platform
    gave up on its answer: a launch token opens one session)."""
    import threading

    from tablesim.wallet.ledger import Ledger

    ledger, lock = Ledger(wallet.db), threading.Lock()

    def token(p: str) -> str:
        with lock:
            return ledger.issue_token(p)

    def session(i: int, p: str) -> Player:
        via = platforms[i % len(platforms)]
        r = wait_until(lambda: (r := webclient.post(f"{via.url}/api/session", json={"token": token(p)}, timeout=60))
                       .status_code == 200 and r, 120, f"a session of {p}")
        return Player(p, r.json()["session"])
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            return list(pool.map(lambda a: session(*a), enumerate(ids)))
    finally:
        ledger.close()


def play_table(table: Table, n: int, bets: Bets, players: list[Player], platforms, rng: random.Random,
               to_void: bool, out: dict) -> bool:
    """Round ``n`` of one table: opened, bet on, closed and played (the
    remote players of Fortune 3 deciding), or voided by a supervisor if
    ``to_void`` and it holds bets; whether it was voided."""
    round_id = open_round(table)
    wait_betting(platforms, table.table_id, round_id)
    share = 1.0 if n == 0 else 0.5
    chosen = choose_bets(table.game, table.table_id, players, rng, share, whale=n == 0)
    bets.all(chosen)
    voided = False
    if to_void and state(table).get("bets"):
        void(table, round_id)
        voided = True
    remote = list({p.id: p for p, b in chosen if b.get("position") == "remote"}.values())
    def deciding() -> bool:
        try:
            t = state(table)
        except (httpx.HTTPError, ValueError):
            return True  # (the table killed under the round: it comes back deciding or done)
        return t.get("round_id") == round_id and t.get("state") == "decisions"

    status = finish(table, round_id,
                    on_decisions=lambda: bets.decide_all(table.table_id, round_id, remote, deciding))
    out.setdefault(table.game, []).append(status)
    return voided and status == "void"


def play(args, tables: list[Table], platforms, players: list[Player], killer: Killer, bets: Bets) -> dict:
    """``--rounds`` rounds of each table (the three at once), more while
    kills are still due or no round with bets was voided yet."""
    rng = random.Random(args.seed)
    void_table = tables[rng.randrange(len(tables))]
    played: dict = {}
    voided: list[bool] = []
    n = 0
    while n < args.rounds or ((killer.is_alive() or not any(voided)) and n < args.rounds + 30):
        seeds = [random.Random(rng.random()) for _ in tables]
        to_void = not any(voided)
        in_parallel([lambda t=t, r=r: voided.append(play_table(t, n, bets, players, platforms, r,
                                                               to_void and t is void_table, played))
                     for t, r in zip(tables, seeds)])
        n += 1
    return played


def settle_checks(work: Path, wallet: Wallet, tables: list[Table], ids: list[str], since: datetime) -> dict:
    rounds = [rnd for t in tables for rnd in journal_rounds(t.table_id, t.journal).values()]
    from tablesim.wallet.signing import load_secret

    secret = load_secret(wallet.secret)
    transactions, balances = asyncio.run(read_wallet(wallet.url, secret, ids, "MOP", since))
    figures = check(rounds, transactions, balances, {p: OPENING for p in ids})
    figures["_rounds"] = rounds
    return figures


def wait_settled(work, wallet, tables, ids, since, budget: float) -> dict:
    """The checks, again and again until they hold or ``budget`` seconds passed (results settle meanwhile)."""
    deadline = time.monotonic() + budget
    while True:
        try:
            figures = settle_checks(work, wallet, tables, ids, since)
        except Exception as exc:  # the wallet not answering yet: try again
            figures = {"error": [f"{type(exc).__name__}: {exc}"]}
        if not any(v for k, v in figures.items() if not k.startswith("_")) or time.monotonic() > deadline:
            return figures
        time.sleep(0.5)


def tablesim(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([*TABLESIM, *args], capture_output=True, text=True, env=env, timeout=600)


def start(args, work: Path, env: dict, ids: list[str], children: list):
    """Every process up: (broker, wallet, tables, platforms), each put in
    ``children`` before it starts (to be stopped whatever happens)."""
    tables_file = write_files(work, ids)
    broker = Bus(work, [tid for _, tid, _ in GAMES], cluster=not args.single_broker)
    children.append(broker)
    broker.start()
    init = tablesim("studio", "init", "--nats", broker.role("admin"), "--replicas", str(broker.replicas), env=env)
    if init.returncode != 0:
        raise RuntimeError(f"studio init: {init.stderr.strip()}")
    wallet = Wallet(work, env, list(args.fault or FAULTS), args.seed)
    profile = remote_profile(work)
    tables = [Table(work, env, game, tid, broker.role(tid), args.seed + i, args.pace,
                    ("--profile", str(profile)) if game == "fortune3" else ())
              for i, (game, tid, _) in enumerate(GAMES)]
    children += [wallet, *tables]
    in_parallel([wallet.start] + [t.start for t in tables])
    wait_until(lambda: all((t.state().get("studio") or {}).get("state") == "up" for t in tables), 180,
               "the tables' studio links up")
    keys = register_keys(work, tables)
    platforms = [PlatformProc(work, env, i, broker.role("platform"), wallet, tables_file, keys)
                 for i in range(args.platforms)]
    children += platforms
    in_parallel([p.start for p in platforms])
    return broker, wallet, tables, platforms, keys


def final_checks(args, work: Path, env: dict, wallet: Wallet, tables, ids, since, keys: Path, broker) -> dict:
    """Settled (with the faults still on), then the wallet again without
    faults for the last look, the reconciliation and the kit."""
    wait_settled(work, wallet, tables, ids, since, args.settle_budget)
    wallet.stop()
    wallet.faults = []
    wallet.start()
    figures = wait_settled(work, wallet, tables, ids, since, 30.0)
    from tablesim.wallet.ledger import Ledger

    ledger = Ledger(wallet.db)
    try:
        kit_token = ledger.issue_token("kit")
    finally:
        ledger.close()
    done: dict = {}
    in_parallel([  # (the kit plays on table "kit", which reconcile does not look at)
        lambda: done.update(rec=tablesim("wallet", "reconcile", "--nats", broker.role("studio"), "--wallet", wallet.url,
                                         "--secret", str(wallet.secret), "--keys", str(keys), "--json", env=env)),
        lambda: done.update(kit=tablesim("wallet", "check", wallet.url, "--secret", str(wallet.secret), "--token",
                                         kit_token, env=env))])
    rec, kit = done["rec"], done["kit"]
    figures["reconcile_rc"], figures["conformance_rc"] = rec.returncode, kit.returncode
    figures["_reconcile"], figures["_kit"] = rec.stdout + rec.stderr, kit.stdout + kit.stderr
    return figures


def run(args, work: Path) -> dict:
    env = environment(work)
    ids = [f"p{i:03d}" for i in range(1, args.players + 1)]
    since = datetime.now(timezone.utc) - timedelta(minutes=1)
    began = time.monotonic()
    children: list = []
    killer = None
    try:
        broker, wallet, tables, platforms, keys = start(args, work, env, ids, children)
        phases = {"start": round(time.monotonic() - began, 1)}
        players = sessions(wallet, platforms, ids)
        rng = random.Random(args.seed)
        killer = Killer(random.Random(rng.random()), args.kills,
                        {"platform": platforms, "wallet": [wallet], "broker": broker.nodes, "table": tables},
                        gap=(args.gap / 4, args.gap))
        bets = Bets(platforms, random.Random(rng.random()))
        killer.start()
        try:
            played = play(args, tables, platforms, players, killer, bets)
        except RuntimeError as exc:  # a stall: where every process stood, for the one line main prints
            raise RuntimeError(f"{exc}; {stood(tables, platforms, killer)}") from exc
        killer.stopping.set()
        killer.join()
        phases["play"] = round(time.monotonic() - began - phases["start"], 1)
        figures = final_checks(args, work, env, wallet, tables, ids, since, keys, broker)
        phases["checks"] = round(time.monotonic() - began - phases["start"] - phases["play"], 1)
        health, down = [], []
        for p in platforms:
            got = platform_health(p)
            (health if isinstance(got, dict) else down).append(got)
    finally:
        if killer is not None:  # (no restart after the stops below)
            killer.stopping.set()
            killer.join(300)
        for child in reversed(children):
            child.stop()
    out = report(args, work, figures, played, killer, bets, health, down, time.monotonic() - began)
    out["seconds_by_phase"] = phases
    return out


def stood(tables: list[Table], platforms: list[PlatformProc], killer: Killer) -> str:
    """Where the tables, the platforms and the kills stood when the play stalled, on one line."""
    said = []
    for t in tables:
        try:
            s = t.state()
            said.append(f"{t.table_id}: {s.get('state')} {s.get('round_id')} studio {s.get('studio')}")
        except (httpx.HTTPError, ValueError) as exc:
            said.append(f"{t.table_id}: no answer ({type(exc).__name__}; exit status {t.proc.poll()})")
    for p in platforms:
        try:
            seen = webclient.get(f"{p.url}/api/tables", timeout=5).json()["tables"]
            said.append(f"{p.name}: " + ", ".join(f"{x['table']} {x.get('round')} betting {x.get('betting')}"
                                                   for x in seen))
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            said.append(f"{p.name}: no answer ({type(exc).__name__}; exit status {p.proc and p.proc.poll()})")
    said.append(f"kills {killer.done}, error {killer.error}")
    return "; ".join(said)


def platform_health(p: PlatformProc) -> dict | str:
    """A platform's health page at the end; if it is not up, why (its exit status and log)."""
    try:
        return webclient.get(f"{p.url}/api/health", timeout=10).json()
    except httpx.HTTPError as exc:
        code = None if p.proc is None else p.proc.poll()
        log = (p.work / f"{p.name}.log").read_text(errors="replace")[-1500:]
        return f"{p.name} is not up at the end ({type(exc).__name__}: {exc}; exit status {code}): {log}"


def report(args, work, figures, played, killer, bets, health, down, seconds) -> dict:
    rounds = figures.pop("_rounds", [])
    lists = {k: v for k, v in figures.items() if not k.startswith("_") and isinstance(v, list)}
    refs = [who for rnd in rounds for who, _ in rnd.refs.values()]
    out = {"players": len(bets.players), "players_with_standing_bets": len(set(refs)),
           "bets": sum(bets.answers.values()), "bets_standing": len(refs), "bets_answered": dict(bets.answers),
           "bets_refused_samples": bets.samples,
           "rounds": {game: len(statuses) for game, statuses in played.items()},
           "void_rounds": sum(1 for rnd in rounds if rnd.status == "void" and rnd.refs),
           "kills": len(killer.done), "killed": [k["target"] for k in killer.done],
           "killed_at_s": [k["at_s"] for k in killer.done],  # (seconds after the play began)
           **{k: len(v) for k, v in lists.items()},
           "reconcile_rc": figures.get("reconcile_rc"), "conformance_rc": figures.get("conformance_rc"),
           "decisions_answered": dict(bets.decisions),
           "platform_alerts": sum(h["settlement"]["alerts"] for h in health),
           "platform_held": sum(h.get("held", 0) for h in health),
           "platform_mismatches": sum(h["settlement"]["mismatches"] for h in health),
           "orphans_cancelled": sum(h["orphans_cancelled"] for h in health),
           "faults": list(args.fault or FAULTS), "seed": args.seed, "seconds": round(seconds, 1),
           "workdir": str(work)}
    problems = [line for v in lists.values() for line in v]
    problems += down
    if killer.error:
        problems.append(f"a kill or restart failed: {killer.error}")
    if len(killer.done) < args.kills:
        problems.append(f"only {len(killer.done)} of {args.kills} kills were done")
    if out["reconcile_rc"] != 0:
        problems.append("reconcile: " + figures.get("_reconcile", "")[-2000:])
    if out["conformance_rc"] != 0:
        problems.append("conformance kit: " + figures.get("_kit", "")[-2000:])
    if out["platform_held"]:
        problems.append(f"{out['platform_held']} writes held for an operator (tablesim platform held)")
    if out["void_rounds"] < 1:
        problems.append("no void round with bets: the void cancels were not exercised")
    out["ok"] = not problems
    for line in problems[:50]:
        print(line, file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of each game (more while kills are due)")
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--platforms", type=int, default=2)
    ap.add_argument("--gap", type=float, default=4.0, help="the longest pause between two kills, seconds")
    ap.add_argument("--pace", type=float, default=0.1, help="the mock dealer's seconds between two cards")
    ap.add_argument("--fault", action="append", metavar="MODE:VALUE",
                    help=f"the wallet's faults (default: {' '.join(FAULTS)})")
    ap.add_argument("--settle-budget", type=float, default=240.0, help="seconds to wait for everything settled")
    ap.add_argument("--single-broker", action="store_true",
                    help="one nats-server instead of a three-node cluster (its kills stop the whole bus)")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.players < 7 or args.kills < 0 or args.rounds < 1 or args.platforms < 1 or args.pace < 0:
        print("wallet_faults: error: --players at least 7, --rounds and --platforms at least 1, --kills and "
              "--pace not negative", file=sys.stderr)
        return 2
    work = args.workdir or Path(tempfile.mkdtemp(prefix="wallet-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        out = run(args, work)
    except RuntimeError as exc:  # a process that did not start or never got there (its log is in the workdir)
        print(f"wallet_faults: error: {str(exc).splitlines()[0]} (logs in {work})", file=sys.stderr)
        return 2
    print(json.dumps(out, indent=1) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
