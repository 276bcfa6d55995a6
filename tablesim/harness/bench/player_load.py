"""Thousands of players watching one table through the platform, every part
a process of its own on this machine (``scripts/player_load.py``): a
``nats-server -js`` (``tablesim studio init``), the reference wallet with
the players, one table playing rounds by itself (``tablesim serve --mock
--autoplay --studio``), one or more platforms (``tablesim platform
serve``), and load processes of simulated players over the platforms'
WebSockets (``player_clients``), some of whom bet.

The phases, each a number of the table's rounds (counted by the results
in its journal): the table alone (its CPU a round without players), the
players watching, then the bettors betting. See docs/performance.md.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecore.errors import InputError
from tablesim.harness.bench.bus_tap import BusTap
from tablesim.harness.bench.measure import probe
from tablesim.harness.bench.player_clients import MAX_RATE
from tablesim.harness.bench.saturation import Sampler, cores_in, verdict
from tablesim.games import registry
from tablesim.harness.bench.platform_bench import SPEC, Rig, _cpu, _ready_line, thread_cpu
from tablesim.harness.bench.served import ServedTable
from tablesim.journal.journal import Journal



@dataclass
class Plan:
    players: int = 5000
    bettors: int = 400
    bet_rate: float = 2000.0  # bets a second offered, over all bettors
    platforms: int = 1
    loaders: int = 0  # 0: one per 1,500 players
    game: str = SPEC.name  # (the platform bench's: players bet as themselves)
    bet_seconds: float = 10.0
    pace: float = 0.5
    rounds: int = 2  # rounds with bets
    quiet_rounds: int = 1  # rounds of the table alone, and of the players only watching
    group: int = 4  # bets a bettor sends at once (the page's "Place bets": a message a spot, written together)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return -1.0


class LoadRig(Rig):
    """The broker, the wallet, the autoplay table and ``plan.platforms`` platforms."""

    def __init__(self, plan: Plan) -> None:  # (Rig's own table is not wanted: its parts are made here)
        self.plan, self.table_id = plan, registry.spec(plan.game).table_id("LOAD")
        self._start_broker("tablesim-player-load-")
        self._studio_init()
        self._wallet_files(plan.players)
        self.wallet_proc = self._spawn(self._cli("wallet", "serve", "--db", self.dir / "wallet.db", "--secret",
                                                 self.secret, "--players", self.dir / "players.toml", "--port", "0"))
        self.wallet = _ready_line(self.wallet_proc, "wallet")
        self._start_table()
        self._start_platforms()

    def _studio_init(self) -> None:
        end = time.monotonic() + 30
        while subprocess.run(self._cli("studio", "init", "--nats", self.nats), env=self.env,
                             capture_output=True).returncode != 0:
            if time.monotonic() > end:
                raise RuntimeError("tablesim studio init did not succeed")
            time.sleep(0.2)

    def _start_table(self) -> None:
        p = self.plan
        self.table = ServedTable("--game", p.game, "--mock", "--autoplay", "--bet-seconds", f"{p.bet_seconds:g}",
                                 "--pace", f"{p.pace:g}", "--table-id", self.table_id, "--studio", self.nats,
                                 data_dir=str(self.dir), journal_path=self.dir / f"{self.table_id}.journal.sqlite")
        found = sorted(self.dir.rglob(f"{self.table_id}.sign.key"))
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(found[0].read_text().strip()))
        self.keys = self.dir / "keys.json"
        self.keys.write_text(json.dumps({"v": 1, "tables": {self.table_id: key.public_key().public_bytes_raw().hex()}}))

    def _start_platforms(self) -> None:
        position = registry.spec(self.plan.game).remote_view().position
        (self.dir / "tables.toml").write_text(
            f'[tables.{self.table_id}]\ncurrency = "MOP"\nunit = "1"\nposition = "{position}"\n'
            f'game = "{self.plan.game}"\nbet_seconds = {max(1, round(self.plan.bet_seconds))}\n')
        self.platform_procs, self.platforms = [], []
        for i in range(self.plan.platforms):
            proc = self._spawn(self._cli(
                "platform", "serve", "--nats", self.nats, "--wallet", self.wallet, "--secret", self.secret,
                "--tables", self.dir / "tables.toml", "--db", self.dir / f"platform-{i}.db", "--keys", self.keys,
                "--port", "0"))
            self.platform_procs.append(proc)
            self.platforms.append(_ready_line(proc, "platform"))

    def cpu(self) -> dict[str, float]:
        return {"table": _cpu(self.table.proc.pid), "platforms": sum(_cpu(p.pid) for p in self.platform_procs),
                "wallet": _cpu(self.wallet_proc.pid), "broker": _cpu(self.procs[0].pid)}

    def rss_mb(self) -> list[float]:
        return [_rss_mb(p.pid) for p in self.platform_procs]

    def requests(self) -> dict[str, int]:
        """The platforms' requests so far (their health): debit batches to the wallet,
        bet requests to the tables; and the table's ``place_bets`` records."""
        import urllib.request

        out = {"debits": 0, "to_tables": 0}
        for url in self.platforms:
            with urllib.request.urlopen(f"{url}/api/health", timeout=10) as r:
                got = json.loads(r.read())["requests"]
            for k in out:
                out[k] += got[k]
        return {**out, "records": len(self._records("place_bets"))}

    def results(self) -> list[str]:
        """The rounds the table has a result of, in order (its journal, read only)."""
        return [r.round_id for r in self._records("result")]

    def _records(self, name: str) -> list:
        """The table's journal records of ``name``, in order (read only; none while it cannot be read)."""
        try:
            journal = Journal(self.table.journal, readonly=True)
        except InputError:
            return []
        try:
            return list(journal.find(names=(name,)))
        except journal.errors:
            return []
        finally:
            journal.close()

    def rounds(self, n: int, timeout: float) -> list[str]:
        """Wait for ``n`` more results: their round ids."""
        start = len(self.results())
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            got = self.results()
            if len(got) >= start + n:
                return got[start:start + n]
            if self.table.proc.poll() is not None:
                raise RuntimeError("the table stopped")
            time.sleep(0.1)
        raise RuntimeError(f"the table did not play {n} rounds in {timeout:.0f} s")


