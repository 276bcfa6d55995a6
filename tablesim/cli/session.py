"""The loop of ``tablesim run`` shared by every game and device mode: recover
from the journal, play rounds with simulated players, show each round, then
the closing summary. The game's part is its :class:`SessionPlan`."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console
from rich.text import Text
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from tablesim.cli.display import attach_journal, print_summary
from tablesim.cli.run_report import MetricsServer, print_json, round_json
from tablesim.games.session import Line, SessionPlan
from tablesim.harness.runopts import RunOptions


def styled(line: Line) -> Text:
    """A game's plain line (pieces of text, some with a style name) for the terminal."""
    return Text.assemble(*line)


#: a quiet run of at least this many rounds shows a progress bar (on a terminal)
PROGRESS_FROM = 20


@contextmanager
def _progress(console: Console, options: RunOptions) -> Iterator[Callable[[], None]]:
    """A progress bar over the rounds of a quiet run on a terminal (nothing
    otherwise); it disappears when the run ends, leaving the summary."""
    if not (options.quiet and console.is_terminal and options.rounds >= PROGRESS_FROM):
        yield lambda: None
        return
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as progress:
        task = progress.add_task("rounds", total=options.rounds)
        yield lambda: progress.advance(task)


def _journal_file(table, spec: str | None) -> str:
    from tablesim.journal.location import default_journal_path

    return spec if spec is not None else str(default_journal_path(table.table_id))


def run_session(table, options: RunOptions, console: Console, plan: SessionPlan, *, simulated_floor: bool = False) -> int:
    """``simulated_floor``: the devices are software, so the game's simulated
    floor acts between rounds (``plan.simulated_floor``); on real devices only
    a person may, and a round the floor must allow first is refused."""
    if options.table_id is not None:  # (--table-id: before anything is opened under the game's default id)
        table.table_id = options.table_id
    if options.studio:
        from tablesim.studio.natsio import check_url

        check_url(options.studio)  # before anything is opened or recovered
        from tablesim.studio.attach import hold_at_start

        hold_at_start(options.studio, _journal_file(table, options.journal), table.table_id, options.key_file)
    metrics = MetricsServer(options.metrics_port) if options.metrics_port is not None else None
    if metrics is not None:
        console.print(f"metrics: http://127.0.0.1:{metrics.port}/metrics")
    try:
        attach_journal(console, table, options.journal, key_file=options.key_file, banner=plan.banner)
    except BaseException:
        if metrics is not None:  # (a journal refused: nothing runs, nothing listens)
            metrics.stop()
        raise
    if metrics is not None:
        metrics.follow(table)
    played: list[dict] = []
    interrupted = False
    link = None
    said: set[str] = set()
    if options.studio:
        from tablesim.studio.attach import start_link
        from tablesim.studio.natsio import shown

        link = start_link(table, options.studio)
        console.print(f"studio: publishing to {shown(options.studio)}")
    try:
        if plan.after_recover is not None:
            plan.after_recover()
        with _progress(console, options) as advance:
            try:
                for _ in range(options.rounds):
                    if simulated_floor and plan.simulated_floor is not None:
                        plan.simulated_floor()
                    plan.play_round()
                    plan.stats.add(table.result, fold_into=plan.fold_into)
                    played.append(round_json(table))
                    if link is not None:
                        _loud(console, table, link, said)
                    if plan.after_round is not None:
                        plan.after_round()
                    if not (options.quiet or options.json):
                        for line in plan.render():
                            console.print(styled(line))
                    advance()
                    if options.delay:
                        time.sleep(options.delay)
            except KeyboardInterrupt:  # (Ctrl-C: what was played is still told, below)
                interrupted = True
    finally:
        if metrics is not None:
            metrics.stop()
        if link is not None:
            from tablesim.studio.attach import stop_link

            line = stop_link(link)
            if link.diverged and "diverged" not in said:  # (it diverged after the last round: journaled still)
                from tablesim.studio.attach import diverged_incident

                diverged_incident(table, link)
            console.print(line, style="bold red" if link.diverged else None, markup=False)
        if table.journal is not None:
            table.journal.close()  # (in-process runs: tests, embedding)
    if options.json:
        print_json(table, options.rounds, played, plan.stats, interrupted)
    else:
        print_summary(console, plan.summary_title, plan.stats)
        if plan.footer is not None:
            console.print(plan.footer())
    if interrupted:
        # (a round cut short is in the journal: the next start on it recovers it)
        console.print(f"interrupted: {len(played)} of {options.rounds} round(s) played", style="bold", markup=False)
        return 130
    return 1 if link is not None and link.diverged else 0  # (the studio's copy is not the journal: not a clean run)


def _loud(console: Console, table, link, said: set[str]) -> None:
    """Between rounds: a link that diverged or stopped publishing is an
    incident in the table's journal and a line at once, not only at exit."""
    from tablesim.studio.attach import loud

    line = loud(table, link, said)
    if line is not None:
        console.print(line, style="bold red", markup=False)
