// Shared by the console and the board: the API, the live stream, cards, event text.
//
// The table's game draws its own part of both pages: a module its folder
// provides (its spec's console_piece), served as /static/game.js. It may
// export summary(outcome), roundDetail(outcome), pill(outcome) and
// boardLive(table) for the board; header, boxClass, boxFoot, layout and
// betsByPlayer for the console. A game without one shows the generic parts.
import * as piece from "./game.js";

export { piece };

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function sameAttributes(a, b) {
  if (a.attributes.length !== b.attributes.length) return false;
  for (const { name, value } of a.attributes) if (b.getAttribute(name) !== value) return false;
  return true;
}

// Put ``children`` into ``parent`` changing only what differs: a node that is
// the same stays (with its listeners), so a tap on a button is never lost to a
// re-render that happens while the finger is down.
export function morph(parent, children) {
  const old = [...parent.childNodes];
  children.forEach((n, i) => {
    if (typeof n === "string") n = document.createTextNode(n);
    const o = old[i];
    if (!o) { parent.append(n); return; }
    if (o.isEqualNode(n)) return;
    if (o.nodeType === 1 && n.nodeType === 1 && o.tagName === n.tagName && sameAttributes(o, n)) {
      morph(o, [...n.childNodes]);
      return;
    }
    parent.replaceChild(n, o);
  });
  for (let i = children.length; i < old.length; i++) old[i].remove();
}

export async function request(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    return { ok: false, status: 0, data: { detail: "the table server cannot be reached" } };
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { ok: res.ok, status: res.status, data };
}

export function errorText(r) {
  const d = r.data || {};
  if (r.status === 409 && d.reason) return `${d.action}: ${d.reason}`;
  if (Array.isArray(d.detail)) return d.detail.map((e) => `${(e.loc || []).slice(1).join(".") || "body"}: ${e.msg}`).join("; ");
  return d.detail || d.error || `HTTP ${r.status}`;
}

// The live stream: reconnects by itself and asks for what it missed (?since=SEQ).
export function connect(handlers) {
  let lastSeq = null;
  let streamId = null;
  let ws = null;
  let delay = 250;
  function open() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // batch=1: what is due at once comes in one frame (a JSON array): a round's
    // burst of events costs the table one frame per client, not one per event
    let url = `${proto}//${location.host}/ws?batch=1&since=`;
    if (lastSeq !== null) url += `${lastSeq}&stream=${encodeURIComponent(streamId || "")}`;
    ws = new WebSocket(url);
    ws.onopen = () => { delay = 250; handlers.status && handlers.status(true); };
    ws.onmessage = (ev) => {
      const data = JSON.parse(ev.data);
      for (const msg of Array.isArray(data) ? data : [data]) take(msg);
    };
    function take(msg) {
      if (msg.type === "hello") {
        if (msg.reset || lastSeq === null) lastSeq = msg.seq;
        streamId = msg.stream_id;
      } else if (msg.type === "event" || msg.type === "bets") {
        // (a "bets" message stands for the bets up to its seq: a reconnect asks from there)
        if (lastSeq !== null && msg.seq <= lastSeq) return;
        lastSeq = msg.seq;
      }
      handlers.message(msg);
    }
    ws.onclose = () => {
      handlers.status && handlers.status(false);
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 3000);
    };
  }
  open();
  return { get lastSeq() { return lastSeq; } };
}

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

export function cardEl(code, opts = {}) {
  if (!code || code === "??") return h("span", { class: "card back" + (opts.big ? " big" : ""), title: "face down" });
  const exposed = code.endsWith("^");
  const c = exposed ? code.slice(0, -1) : code;
  const rank = c.slice(0, -1) === "T" ? "10" : c.slice(0, -1);
  const suit = c.slice(-1);
  const cls = ["card"];
  if (suit === "H" || suit === "D") cls.push("red");
  if (exposed) cls.push("exposed");
  if (opts.big) cls.push("big");
  if (opts.fresh) cls.push("new");
  return h("span", { class: cls.join(" "), title: code, dataset: { card: code } }, h("span", {}, rank), h("span", { class: "suit" }, SUITS[suit] || suit));
}

export const HANDS = {
  straight_flush: "Straight flush", three_of_a_kind: "Three of a kind", straight: "Straight",
  flush: "Flush", pair: "Pair", high_card: "High card",
};

export function signed(v) {
  if (v === undefined || v === null) return "";
  const s = String(v);
  return s.startsWith("-") || s === "0" ? s : "+" + s;
}

function who(to) { return to === "dealer" ? "dealer" : to === "common" ? "common box" : `box ${to}`; }

