// The remote player's page: the lobby and one table at a time, over the
// platform's WebSocket (/ws; the protocol is in docs/player.md). Every word
// comes from the catalogs (words.js); amounts stay decimal texts throughout.
// No game is named here: what differs between games comes with the table
// from its game's remote view (``scene``, the shared ``hand``, ``box``, the
// layout and rules) and each result with its game's ``short``.
import { loadWords, t, has, amount, languageSwitch, fillTexts } from "/i18n/words.js";
import { add, times, sign } from "/player/money.js";
import { scene } from "/player/scene.js";
import { spot, rack, arrangement } from "/player/felt.js";
import { paytable, roadmap, short } from "/player/rules.js";

const $ = (id) => document.getElementById(id);
//: seconds of the bet timer that are its "last bets"
const LAST_BETS = 5;
// the latency meter's round trip, measured this often (ms) while the player plays (a click, a touch or
// a key within ACTIVE_FOR), and every PING_IDLE while the page is only watched: each ping is a message
// the platform answers on its own socket, so 5,000 pages pinging every 5 s were 1,000 answers a second,
// a seventh of the platform's CPU while bets came, most of them to pages nobody was playing on (the
// simulated players of the load script read these figures here and do the same)
const PING_EVERY = 5000;
const PING_IDLE = 30000;
const ACTIVE_FOR = 60000;
// after a round's result, when the balance is asked of the wallet if the platform has not told it
// yet (ms): the platform tells each page the balance its credit left as soon as the wallet
// confirmed it (a "balance" message); this ask is for a note lost on the way
const BALANCE_AFTER = 6000;
//: where a browser keeps each player's last result seen (every tab of it: a missed round is marked in any)
const SEEN_KEY = "tablesim.seen";
const S = {
  pingedAt: -Infinity, actedAt: -Infinity, // (performance.now() of the last ping, and of the player's last act)
  session: null, me: null, ws: null, tables: {}, table: null, offset: 0, chip: null,
  pending: [], // [{bet, amount}] in the order the chips went down (undo takes the last)
  // What a spot shows placed is the table's record of the player's bets (``mine``: per spot, with
  // the bets' ids) plus the bets answered ``placed`` that the record did not hold yet: each bet once.
  mine: {}, mineIds: new Set(), acked: {}, // acked: bet id -> {bet, amount}
  last: [], // the bets of the player's last round at this table (rebet)
  events: [], result: null, recall: [], missed: [], seen: 0, backoff: 500, pingAt: {}, n: 0, balanceTold: 0,
  roadmap: [], lastWin: null, batch: null, up: false,
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

function setMine(list) {
  S.mine = {}; S.mineIds = new Set();
  for (const b of list || []) {
    S.mine[b.bet] = add(S.mine[b.bet] || "0", b.amount);
    for (const id of b.ids || []) S.mineIds.add(id);
  }
}

// bet -> amount placed this round, as the table holds it
function placedNow() {
  const out = { ...S.mine };
  for (const [id, a] of Object.entries(S.acked)) if (!S.mineIds.has(id)) out[a.bet] = add(out[a.bet] || "0", a.amount);
  return out;
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
    S.pingAt = {};
    showLatency(null);  // (no figure while the link is down: the last one would be a lie)
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
  S.up = !down;
  const el = $("link");
  el.textContent = words();
  el.className = down ? "link-state down" : "link-state";
  if (S.table && S.tables[S.table] && S.tables[S.table].layout) renderSpots();
}

function showLatency(ms) {
  S.latency = ms;
  const el = $("latency");
  el.textContent = ms === null ? t("player.latency_none") : t("player.latency", { ms });
  el.className = ms !== null && ms > 250 ? "latency slow" : "latency";
}

// --- what the platform says ----------------------------------------------------

const HANDLERS = {
  welcome(m) {
    S.me = m; S.backoff = 500; S.offset = m.now - Date.now();
    linkState(() => t("player.connected"), false);
    showBalance(m.balance);
    S.recall = m.recall;
    // missed: what this tab's hello said, and what settled since this browser last saw a result of the player's
    const before = seenBefore(m.player);
    S.missed = [...new Set([...(m.missed || []), ...m.recall.filter((r) => before !== null && r.seq > before).map((r) => r.round_id)])];
    noteSeen(m.recall);
    for (const tb of m.tables) S.tables[tb.table] = tb;
    renderMissed(); renderRecall(); renderLobby();
    const back = S.table || sessionStorage.getItem("tablesim.table");
    if (back) watch(back);
  },
  lobby(m) {
    const drawn = (tb) => JSON.stringify(tb && tb.layout && tb.layout.rules);
    const before = drawn(S.tables[S.table]);
    for (const tb of m.tables) S.tables[tb.table] = { ...S.tables[tb.table], ...tb };
    renderLobby();
    if (S.table && S.tables[S.table]) {
      S.tables[S.table].players = m.tables.find((x) => x.table === S.table)?.players;
      // a round began under another profile than the page drew: the felt, the paytable and the scene again
      if (drawn(S.tables[S.table]) !== before) renderTable(); else renderHead();
    }
  },
  table(m) {
    // (an answer to a watch this page has left since, for the lobby or another table: the lobby's
    // messages keep its card; drawn, it was another table's picture, or a TypeError in the lobby)
    if (m.table !== S.table) return;
    const was = S.tables[m.table];
    if (!was || was.round_id !== m.round_id) { S.acked = {}; S.pending = []; }
    S.tables[m.table] = m; S.events = m.events || [];
    S.roadmap = m.roadmap || [];
    // back in the middle of the decisions (a reconnect): the table's own decision timer, as it started
    const timer = m.hand && m.state === m.hand.deciding ? S.events.filter((e) => e.kind === "remote_decisions" && e.data.seconds).pop() : null;
    if (timer) m.decisionTimer = { closes_at: Date.parse(timer.ts) + timer.data.seconds * 1000, seconds: timer.data.seconds };
    setMine(m.mine);
    renderTable();
  },
  mine(m) {  // the player's standing bets once the table's record of them is read (after a reload, too)
    const tb = S.tables[m.table];
    if (m.table !== S.table || !tb || tb.round_id !== m.round_id) return;
    setMine(m.mine);
    renderSpots();
  },
  event(m) {
    if (m.table !== S.table) return;
    const tb = S.tables[m.table];
    if (m.kind === "state") {
      // a shared hand's decisions closed and this player, with a bet they stake on the hand, never decided:
      // the table gave them the hand's default (Fortune 3: the Ante's player folded)
      const hand = tb.hand;
      // (not while this page's own decision is on its way: its answer may come after the close)
      if (hand && m.data.previous === hand.deciding && S.decided !== tb.round_id && S.deciding !== tb.round_id
          && Object.values(hand.stakes || {}).some((bet) => sign(placedNow()[bet] || "0") > 0)) {
        S.timedOut = tb.round_id;
        say(() => timedOutText(tb), true);
      }
      tb.state = m.data.state; tb.round_id = m.round_id; tb.betting = m.data.state === "betting_open";
      if (tb.betting) newRound(tb);
      if (m.data.previous === "betting_open") tb.timer = null;
      if (!tb.hand || m.data.state !== tb.hand.deciding) tb.decisionTimer = null;
    }
    if (m.kind === "remote_decisions" && m.data.seconds) {  // the table's own decision timer, from when it started
      tb.decisionTimer = { closes_at: Date.parse(m.ts) + m.data.seconds * 1000, seconds: m.data.seconds };
    }
    S.events.push(m);
    renderHead(); renderScene(); renderSpots();
  },
  outcome(m) {
    if (m.table !== S.table) return;
    S.events.push(m);
    const tb = S.tables[m.table];
    S.roadmap = [short(m), ...S.roadmap.filter((r) => r.round_id !== m.round_id)].slice(0, 50);
    renderScene(); renderRoadmap();
  },
  result(m) {
    noteSeen([m]);
    S.recall = [m, ...S.recall.filter((r) => r.round_id !== m.round_id || r.table !== m.table)].slice(0, 10);
    renderRecall();
    if (m.table === S.table) {
      S.result = m;
      if (m.status === "settled" && sign(m.net) > 0) S.lastWin = m.net;
      renderResult(); renderSpots();
    }
    // the credit follows the result: told by the platform once the wallet confirmed it, else asked later
    const told = S.balanceTold;
    setTimeout(() => { if (S.balanceTold === told) request("balance", {}); }, BALANCE_AFTER);
  },
  balance(m) { S.balanceTold += 1; showBalance(m.balance); },
  recall(m) { S.recall = m.rounds; renderRecall(); },
  pong(m) {
    const sent = S.pingAt[m.t];
    delete S.pingAt[m.t];
    if (sent === undefined) return;
    showLatency(Math.round(performance.now() - sent));
  },
  answer(m) {
    if (m.ok === false && m.status === "no_session") { sessionStorage.removeItem("tablesim.session"); linkState(() => t("player.no_session"), true); S.ws = null; return; }
    if (m.kind === "balance" && m.ok) { showBalance(m.balance); return; }
    // a decision answered (a stake the wallet refused is the hand's default, a fold): not a default on time-out
    const hand = S.tables[S.table]?.hand;
    const isDefault = m.kind === "decide" && hand && m.decision === hand.default;
    if (m.kind === "decide" && (isDefault || m.status !== "not_deciding")) S.decided = m.round || S.tables[S.table]?.round_id;
    if (m.ok === false && m.kind === "decide" && m.status === "not_deciding" && !isDefault) {
      // this page's decision came after the decisions closed: the table took the hand's default on time-out
      const tb = S.tables[S.table];
      if (tb && S.deciding === tb.round_id && S.decided !== tb.round_id) S.timedOut = tb.round_id;
    }
    if (m.ok === false) {
      // a stake the wallet refused: the hand's default taken, said beside the reason
      const taken = () => (isDefault ? ` ${decidedText(S.tables[S.table], m.decision, m.stake)}` : "");
      say(() => t("player.refused", { message: refusalText(m) }) + taken(), true);
      if (m.balance) showBalance(m.balance);
      renderHead();
      return;
    }
    if (m.kind === "decide") {
      const tb = S.tables[S.table];
      S.decided = m.round;
      // The decisions can close before this answer comes (the last player's decision closes them, and
      // the table's state reaches the page on another path than the answer): a decision, not a time-out.
      if (S.timedOut === m.round) S.timedOut = null;
      if (m.balance) showBalance(m.balance);
      say(() => decidedText(tb, m.decision, m.stake));
      renderHead();
      if (S.result) renderResult();
      return;
    }
    if (m.kind === "bet" && m.status === "placed") {
      const tb = S.tables[S.table];
      const bet = S.inFlight[m.id];
      delete S.inFlight[m.id];
      if (bet && m.bet_id && (!bet.round || bet.round === tb.round_id)) S.acked[m.bet_id] = { bet: bet.bet, amount: bet.amount };
      showBalance(m.balance);
      // the line says every bet of the last Place bets the table took, not only the last
      const done = S.batch && bet && S.batch.ids.includes(m.id) ? S.batch.done : [];
      done.push({ bet: bet ? bet.bet : "", amount: m.amount, game: tb.game, currency: tb.currency });
      say(() => (done.length > 1 ? t("player.placed_all", { bets: done.map((d) => `${betName(d.game, d.bet)} ${money(d.amount, d.currency)}`).join(", ") })
        : t("player.placed_ok", { bet: bet ? betName(tb.game, bet.bet) : "", amount: money(m.amount, tb.currency) })));
      renderSpots();
    }
  },
};
S.inFlight = {};

function onMessage(m) {
  const fn = HANDLERS[m.type];
  if (fn) fn(m);
}

function seenMap() {
  try { return JSON.parse(localStorage.getItem(SEEN_KEY) || "{}") || {}; } catch (e) { return {}; }
}

// The player's last result this browser showed (any tab), or null (never).
function seenBefore(player) {
  const v = seenMap()[player];
  return Number.isInteger(v) ? v : null;
}

function noteSeen(rounds) {
  for (const r of rounds || []) if (r.seq > S.seen) S.seen = r.seq;
  sessionStorage.setItem("tablesim.seen", String(S.seen));
  if (S.me && S.me.player) {
    const all = seenMap();
    if (!(all[S.me.player] >= S.seen)) { all[S.me.player] = S.seen; localStorage.setItem(SEEN_KEY, JSON.stringify(all)); }
  }
}

function showBalance(value) {
  if (value !== null && value !== undefined) $("balance").textContent = money(value, S.me && S.me.currency);
}

function newRound(tb) {
  const placed = placedNow();
  if (Object.keys(placed).length) S.last = Object.entries(placed).map(([bet, a]) => ({ bet, amount: a }));
  S.mine = {}; S.mineIds = new Set(); S.acked = {}; S.pending = []; S.events = []; S.result = null; S.timedOut = null;
  $("result").hidden = true;
  $("banner").hidden = true;  // (the last round's banner stays until this one opens)
  tb.timer = tb.bet_seconds ? { closes_at: Date.now() + S.offset + tb.bet_seconds * 1000, seconds: tb.bet_seconds } : null;
}

// --- the views -----------------------------------------------------------------

// A short result (the game's) as the lobby lists it, in the words of the table's scene.
function lastText(tb, r) {
  if (r.status !== "settled") return t("state.void");
  if (tb.scene === "spin") return betName(tb.game, r.symbol);
  if (tb.scene === "draw") return `${t("player.draw", { draw: r.draw })} · ${t("player.total", { total: r.total })}`;
  return r.hand ? t(`${tb.game}.hand.${r.hand}`, null, r.hand) : "—";
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
      h("div", { class: "last" }, (tb.last || []).length ? tb.last.map((r) => h("span", {}, lastText(tb, r))) : t("player.no_results")),
      h("button", { class: "primary", onclick: () => watch(tb.table) }, t("player.open_table")));
  }));
}

