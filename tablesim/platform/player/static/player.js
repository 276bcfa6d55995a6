// The remote player's page: the lobby and one table at a time, over the
// platform's WebSocket (/ws; the protocol is in docs/player.md). Every word
// comes from the catalogs (words.js); amounts stay decimal texts throughout.
import { loadWords, t, has, amount, languageSwitch, fillTexts } from "/i18n/words.js";
import { add, times, sign } from "/player/money.js";
import { scene } from "/player/scene.js";

const $ = (id) => document.getElementById(id);
const CHIPS = [1, 5, 25, 100, 500];
const S = {
  session: null, me: null, ws: null, tables: {}, table: null, offset: 0, chip: null,
  pending: [], // [{bet, amount}] in the order the chips went down (undo takes the last)
  placed: {}, // bet -> amount placed this round (acknowledged by the table)
  last: [], // the bets of the player's last round at this table (rebet)
  events: [], result: null, recall: [], missed: [], seen: 0, backoff: 500, pingAt: {}, n: 0,
};

export function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el[k] = v; else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== "") el.append(kid);
  return el;
}

// An amount with thousands separators and the table's currency code.
export function money(value, currency) {
  if (value === null || value === undefined) return "—";
  return `${amount(value)} ${currency || (S.me && S.me.currency) || ""}`.trim();
}

function stateName(game, state) {
  return t([`${game}.state.${state}`, `state.${state}`], null, state || "—");
}

export function betName(game, bet) {
  return t([`${game}.bet.${bet}`, `player.symbol.${bet}`], null, bet);
}

// A refusal in the player's language: the table's reason when the catalog has it, else its message.
function refusalText(body) {
  const r = (body.reason && typeof body.reason === "object" && body.reason) || body.say;
  if (r && typeof r.id === "string" && has(r.id)) return t(r.id, r.args || r.params || {});
  return body.message || body.status || "";
}

// A line of the page's (what was said, the connection's state): ``words`` is
// called again when the language is switched, so the line follows it.
function say(words, bad = false) {
  S.said = [words, bad];
  const el = $("said");
  el.textContent = words();
  el.className = bad ? "said bad" : "said";
}

// --- the connection ------------------------------------------------------------

