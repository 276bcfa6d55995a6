// The dealer console: the table's layout, the round as it happens, and the
// dealer's and supervisor's buttons. Everything it shows comes from the
// server (snapshots and events over /ws); everything it does is an API call.
import { h, morph, request, errorText, saidText, faultText, connect, cardEl, signed, eventText, resultSummary, piece, withBets, keepBook, withBook, say, amount, loadWords, languageSwitch, stateText, betLabel } from "./common.js";

const $ = (id) => document.getElementById(id);
const CHIPS = ["1", "5", "10", "25", "100", "500"];
const OPERATOR_ACTIONS = { pause: "/api/pause", resume: "/api/resume", void: "/api/void" };
const REASONS = {
  pause: ["reason.dealer_change", "reason.device_check", "reason.customer_dispute", "reason.break"],
  resume: ["reason.all_in_order", "reason.dealer_back", "reason.device_repaired"],
  void: ["reason.dealing_error", "reason.device_fault", "reason.table_dispute"],
  confirm_shuffler: ["reason.spare_shuffler", "reason.shuffler_repaired"],
};

let table = null;
let token = null;
let me = null;
let chip = "10";
let mode = "bet";
let toastTimer = null;
const fresh = new Set();

// --- the operator token ------------------------------------------------------------

function takeTokenFromUrl() {
  const m = location.hash.match(/token=([^&]+)/);
  if (m) {
    sessionStorage.setItem("tablesim.token", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  token = sessionStorage.getItem("tablesim.token");
}

async function whoami() {
  if (!token) { me = null; book = null; renderOperator(); return; }
  const r = await request("GET", "/api/whoami", undefined, token);
  me = r.ok ? r.data : null;
  if (!r.ok) { toast(say("console.token_refused")); }
  renderOperator();
  loadBook();
}

// --- each player's bets --------------------------------------------------------------
// The stream and GET /api/table are open: they show the totals per spot and
// bet, never a player. Whose bet is whose (and each player's result) is the
// operator's: read with the token whenever the bets or the round change.

let book = null;
let bookAgain = false;
let bookLoading = false;

async function loadBook() {
  if (!token) { book = null; return; }
  bookAgain = true;
  if (bookLoading) return;
  bookLoading = true;
  try {
    while (bookAgain) {
      bookAgain = false;
      const r = await request("GET", "/api/book", undefined, token);
      book = r.ok ? r.data : null;
    }
  } finally {
    bookLoading = false;
  }
  render();
}

// The table with each player's bets and result where the book is of its round.
function withPlayers(t) {
  if (!t || !book || book.round_id !== t.round_id) return t;
  const result = t.result && book.result && book.result.round_id === t.result.round_id ? book.result : t.result;
  return { ...t, bets: book.bets, players: book.players, result };
}

// Who is signed in (the dealer on duty is named once, on the duty button).
function operatorLabel() {
  if (!me) return say("console.sign_in");
  const role = say(`role.${me.role}`, null, me.role);
  return table && table.on_duty && table.on_duty.dealer === me.name ? role : say("console.operator", { role, name: me.name });
}

function renderOperator() {
  const b = $("operator");
  b.textContent = operatorLabel();
  b.dataset.role = me ? me.role : "";
  document.body.dataset.signedIn = me ? "1" : "";
  render();  // what an operator may press depends on who is signed in
}

async function signIn() {
  const v = await ask({ title: say("console.signin_title"), text: say("console.signin_text"),
    fields: [{ name: "token", label: say("console.token"), type: "password", value: "" }], ok: say("console.sign_in") });
  if (!v) return;
  if (!v.token) { sessionStorage.removeItem("tablesim.token"); token = null; me = null; renderOperator(); return; }
  token = v.token.trim();
  sessionStorage.setItem("tablesim.token", token);
  await whoami();
}

// the dealer on duty signs in and out of the shift (journaled: who dealt each round)
async function shift() {
  if (!me) { await signIn(); if (!me) return; }
  const duty = table && table.on_duty;
  const out = duty && (duty.dealer === me.name || me.role === "supervisor");
  const v = await ask({ title: say(out ? "console.shift_out_title" : "console.shift_in_title"),
    text: out ? say("console.shift_out_text", { dealer: duty.dealer })
      : duty ? say("console.shift_in_after", { name: me.name, dealer: duty.dealer }) : say("console.shift_in_text", { name: me.name }),
    fields: [], ok: say(out ? "console.shift_out" : "console.shift_in") });
  if (!v) return;
  await call("POST", out ? "/api/shift/sign-out" : "/api/shift/sign-in", {});
}

// --- calling the API ----------------------------------------------------------------

async function call(method, path, body, { supervisorOnly = false } = {}) {
  let use = token;
  if (supervisorOnly && me && me.role !== "supervisor") {
    use = await supervisorToken();
    if (!use) return null;
  }
  let r = await request(method, path, body, use);
  if (r.status === 401) {
    toast(errorText(r));
    await signIn();
    if (!token) return null;
    r = await request(method, path, body, token);
  }
  if (r.status === 403) {
    const t = await supervisorToken(errorText(r));
    if (!t) return null;
    r = await request(method, path, body, t);
  }
  if (!r.ok) { toast(errorText(r)); return null; }
  return r.data;
}

async function supervisorToken(why) {
  const v = await ask({ title: say("console.supervisor_needed"), text: why || say("console.supervisor_text"),
    fields: [{ name: "token", label: say("console.supervisor_token"), type: "password", value: "" }], ok: say("console.authorize") });
  return v && v.token ? v.token.trim() : null;
}

async function bet(position, betName) {
  // On a box, a bet may name its player; without one it is the box's own seat's.
  const player = table && !piece.betsByPlayer ? $("box-player").value.trim() : "";
  if (mode === "bet") await call("POST", "/api/bets", { position, bet: betName, amount: chip, ...(player ? { player } : {}) });
  else await call("DELETE", `/api/bets/${encodeURIComponent(position)}/${encodeURIComponent(betName)}` +
    (player ? `?player=${encodeURIComponent(player)}` : ""));
}

async function runAction(act) {
  if (OPERATOR_ACTIONS[act.name]) {
    const fields = [{ name: "why", label: say("console.why"), value: "", quick: REASONS[act.name] }];
    const v = await ask({ title: actionLabel(act), text: act.name === "void" ? say("console.void_text") : "", fields, ok: actionLabel(act) });
    if (!v || !v.why) return;
    await call("POST", OPERATOR_ACTIONS[act.name], { why: v.why }, { supervisorOnly: act.role === "supervisor" });
    return;
  }
  if (act.name === "set_dealing") {
    // Art. 11(4): after a shuffler failure the supervisor deals the following rounds from the shoe (and back).
    const now = table && table.view ? table.view.dealing : "";
    const v = await ask({ title: actionLabel(act), text: say("console.deals_by", { mode: say(`dealing.${now}`, null, now) }), fields: [
      { name: "mode", label: say("console.deal_by"), choices: ["shoe", "shuffler"], choiceText: (c) => say(`dealing.${c}`, null, c), value: now === "shoe" ? "shuffler" : "shoe" },
      { name: "why", label: say("console.why"), value: "", quick: ["reason.shuffler_failure", "reason.shuffler_back"] },
    ], ok: say("console.switch") });
    if (!v || !v.why) return;
    await call("POST", "/api/actions/set_dealing", { mode: v.mode, why: v.why }, { supervisorOnly: true });
    return;
  }
  if (act.fields && act.fields.length === 1 && act.fields[0] === "why") {
    // an action that says why (e.g. the supervisor's confirmation that a failed shuffler was replaced)
    const v = await ask({ title: actionLabel(act), text: "", fields: [{ name: "why", label: say("console.why"), value: "", quick: REASONS[act.name] }], ok: actionLabel(act) });
    if (!v || !v.why) return;
    await call("POST", `/api/actions/${act.name}`, { why: v.why }, { supervisorOnly: act.role === "supervisor" });
    return;
  }
  await call("POST", `/api/actions/${act.name}`, {}, { supervisorOnly: act.role === "supervisor" });
}

async function decide(box, decision) {
  await call("POST", "/api/actions/decide", { box, decision });
}

async function resolveIncident() {
  let inc = table && table.incident;
  if (!inc) return;
  // The open view shows an incident's card as ?? (it may be face down); the
  // operator signed in here reads the whole incident to resolve it.
  if (token) {
    const r = await request("GET", "/api/incident", undefined, token);
    if (r.ok && r.data && r.data.incident) inc = r.data.incident;
  }
  // The table's own incidents (codes under 200: a lost link, a dealer's misdeal call) ask no card;
  // a device's card fault (a misread) is confirmed by naming the card.
  const cardFault = inc.code >= 200;
  const fields = [{ name: "decision", label: say("console.decision"), choices: ["confirm", "reject"], choiceText: (c) => say(`console.${c}`), value: "reject" }];
  if (cardFault) fields.push({ name: "card", label: say("console.card_to_confirm"), value: inc.card && inc.card !== "??" ? inc.card : "" });
  fields.push({ name: "why", label: say("console.why"), value: "", quick: cardFault
    ? ["reason.card_checked", "reason.card_unknown"] : ["reason.checked_at_table"] });
  const v = await ask({ title: say("console.incident_title", { id: inc.id }), text: saidText(inc.say, inc.text || ""), fields, ok: say("console.resolve") });
  if (!v || !v.why) return;
  await call("POST", "/api/incident/resolve", { decision: v.decision, why: v.why, card: v.card || null }, { supervisorOnly: true });
}

// --- small UI pieces ------------------------------------------------------------------

function toast(text, kind = "error") {
  const t = $("toast");
  t.textContent = text;
  t.className = kind === "info" ? "info" : "";
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

function ask({ title, text, fields, ok }) {
  const dlg = $("modal");
  $("modal-title").textContent = title;
  $("modal-text").textContent = text || "";
  $("modal-ok").textContent = ok || say("page.ok");
  const box = $("modal-fields");
  box.replaceChildren();
  const inputs = {};
  for (const f of fields) {
    if (f.choices) {
      const sel = h("select", { name: f.name, class: "input" });
      for (const c of f.choices) sel.append(h("option", { value: c, selected: c === f.value }, f.choiceText ? f.choiceText(c) : c));
      inputs[f.name] = sel;
      box.append(h("label", {}, f.label), sel);
      continue;
    }
    const inp = h("input", { name: f.name, type: f.type || "text", value: f.value || "", autocomplete: "off" });
    inputs[f.name] = inp;
    box.append(h("label", {}, f.label), inp);
    // a quick reason is a message id: what is recorded is its text in the console's language
    if (f.quick) box.append(h("div", { class: "quick" }, f.quick.map((q) => h("button", { type: "button", onclick: () => { inp.value = say(q); } }, say(q)))));
  }
  return new Promise((resolve) => {
    dlg.onclose = () => {
      if (dlg.returnValue !== "ok") return resolve(null);
      const out = {};
      for (const [k, el] of Object.entries(inputs)) out[k] = el.value.trim();
      resolve(out);
    };
    dlg.returnValue = "";
    dlg.showModal();
    const first = Object.values(inputs)[0];
    if (first) first.focus();
  });
}

const LOG_KEPT = 80;
let loggedSeq = -1;  // the newest event in the panel: nothing older is added on top
let recentLoaded = false;

function eventItem(msg) {
  const text = eventText(msg, table && table.game);
  // (a line too long for the panel ends in an ellipsis: the whole of it is its title)
  const li = h("li", { class: "ev-" + (msg.type === "bets" ? "bets" : msg.kind), dataset: { seq: msg.seq }, title: typeof text === "string" ? text : null }, h("span", { class: "seq" }, msg.seq), text);
  li.event = msg;  // (worded again when the language is switched)
  return li;
}

function logEvent(msg) {
  if (msg.seq <= loggedSeq) return;
  loggedSeq = msg.seq;
  const log = $("log");
  log.prepend(eventItem(msg));
  while (log.children.length > LOG_KEPT) log.lastChild.remove();
}

// The panel after a page load: the table's recent events up to ``upto`` go
// below whatever the stream has added meanwhile (newest first, no repeats).
async function loadRecentEvents(upto) {
  if (recentLoaded) return;
  recentLoaded = true;
  const r = await request("GET", `/api/events?since=${Math.max(0, upto - LOG_KEPT)}`);
  if (!r.ok) { recentLoaded = false; return; }
  const log = $("log");
  const shown = new Set([...log.children].map((li) => li.dataset.seq));
  for (const e of r.data.events.filter((e) => e.seq <= upto).reverse()) {
    if (log.children.length >= LOG_KEPT) break;
    if (!shown.has(String(e.seq))) log.append(eventItem(e));
  }
  loggedSeq = Math.max(loggedSeq, upto);
}

// --- rendering ------------------------------------------------------------------------

function render() {
  const t = withPlayers(table);
  if (!t) return;
  document.body.dataset.state = t.state;
  document.body.dataset.game = t.game;
  document.body.dataset.round = t.round_id || "";
  document.body.dataset.paused = t.paused ? "1" : "";
  $("game-title").textContent = say([`${t.game}.title`], null, t.title);
  $("table-id").textContent = t.table_id + (t.mock ? " · " + say("console.mock") : "");
  const duty = t.on_duty;
  // the shift's state said once: who is on duty, else (to a signed-in operator) the way to start it
  $("duty").textContent = duty ? say("console.on_duty", { dealer: duty.dealer }) : me ? say("console.shift_in_title") : say("console.no_duty");
  $("operator").textContent = operatorLabel();
  $("duty").title = duty ? say("console.duty_since", { since: duty.since }) : say("console.duty_press");
  $("round-id").textContent = t.round_id || say("console.no_round");
  $("state-badge").textContent = stateText(t.state, t.game);
  $("paused-badge").hidden = !t.paused;
  $("instruction-text").textContent = nextLine(t);
  $("in-play").textContent = say("console.in_play", { amount: amount((t.view && t.view.in_play) || t.total_bet || "0") });
  renderTimer(t.bet_timer && t.bet_timer.remaining !== null ? Math.ceil(t.bet_timer.remaining) : null);
  morph($("devices"), t.devices.map((d) => {
    // A device's own health, and the faults the journal holds as never cleared (also from before a restart).
    const faults = { ...d.faults };
    for (const f of Object.values(t.active_faults || {})) if (f.device === d.name) faults[f.code] = f.text;
    const codes = Object.keys(faults);
    const texts = codes.map((c) => faultText(c, faults[c]));  // each named in the console's language
    return h("span", { class: "device" + (d.ok && !codes.length ? "" : " bad"), title: texts.join("; ") || say("console.device_ok"),
      dataset: { device: d.name } }, `${d.name}${d.link_up ? "" : " " + say("console.link_down")}${codes.length ? " ⚠ " + codes.join(",") : ""}`);
  }).concat(t.studio ? [h("span", { class: "device" + (t.studio.state === "up" ? "" : " bad"),
    title: t.studio.error || t.studio.url, dataset: { device: "studio" } },
    say("console.studio", { state: say(`link.${t.studio.state}`, null, t.studio.state) }) + (t.studio.stalled ? say("console.stalled") : "") + (t.studio.pending ? say("console.to_publish", { n: t.studio.pending }) : ""))] : []));
  $("recovery").hidden = !t.recovery;
  $("recovery").textContent = t.recovery || "";
  $("incident").hidden = !t.incident;
  if (t.incident) $("incident-text").textContent = say("console.incident_line", { id: t.incident.id, text: saidText(t.incident.say, t.incident.text) }) + (t.incident.card ? " (" + t.incident.card + ")" : "") + (t.incident.blocking ? say("console.incident_blocking") : "");
  $("betting-note").textContent = t.betting_open ? say("console.betting_open") : say("console.betting_closed");
  // Chips and Place/Withdraw only mean something while bets can be taken.
  const betting = t.betting_open && !t.paused && !!me;
  for (const el of [$("mode-bet"), $("mode-withdraw"), ...$("chips").children]) el.disabled = !betting;
  $("bet-group").classList.toggle("closed", !betting);
  $("player-row").hidden = !piece.betsByPlayer;
  $("box-player-row").hidden = !!piece.betsByPlayer;
  renderActions(t);
  const area = $("layout");
  const scroll = area.scrollTop;
  const ui = { me, spot, cardsRow, netEl, decide, bet, settled, resultEl, player: () => $("player").value.trim() || "P1" };
  morph(area, [...(piece.layout ? piece.layout(t, ui) : renderBoxes(t, ui)), ...renderResult(t)]);
  area.scrollTop = scroll;
  fresh.clear();
}

// What the dealer does next: a held round waits for the supervisor, whatever
// was announced before; the game's own view of the round (right also after a
// recovery, when nothing was announced); else the last instruction.
function nextLine(t) {
  if (t.paused) return say("console.table_paused");
  if (t.incident && t.incident.blocking) return say("console.wait_incident", { id: t.incident.id, text: saidText(t.incident.say, t.incident.text) });
  const said = t.view && t.view.next_say;  // the game's words for it: an id and its values
  if (said) return say(said.id, said.params, t.view.next);
  return (t.view && t.view.next) || saidText(t.instruction_say, t.instruction) || idleHint(t);
}

function idleHint(t) {
  if (t.state === "betting_open") return say("console.place_bets");
  if (["idle", "complete", "void"].includes(t.state)) return say("console.press_new_round");
  return "—";
}

// The box the dealer deals to next (none while the table waits for a supervisor).
function nextBox(t) {
  if (t.paused || (t.incident && t.incident.blocking)) return null;
  const said = t.view && t.view.next_say;
  return said && said.params ? said.params.box || null : null;
}

// A button's label: the game's own word for its action, else the core's, else the server's.
function actionLabel(act) {
  return say([`${table && table.game}.action.${act.name}`, `action.${act.name}`], null, act.label);
}

function renderTimer(remaining) {
  const el = $("timer");
  el.hidden = remaining === null || remaining === undefined;
  if (!el.hidden) {
    el.textContent = say("page.seconds", { n: remaining });
    el.classList.toggle("low", remaining <= 5);
  }
}

function renderActions(t) {
  const dealer = [];
  const sup = [];
  for (const act of t.actions) {
    if (act.hidden) continue;
    const cls = act.name === "void" || act.name === "misdeal" ? "danger" : act.name === "pause" || act.name === "resume" ? "warn" : "";
    // Signed out, nothing can be pressed: every action needs an operator's token.
    const b = h("button", { type: "button", id: `act-${act.name}`, class: cls, disabled: !act.enabled || !t || !me,
      onclick: () => runAction(act) }, actionLabel(act));
    (act.role === "supervisor" ? sup : dealer).push(b);
  }
  sup.push(h("button", { type: "button", id: "act-resolve_incident", disabled: !t.incident || !me, onclick: resolveIncident }, say("console.resolve_incident")));
  $("incident-resolve").disabled = !me;
  morph($("dealer-actions"), dealer);
  morph($("supervisor-actions"), sup);
}

// The round's result while it is this round's (a new round shows no old results).
function settled(t) {
  const r = t.result;
  return r && r.status === "settled" && r.round_id === t.round_id ? r : null;
}

// One bet's own result: what the dealer pays (+) or takes (-).
function resultEl(value, key) {
  if (value === undefined || value === null) return h("span", { class: "res" });
  const cls = String(value).startsWith("-") ? "lose" : value === "0" ? "push" : "win";
  return h("span", { class: "res " + cls, dataset: { result: key } }, signed(value));
}

function spot(t, position, betName, label, { amount: given, fixed = false } = {}) {
  const amt = given !== undefined ? given : (t.bets[position] || {})[betName];
  const r = settled(t);
  const res = r ? ((r.results || {})[position] || {})[betName] : undefined;
  return h("button", {
    type: "button", class: "spot" + (amt ? " placed" : "") + (fixed ? " fixed" : ""),
    disabled: fixed || !t.betting_open || t.paused || !me,
    dataset: { pos: position, bet: betName }, onclick: fixed ? null : () => bet(position, betName),
  }, h("span", {}, label), h("span", { class: "amt" }, amount(amt)), resultEl(res, `${position}:${betName}`));
}

// How many players (other than its seat) have bets on a box: the remote players on the common box.
function sharedBy(t, pos) {
  return Object.keys((t.players || {})[pos] || {}).filter((pl) => pl !== pos).length;
}

// Each player's bets on a box and, once settled, each bet's result and the player's net there.
function playerLines(t, pos, labels) {
  const who = (t.players || {})[pos] || {};
  const r = settled(t);
  return Object.entries(who).map(([pl, bs]) => {
    const res = r && r.players && r.players[pl] ? (r.players[pl].results || {})[pos] || {} : null;
    const parts = Object.entries(bs).map(([k, v]) => [`${labels[k] || k} ${amount(v)}`, res ? resultEl(res[k], `${pos}:${pl}:${k}`) : ""]);
    if (res) for (const [k, v] of Object.entries(res)) if (!(k in bs)) parts.push([labels[k] || k, resultEl(v, `${pos}:${pl}:${k}`)]);
    return h("div", { dataset: { player: pl } }, `${pl === pos ? say("console.seat") : pl}: `, parts.map(([txt, el], i) => [i ? ", " : "", txt, el ? [" ", el] : ""]));
  });
}

function cardsRow(codes, big) {
  return h("div", { class: "cards" }, (codes || []).map((c) => cardEl(c, { big, fresh: fresh.has(c) })));
}

function netEl(t, position) {
  const net = t.result && t.result.status === "settled" && t.result.net ? t.result.net[position] : undefined;
  if (net === undefined) return h("div", { class: "net" });
  const cls = String(net).startsWith("-") ? "lose" : net === "0" ? "" : "win";
  return h("div", { class: "net " + cls, dataset: { net: position } }, signed(net));
}

function renderBoxes(t, ui) {
  const lay = t.layout;
  const v = t.view;
  const out = piece.header ? [...piece.header(t, ui)] : [];
  const next = nextBox(t);
  const grid = h("div", { class: "boxes" + (piece.boxClass ? " " + piece.boxClass : "") });
  for (const pos of lay.positions) {
    const b = v.boxes[pos] || { cards: [] };
    const bets = t.bets[pos] || {};
    const active = next === pos;
    const box = h("div", { class: "box" + (Object.keys(bets).length ? " has-bets" : "") + (active ? " active" : ""), dataset: { box: pos } },
      h("div", { class: "head" }, h("span", {}, pos === lay.common ? say("console.common") : say("console.box", { box: pos })),
        h("span", { class: "dim" }, b.decision ? say(`decision.${b.decision}`, null, b.decision).toLocaleUpperCase()
          : sharedBy(t, pos) ? say("console.box_players", { n: sharedBy(t, pos) }) : "")));
    // a game's own spots (Fortune 3's Play) go after the bet they belong to
    const extra = piece.extraSpots ? piece.extraSpots(t, pos, b, ui) : {};
    box.append(h("div", { class: "spots" }, lay.bets.map((name) => [spot(t, pos, name, betLabel(t.game, name, lay.bet_labels[name])), extra[name] || []])));
    const who = (t.players || {})[pos];
    if (who && Object.keys(who).some((pl) => pl !== pos)) {
      // each player's bets on the box and their results: a box shared by players is paid player by player
      box.append(h("div", { class: "players", dataset: { players: pos } }, playerLines(t, pos, Object.fromEntries([...lay.bets, "play", "ante_bonus"].map((k) => [k, betLabel(t.game, k, lay.bet_labels[k])])))));
    }
    box.append(cardsRow(b.cards, false));
    if (piece.boxFoot) box.append(...piece.boxFoot(t, pos, b, ui));
    box.append(netEl(t, pos));
    grid.append(box);
  }
  out.push(grid);
  return out;
}

function renderResult(t) {
  const r = t.result;
  if (!r) return [];
  // the boxes' nets, unless the players' own follow (a box shared by players is paid player by player)
  const byPlayer = r.players && r.status === "settled";
  const nets = byPlayer ? "" : Object.entries(r.net || {}).map(([p, n]) => `${p} ${signed(n)}`).join(" · ");
  const out = [h("div", { class: "result-line" + (r.status === "void" ? " void" : ""), id: "result" },
    h("b", {}, `${r.round_id}: `), resultSummary(t.game, r), nets ? h("span", { class: "dim" }, "  —  " + nets) : "")];
  if (r.players && r.status === "settled") {
    // each named player's net
    out.push(h("div", { class: "result-line dim", id: "player-results" },
      Object.entries(r.players).map(([pl, x]) => `${pl} ${signed(x.net)}`).join(" · ")));
  }
  return out;
}

function renderChips() {
  const betting = !!(table && table.betting_open && !table.paused && me);
  $("chips").replaceChildren(...CHIPS.map((c) => h("button", { type: "button", class: "chip" + (c === chip ? " on" : ""), disabled: !betting,
    dataset: { chip: c }, onclick: () => { chip = c; renderChips(); showSelection(); } }, amount(c))));
}

function showSelection() {
  $("selection").textContent = mode === "bet" ? say("console.tap_to_bet", { amount: amount(chip) }) : say("console.tap_to_withdraw");
}

// --- the stream -------------------------------------------------------------------------

function onMessage(msg) {
  if (piece && piece.onMessage && piece.onMessage(msg)) return;  // a game's own messages (e.g. a decision timer)
  switch (msg.type) {
    case "hello":
      if (msg.reset) { $("log").replaceChildren(); loggedSeq = -1; recentLoaded = false; }
      table = msg.table; render(); loadBook();
      loadRecentEvents(msg.seq);
      break;
    case "snapshot":  // (with the bets placed since the last such message, if any)
      table = keepBook(msg.table, table);
      if (msg.bets) { table = withBets(table, msg.bets); logEvent(msg.bets); }
      render(); loadBook(); break;
    case "book":  // a big bet book, apart from the snapshot
      table = withBook(table, msg); render(); loadBook(); break;
    case "event":
      if (msg.kind === "card" && msg.data.card) fresh.add(msg.data.card);
      logEvent(msg);
      if (!msg.replay && (msg.kind === "fault" || (msg.kind === "incident" && msg.data.blocking))) toast(eventText(msg, table && table.game));
      break;
    case "bets":  // the bets since the last such message, coalesced by the stream
      table = withBets(table, msg); render(); loadBook();
      logEvent(msg);
      break;
    case "timer":
      renderTimer(msg.remaining); break;
    case "notice":
      toast(msg.text, msg.level === "error" ? "error" : "info"); break;
    case "gap":
      toast(say("console.gap"), "info"); break;
  }
}

// The texts in another language: everything drawn again in it.
function relabel() {
  renderChips();
  showSelection();
  renderOperator();
  for (const li of [...$("log").children]) if (li.event) li.replaceWith(eventItem(li.event));
}

async function init() {
  await loadWords();  // every word of the page comes from the catalog
  $("lang-switch").replaceChildren(languageSwitch(relabel));
  takeTokenFromUrl();
  renderChips();
  showSelection();
  $("operator").onclick = signIn;
  $("duty").onclick = shift;
  $("toast").onclick = () => { $("toast").hidden = true; };
  $("incident-resolve").onclick = resolveIncident;
  $("mode-bet").onclick = () => { mode = "bet"; $("mode-bet").classList.add("on"); $("mode-withdraw").classList.remove("on"); showSelection(); };
  $("mode-withdraw").onclick = () => { mode = "withdraw"; $("mode-withdraw").classList.add("on"); $("mode-bet").classList.remove("on"); showSelection(); };
  $("player").addEventListener("input", () => render());
  whoami();
  // The table as it is, before (and whether or not) the live stream is up.
  request("GET", "/api/table").then((r) => {
    if (r.ok && !table) { table = r.data; render(); loadRecentEvents(r.data.seq); }
  });
  connect({ message: onMessage, status: (up) => { $("conn").classList.toggle("off", !up); document.body.dataset.live = up ? "1" : ""; } });
}

init();