function watch(table) {
  if (!S.tables[table]) return;
  // (the same table again, a reconnect: the chips waiting on its felt stay there; another table: nothing
  // of this one's bets counts there, its total bet among them)
  if (S.table !== table) { S.pending = []; S.result = null; S.last = []; S.roadmap = []; S.acked = {}; S.mine = {}; S.mineIds = new Set(); S.inFlight = {}; }
  S.table = table;
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
  const hand = tb.hand;  // (a shared hand whose players decide: its notice, its decisions while it waits for them)
  $("decide-notice").hidden = !hand;
  if (hand) $("decide-notice").textContent = t([`${tb.game}.decide_notice`, "player.decide_notice"],
    { decisions: hand.decisions.map((d) => decisionName(tb, d)).join(" / "), default: decisionName(tb, hand.default) });
  renderDecisions(tb);
  $("decide").hidden = !(hand && tb.state === hand.deciding && S.decided !== tb.round_id && S.timedOut !== tb.round_id);
  tick();
}

// --- a shared hand's decisions: what the hand offers, in the game's words (else the page's) ---

function decisionName(tb, d) {
  return t([`${tb.game}.decision.${d}`, `player.decision.${d}`], null, d);
}

// The line said when a decision is taken: the game's for that decision, else the page's.
function decidedText(tb, d, stake) {
  return t([`${tb.game}.decided.${d}`, "player.decided"],
    { decision: decisionName(tb, d), amount: money(stake, tb && tb.currency) });
}

