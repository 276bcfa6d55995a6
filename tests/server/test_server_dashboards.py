"""The Grafana dashboards (config/grafana/) and the Prometheus scrape
example (config/prometheus/): well formed, and every series they read is
one a service exposes (a renamed metric must not leave a panel empty)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
#: the modules that name every tablesim_* family the services expose
SOURCES = ["tablesim/harness/metrics.py", "tablesim/platform/metrics.py", "tablesim/studio/metrics.py",
           "tablesim/wallet/metrics.py"]
DASHBOARDS = sorted((ROOT / "config" / "grafana").glob("*.json"))


def exposed() -> set[str]:
    names: set[str] = set()
    for source in SOURCES:
        names |= set(re.findall(r'"(tablesim_[a-z_]+)"', (ROOT / source).read_text()))
    return names


def family(series: str) -> str:
    """A series name's family: without the suffix the text format adds."""
    return re.sub(r"_(total|bucket|count|sum)$", "", series)


def test_there_is_a_dashboard_for_a_table_and_for_the_studio():
    assert {p.name for p in DASHBOARDS} == {"tablesim-table.json", "tablesim-studio.json"}


@pytest.mark.parametrize("path", DASHBOARDS, ids=[p.stem for p in DASHBOARDS])
def test_each_panel_reads_series_the_services_expose(path):
    doc = json.loads(path.read_text())
    assert doc["uid"] and doc["title"].startswith("tablesim") and doc["panels"]
    assert [v["name"] for v in doc["templating"]["list"]][:1] == ["datasource"]
    ids = [p["id"] for p in doc["panels"]]
    assert len(ids) == len(set(ids))
    known = exposed()
    for panel in doc["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}" and panel["targets"], panel["title"]
        for target in panel["targets"]:
            names = re.findall(r"\btablesim_[a-z_]+", target["expr"])
            assert names or "up{" in target["expr"], (panel["title"], target["expr"])
            for name in names:
                assert family(name) in known, f"{path.name}: {panel['title']}: {name} is exposed by no service"
            assert target["expr"].count("(") == target["expr"].count(")"), target["expr"]


def test_the_scrape_example_names_every_service():
    doc = yaml.safe_load((ROOT / "config" / "prometheus" / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in doc["scrape_configs"]}
    assert {"tablesim-table", "tablesim-platform", "tablesim-floor", "tablesim-wallet"} <= set(jobs)
    for job in jobs.values():
        targets = [t for c in job["static_configs"] for t in c["targets"]]
        assert targets and all(re.fullmatch(r"[\w.-]+:\d+", t) for t in targets), job


# --- scripts/dashboard_preview.py: a dashboard drawn from Prometheus without Grafana ---------------

def _preview(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, str(ROOT / "scripts" / "dashboard_preview.py"), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("content, field", [("{", "not JSON"), ('{"title": "x"}', "'panels'")])
def test_the_preview_refuses_a_file_that_is_no_dashboard_in_one_line(tmp_path, content, field):
    bad = tmp_path / "board.json"
    bad.write_text(content)
    res = _preview(str(bad), "--out", str(tmp_path / "out.png"))
    assert res.returncode == 2 and field in res.stderr and str(bad) in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.png").exists()


def test_the_preview_says_in_one_line_that_prometheus_does_not_answer(tmp_path):
    from tablesim.harness.ports import free_port

    port = free_port()  # a port nothing listens on
    res = _preview(str(DASHBOARDS[0]), "--prometheus", f"http://127.0.0.1:{port}", "--out", str(tmp_path / "o.png"))
    assert res.returncode == 2 and f"--prometheus http://127.0.0.1:{port}: no answer" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


def test_the_preview_puts_the_variables_and_legends_where_grafana_would():
    import importlib.util

    spec = importlib.util.spec_from_file_location("dashboard_preview", ROOT / "scripts" / "dashboard_preview.py")
    preview = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(preview)
    assert preview.substitute('x{table=~"$table"} y{t=~"${table}"}', {"table": "F3.*"}) == 'x{table=~"F3.*"} y{t=~"F3.*"}'
    assert preview.substitute('x{table=~"$table"}', {}) == 'x{table=~".*"}'
    assert preview.legend("{{table}} p99", {"table": "F3-01"}) == "F3-01 p99"
    assert preview.legend("", {"__name__": "up", "job": "j"}) == "job=j"
    assert preview.fmt_number(0.0123, "s") == "12.3 ms"