class Loaders:
    """The load processes, each with its share of the players (and of the bettors)."""

    def __init__(self, rig: LoadRig, tokens: list[str]) -> None:
        plan = rig.plan
        n = plan.loaders or max(1, -(-plan.players // 1500))
        self.procs: list[subprocess.Popen] = []
        bettors = min(plan.bettors, plan.players)
        for i in range(n):
            mine = list(range(i, plan.players, n))  # (player j is a bettor when j < bettors)
            doc = {"platforms": rig.platforms, "table": rig.table_id, "first": i, "tokens": [tokens[j] for j in mine],
                   "bettors": sum(1 for j in mine if j < bettors), "bettors_total": bettors,
                   "bet_rate": plan.bet_rate, "group": plan.group}
            # (the tokens sorted bettors first: a process bets with its first ``bettors``)
            path = rig.dir / f"loader-{i}.json"
            path.write_text(json.dumps(doc))
            log = open(rig.dir / f"loader-{i}.log", "ab")
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "tablesim.harness.bench.player_clients", str(path)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=log, text=True, env=rig.env))
            log.close()

    def _sum(self, word: str, what: str) -> int:
        """The sum of each process's next line, ``WORD N``."""
        got = 0
        for proc in self.procs:
            line = proc.stdout.readline()
            if not line.startswith(word + " "):
                raise RuntimeError(f"a load process did not {what}: {line!r} (see its log)")
            got += int(line.split()[1])
        return got

    def ready(self) -> int:
        return self._sum("ready", "connect its players")

    def cpu(self) -> float:
        return sum(_cpu(p.pid) for p in self.procs)

    def frames(self) -> int:
        """The text frames every player has read so far."""
        self.say("count")
        return self._sum("count", "count its frames")

    def say(self, line: str) -> None:
        for proc in self.procs:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()

    def reports(self) -> list[dict]:
        out = []
        for proc in self.procs:
            line = proc.stdout.readline()
            out.append(json.loads(line) if line.startswith("{") else {})
            proc.stdin.close()
            proc.wait(30)
        return out

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _p(hist: Counter, q: float) -> float | None:
    """The q-quantile of a histogram of whole milliseconds (its bucket's upper edge)."""
    total = sum(hist.values())
    if not total:
        return None
    rank, seen = q * total, 0
    for ms in sorted(hist):
        seen += hist[ms]
        if seen >= rank:
            return float(ms + 1)
    return float(max(hist) + 1)


