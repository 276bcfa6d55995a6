"""``tablesim devices check --config FILE [--emulated]``: each device of a
table configuration through the driver contract (drivers/contract.py),
one line per check, exit 1 when one fails."""

from __future__ import annotations

import json

import click

from tablesim.harness.devicecheck import check_config
from tablesim.harness.tableconfig import load_table_config


def run_check(config_path: str, *, emulated: bool, wait: float, as_json: bool) -> int:
    config = load_table_config(config_path)
    results = check_config(config, emulated=emulated, wait=wait)
    failed = any(o.status == "fail" for outcomes in results.values() for o in outcomes)
    if as_json:
        click.echo(json.dumps({"config": config.path, "emulated": emulated, "devices": {
            kind: {"backend": config.devices[kind].backend,
                   "checks": [{"check": o.check, "status": o.status, "detail": o.detail} for o in outcomes]}
            for kind, outcomes in results.items()}, "passed": not failed}, indent=2))
        return 1 if failed else 0
    where = "on their emulators" if emulated else "as connected"
    click.echo(f"{config.path}: the driver contract, devices {where}")
    for kind, outcomes in results.items():
        for o in outcomes:
            click.echo(f"  {kind} ({config.devices[kind].backend})  {o.status:4}  {o.check}: {o.detail}")
    counts = {s: sum(o.status == s for outs in results.values() for o in outs) for s in ("pass", "fail", "skip")}
    click.echo(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if failed else 0