// The line said when the decision timer ran out on the player: the hand's default was taken.
function timedOutText(tb) {
  return t([`${tb.game}.timed_out`, "player.timed_out"], { decision: decisionName(tb, (tb.hand || {}).default) });
}

// One button a decision the hand offers (drawn again only when they or the words change: a
// button under the pointer is never replaced by its twin mid-click).
function renderDecisions(tb) {
  const el = $("decide");
  const decisions = tb.hand ? tb.hand.decisions : [];
  const key = JSON.stringify([tb.game, decisions, decisions.map((d) => decisionName(tb, d))]);
  if (el.dataset.drawn === key) return;
  el.dataset.drawn = key;
  el.replaceChildren(...decisions.map((d) => h("button", { id: `decide-${d}`, "data-decision": d,
    onclick: () => {
      const round = S.tables[S.table].round_id;
      if (S.ws && S.ws.readyState === 1) S.deciding = round;  // (sent: its answer will say what was taken)
      request("decide", { table: S.table, round, decision: d });
    } }, decisionName(tb, d))));
}

function ui() {
  const tb = S.tables[S.table] || {};
  return { t, h, betName, amount, money, currency: tb.currency, onSpot: (bet) => () => addChip(bet), onChip: (value) => { S.chip = value; renderChips(); } };
}