def _phase(rig: LoadRig, rounds: int) -> tuple[list[str], float]:
    """``rounds`` rounds of the table: their ids and its CPU ms a round."""
    timeout = 120 + rounds * (rig.plan.bet_seconds + 60 * max(rig.plan.pace, 0.1))
    before = _cpu(rig.table.proc.pid)
    ids = rig.rounds(rounds, timeout)
    return ids, round((_cpu(rig.table.proc.pid) - before) * 1000 / rounds, 1)


def _merge(reports: list[dict]) -> dict[str, Any]:
    timed = ("delays", "delays_watching", "bet_ms", "lag")
    total: dict[str, Any] = {k: Counter() for k in (*timed, "statuses", "outcomes")}
    windows: dict[str, list[float]] = {}
    for r in reports:
        for k in total:
            total[k].update({(int(x) if k in timed else x): n for x, n in r.get(k, {}).items()})
        for rid, (a, b) in r.get("windows", {}).items():
            w = windows.setdefault(rid, [a, b])
            w[0], w[1] = min(w[0], a), max(w[1], b)
    total["windows"] = windows
    total["refusals"] = {k: v for r in reports for k, v in r.get("messages", {}).items()}
    total["closed"] = sum(r.get("closed", 0) for r in reports)
    return total


def _figures(plan: Plan, connected: int, got: dict, watched: list[str], rss: dict, cpu: dict, wall: float) -> dict:
    placed = sum(got["bet_ms"].values())
    span = sum(b - a for a, b in got["windows"].values())
    missing = {rid: connected - got["outcomes"].get(rid, 0) for rid in watched}
    p99 = _p(got["delays"], 0.99)
    return {
        "players": connected, "platforms": plan.platforms, "loaders": plan.loaders or max(1, -(-plan.players // 1500)),
        "game": plan.game, "rounds_watched": len(watched), "dropped": got["closed"],
        "missing_results": sum(missing.values()),
        "event_deliveries": sum(got["delays"].values()), "event_p50_ms": _p(got["delays"], 0.5),
        "event_p99_ms": p99, "event_max_ms": float(max(got["delays"]) + 1) if got["delays"] else None,
        # (the same while the players only watched: the fan-out's own part, before the bets load the platform)
        "event_p50_ms_watching": _p(got["delays_watching"], 0.5), "event_p99_ms_watching": _p(got["delays_watching"], 0.99),
        "bus_p50_ms": _p(got["bus"], 0.5), "bus_p99_ms": _p(got["bus"], 0.99),
        # (how late the load processes' own loops ran: an event's delay is read on their clock, so it holds this)
        "loader_lag_p99_ms": _p(got["lag"], 0.99), "loader_lag_max_ms": float(max(got["lag"]) + 1) if got["lag"] else None,
        "bettors": min(plan.bettors, plan.players), "bets_per_group": plan.group, "bet_rate_offered": plan.bet_rate, "bets_placed": placed,
        "bet_answers": dict(got["statuses"]), "refusals": got["refusals"],
        "bets_per_second": round(placed / span, 1) if span > 0 else None,
        "bet_p50_ms": _p(got["bet_ms"], 0.5), "bet_p90_ms": _p(got["bet_ms"], 0.9), "bet_p99_ms": _p(got["bet_ms"], 0.99),
        "bet_max_ms": float(max(got["bet_ms"]) + 1) if got["bet_ms"] else None,
        **rss, "table_cpu_ms_per_round": cpu,
        "seconds": round(wall, 1), "load_average": round(os.getloadavg()[0], 1),
        "clock": "event delay: the loader's wall clock when it read the frame minus the table's journal ts "
                 "(one machine, one clock)",
        "goals": "event p99 < 250 ms; 2,000 bets/s with p99 < 150 ms; the table's CPU a round not growing "
                 "with the players"}


def _cpu_per_bet(cpu0: dict, cpu1: dict, cpu2: dict, plan: Plan, placed: int) -> dict | None:
    """Each process's CPU in the betting rounds less that of as many rounds of players only
    watching (the rounds' own work), per bet placed, in µs; and their sum."""
    if not placed:
        return None
    scale = plan.rounds / plan.quiet_rounds if plan.quiet_rounds else 0.0
    out = {k: round(((cpu2[k] - cpu1[k]) - (cpu1[k] - cpu0[k]) * scale) * 1e6 / placed, 1) for k in cpu0}
    return {**out, "all": round(sum(out.values()), 1)}


#: the studio's goals: bets kept up with at the offered rate, their p99 and the events' p99 (ms)
BET_P99_GOAL, EVENT_P99_GOAL = 150.0, 250.0


def goal_met(fig: dict) -> bool:
    """Whether a run met the goals (``goals``): the offered rate placed, the
    bets' p99 under 150 ms and the table events' p99 under 250 ms."""
    sat = fig.get("saturation") or {}
    return bool(sat.get("kept_up")) and fig.get("bet_p99_ms") is not None and fig["bet_p99_ms"] < BET_P99_GOAL \
        and fig.get("event_p99_ms") is not None and fig["event_p99_ms"] < EVENT_P99_GOAL


def failures(fig: dict) -> list[str]:
    """Why the run is not a measurement (exit 1), empty when it is."""
    why = []
    if fig["dropped"]:
        why.append(f"{fig['dropped']} players' sockets were closed by the platform")
    if fig["missing_results"]:
        why.append(f"{fig['missing_results']} round results did not reach every player")
    if fig["event_p99_ms"] is None:
        why.append("no table event reached a player")
    if fig["bettors"] and not fig["bets_placed"]:
        answers = fig.get("bet_answers") or {}
        why.append("no bet was placed" + (f" (the answers: {dict(answers)})" if answers else " (no bet was answered)"))
    if fig["rss_mb"] is None or fig["rss_mb"] < 0:
        why.append("the platform's memory could not be read")
    return why


def open_files(players: int) -> int:
    """Raise this process's limit of open files (its children inherit it) to
    what ``players`` sockets need in one process, within the hard limit."""
    need = players + 1024  # (each socket one file, in the platform and in a load process; the rest besides)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need if hard == resource.RLIM_INFINITY else min(hard, need)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < need:
        raise RuntimeError(f"{players} players need {need} open files in one process; the hard limit is {hard} "
                           "(raise it: ulimit -Hn, or limits.conf)")
    return want


def run(plan: Plan, progress=lambda s: None) -> dict[str, Any]:
    started = time.monotonic()
    speed = probe()  # (the machine's speed before the run: ``measure.probe``)
    open_files(-(-plan.players // plan.platforms))
    rig = LoadRig(plan)
    loaders = None
    try:
        progress(f"up: {rig.nats}, wallet, table {rig.table_id}, {plan.platforms} platform(s); a first round")
        rig.rounds(1, 120 + plan.bet_seconds + 60 * max(plan.pace, 0.1))
        _, alone = _phase(rig, plan.quiet_rounds)
        rss_before = rig.rss_mb()
        progress(f"the table alone: {alone} ms of CPU a round; connecting {plan.players} players")
        tap = BusTap(rig.nats, rig.table_id)
        loaders = Loaders(rig, rig.tokens(plan.players))
        connected = loaders.ready()
        loaders.say("measure")
        rss_after = rig.rss_mb()
        progress(f"{connected} players watching; the round under way, then {plan.quiet_rounds} without bets")
        watched = rig.rounds(1, 120 + plan.bet_seconds + 60 * max(plan.pace, 0.1))  # (to a round's start)
        cpu0, frames0 = {**rig.cpu(), "loaders": loaders.cpu()}, loaders.frames()
        threads0 = thread_cpu(rig.table.proc.pid)
        more, watching = _phase(rig, plan.quiet_rounds)
        watched += more
        cpu1, frames1 = {**rig.cpu(), "loaders": loaders.cpu()}, loaders.frames()
        threads1 = thread_cpu(rig.table.proc.pid)
        asked1 = rig.requests()
        loaders.say("bet")
        progress(f"{plan.bettors} bettors betting; {plan.rounds} round(s)")
        # (each process's CPU sampled while the bets come: which one, if any, was at its limit)
        with Sampler(lambda: {**rig.cpu(), "loaders": loaders.cpu()}) as sampler:
            betting_ids, betting = _phase(rig, plan.rounds)
        cpu2 = {**rig.cpu(), "loaders": loaders.cpu()}
        threads2 = thread_cpu(rig.table.proc.pid)
        asked2 = rig.requests()
        loaders.say(f"stop {betting_ids[-1]}")
        got = _merge(loaders.reports())
        got["bus"] = tap.close()
        rss_end = rig.rss_mb()
        per = plan.players / plan.platforms
        rss = {"rss_mb": round(rss_end[0], 1), "rss_mb_before_players": round(rss_before[0], 1),
               "rss_mb_all_platforms": [round(x, 1) for x in rss_end],
               "rss_per_player_kb": round((rss_after[0] - rss_before[0]) * 1024 / per, 1)}
        cpu = {"alone": alone, "players_watching": watching, "players_betting": betting}
        fig = _figures(plan, connected, got, watched + betting_ids, rss, cpu, time.monotonic() - started)
        fig["probe_s"] = speed
        fig["cpu_s_watching"] = {k: round(cpu1[k] - cpu0[k], 2) for k in cpu0}
        fig["cpu_s_betting"] = {k: round(cpu2[k] - cpu1[k], 2) for k in cpu1}
        fig["cpu_us_per_bet"] = _cpu_per_bet(cpu0, cpu1, cpu2, plan, fig["bets_placed"])
        # (the table's the same way, by thread: its loop, its own thread, its studio link, its journal's mark)
        kinds = set(threads0) | set(threads1) | set(threads2)
        by_thread = _cpu_per_bet(*({k: t.get(k, 0.0) for k in kinds} for t in (threads0, threads1, threads2)),
                                 plan, fig["bets_placed"])
        fig["table_cpu_us_per_bet_by_thread"] = by_thread and {k: by_thread[k] for k in sorted(kinds)}
        # (how the bets went together: a batch's, a request's and a record's fixed costs are paid once for each)
        fig["bets_per_batch"] = {k: (round(fig["bets_placed"] / (asked2[k] - asked1[k]), 1) if asked2[k] > asked1[k]
                                     else None) for k in asked1}
        fig["deliveries_watching"] = frames1 - frames0
        cores, machine, seconds = cores_in(sampler.samples, [tuple(w) for w in got["windows"].values()])
        # (each bettor offers at most MAX_RATE a second, a socket's limit at the platform: the rate asked
        # for may be more than they can offer, and is then not the studio's to keep up with)
        most = min(plan.bet_rate, fig["bettors"] * MAX_RATE)
        fig["saturation"] = verdict(most, fig["bets_per_second"], cores, machine, os.cpu_count() or 1, seconds,
                                    asked=plan.bet_rate)
        progress(f"saturation: {fig['saturation']['why']}")
        fig["platform_cpu_us_per_delivery"] = (round((cpu1["platforms"] - cpu0["platforms"]) * 1e6 / (frames1 - frames0), 2)
                                               if frames1 > frames0 else None)
        return fig
    finally:
        if loaders is not None:
            loaders.close()
        rig.close()
