// The floor page: renders /api/floor, then every picture the WebSocket pushes.
// Every word comes from the catalog (/i18n/words.js).
import { t, amount, loadWords, languageSwitch } from "/i18n/words.js";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return node;
}

// An incident's text in the page's language: by its message id (``say``, what
// the table gives it), else a device's fault named by its code (the device's
// own words beside it; a journal of an earlier release has no ``say``).
const DEVICE_FAULT = /^(20[1-5]|30[2-9]|3[1-9]\d|40\d|50\d)$/;
function incidentText(i) {
  if (i.say && i.say.id) return t(i.say.id, i.say.args || {}, i.text);
  return DEVICE_FAULT.test(String(i.code)) ? t(`fault.${i.code}`, { text: i.text || "" }, i.text) : i.text;
}

const FIG = ["rounds", "void", "bets", "wagered", "paid", "house_result", "hold_pct"];
const MONEY = ["wagered", "paid", "house_result"];

// Money in a column shows as many decimals on every row (the most any row of
// that column has): "2,613.7" above "4,820" read as two different units. Zeros
// are only added, never a digit taken away: the amounts stay exact.
let moneyPlaces = {};
function placesOf(rows) {
  const most = {};
  for (const k of MONEY) {
    most[k] = 0;
    for (const r of rows) {
      const m = String(r[k] ?? "").match(/\.(\d+)$/);
      if (m) most[k] = Math.max(most[k], m[1].length);
    }
  }
  return most;
}
function money(value, places) {
  if (value === undefined || value === null || value === "") return "";
  let text = String(value);
  const have = (text.match(/\.(\d+)$/) || [null, ""])[1].length;
  if (have < places) text = (have ? text : text + ".") + "0".repeat(places - have);
  return amount(text);
}
function figure(k, f) {
  if (k === "hold_pct") return f[k] == null ? "-" : amount(f[k]) + " %";
  return MONEY.includes(k) ? money(f[k], moneyPlaces[k] || 0) : amount(f[k]);
}

function figureRow(label, f, extra) {
  return el("tr", {}, el("td", {}, label), ...(extra || []).map(x => el("td", { class: "n" }, x)),
    ...FIG.map(k => el("td", { class: "n" }, figure(k, f))));
}

function renderFigures(data) {
  const table = document.getElementById("figures");
  table.replaceChildren(el("tr", {}, el("th", {}, ""), el("th", {}, t("floor.col.tables")), ...FIG.map(k => el("th", {}, t(`floor.col.${k}`)))));
  moneyPlaces = placesOf([data.floor, ...Object.values(data.games).flatMap(g => [g, ...Object.values(g.by_bet)])]);
  table.append(figureRow(t("floor.floor"), data.floor, [data.floor.tables]));
  for (const [game, g] of Object.entries(data.games)) {
    table.append(figureRow(gameName(game), g, [g.tables]));
    for (const [bet, f] of Object.entries(g.by_bet)) table.append(figureRow(`  ${gameName(game)} / ${t([`${game}.bet.${bet}`], null, bet)}`, f, [""]));
  }
}

function linkText(link) {
  if (!link) return el("span", { class: "muted" }, t("floor.not_heard"));
  const age = Math.round(Date.now() / 1000 - link.seen);
  const cls = link.state === "up" && age < 10 && !link.stalled ? "ok"
    : (link.state === "diverged" || link.stalled || link.silent ? "bad" : "warn");
  return el("span", { class: cls }, t("floor.link", { state: t(`link.${link.state}`, null, link.state), n: link.pending })
    + (link.stalled ? t("floor.stopped_publishing") : "") + (age >= 10 ? t("floor.silent", { s: age }) : ""));
}

function gameName(game) { return t([`game.${game}`], null, game || ""); }

function stateName(game, state) { return t([`${game}.state.${state}`, `state.${state}`], null, state || "-"); }