function renderChips() {
  const tb = S.tables[S.table];
  $("chips").replaceChildren(...rack(tb, S.chip, ui()));
}

function renderTable() {
  const tb = S.tables[S.table];
  // a chip is chosen from the start: the smallest the table takes
  if (!S.chip || S.chipUnit !== tb.unit) { S.chip = times(tb.unit, "1"); S.chipUnit = tb.unit; }
  renderHead(); renderScene(); renderSpots(); renderChips(); renderRules(); renderRoadmap();
  $("unit").textContent = t("player.unit", { unit: money(tb.unit, tb.currency) });
  renderResult();
}

function renderScene() {
  const tb = S.tables[S.table];
  if (tb) scene($("scene"), tb, S.events, ui());
}

function renderRules() {
  const tb = S.tables[S.table];
  if (tb && tb.layout) $("paytable").replaceChildren(...paytable(tb, ui()));
}

function renderRoadmap() {
  const tb = S.tables[S.table];
  if (tb) $("roadmap").replaceChildren(...roadmap(tb, S.roadmap, ui()));
}

function stakeOn(bet) {
  return S.pending.filter((p) => p.bet === bet).reduce((sum, p) => add(sum, p.amount), "0");
}

function renderSpots() {
  const tb = S.tables[S.table];
  if (!tb || !tb.layout) return;
  const won = S.result && S.result.bets ? new Set(S.result.bets.filter((b) => b.net && sign(b.net) > 0).map((b) => b.bet)) : new Set();
  const placed = placedNow();
  // the spots as the game's felt lays them (its rows, boxes or circles)
  const felt = arrangement(tb);
  const el = $("spots");
  el.className = felt.circles ? "spots circles" : "spots";
  el.style.setProperty("--columns", felt.columns);
  el.style.setProperty("--phone-columns", felt.phone);
  el.replaceChildren(...felt.spots.map(([bet, span]) => spot(tb, bet, { placed: placed[bet] || "0", pending: stakeOn(bet), won: won.has(bet) }, ui(), span)));
  const pending = S.pending.reduce((sum, p) => add(sum, p.amount), "0");
  const total = Object.values(placed).reduce((sum, a) => add(sum, a), "0");
  $("total-bet").textContent = money(total, tb.currency) + (sign(pending) ? ` (+${money(pending, tb.currency)})` : "");
  $("last-win").textContent = S.lastWin ? money(S.lastWin, tb.currency) : "—";
  for (const id of ["undo", "clear", "rebet", "double"]) $(id).disabled = !tb.betting;
  // no bet goes while the link is down: the button says why, the chips wait on the felt
  $("place").disabled = !tb.betting || !S.up || !S.pending.length;
  $("place-why").hidden = S.up || !tb.betting;
}

