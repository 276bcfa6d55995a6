"""``tablesim studio serve|report`` and the anchor part of ``tablesim audit verify``."""

from __future__ import annotations

import click

from tablesim.core.errors import InputError


def _unreachable(url: str, exc: Exception) -> InputError:
    return InputError(f"cannot reach the studio's NATS at {url}: {type(exc).__name__} {exc}".rstrip())


def report_anchor(path: str, url: str) -> bool:
    """Print the anchor check of the journal at ``path``; True if it holds."""
    from tablesim.studio.anchor import verify_anchor

    try:
        reports = verify_anchor(path, url)
    except (OSError, TimeoutError) as exc:
        raise _unreachable(url, exc) from None
    except Exception as exc:  # nats-py's own errors (no servers, timeouts)
        if type(exc).__module__.startswith("nats"):
            raise _unreachable(url, exc) from None
        raise
    if not reports:
        click.echo(f"anchor {url}: the journal has no records and its file name names no table: nothing to hold "
                   "it against", err=True)
        return False
    ok = True
    for report in reports:
        lines = report.lines()
        verdict = "anchored" if report.ok else "does NOT match the stream"
        click.echo(f"anchor {url}: {lines[0]}: {verdict}", err=not report.ok)
        for line in lines[1:]:
            click.echo(line, err=True)
        ok = ok and report.ok
    return ok
