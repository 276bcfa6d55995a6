"""``tablesim audit verify`` and ``tablesim history``: the journal's tools."""

from __future__ import annotations

import contextlib
import json
import sys
from decimal import Decimal
from pathlib import Path

import click
from rich.markup import escape

from tablesim.cli.display import make_console, signed
from tablesim.cli.options import nats_option
from tablecore.errors import InputError
from tablesim.journal.audit import AuditResult, database_problem, first_forged, verify_file
from tablesim.journal.keys import TABLE_ID, create_key, default_key_path, key_id, load_key
from tablesim.journal.history import round_actions, round_summary, select_rounds
from tablesim.journal.location import data_dir, default_journal_path
from tablesim.journal.journal import Journal


def open_existing(path: str | None) -> Journal:
    if path is None:
        found = sorted(data_dir().glob("*.journal.sqlite"))
        if len(found) != 1:
            names = ", ".join(str(p) for p in found) or f"none in {data_dir()}"
            raise InputError(f"name the journal with --journal (found: {names})")
        path = str(found[0])
    missing = _not_a_journal_file(path)
    if missing:
        raise InputError(missing, where=path)
    return Journal(path, readonly=True)


def _not_a_journal_file(path: str) -> str | None:
    """Why ``path`` cannot be a journal file (None: it may be one)."""
    where = Path(path)
    if where.is_file():
        return None
    if not where.exists():
        return "no such journal file"
    return "a folder, not a journal file" if where.is_dir() else "not a regular file (a journal is a file)"


def _journals(paths: tuple[str, ...], all_: bool, table: str | None) -> list[str]:
    chosen = list(paths)
    if table is not None:
        if not TABLE_ID.fullmatch(table):
            raise InputError(f"{table!r} is not a table id (1 to 32 of A-Z a-z 0-9 _ -)", where="--table")
        if not paths:  # (with --journal: the table that journal should be, for --anchor)
            chosen.append(str(default_journal_path(table)))
    if all_:
        found = sorted(str(p) for p in data_dir().glob("*.journal.sqlite"))
        if not found:
            raise InputError(f"no journal in {data_dir()}", where="--all")
        chosen.extend(found)
    if not chosen:
        found = sorted(data_dir().glob("*.journal.sqlite"))
        if len(found) != 1:
            names = ", ".join(str(p) for p in found) or f"none in {data_dir()}"
            raise InputError(f"name the journal with --journal, --table or --all (found: {names})")
        chosen.append(str(found[0]))
    return list(dict.fromkeys(chosen))


@click.group("audit")
def audit() -> None:
    """The journal's tamper-evident audit chain."""


@audit.command("verify")
@click.option("--journal", "paths", multiple=True, help="Journal file (repeatable; default: the only one in the data directory).")
@click.option("--all", "all_", is_flag=True, help="Every journal in the data directory.")
@click.option("--table", "table", default=None,
              help="The journal of this table id (in the data directory); with --journal, the table it should be.")
@click.option("--key", "key_path", default=None, help="The table's key file (default: <data dir>/<table id>.key).")
@nats_option("--anchor", "anchor_url",
             help="Also hold each journal against the table's records in the studio's stream (docs/studio.md); "
                  "a cluster's nodes comma-separated or the option repeated.")
@click.option("--complete", is_flag=True,
              help="With --anchor: fail (exit 1) unless the stream holds every committed record (none unanchored).")
@click.option("--json", "as_json", is_flag=True,
              help="The verdicts as one JSON object (a journal each: path, verdict, records, first bad record, "
                   "reason, anchored); the exit status as without it.")
def audit_verify(paths: tuple[str, ...], all_: bool, table: str | None, key_path: str | None,
                 anchor_url: str | None, complete: bool, as_json: bool) -> None:
    """Verify each journal: the SQLite integrity check, the keyed chain, its head
    and checkpoint, and with --anchor the studio's copy of its records. One
    verdict line per file; exit 0 if every file is intact, 1 if any is
    tampered or corrupt (naming the first bad record), 2 if any cannot be
    read."""
    if complete and anchor_url is None:
        raise InputError("--complete applies to --anchor (the stream holds every committed record)")
    if anchor_url is not None:
        from tablesim.studio.natsio import check_url

        check_url(anchor_url, where="--anchor")
    key = load_key(key_path) if key_path is not None else None
    worst = 0
    verdicts: list[dict] = []
    for path in _journals(paths, all_, table):
        missing = _not_a_journal_file(path)
        if missing:
            result = AuditResult(False, 0, None, missing, "unreadable")
        else:
            result = verify_file(path, key)
        line = f"journal {path}: {result.describe()}"
        if result.verdict in ("tampered", "corrupt") and result.first_bad is not None:
            # (the wording the earlier audit used, which scripts may look for)
            line = f"journal {path}: chain broken at record {result.first_bad}: {result.verdict}: {result.reason}"
        if result.verdict == "unreadable":  # not a verdict on its records: an error, as every command words one
            line = f"tablesim: error: {line}"
        if as_json:
            verdicts.append(verdict_json(path, result))
            if result.verdict == "unreadable":  # (an error still: its one line too)
                click.echo(line, err=True)
        else:
            click.echo(line, err=not result.ok)
        code = result.exit_code
        if anchor_url is not None:  # (an unreadable journal too: a deleted one held nothing the stream holds)
            from tablesim.cli.studio_cmd import report_anchor

            # (--json: the anchor's lines go to stderr; its verdict is in the object)
            with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
                held = report_anchor(path, anchor_url, table, complete)
            if as_json:
                verdicts[-1]["anchored"] = held
            if held is False:
                code = max(code, 1, key=lambda c: {0: 0, 2: 1, 1: 2}[c])
        worst = max(worst, code, key=lambda c: {0: 0, 2: 1, 1: 2}[c])
    if as_json:
        click.echo(json.dumps({"ok": worst == 0, "exit_code": worst, "journals": verdicts}, indent=1))
    if worst:
        sys.exit(worst)


