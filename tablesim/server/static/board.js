// The results board: the last rounds' results, updated live.
import { h, morph, request, connect, cardEl, HANDS, resultSummary } from "./common.js";

const $ = (id) => document.getElementById(id);
let table = null;
let results = [];
let freshId = null;

function roundCard(game, r) {
  const el = h("div", { class: "round" + (r.round_id === freshId ? " fresh" : ""), dataset: { round: r.round_id } });
  el.append(h("div", { class: "rid" }, h("span", {}, r.round_id), h("span", {}, r.status)));
  const o = r.outcome || {};
  if (r.status === "void") {
    el.append(h("div", { class: "main" }, `VOID — ${r.void_reason}`), h("div", { class: "detail" }, "every bet returned"));
    return el;
  }
  if (game === "fortune3" && o.dealer) {
    el.append(h("div", { class: "main" }, "Dealer", o.dealer.cards.map((c) => cardEl(c, { big: true })),
      h("span", {}, HANDS[o.dealer.hand] || o.dealer.hand)));
    el.append(h("div", { class: "detail" }, o.dealer.qualifies ? "dealer qualifies" : "dealer does not qualify"));
    const boxes = Object.entries(o.boxes || {});
    el.append(h("div", { class: "totals" }, boxes.map(([b, x]) => h("span", {}, `box ${b}: ${HANDS[x.hand] || x.hand}${x.decision ? " " + x.decision : ""}`))));
  } else if (game === "football" && o.boxes) {
    el.append(h("div", { class: "main" }, `Draw ${o.draw}`,
      h("span", {}, o.upper.map((n) => h("span", { class: "digit" }, n))),
      h("span", {}, o.lower.map((n) => h("span", { class: "digit lower" }, n)))));
    el.append(h("div", { class: "totals" }, Object.entries(o.boxes).map(([b, x]) =>
      h("span", { class: b === "common" ? "common" : "" }, `${b === "common" ? "common" : "box " + b}: ${x.total}`))));
  } else if (game === "wheel") {
    el.append(h("div", { class: "main" }, h("span", { class: "pill" }, o.symbol), h("span", { class: "detail" }, `segment ${o.segment}`)));
    if (o.no_spins) el.append(h("div", { class: "detail" }, `${o.no_spins} no-spin(s) before`));
  } else {
    el.append(h("div", { class: "main" }, resultSummary(game, r)));
  }
  if (r.players) {
    // each named player's net (issue 14.1)
    el.append(h("div", { class: "totals players" }, Object.entries(r.players).map(([pl, x]) =>
      h("span", { dataset: { player: pl } }, `${pl} ${String(x.net).startsWith("-") ? x.net : "+" + x.net}`))));
  }
  return el;
}

function pill(game, r) {
  if (r.status === "void") return h("span", { class: "pill void" }, "void");
  const o = r.outcome || {};
  if (game === "wheel") return h("span", { class: "pill" }, o.symbol);
  if (game === "football") return h("span", { class: "pill" }, o.boxes && o.boxes.common ? o.boxes.common.total : "?");
  if (game === "fortune3") return h("span", { class: "pill", title: HANDS[o.dealer.hand] }, (o.dealer.hand || "").split("_").map((w) => w[0].toUpperCase()).join(""));
  return h("span", { class: "pill" }, "•");
}

function render() {
  if (!table) return;
  document.body.dataset.state = table.state;
  $("game-title").textContent = table.title;
  $("table-id").textContent = table.table_id;
  $("round-id").textContent = table.round_id || "";
  $("state-badge").textContent = table.state.replace(/_/g, " ");
  const cur = $("current");
  const v = table.view || {};
  const headline = table.betting_open ? "Place your bets" : table.result ? `${table.result.round_id}: ${resultSummary(table.game, table.result)}`
    : table.state === "idle" ? "Waiting for the first round" : table.state.replace(/_/g, " ");
  const bits = [h("span", { id: "headline" }, headline)];
  if (table.game === "football" && v.draw) bits.unshift(h("span", { class: "main" }, `Draw ${v.draw.index} `,
    v.draw.upper.map((n) => h("span", { class: "digit" }, n)), " ", v.draw.lower.map((n) => h("span", { class: "digit lower" }, n))));
  if (table.game === "wheel" && v.spinning) bits.unshift(h("b", {}, `spinning — turn ${v.revolutions}`));
  morph(cur, bits);
  morph($("strip"), results.slice(0, 20).map((r) => pill(table.game, r)));
  morph($("results"), results.map((r) => roundCard(table.game, r)));
}

async function load() {
  const r = await request("GET", "/api/results?last=20");
  if (r.ok) results = r.data;
  render();
}

// The board as it is, before (and whether or not) the live stream is up.
request("GET", "/api/table").then((r) => { if (r.ok && !table) { table = r.data; load(); } });

connect({
  message(msg) {
    if (msg.type === "hello" || msg.type === "snapshot") { table = msg.table; if (msg.type === "hello") load(); else render(); }
    else if (msg.type === "event" && msg.kind === "result" && !msg.replay) {
      freshId = msg.round_id;
      results = [{ round_id: msg.round_id, ...msg.data }, ...results.filter((x) => x.round_id !== msg.round_id)].slice(0, 20);
      render();
    } else if (msg.type === "timer") {
      const el = $("timer"); el.hidden = false; el.textContent = `${msg.remaining}s`;
      if (msg.remaining <= 0) el.hidden = true;
    }
  },
  status(up) { $("conn").classList.toggle("off", !up); },
});