async function openSession() {
  // the operator's launch link carries the token in the fragment (never sent to a server's log) or the query
  const url = new URL(location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const token = fragment.get("token") || url.searchParams.get("token");
  if (token) {
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  // a launch token opens one session: the same link again (a reload of it) keeps the session it opened
  if (token && !(token === sessionStorage.getItem("tablesim.launch") && sessionStorage.getItem("tablesim.session"))) {
    const res = await fetch("/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) { linkState(() => t("player.session_refused", { message: refusalText(body) }), true); return null; }
    sessionStorage.setItem("tablesim.session", body.session);
    sessionStorage.setItem("tablesim.launch", token);
  }
  return sessionStorage.getItem("tablesim.session");
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  S.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify({ type: "hello", session: S.session, seen: S.seen || undefined }));
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    if (S.ws !== ws) return;
    S.ws = null;
    linkState(() => t("player.reconnecting"), true);
    setTimeout(connect, S.backoff);
    S.backoff = Math.min(S.backoff * 2, 5000);
  };
}

function send(doc) {
  if (S.ws && S.ws.readyState === 1) { S.ws.send(JSON.stringify(doc)); return true; }
  return false;
}

function request(type, body) {
  S.n += 1;
  send({ type, id: S.n, ...body });
  return S.n;
}

function linkState(words, down) {
  S.link = [words, down];
  const el = $("link");
  el.textContent = words();
  el.className = down ? "link-state down" : "link-state";
}

// --- what the platform says ----------------------------------------------------

const HANDLERS = {
  welcome(m) {
    S.me = m; S.backoff = 500; S.offset = m.now - Date.now();
    linkState(() => t("player.connected"), false);
    showBalance(m.balance);
    S.recall = m.recall; S.missed = m.missed || [];
    noteSeen(m.recall);
    for (const tb of m.tables) S.tables[tb.table] = tb;
    renderMissed(); renderRecall(); renderLobby();
    const back = S.table || sessionStorage.getItem("tablesim.table");
    if (back) watch(back);
  },
  lobby(m) {
    for (const tb of m.tables) S.tables[tb.table] = { ...S.tables[tb.table], ...tb };
    renderLobby();
    if (S.table && S.tables[S.table]) { S.tables[S.table].players = m.tables.find((x) => x.table === S.table)?.players; renderHead(); }
  },
  table(m) {
    S.tables[m.table] = m; S.events = m.events || []; S.placed = {};
    // back in the middle of the decisions (a reconnect): the table's own decision timer, as it started
    const timer = m.state === "decisions" ? S.events.filter((e) => e.kind === "remote_decisions" && e.data.seconds).pop() : null;
    if (timer) m.decisionTimer = { closes_at: Date.parse(timer.ts) + timer.data.seconds * 1000 };
    for (const b of m.mine || []) S.placed[b.bet] = add(S.placed[b.bet] || "0", b.amount);
    renderTable();
  },
  mine(m) {  // the player's standing bets once the table's record of them is read (after a reload, too)
    const tb = S.tables[m.table];
    if (m.table !== S.table || !tb || tb.round_id !== m.round_id) return;
    S.placed = {};
    for (const b of m.mine || []) S.placed[b.bet] = add(S.placed[b.bet] || "0", b.amount);
    renderSpots();
  },
  event(m) {
    if (m.table !== S.table) return;
    const tb = S.tables[m.table];
    if (m.kind === "state") {
      tb.state = m.data.state; tb.round_id = m.round_id; tb.betting = m.data.state === "betting_open";
      if (tb.betting) newRound(tb);
      if (m.data.previous === "betting_open") tb.timer = null;
      if (m.data.state !== "decisions") tb.decisionTimer = null;
    }
    if (m.kind === "remote_decisions" && m.data.seconds) {  // the table's own decision timer, from when it started
      tb.decisionTimer = { closes_at: Date.parse(m.ts) + m.data.seconds * 1000 };
    }
    S.events.push(m);
    renderHead(); renderScene(); renderSpots();
  },
  outcome(m) {
    if (m.table !== S.table) return;
    S.events.push(m); renderScene();
  },
  result(m) {
    noteSeen([m]);
    S.recall = [m, ...S.recall.filter((r) => r.round_id !== m.round_id || r.table !== m.table)].slice(0, 10);
    renderRecall();
    if (m.table === S.table) { S.result = m; renderResult(); renderSpots(); }
    // the credit follows the result (whichever platform process settles it): ask again a little later
    for (const wait of [800, 2500, 6000]) setTimeout(() => request("balance", {}), wait);
  },
  recall(m) { S.recall = m.rounds; renderRecall(); },
  pong(m) {
    const sent = S.pingAt[m.t];
    delete S.pingAt[m.t];
    if (sent === undefined) return;
    const ms = Math.round(performance.now() - sent);
    const el = $("latency");
    el.textContent = t("player.latency", { ms });
    el.className = ms > 250 ? "latency slow" : "latency";
  },
  answer(m) {
    if (m.ok === false && m.status === "no_session") { sessionStorage.removeItem("tablesim.session"); linkState(() => t("player.no_session"), true); S.ws = null; return; }
    if (m.kind === "balance" && m.ok) { showBalance(m.balance); return; }
    if (m.kind === "decide" && m.decision === "fold") S.decided = m.round || S.tables[S.table]?.round_id;
    if (m.ok === false) {
      // a Play the wallet refused is a fold: said beside the reason
      const folded = () => (m.kind === "decide" && m.decision === "fold" ? ` ${t("player.you_fold")}` : "");
      say(() => t("player.refused", { message: refusalText(m) }) + folded(), true);
      if (m.balance) showBalance(m.balance);
      renderHead();
      return;
    }
    if (m.kind === "decide") {
      const tb = S.tables[S.table];
      S.decided = m.round;
      if (m.balance) showBalance(m.balance);
      say(() => (m.decision === "play" ? t("player.you_play", { amount: money(m.stake, tb && tb.currency) }) : t("player.you_fold")));
      renderHead();
      return;
    }
    if (m.kind === "bet" && m.status === "placed") {
      const tb = S.tables[S.table];
      const bet = S.inFlight[m.id];
      if (bet) S.placed[bet.bet] = add(S.placed[bet.bet] || "0", bet.amount);
      showBalance(m.balance);
      say(() => t("player.placed_ok", { bet: bet ? betName(tb.game, bet.bet) : "", amount: money(m.amount, tb.currency) }));
      renderSpots();
    }
  },
};
S.inFlight = {};

function onMessage(m) {
  const fn = HANDLERS[m.type];
  if (fn) fn(m);
}

function noteSeen(rounds) {
  for (const r of rounds || []) if (r.seq > S.seen) S.seen = r.seq;
  sessionStorage.setItem("tablesim.seen", String(S.seen));
}

function showBalance(value) {
  if (value !== null && value !== undefined) $("balance").textContent = money(value, S.me && S.me.currency);
}

function newRound(tb) {
  if (Object.keys(S.placed).length) S.last = Object.entries(S.placed).map(([bet, a]) => ({ bet, amount: a }));
  S.placed = {}; S.pending = []; S.events = []; S.result = null;
  $("result").hidden = true;
  tb.timer = tb.bet_seconds ? { closes_at: Date.now() + S.offset + tb.bet_seconds * 1000, seconds: tb.bet_seconds } : null;
}

// --- the views -----------------------------------------------------------------

function lastText(game, r) {
  if (r.status !== "settled") return t("state.void");
  if (game === "wheel") return betName("wheel", r.symbol);
  if (game === "football") return `${t("player.draw", { draw: r.draw })} · ${t("player.total", { total: r.total })}`;
  return r.hand ? t(`fortune3.hand.${r.hand}`, null, r.hand) : "—";
}

function limitsOf(tb) {
  const all = Object.values(tb.limits || {});
  if (!all.length) return ["—", "—"];
  const low = all.map((l) => l.min).sort((a, b) => sign(add(a, `-${b}`)))[0];
  const high = all.map((l) => l.max).sort((a, b) => sign(add(b, `-${a}`)))[0];
  return [low, high];
}

function renderLobby() {
  const box = $("tables");
  box.replaceChildren(...Object.values(S.tables).map((tb) => {
    const [low, high] = limitsOf(tb);
    return h("div", { class: "table-card", "data-table": tb.table },
      h("b", {}, t(`game.${tb.game}`, null, tb.game)),
      h("span", {}, t("player.table", { table: tb.table })),
      h("span", { class: "state" }, stateName(tb.game, tb.state)),
      h("span", { class: "small" }, t("player.limits", { min: money(low, tb.currency), max: money(high, tb.currency) })),
      h("span", { class: "small" }, t("player.players", { n: tb.players || 0 })),
      h("span", { class: "small" }, t("player.last_results")),
      h("div", { class: "last" }, (tb.last || []).length ? tb.last.map((r) => h("span", {}, lastText(tb.game, r))) : t("player.no_results")),
      h("button", { class: "primary", onclick: () => watch(tb.table) }, t("player.open_table")));
  }));
}

function watch(table) {
  if (!S.tables[table]) return;
  S.table = table; S.pending = []; S.result = null; S.last = [];
  sessionStorage.setItem("tablesim.table", table);
  send({ type: "watch", table });
  $("lobby-view").hidden = true; $("table-view").hidden = false;
}

function toLobby() {
  S.table = null;
  sessionStorage.removeItem("tablesim.table");
  send({ type: "watch", table: null });
  $("lobby-view").hidden = false; $("table-view").hidden = true;
  renderLobby();
}

function renderHead() {
  const tb = S.tables[S.table];
  if (!tb) return;
  $("table-title").textContent = `${t(`game.${tb.game}`, null, tb.game)} · ${t("player.table", { table: tb.table })}`;
  $("round").textContent = tb.round_id ? t("player.round", { round: tb.round_id }) : "";
  $("state").textContent = stateName(tb.game, tb.state);
  const f3 = tb.game === "fortune3";
  $("fold-notice").hidden = !f3;
  $("decide").hidden = !(f3 && tb.state === "decisions" && S.decided !== tb.round_id);
  tick();
}

function renderTable() {
  const tb = S.tables[S.table];
  renderHead(); renderScene(); renderSpots();
  $("unit").textContent = t("player.unit", { unit: money(tb.unit, tb.currency) });
  $("chips").replaceChildren(...CHIPS.map((k) => {
    const value = times(tb.unit, k);
    return h("button", { class: S.chip === value ? "chip on" : "chip", "data-amount": value, onclick: () => { S.chip = value; renderTable(); } }, amount(value));
  }));
  renderResult();
}

function renderScene() {
  const tb = S.tables[S.table];
  if (tb) $("scene").replaceChildren(...scene(tb, S.events, { t, h, betName }));
}

function stakeOn(bet) {
  return S.pending.filter((p) => p.bet === bet).reduce((sum, p) => add(sum, p.amount), "0");
}

function renderSpots() {
  const tb = S.tables[S.table];
  if (!tb || !tb.layout) return;
  const won = S.result ? new Set(S.result.bets.filter((b) => b.net && sign(b.net) > 0).map((b) => b.bet)) : new Set();
  const pays = Object.fromEntries((tb.layout.symbols || []).map((s) => [s.name, s.pays]));
  $("spots").replaceChildren(...tb.layout.bets.map((bet) => {
    const lim = (tb.limits || {})[bet] || {};
    const pending = stakeOn(bet);
    return h("button", { class: won.has(bet) ? "spot win" : "spot", "data-bet": bet, disabled: !tb.betting, onclick: () => addChip(bet) },
      h("span", { class: "name" }, betName(tb.game, bet)),
      pays[bet] ? h("span", { class: "small" }, t("player.pays", { pays: pays[bet] })) : null,
      h("span", { class: "small" }, t("player.spot_limits", { min: amount(lim.min), max: amount(lim.max) })),
      h("span", { class: "stake" }, S.placed[bet] ? t("player.placed", { amount: money(S.placed[bet], tb.currency) }) : "",
        sign(pending) ? ` ${t("player.pending", { amount: money(pending, tb.currency) })}` : ""));
  }));
  for (const id of ["place", "undo", "clear", "rebet", "double"]) $(id).disabled = !tb.betting;
}

function addChip(bet) {
  if (!S.chip) { say(() => t("player.nothing_to_place"), true); return; }
  S.pending.push({ bet, amount: S.chip });
  renderSpots();
}

function place() {
  const tb = S.tables[S.table];
  const per = {};
  for (const p of S.pending) per[p.bet] = add(per[p.bet] || "0", p.amount);
  S.pending = [];
  for (const [bet, a] of Object.entries(per)) {
    const body = { table: tb.table, bet, amount: a };
    if (tb.position === "box" && tb.box) body.position = tb.box;
    S.inFlight[request("bet", body)] = { bet, amount: a };
  }
  renderSpots();
}

function renderResult() {
  const el = $("result");
  const r = S.result;
  const tb = S.tables[S.table];
  if (!r || !tb) { el.hidden = true; return; }
  el.hidden = false;
  el.replaceChildren(resultBody(r, tb.game, tb.currency));
}

function netClass(net) { return net && sign(net) > 0 ? "pos" : net && sign(net) < 0 ? "neg" : ""; }

function resultBody(r, game, currency) {
  if (r.status === "void") return h("div", {}, h("b", {}, t("player.your_result")), " ", voidText(r));
  return h("div", {},
    h("b", {}, t("player.your_result")),
    h("ul", {}, r.bets.map((b) => h("li", { "data-bet": b.bet },
      t("player.bet_net", { bet: betName(game, b.bet), amount: money(b.amount, currency), net: "" }),
      h("span", { class: netClass(b.net) }, money(b.net, currency))))),
    h("div", { class: "round-net" }, t("player.round_net", { net: "" }), h("b", { class: netClass(r.net) }, money(r.net, currency)),
      " · ", t("player.returned", { amount: money(r.returned, currency) })));
}

// A void round's line: why, when this view saw it (the table's code in the catalog's words).
function voidText(r) {
  const e = S.events.find((x) => x.round_id === r.round_id && (x.type === "outcome" || x.kind === "void"));
  const code = e && (e.void_reason || (e.data && e.data.reason));
  return code ? t("player.void_reason", { reason: t(`void.${code}`, null, code) }) : t("player.void");
}

function recallLine(r) {
  const tb = S.tables[r.table] || {};
  const game = tb.game || "";
  const o = r.outcome || {};
  const what = r.status !== "settled" ? t("state.void")
    : game === "wheel" ? t("player.symbol", { symbol: betName("wheel", o.symbol) })
      : game === "football" ? t("player.draw", { draw: o.draw })
        : o.dealer && o.dealer.hand ? `${t("player.dealer_hand")}: ${t(`fortune3.hand.${o.dealer.hand}`, null, o.dealer.hand)}` : "";
  return h("li", { class: S.missed.includes(r.round_id) ? "missed-round" : "", "data-round": r.round_id },
    h("div", {}, h("b", {}, r.round_id), " · ", what),
    resultBody(r, game, tb.currency));
}

function renderRecall() {
  const list = $("recall");
  list.replaceChildren(...(S.recall.length ? S.recall.map(recallLine) : [h("li", {}, t("player.recall_empty"))]));
}

function renderMissed() {
  const el = $("missed");
  el.hidden = !S.missed.length;
  el.textContent = S.missed.length ? t("player.missed", { n: S.missed.length }) : "";
}

// The clock, the bet timer and the latency meter.
function tick() {
  $("clock").textContent = new Date().toLocaleTimeString(document.documentElement.lang || undefined, { hour12: false });
  const tb = S.tables[S.table];
  const el = $("timer");
  if (!tb) return;
  if (tb.betting && tb.timer) {
    const left = Math.max(0, Math.ceil((tb.timer.closes_at - (Date.now() + S.offset)) / 1000));
    el.textContent = t("player.timer", { s: left });
  } else if (tb.state === "decisions" && tb.decisionTimer) {
    const left = Math.max(0, Math.ceil((tb.decisionTimer.closes_at - (Date.now() + S.offset)) / 1000));
    el.textContent = t("player.decision_timer", { s: left });
  } else {
    el.textContent = tb.betting ? t("player.betting_open") : t("player.betting_closed");
  }
}

function ping() {
  const key = Math.round(performance.now() * 1000);
  S.pingAt[key] = performance.now();
  if (!send({ type: "ping", t: key })) delete S.pingAt[key];
}

function wire() {
  $("to-lobby").onclick = toLobby;
  $("place").onclick = place;
  $("undo").onclick = () => { S.pending.pop(); renderSpots(); };
  $("clear").onclick = () => { S.pending = []; renderSpots(); };
  $("rebet").onclick = () => { S.pending = S.last.map((b) => ({ ...b })); renderSpots(); };
  $("double").onclick = () => {
    const base = S.pending.length ? S.pending : Object.entries(S.placed).map(([bet, a]) => ({ bet, amount: a }));
    S.pending = [...S.pending, ...base.map((b) => ({ ...b }))];
    renderSpots();
  };
  for (const [id, decision] of [["play", "play"], ["fold", "fold"]]) {
    $(id).onclick = () => request("decide", { table: S.table, round: S.tables[S.table].round_id, decision });
  }
}

async function main() {
  await loadWords();
  $("langs").append(languageSwitch(() => { fillTexts(); if (S.link) linkState(...S.link); if (S.said) say(...S.said); renderLobby(); renderMissed(); renderRecall(); if (S.table && S.tables[S.table].layout) renderTable(); }));
  wire();
  S.seen = Number(sessionStorage.getItem("tablesim.seen") || 0);
  S.session = await openSession();
  if (!S.session) { if (!$("link").textContent) linkState(() => t("player.no_session"), true); return; }
  connect();
  setInterval(tick, 250);
  setInterval(ping, 2000);
  setTimeout(ping, 300);
  tick();
}

main();