def verdict_json(path: str, result: AuditResult) -> dict:
    """One journal's verdict for ``audit verify --json``."""
    return {"journal": path, "table_id": result.table_id, "verdict": result.verdict, "ok": result.ok,
            "records": result.records, "first_bad": result.first_bad, "reason": result.reason or None,
            "legacy_records": result.legacy, "exit_code": result.exit_code}


@click.command("history")
@click.option("--journal", "path", default=None, help="Journal file (default: the only one in the data directory).")
@click.option("--last", type=click.IntRange(min=1), default=None, help="Only the last N rounds.")
@click.option("--round", "round_id", default=None, help="Only this round.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per round (the scripted-round result format).")
@click.option("--key", "key_path", default=None,
              help="The table's key file, to check the rounds shown (default: as `audit verify` finds it).")
@click.option("--table", "table", default=None, help="The journal of this table id (in the data directory).")
def history(path: str | None, last: int | None, round_id: str | None, as_json: bool, key_path: str | None,
            table: str | None) -> None:
    """Recall past rounds: cards, draw or spin, bets, decisions, results, device events, faults,
    who dealt each round and who did each action.
    Rounds whose records do not verify under the table's key are not shown."""
    if last is not None and round_id is not None:
        raise InputError("use --last or --round, not both")
    if table is not None:
        if path is not None:
            raise InputError("use --journal or --table, not both")
        if not TABLE_ID.fullmatch(table):
            raise InputError(f"{table!r} is not a table id (1 to 32 of A-Z a-z 0-9 _ -)", where="--table")
        path = str(default_journal_path(table))
    key = load_key(key_path) if key_path is not None else None
    journal = open_existing(path)
    try:
        # A damaged index would show a settled round as in progress with no
        # bets: nothing is shown from a file SQLite does not find sound.
        problem = database_problem(journal)
        if problem:
            raise InputError(f"the journal is damaged ({problem}): run `tablesim audit verify --journal "
                             f"{journal.path}`", where=journal.path)
        _history(journal, last, round_id, as_json, key)
    except (*journal.errors, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"cannot read the journal ({exc}): run `tablesim audit verify --journal {journal.path}`",
                         where=journal.path) from None
    finally:
        journal.close()


def position_line(summary: dict, pos: str) -> str:
    """A position's bets and results, every result included: those with no
    stake of their own too (Fortune 3's Play and Ante Bonus)."""
    bets = summary["bets"].get(pos, {})
    res = summary["results"].get(pos, {})
    parts = []
    for bet in dict.fromkeys([*bets, *res]):
        stake = f" {bets[bet]}" if bet in bets else ""
        outcome = f" -> {signed(Decimal(res[bet]))}" if bet in res else ""
        parts.append(f"{escape(bet)}{stake}{outcome}")
    net = summary["net"].get(pos)
    return ", ".join(parts) + (f"  net {signed(Decimal(net))}" if net is not None else "")


