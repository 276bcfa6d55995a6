// Shared by the console and the board: the API, the live stream, cards, event text.
//
// The table's game draws its own part of both pages: a module its folder
// provides (its spec's console_piece), served as /static/game.js. It may
// export summary(outcome), roundDetail(outcome), pill(outcome) and
// boardLive(table) for the board; header, boxClass, boxFoot, layout and
// betsByPlayer for the console. A game without one shows the generic parts.
import * as piece from "./game.js";
import { t as say, amount, loadWords, languageSwitch } from "/i18n/words.js";

// ``say(id, params, fallback)``: a message of the page's catalog (``t`` in words.js;
// the pages call their table ``t``).
export { piece, say, amount, loadWords, languageSwitch };

// A round's state as a word: the game's own (its states), else the core's.
export function stateText(state, game) {
  return say([`${game}.state.${state}`, `state.${state}`], null, String(state || "").replace(/_/g, " "));
}

// A bet's name: the game's own word for it, else what the server calls it.
export function betLabel(game, bet, fallback) {
  return say([`${game}.bet.${bet}`], null, fallback || bet);
}

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
    return { ok: false, status: 0, data: { detail: say("page.unreachable") } };
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { ok: res.ok, status: res.status, data };
}

// A text the table made with a message id (``{id, args}``) in the page's
// language (a round's state as a word too), else ``text`` as it came.
export function saidText(said, text) {
  if (!said || !said.id) return text;
  const args = said.args || {};
  return say(said.id, { ...args, ...(args.state ? { state: stateText(args.state) } : {}) }, text);
}

// Why a round was void, by its code (``misdeal``, ``supervisor``...): the
// catalog's words for it, else the code as the table wrote it.
export function voidReason(code) {
  return code ? say(`void.${code}`, null, String(code).replace(/_/g, " ")) : "";
}

// A device fault's text: the fault named by its code in the page's language,
// the device's own words beside it (as they came, without a catalog entry).
export function faultText(code, text) {
  return saidText({ id: `fault.${code}`, args: { text: text || "" } }, text);
}

export function errorText(r) {
  const d = r.data || {};
  // a refusal the table words with an id (its values filled in) reads in the page's language
  if (r.status === 409 && d.reason) {
    // a refusal worded with an id reads in the page's language (a round's state as a word too)
    return say("page.refused", { action: say(`verb.${d.action}`, null, d.action), reason: saidText(d.say, d.reason) });
  }
  if (Array.isArray(d.say) && d.say.length) return d.say.map((p) => (p.where ? `${p.where}: ` : "") + say(p.id, p.args, d.detail)).join("; ");
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
  if (!code || code === "??") return h("span", { class: "card back" + (opts.big ? " big" : ""), title: say("card.face_down") });
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

// An amount with its sign (what the dealer pays is +), grouped by thousands; with ``currency``, the table's.
export function signed(v, currency = false) {
  if (v === undefined || v === null) return "";
  const s = String(v);
  return s.startsWith("-") || s === "0" ? amount(s, currency) : "+" + amount(s, currency);
}

function who(to) { return to === "dealer" ? say("event.to_dealer") : to === "common" ? say("event.to_common") : say("event.to_box", { box: to }); }

// One line of text for a table event: the game's own kinds from its module, the others here.
export function eventText(msg, game) {
  if (msg.type === "bets") return betsText(msg);
  const own = piece.eventText ? piece.eventText(msg) : null;
  if (own !== null && own !== undefined) return own;
  const d = msg.data || {};
  const nets = () => Object.entries(d.net || {}).map(([p, v]) => `${p} ${signed(v)}`).join(", ");
  switch (msg.kind) {
    case "state": return say("event.state", { previous: stateText(d.previous, game), state: stateText(d.state, game) });
    case "bet": return say("event.bet", { position: d.position, bet: betLabel(game, d.bet), amount: amount(d.amount) });
    case "bet_withdrawn": return say("event.bet_withdrawn", { position: d.position, bet: betLabel(game, d.bet), amount: amount(d.amount) });
    case "instruction": return saidText(d.say, d.text);
    case "card": return say("event.card", { card: d.card, to: who(d.to) });
    case "card_set_aside": return say("event.card_set_aside", { card: d.card, reason: d.reason });
    case "decision": return say("event.decision", { box: d.box, decision: say(`decision.${d.decision}`, null, d.decision) });
    case "result": return d.status === "void" ? say("event.result_void", { reason: voidReason(d.void_reason) }) : say("event.result_settled", { nets: nets() });
    case "settlement": return say("event.settlement", { n: Object.keys(d.results || {}).length });
    case "void": return say("event.void", { reason: voidReason(d.reason) }) + (d.actor ? say("event.by", { actor: d.actor }) : "") + (d.why ? `: ${d.why}` : "");
    case "fault": return say("event.fault", { device: d.device, code: d.code, text: faultText(d.code, d.text) });
    case "fault_cleared": return say("event.fault_cleared", { device: d.device, code: d.code });
    case "incident": return say("event.incident", { id: d.id ?? "", text: saidText(d.say, d.text || d.what || "") });
    case "incident_resolved": return say("event.incident_resolved", { id: d.id, decision: say(`console.${d.decision}`, null, d.decision), actor: d.actor, why: d.why });
    case "paused": return say("event.paused", { actor: d.actor, why: d.why });
    case "resumed": return say("event.resumed", { actor: d.actor, why: d.why });
    case "device": return say("event.device", { device: d.device, report: d.report });
    default: {
      const rest = Object.entries(d).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(" ");
      return `${msg.kind} ${rest}`;
    }
  }
}

// The bets placed since the last such line (the stream coalesces them for consoles and boards).
export function betsText(msg) {
  const parts = [];
  if (msg.count) parts.push(say("event.bets_placed", { n: msg.count }));
  if (msg.withdrawn) parts.push(say("event.bets_withdrawn", { n: msg.withdrawn }));
  const total = msg.total_bet !== null && msg.total_bet !== undefined ? say("event.bets_on_table", { amount: amount(msg.total_bet) }) : "";
  return [parts.join(", "), total].filter(Boolean).join(" · ");
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
  if (r.status === "void") return say("result.void", { reason: voidReason(r.void_reason) });
  const text = piece.summary ? piece.summary(r.outcome || {}) : null;
  return text === null || text === undefined ? r.status : text;
}
