"""Render a Grafana dashboard of ``config/grafana/`` from a live Prometheus,
as a picture, without Grafana.

Where Grafana runs, import the dashboard there instead. This is for a
machine without it (Grafana is neither a Debian nor a Python package): it
reads the dashboard's own JSON (its panels, their grid places, their
queries and legends), asks Prometheus each query over the last minutes, and
draws the panels where the dashboard puts them, stat panels as numbers and
time series as lines, in Chromium; the page is saved as a PNG. So every
query of the dashboard is checked against real series: a query Prometheus
refuses is drawn as its error, and the script exits 1 if any was refused.

    python scripts/dashboard_preview.py config/grafana/tablesim-studio.json \
        --prometheus http://127.0.0.1:9090 --out studio.png

Dashboard variables (``$table``) are replaced by ``--var table=REGEX``,
by default ``.*`` (every table).
"""

from __future__ import annotations

import argparse
import html
import json
import math
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
WIDTH = 1600  # pixels for the dashboard's 24 columns
ROW = 30  # pixels a grid row (Grafana's own)
COLOURS = ["#73bf69", "#f2cc0c", "#5794f2", "#ff780a", "#b877d9", "#f2495c", "#37872d", "#8ab8ff"]


class Refused(Exception):
    """Bad input: one line, exit 2."""


def load_dashboard(path: Path) -> dict:
    try:
        board = json.loads(path.read_text())
    except OSError as exc:
        raise Refused(f"{path}: cannot read it ({exc.strerror})") from None
    except ValueError as exc:
        raise Refused(f"{path}: not JSON ({exc})") from None
    if not isinstance(board, dict) or not isinstance(board.get("panels"), list):
        raise Refused(f"{path}: field 'panels': a Grafana dashboard has a list of panels")
    return board


def prometheus(base: str, path: str, params: dict) -> dict:
    url = f"{base.rstrip('/')}{path}?{urllib.parse.urlencode(params)}"
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as exc:  # a refused query: Prometheus says why in its body
        try:
            return json.load(exc)
        except ValueError:
            return {"status": "error", "error": f"HTTP {exc.code}"}
    except (urllib.error.URLError, OSError) as exc:
        raise Refused(f"--prometheus {base}: no answer ({getattr(exc, 'reason', exc)})") from None


def legend(fmt: str, metric: dict) -> str:
    if fmt:
        return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: str(metric.get(m.group(1), "")), fmt)
    return ", ".join(f"{k}={v}" for k, v in sorted(metric.items()) if k != "__name__") or "value"


def fmt_number(value: float, unit: str) -> str:
    if math.isnan(value):
        return "NaN"
    if unit == "s":
        return f"{value * 1000:.1f} ms" if abs(value) < 1 else f"{value:.2f} s"
    if unit == "percentunit":
        return f"{value * 100:.1f} %"
    return f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:,.2f}"


def substitute(expr: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: variables.get(m.group(1) or m.group(2), ".*"), expr)


def stat_html(panel: dict, results: list, unit: str) -> str:
    cells = []
    for fmt, series in results:
        for s in series:
            cells.append(f'<div class="stat"><b>{html.escape(fmt_number(float(s["value"][1]), unit))}</b>'
                         f'<span>{html.escape(legend(fmt, s["metric"]))}</span></div>')
    return "".join(cells) or '<div class="none">No data</div>'


def series_svg(results: list, start: float, end: float, unit: str, w: int, h: int) -> str:
    lines = [(legend(fmt, s["metric"]), [(float(t), float(v)) for t, v in s["values"]
                                          if not math.isnan(float(v))])
             for fmt, series in results for s in series]
    lines = [(name, pts) for name, pts in lines if pts]
    if not lines:
        return '<div class="none">No data</div>'
    values = [v for _, pts in lines for _, v in pts]
    lo, hi = min(0.0, min(values)), max(values)
    hi = hi if hi > lo else lo + 1
    pw, ph, left = w - 70, h - 56, 62

    def x(t: float) -> float:
        return left + (t - start) / (end - start) * pw

    def y(v: float) -> float:
        return 6 + (1 - (v - lo) / (hi - lo)) * ph

    out = [f'<svg width="{w}" height="{h - 24}">']
    for i in range(5):
        v = lo + (hi - lo) * i / 4
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4:.1f}" class="axis" text-anchor="end">'
                   f'{html.escape(fmt_number(v, unit))}</text>')
    for i, (name, pts) in enumerate(lines):
        path = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{COLOURS[i % len(COLOURS)]}" stroke-width="1.6"/>')
    out.append("</svg>")
    keys = "".join(f'<span><i style="background:{COLOURS[i % len(COLOURS)]}"></i>{html.escape(name)}</span>'
                   for i, (name, _) in enumerate(lines[:12]))
    return "".join(out) + f'<div class="keys">{keys}</div>'


