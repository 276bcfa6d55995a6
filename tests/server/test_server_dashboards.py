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