def _history(journal: Journal, last: int | None, round_id: str | None, as_json: bool, key: bytes | None) -> None:
    ids = select_rounds(journal, last if last else (None if round_id else 10), round_id)
    if round_id is not None and not ids:
        raise InputError(f"no round {round_id!r} in the journal", where=journal.path)
    forged = first_forged(journal, ids, key)
    if forged is not None:  # never shown as what happened
        raise InputError(f"record {forged} was altered or forged (its keyed link does not verify): nothing is shown; "
                         f"run `tablesim audit verify --journal {journal.path}`", where=journal.path)
    console = make_console(highlight=False, soft_wrap=True)
    for rid in ids:
        summary = round_summary(journal, rid)
        if as_json:
            click.echo(json.dumps(summary, separators=(", ", ": ")))
            continue
        status = summary["status"] + (f" ({summary['void_reason']})" if summary.get("void_reason") else "")
        console.print(f"[bold]{rid}[/] {summary.get('game', '')} {status}")
        if summary.get("profile"):
            console.print(f"  profile: {summary['profile'].get('name')} (sha256 {summary['profile'].get('sha256')})")
        for pos in dict.fromkeys([*summary["bets"], *summary["results"]]):
            console.print(f"  {escape(pos)}: {position_line(summary, pos)}")
        for player, part in (summary.get("players") or {}).items():
            # each named player's part
            where = part.get("results") or part.get("returned") or {}
            line = "; ".join(f"{escape(p)} " + ", ".join(f"{escape(b)} {v}" for b, v in r.items()) for p, r in where.items())
            net = f"  net {signed(Decimal(part['net']))}" if "net" in part else "  returned"
            console.print(f"  player {escape(player)}: {line}{net}")
        if summary["outcome"]:
            console.print(f"  outcome: {json.dumps(summary['outcome'])}")
        _print_who(console, journal, rid)
        for ev in summary["events"]:
            detail = {k: v for k, v in ev.items() if k not in ("seq", "ts", "kind", "actor")}
            # (the actor as journaled, ``supervisor:sam``: the wording scripts read; the lines above say it in words)
            console.print(f"  #{ev['seq']} {ev['kind']} by {ev['actor']}: {json.dumps(detail)}")


def _print_who(console, journal: Journal, rid: str) -> None:
    """Who dealt the round and who did each of its actions."""
    done = round_actions(journal, rid)
    console.print(f"  dealt by: {escape(done['dealer'] or 'nobody named (no dealer signed in)')}")
    if done["actions"]:
        console.print("  actions: " + escape("; ".join(f"#{a['seq']} {a['name']} by {a['by']}" for a in done["actions"])))
    if done["bets_by"]:
        console.print("  bets by: " + escape(", ".join(f"{n} ({k})" for n, k in done["bets_by"].items())))


@click.group("journal")
def journal_group() -> None:
    """Operator's tools for a table's journal: its key, sealing a legacy journal, a verified backup."""


def _table_key_path(table: str | None, key_path: str | None, owner: str | None = None) -> tuple[str, Path]:
    table = table or owner
    if table is None:
        raise InputError("name the table with --table", where="--table")
    if not TABLE_ID.fullmatch(table):
        raise InputError(f"{table!r} is not a table id (1 to 32 of A-Z a-z 0-9 _ -)", where="--table")
    return table, (Path(key_path) if key_path is not None else default_key_path(table))


@journal_group.command("new-key")
@click.option("--table", "table", default=None, help="The table id (its key: <data dir>/<table id>.key).")
@click.option("--key", "key_path", default=None, help="Write the key to this file instead.")
def new_key(table: str | None, key_path: str | None) -> None:
    """Make a table's key (64 random hex digits, mode 0600); never replaces one."""
    table, path = _table_key_path(table, key_path)
    if path.exists():
        raise InputError("a key file is already there: a table's key is never replaced", where=str(path))
    key = create_key(path)
    click.echo(f"key {key_id(key)} for table {table}: {path} (keep a copy off the table PC)")


@journal_group.command("seal-legacy")
@click.option("--journal", "path", required=True, help="The legacy journal file.")
@click.option("--table", "table", default=None, help="Its table id (default: the one its records name).")
@click.option("--key", "key_path", default=None, help="The table's key file (default: <data dir>/<table id>.key).")
def seal_legacy(path: str, table: str | None, key_path: str | None) -> None:
    """Seal a journal from before keyed chains, once: its whole plain chain is
    checked, then a chain record seals it (its count and last link) under the
    table's key, which must already exist (`tablesim journal new-key`)."""
    from tablesim.journal.sealing import seal_legacy_journal

    missing = _not_a_journal_file(path)
    if missing:
        raise InputError(missing, where=path)
    click.echo(seal_legacy_journal(path, table, None if key_path is None else Path(key_path)))


@journal_group.command("backup")
@click.argument("dest")
@click.option("--journal", "path", default=None, help="The journal to copy (default: the only one in the data directory).")
@click.option("--key", "key_path", default=None,
              help="The table's key file, to verify the copy (default: as `audit verify` finds it).")
@click.option("--force", is_flag=True, help="Replace DEST if it exists (never a journal a table is writing).")
def backup(dest: str, path: str | None, key_path: str | None, force: bool) -> None:
    """Copy a journal to DEST while its table may be writing it: SQLite's
    online backup (the -wal file's transactions included), one file, checked
    as `audit verify` checks a journal and against the journal's own last
    record before it is named DEST. Restore: the same command the other way,
    with --force, while the table is stopped."""
    from tablesim.journal.backup import backup_journal

    key = load_key(key_path) if key_path is not None else None
    source = open_existing(path)  # (the only one in the data directory, or the one named: checked)
    source.close()
    done = backup_journal(source.path, dest, key=key, replace=force)
    click.echo(f"journal {source.path} backed up to {done.dest}: {done.describe()}")
