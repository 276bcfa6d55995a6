// The floor page: renders /api/floor, then every picture the WebSocket pushes.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return node;
}

const FIG = ["rounds", "void", "bets", "wagered", "paid", "house_result", "hold_pct"];

function figureRow(label, f, extra) {
  return el("tr", {}, el("td", {}, label), ...(extra || []).map(x => el("td", { class: "n" }, x)),
    ...FIG.map(k => el("td", { class: "n" }, k === "hold_pct" ? (f[k] == null ? "-" : f[k] + " %") : f[k])));
}

function renderFigures(data) {
  const t = document.getElementById("figures");
  t.replaceChildren(el("tr", {}, el("th", {}, ""), el("th", {}, "tables"), ...FIG.map(k => el("th", {}, k.replace("_", " ")))));
  t.append(figureRow("floor", data.floor, [data.floor.tables]));
  for (const [game, g] of Object.entries(data.games)) {
    t.append(figureRow(game, g, [g.tables]));
    for (const [bet, f] of Object.entries(g.by_bet)) t.append(figureRow(`  ${game} / ${bet}`, f, [""]));
  }
}

function linkText(link) {
  if (!link) return el("span", { class: "muted" }, "not heard from (table stopped?)");
  const age = Math.round(Date.now() / 1000 - link.seen);
  const cls = link.state === "up" && age < 10 && !link.stalled ? "ok"
    : (link.state === "diverged" || link.stalled || link.silent ? "bad" : "warn");
  return el("span", { class: cls }, `${link.state}${link.stalled ? " (stopped publishing)" : ""}, ${link.pending} to publish`
    + (link.silent ? `, not heard from for ${age} s` : (age >= 10 ? `, silent ${age} s` : "")));
}

function renderTable(t) {
  const devices = t.devices.ok ? el("span", { class: "ok" }, "ok")
    : el("span", { class: "bad" }, Object.entries(t.devices.links).filter(([, up]) => !up).map(([d]) => `${d} link down`)
        .concat(t.devices.faults.map(f => `${f.device} fault ${f.code}`)).join(", "));
  const last = t.last_results[0];
  return el("div", { class: "card" },
    el("h2", {}, `${t.table_id} `, el("span", { class: "muted" }, t.game || "")),
    t.seq ? el("div", {}, t.round_id ? `${t.state || "-"} · ${t.round_id}` : "no round yet")
      : el("div", { class: "warn" }, "no record in the stream yet"),
    el("div", {}, "incidents: ", t.open_incidents.length
      ? el("span", { class: "warn" }, t.open_incidents.map(i => `#${i.id} ${i.text}`).join("; ")) : "none"),
    el("div", {}, "devices: ", devices),
    el("div", {}, "studio link: ", linkText(t.studio_link)),
    el("div", {}, "dealer on duty: ", t.on_duty || el("span", { class: "muted" }, "none signed in")),
    el("div", {}, "last result: ", last ? `${last.round_id} ${last.status}` : "-"),
    el("div", { class: "muted" }, `rounds ${t.figures.rounds} · wagered ${t.figures.wagered} · house ${t.figures.house_result}`
      + (t.figures.hold_pct == null ? "" : ` · hold ${t.figures.hold_pct} %`)),
    t.alerts ? el("div", { class: "bad" }, `${t.alerts} alert(s)`) : "");
}

function render(data) {
  const c = data.consumer;
  document.getElementById("consumer").textContent =
    `${c.url} · ${c.connected ? "connected" : "broker unreachable" + (c.error ? ": " + c.error : "")} · ` +
    `${c.records} records · ${c.pending} behind · ${c.records_per_second} records/s`;
  renderFigures(data);
  const alerts = document.getElementById("alerts");
  alerts.replaceChildren(...(data.alerts.length ? data.alerts.slice(0, 20).map(a => el("li", {}, `${a.table_id} record ${a.seq}: ${a.text}`))
    : [el("li", { class: "muted" }, "none")]));
  document.getElementById("tables").replaceChildren(...data.tables.map(renderTable));
}

function connect() {
  const conn = document.getElementById("conn");
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => { conn.textContent = "live"; conn.className = "ok"; };
  ws.onmessage = (ev) => render(JSON.parse(ev.data));
  ws.onclose = () => { conn.textContent = "reconnecting..."; conn.className = "warn"; setTimeout(connect, 1000); };
}

// the figures per table for each shift, gaming day or dealer (as `studio report --by`), every few seconds
function renderGrouped() {
  const by = document.getElementById("by").value;
  fetch(`/api/report?by=${by}`).then(r => r.json()).then(data => {
    const t = document.getElementById("grouped");
    t.replaceChildren(el("tr", {}, el("th", {}, by), el("th", {}, "table"),
      ...FIG.concat(["incidents"]).map(k => el("th", {}, k.replace("_", " ")))));
    for (const r of data.rows) {
      t.append(el("tr", {}, el("td", {}, r[by]), el("td", {}, r.table_id || "all tables"),
        ...FIG.concat(["incidents"]).map(k => el("td", { class: "n" },
          k === "hold_pct" ? (r[k] == null ? "-" : r[k] + " %") : r[k]))));
    }
  }).catch(() => {});
}
document.getElementById("by").onchange = renderGrouped;
setInterval(renderGrouped, 5000);
renderGrouped();

fetch("/api/floor").then(r => r.json()).then(render).finally(connect);