function renderTable(x) {
  const devices = x.devices.ok ? el("span", { class: "ok" }, t("floor.ok"))
    : el("span", { class: "bad" }, Object.entries(x.devices.links).filter(([, up]) => !up).map(([d]) => t("floor.link_down", { device: d }))
        .concat(x.devices.faults.map(f => t("floor.fault", { device: f.device, code: f.code }))).join(", "));
  const last = x.last_results[0];
  const f = x.figures;
  return el("div", { class: "card" },
    el("h2", {}, `${x.table_id} `, el("span", { class: "muted" }, gameName(x.game))),
    x.seq ? el("div", {}, x.round_id ? `${stateName(x.game, x.state)} · ${x.round_id}` : t("floor.no_round"))
      : el("div", { class: "warn" }, t("floor.no_record")),
    el("div", {}, t("floor.incidents") + " ", x.open_incidents.length
      ? el("span", { class: "warn" }, x.open_incidents.map(i => `#${i.id} ${incidentText(i)}`).join("; ")) : t("floor.none")),
    el("div", {}, t("floor.devices") + " ", devices),
    el("div", {}, t("floor.studio_link") + " ", linkText(x.studio_link)),
    el("div", {}, t("floor.on_duty") + " ", x.on_duty || el("span", { class: "muted" }, t("floor.none_on_duty"))),
    el("div", {}, t("floor.last_result") + " ", last ? `${last.round_id} ${t(`result.${last.status}`, null, last.status)}` : "-"),
    el("div", { class: "muted" }, t("floor.table_figures", { rounds: amount(f.rounds), wagered: amount(f.wagered), house: amount(f.house_result) })
      + (f.hold_pct == null ? "" : t("floor.hold", { pct: amount(f.hold_pct) }))),
    x.alerts ? el("div", { class: "bad" }, t("floor.alerts_n", { n: x.alerts })) : "");
}

function render(data) {
  const c = data.consumer;
  document.getElementById("consumer").textContent =
    `${c.url} · ${c.connected ? t("floor.connected") : t("floor.unreachable") + (c.error ? ": " + c.error : "")} · ` +
    t("floor.consumer", { records: amount(c.records), pending: amount(c.pending), rate: amount(c.records_per_second) });
  renderFigures(data);
  const alerts = document.getElementById("alerts");
  alerts.replaceChildren(...(data.alerts.length ? data.alerts.slice(0, 20).map(a => el("li", {}, t("floor.alert", { table: a.table_id, seq: a.seq, text: a.text })))
    : [el("li", { class: "muted" }, t("floor.none"))]));
  document.getElementById("tables").replaceChildren(...data.tables.map(renderTable));
}

function connect() {
  const conn = document.getElementById("conn");
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => { connKey = "floor.live"; conn.textContent = t(connKey); conn.className = "ok"; };
  ws.onmessage = (ev) => { last = JSON.parse(ev.data); render(last); groupedSoon(); };
  ws.onclose = () => { connKey = "floor.reconnecting"; conn.textContent = t(connKey); conn.className = "warn"; setTimeout(connect, 1000); };
}

// the figures per table for each shift, gaming day or dealer (as `studio report --by`): fetched again
// when the floor's picture changed, at most every 2 s (an idle floor asks nothing)
let groupedTimer = null;
function groupedSoon() {
  if (groupedTimer === null) groupedTimer = setTimeout(() => { groupedTimer = null; renderGrouped(); }, 2000);
}
function renderGrouped() {
  const by = document.getElementById("by").value;
  fetch(`/api/report?by=${by}`).then(r => r.json()).then(data => {
    const grid = document.getElementById("grouped");
    grid.replaceChildren(el("tr", {}, el("th", {}, t(`floor.by.${by}`, null, by)), el("th", {}, t("floor.col.table")),
      ...FIG.concat(["incidents"]).map(k => el("th", {}, t(`floor.col.${k}`, null, k)))));
    moneyPlaces = placesOf(data.rows);
    for (const r of data.rows) {
      grid.append(el("tr", {}, el("td", {}, r[by]), el("td", {}, r.table_id || t("floor.all_tables")),
        ...FIG.concat(["incidents"]).map(k => el("td", { class: "n" }, figure(k, r)))));
    }
  }).catch(() => {});
}
document.getElementById("by").onchange = renderGrouped;

let last = null;  // the latest picture: drawn again in another language
let connKey = "page.connecting";
await loadWords();
document.getElementById("conn").textContent = t(connKey);
document.getElementById("lang-switch").replaceChildren(languageSwitch(() => {
  document.getElementById("conn").textContent = t(connKey);
  if (last) render(last);
  renderGrouped();
}));
renderGrouped();  // after the words: drawn before them it showed their ids
fetch("/api/floor").then(r => r.json()).then((d) => { last = d; render(d); }).finally(connect);