// One line of text for a table event.
export function eventText(msg) {
  if (msg.type === "bets") return betsText(msg);
  const d = msg.data || {};
  switch (msg.kind) {
    case "state": return `${d.previous} → ${d.state}`;
    case "bet": return `bet ${d.position} ${d.bet} ${d.amount}`;
    case "bet_withdrawn": return `withdrawn ${d.position} ${d.bet} ${d.amount}`;
    case "instruction": return d.text;
    case "card": return `card ${d.card} → ${who(d.to)}`;
    case "card_set_aside": return `set aside ${d.card}: ${d.reason}`;
    case "decision": return `box ${d.box}: ${d.decision}`;
    case "dealer": return `dealer ${d.cards.join(" ")} (${HANDS[d.hand] || d.hand}), ${d.qualifies ? "qualifies" : "does not qualify"}`;
    case "draw_made": return `draw ${d.draw} sent to the display (${d.source})`;
    case "draw": return `draw ${d.draw} shown: upper ${d.upper.join(" ")} | lower ${d.lower.join(" ")}`;
    case "spin_started": return `spin started ${d.direction}`;
    case "revolution": return `turn ${d.n}`;
    case "spin_result": return `spin: segment ${d.segment} → ${d.symbol} (${d.turns} turns ${d.direction})`;
    case "no_spin": return `NO SPIN (${d.reason}, ${d.turns} turns) #${d.count}`;
    case "result": return d.status === "void" ? `result: void (${d.void_reason})` : d.net_count ? `result: settled, ${d.net_count} nets` : `result: settled, net ${Object.entries(d.net || {}).map(([p, v]) => `${p} ${signed(v)}`).join(", ")}`;
    case "settlement": return `settled ${d.results_count ?? Object.keys(d.results || {}).length} position(s)`;
    case "void": return `VOID ${d.reason}${d.actor ? ` by ${d.actor}` : ""}${d.why ? `: ${d.why}` : ""}`;
    case "fault": return `FAULT ${d.device} ${d.code}: ${d.text}`;
    case "fault_cleared": return `fault cleared ${d.device} ${d.code}`;
    case "incident": return `INCIDENT ${d.id ?? ""} ${d.text || d.what || ""}`;
    case "incident_resolved": return `incident ${d.id} ${d.decision} by ${d.actor}: ${d.why}`;
    case "paused": return `paused by ${d.actor}: ${d.why}`;
    case "resumed": return `resumed by ${d.actor}: ${d.why}`;
    case "device": return `device ${d.device}: ${d.report}`;
    default: {
      const rest = Object.entries(d).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(" ");
      return `${msg.kind} ${rest}`;
    }
  }
}

// The bets placed since the last such line (the stream coalesces them for consoles and boards).
export function betsText(msg) {
  const parts = [];
  if (msg.count) parts.push(`${msg.count} bet${msg.count === 1 ? "" : "s"} placed`);
  if (msg.withdrawn) parts.push(`${msg.withdrawn} withdrawn`);
  return `${parts.join(", ")}${msg.total_bet !== null && msg.total_bet !== undefined ? `: ${msg.total_bet} on the table` : ""}`;
}

// A table with the coalesced bets applied: the positions they changed show their
// boxes as the table's book holds them now (none: the next snapshot shows them).
export function withBets(table, msg) {
  if (!table || msg.round_id !== table.round_id) return table;
  const bets = { ...(table.bets || {}) };
  for (const [pos, box] of Object.entries(msg.spots || {})) {
    if (Object.keys(box).length) bets[pos] = box; else delete bets[pos];
  }
  const out = { ...table, bets };
  if (msg.total_bet !== null && msg.total_bet !== undefined) out.total_bet = msg.total_bet;
  return out;
}

// A snapshot without its bet book (a big book comes apart, as a "book" message):
// the bets shown stay those of the round until the book comes.
export function keepBook(fresh, old) {
  if (!fresh || fresh.bets !== undefined) return fresh;
  const same = old && old.round_id === fresh.round_id;
  return { ...fresh, bets: same ? old.bets || {} : {}, players: same ? old.players || {} : {} };
}

export function withBook(table, msg) {
  if (!table || msg.round_id !== table.round_id) return table;
  return { ...table, bets: msg.bets || {}, players: msg.players || {} };
}

// The headline of a finished round (board and console).
export function resultSummary(game, r) {
  if (!r) return "";
  if (r.status === "void") return `void (${r.void_reason})`;
  const text = piece.summary ? piece.summary(r.outcome || {}) : null;
  return text === null || text === undefined ? r.status : text;
}