function addChip(bet) {
  if (!S.chip) { say(() => t("player.nothing_to_place"), true); return; }
  S.pending.push({ bet, amount: S.chip });
  renderSpots();
}

function place() {
  const tb = S.tables[S.table];
  if (!S.ws || S.ws.readyState !== 1) {  // (the link went down between two looks: nothing is dropped)
    say(() => t("player.place_offline"), true);
    renderSpots();
    return;
  }
  const per = {};
  for (const p of S.pending) per[p.bet] = add(per[p.bet] || "0", p.amount);
  S.pending = [];
  S.batch = { ids: [], done: [] };
  for (const [bet, a] of Object.entries(per)) {
    const body = { table: tb.table, bet, amount: a };
    if (tb.position === "box" && tb.box) body.position = tb.box;
    const id = request("bet", body);
    S.batch.ids.push(id);
    S.inFlight[id] = { bet, amount: a, round: tb.round_id };
  }
  renderSpots();
}

function renderResult() {
  const el = $("result");
  const banner = $("banner");
  const r = S.result;
  const tb = S.tables[S.table];
  if (!r || !tb) { el.hidden = true; banner.hidden = true; return; }
  el.hidden = false;
  el.replaceChildren(resultBody(r, tb.game, tb.currency));
  // the round's net said large: a win is celebrated, a loss said plainly
  banner.hidden = false;
  const net = r.status === "settled" ? r.net : "0";
  banner.className = `banner ${r.status !== "settled" ? "void" : sign(net) > 0 ? "win" : sign(net) < 0 ? "loss" : "even"}`;
  banner.replaceChildren(r.status !== "settled" ? voidText(r)
    : sign(net) > 0 ? h("span", {}, t("player.you_win"), " ", h("b", { id: "banner-net" }, signed(net, tb.currency)))
      : h("span", {}, t(sign(net) < 0 ? "player.you_lose" : "player.you_even"), " ", h("b", { id: "banner-net" }, signed(net, tb.currency))),
    S.timedOut === r.round_id ? h("div", { class: "small-line" }, timedOutText(tb)) : "");
}

