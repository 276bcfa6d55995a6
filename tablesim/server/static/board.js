// The results board: the last rounds' results, updated live.
import { h, morph, request, connect, piece, resultSummary, signed, keepBook, say, loadWords, languageSwitch, stateText, voidReason } from "./common.js";

const $ = (id) => document.getElementById(id);
let table = null;
let results = [];
let freshId = null;

function roundCard(game, r) {
  const el = h("div", { class: "round" + (r.round_id === freshId ? " fresh" : ""), dataset: { round: r.round_id } });
  el.append(h("div", { class: "rid" }, h("span", {}, r.round_id), h("span", {}, say(`result.${r.status}`, null, r.status))));
  const o = r.outcome || {};
  if (r.status === "void") {
    el.append(h("div", { class: "main" }, say("board.void", { reason: voidReason(r.void_reason) })), h("div", { class: "detail" }, say("board.bets_returned")));
    return el;
  }
  const detail = piece.roundDetail ? piece.roundDetail(o) : null;
  if (detail) el.append(...detail);
  else el.append(h("div", { class: "main" }, resultSummary(game, r)));
  // each box's result (the board is open: it names no player; at the wheel, whose positions are its players, none)
  const wheel = table && table.layout && table.layout.kind === "wheel";
  const nets = wheel ? [] : Object.entries(r.net || {}).map(([p, n]) => [p, p === "common" ? say("board.common") : say("board.box", { box: p }), n]);
  if (nets.length) {
    el.append(h("div", { class: "totals players" }, nets.map(([pl, label, net]) =>
      h("span", { class: String(net).startsWith("-") ? "lose" : net === "0" ? "" : "win", dataset: { player: pl } }, `${label} ${signed(net)}`))));
  }
  return el;
}

function pill(game, r) {
  if (r.status === "void") return h("span", { class: "pill void" }, say("result.void_pill"));
  const o = r.outcome || {};
  if (piece.pill) return piece.pill(o);
  return h("span", { class: "pill" }, "•");
}

function render() {
  if (!table) return;
  document.body.dataset.state = table.state;
  $("game-title").textContent = say([`${table.game}.title`], null, table.title);
  $("table-id").textContent = table.table_id;
  $("round-id").textContent = table.round_id || "";
  $("state-badge").textContent = stateText(table.state, table.game);
  const cur = $("current");
  const headline = table.betting_open ? say("board.place_bets") : table.result ? `${table.result.round_id}: ${resultSummary(table.game, table.result)}`
    : table.state === "idle" ? say("board.waiting") : stateText(table.state, table.game);
  const bits = [h("span", { id: "headline" }, headline)];
  const live = piece.boardLive ? piece.boardLive(table) : null;
  if (live) bits.unshift(live);
  morph(cur, bits);
  morph($("strip"), results.slice(0, 20).map((r) => pill(table.game, r)));
  morph($("results"), results.map((r) => roundCard(table.game, r)));
}

async function load() {
  const r = await request("GET", "/api/results?last=20");
  if (r.ok) results = r.data;
  render();
}

// Every word from the catalog first; then the board as it is, before (and
// whether or not) the live stream is up.
await loadWords();
$("lang-switch").replaceChildren(languageSwitch(render));
request("GET", "/api/table").then((r) => { if (r.ok && !table) { table = r.data; load(); } });

connect({
  message(msg) {
    if (msg.type === "hello" || msg.type === "snapshot") { table = keepBook(msg.table, table); if (msg.type === "hello") load(); else render(); }
    else if (msg.type === "event" && msg.kind === "result" && !msg.replay) {
      freshId = msg.round_id;
      results = [{ round_id: msg.round_id, ...msg.data }, ...results.filter((x) => x.round_id !== msg.round_id)].slice(0, 20);
      render();
    } else if (msg.type === "timer") {
      const el = $("timer"); el.hidden = false; el.textContent = say("page.seconds", { n: msg.remaining });
      if (msg.remaining <= 0) el.hidden = true;
    }
  },
  status(up) { $("conn").classList.toggle("off", !up); },
});