def render(board: dict, base: str, variables: dict[str, str], minutes: float) -> tuple[str, list[str]]:
    end = time.time()
    start = end - minutes * 60
    step = max(2.0, minutes * 60 / 240)
    refused: list[str] = []
    boxes, bottom = [], 0
    for panel in board["panels"]:
        g = panel.get("gridPos", {})
        px, py = g.get("x", 0) * WIDTH / 24, g.get("y", 0) * ROW
        pw, ph = g.get("w", 12) * WIDTH / 24 - 8, g.get("h", 8) * ROW - 8
        bottom = max(bottom, py + ph + 8)
        unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
        results = []
        for target in panel.get("targets", []):
            expr = substitute(target.get("expr", ""), variables)
            if panel.get("type") == "stat":
                answer = prometheus(base, "/api/v1/query", {"query": expr, "time": end})
            else:
                answer = prometheus(base, "/api/v1/query_range",
                                    {"query": expr, "start": start, "end": end, "step": step})
            if answer.get("status") != "success":
                refused.append(f"{panel.get('title')}: {expr}: {answer.get('error')}")
                continue
            results.append((target.get("legendFormat", ""), answer["data"]["result"]))
        body = (stat_html(panel, results, unit) if panel.get("type") == "stat"
                else series_svg(results, start, end, unit, int(pw), int(ph) - 26))
        boxes.append(f'<div class="panel" style="left:{px:.0f}px;top:{py:.0f}px;width:{pw:.0f}px;'
                     f'height:{ph:.0f}px"><h2>{html.escape(panel.get("title", ""))}</h2>{body}</div>')
    title = html.escape(board.get("title", "dashboard"))
    page = f"""<!doctype html><meta charset="utf-8"><title>{title}</title><style>
body{{margin:0;background:#111217;color:#ccccdc;font:13px system-ui,sans-serif}}
header{{padding:10px 14px;font-size:17px}} header small{{color:#8e8e9e;font-size:12px;margin-left:12px}}
main{{position:relative;margin:0 8px;height:{bottom}px}}
.panel{{position:absolute;background:#181b1f;border:1px solid #2c3235;border-radius:3px;overflow:hidden}}
h2{{font-size:13px;font-weight:500;margin:6px 10px 2px}} .none{{color:#8e8e9e;padding:10px}}
.stat{{display:inline-block;padding:4px 12px}} .stat b{{display:block;font-size:26px;color:#73bf69}}
.stat span{{font-size:11px;color:#8e8e9e}} .grid{{stroke:#2c3235}} .axis{{fill:#8e8e9e;font-size:10px}}
.keys{{padding:0 10px;font-size:11px;white-space:nowrap;overflow:hidden}} .keys span{{margin-right:12px}}
.keys i{{display:inline-block;width:12px;height:3px;margin:0 4px 3px 0}}
</style><header>{title}<small>last {minutes:g} min, drawn from Prometheus by scripts/dashboard_preview.py</small></header>
<main>{''.join(boxes)}</main>"""
    return page, refused


def screenshot(page: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        tab = browser.new_page(viewport={"width": WIDTH + 16, "height": 800})
        tab.set_content(page)
        tab.screenshot(path=str(out), full_page=True)
        browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dashboard", type=Path)
    ap.add_argument("--prometheus", default="http://127.0.0.1:9090", help="Prometheus' address")
    ap.add_argument("--out", type=Path, required=True, help="the PNG (or .html) to write")
    ap.add_argument("--minutes", type=float, default=15.0, help="the time range drawn")
    ap.add_argument("--var", action="append", default=[], metavar="NAME=REGEX",
                    help="a dashboard variable's value (default .*)")
    args = ap.parse_args(argv)
    try:
        variables = {}
        for item in args.var:
            name, eq, value = item.partition("=")
            if not eq or not name:
                raise Refused(f"--var {item!r}: give NAME=REGEX")
            variables[name] = value
        if not args.minutes > 0:
            raise Refused(f"--minutes {args.minutes}: give a positive number")
        board = load_dashboard(args.dashboard)
        page, refused = render(board, args.prometheus, variables, args.minutes)
    except Refused as exc:
        print(f"dashboard_preview: {exc}", file=sys.stderr)
        return 2
    if args.out.suffix == ".html":
        args.out.write_text(page)
    else:
        screenshot(page, args.out)
    for line in refused:
        print(f"dashboard_preview: refused: {line}", file=sys.stderr)
    print(f"{args.out}: {len(board['panels'])} panels, {len(refused)} queries refused")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