function netClass(net) { return net && sign(net) > 0 ? "pos" : net && sign(net) < 0 ? "neg" : ""; }

// A net with its sign always written (+20, −5, 0).
function signed(net, currency) {
  if (net === null || net === undefined) return "—";
  return sign(net) > 0 ? `+${money(net, currency)}` : money(net, currency).replace(/^-/, "\u2212");
}

function resultBody(r, game, currency) {
  if (r.status === "void") return h("div", {}, h("b", {}, t("player.your_result")), " ", voidText(r));
  return h("div", {},
    h("b", {}, t("player.your_result")),
    h("ul", {}, r.bets.map((b) => h("li", { "data-bet": b.bet },
      t("player.bet_net", { bet: betName(game, b.bet), amount: money(b.amount, currency), net: "" }),
      h("span", { class: netClass(b.net) }, signed(b.net, currency))))),
    h("div", { class: "round-net" }, t("player.round_net", { net: "" }), h("b", { class: netClass(r.net) }, signed(r.net, currency)),
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
    : tb.scene === "spin" ? t("player.symbol", { symbol: betName(game, o.symbol) })
      : tb.scene === "draw" ? t("player.draw", { draw: o.draw })
        : o.dealer && o.dealer.hand ? `${t("player.dealer_hand")}: ${t(`${game}.hand.${o.dealer.hand}`, null, o.dealer.hand)}` : "";
  const missed = S.missed.includes(r.round_id);
  return h("li", { class: missed ? "missed-round" : "", "data-round": r.round_id },
    h("div", {}, h("b", {}, r.round_id), " · ", what, missed ? h("span", { class: "tag away" }, t("player.away_tag")) : ""),
    resultBody(r, game, tb.currency));
}

function renderRecall() {
  const list = $("recall");
  list.replaceChildren(...(S.recall.length ? S.recall.map(recallLine) : [h("li", {}, t("player.recall_empty"))]));
}

function renderMissed() {
  const el = $("missed");
  const n = S.missed.length;
  el.hidden = !n || S.missedSeen;
  el.replaceChildren(...(n ? [h("span", {}, t(n === 1 ? "player.missed_one" : "player.missed", { n })),
    h("button", { class: "link", id: "missed-ok", onclick: () => { S.missedSeen = true; renderMissed(); } }, t("player.dismiss"))] : []));
}

function left(timer) {
  return Math.max(0, Math.ceil((timer.closes_at - (Date.now() + S.offset)) / 1000));
}

// The timer's ring: the part of the time left (its circle's dash), in the bar that stays in view.
function ring(part) {
  const el = $("ring-left");
  const full = 2 * Math.PI * 16;
  const dash = `${(full * Math.max(0, Math.min(1, part))).toFixed(2)} ${full.toFixed(2)}`;
  if (el.drawn !== dash) { el.drawn = dash; el.style.strokeDasharray = dash; }
}

// A text written only when it changed: the clock and the timers are looked at four times a
// second and change once, and every write (even of the same words) has the page laid out and
// drawn again (a phone's battery; a test browser's CPU: 0.14 s a second a page with a timer).
function write(el, words) {
  if (el.textContent !== words) el.textContent = words;
}

// The clock, the bet timer and the decision timer.
function tick() {
  write($("clock"), new Date().toLocaleTimeString(document.documentElement.lang || undefined, { hour12: false }));
  const tb = S.tables[S.table];
  const el = $("timer");
  if (!tb) return;
  let secs = null;
  let whole = 1;
  if (tb.betting && tb.timer) {
    secs = left(tb.timer); whole = tb.timer.seconds || tb.bet_seconds || secs || 1;
    write(el, t("player.timer", { s: secs }));
  } else if (tb.hand && tb.state === tb.hand.deciding && tb.decisionTimer) {
    secs = left(tb.decisionTimer); whole = tb.decisionTimer.seconds || secs || 1;
    write(el, t("player.decision_timer", { s: secs }));
  } else {
    write(el, tb.betting ? t("player.betting_open") : t("player.betting_closed"));
  }
  write($("ring-secs"), secs === null ? "" : String(secs));
  ring(secs === null ? 0 : secs / whole);
  const hurry = secs !== null && secs <= LAST_BETS && secs > 0;
  $("timebar").classList.toggle("hurry", hurry);
  if (hurry && $("timebar").dataset.warned !== (tb.round_id || "")) $("timebar").dataset.warned = tb.round_id || "";  // (the round whose last seconds were called)
  const warn = $("last-bets");
  const words = hurry ? t(tb.betting ? "player.last_bets" : "player.last_seconds") : "";
  write(warn, words);
}

function ping() {
  const key = Math.round(performance.now() * 1000);
  S.pingAt[key] = S.pingedAt = performance.now();
  if (!send({ type: "ping", t: key })) delete S.pingAt[key];
}

// a ping once the meter's figure is as old as the player's activity allows (checked each second: a
// player who comes back to an idle page has a fresh figure within PING_EVERY)
function pingWhenDue() {
  const now = performance.now();
  if (now - S.pingedAt >= (now - S.actedAt < ACTIVE_FOR ? PING_EVERY : PING_IDLE)) ping();
}

function wire() {
  $("to-lobby").onclick = toLobby;
  $("place").onclick = place;
  $("undo").onclick = () => { S.pending.pop(); renderSpots(); };
  $("rules-open").onclick = () => { const d = $("rules"); d.hidden = !d.hidden; $("rules-open").setAttribute("aria-expanded", String(!d.hidden)); };
  $("clear").onclick = () => { S.pending = []; renderSpots(); };
  $("rebet").onclick = () => { S.pending = S.last.map((b) => ({ ...b })); renderSpots(); };
  $("double").onclick = () => {
    const base = S.pending.length ? S.pending : Object.entries(placedNow()).map(([bet, a]) => ({ bet, amount: a }));
    S.pending = [...S.pending, ...base.map((b) => ({ ...b }))];
    renderSpots();
  };
}

async function main() {
  await loadWords();
  $("langs").append(languageSwitch(() => { fillTexts(); if (S.link) linkState(...S.link); if (S.said) say(...S.said); showLatency(S.latency ?? null); renderLobby(); renderMissed(); renderRecall(); if (S.table && S.tables[S.table].layout) renderTable(); }));
  wire();
  S.seen = Number(sessionStorage.getItem("tablesim.seen") || 0);
  S.session = await openSession();
  if (!S.session) { if (!$("link").textContent) linkState(() => t("player.no_session"), true); return; }
  connect();
  setInterval(tick, 250);
  for (const kind of ["pointerdown", "keydown"]) {
    document.addEventListener(kind, () => { S.actedAt = performance.now(); }, { capture: true, passive: true });
  }
  setInterval(pingWhenDue, 1000);
  setTimeout(ping, 300);
  tick();
}

main();
