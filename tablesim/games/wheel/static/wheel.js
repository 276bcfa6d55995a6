// The Wheel of Fortune on the console and the board: symbols to bet on (by
// player, no boxes), the wheel's segments and the spin as it goes (served
// as /static/game.js; see tablesim/server/static/common.js).
import { h, say, amount } from "./common.js";

export function summary(o) {
  return say("wheel.summary", { symbol: o.symbol, segment: o.segment }) + (o.no_spins ? say("wheel.summary_no_spins", { n: o.no_spins }) : "");
}

// The game's own events in the console's log.
export function eventText(msg) {
  const d = msg.data || {};
  switch (msg.kind) {
    case "spin_started": return say("wheel.event.spin_started", { direction: say(`wheel.direction.${d.direction}`, null, d.direction) });
    case "revolution": return say("wheel.event.revolution", { n: d.n });
    case "spin_result": return say("wheel.event.spin_result", { segment: d.segment, symbol: d.symbol, turns: d.turns, direction: say(`wheel.direction.${d.direction}`, null, d.direction) });
    case "no_spin": return say("wheel.event.no_spin", { reason: d.reason, turns: d.turns, count: d.count });
    default: return null;
  }
}

export function roundDetail(o) {
  const out = [h("div", { class: "main" }, h("span", { class: "pill" }, o.symbol), h("span", { class: "detail" }, say("wheel.segment", { segment: o.segment })))];
  if (o.no_spins) out.push(h("div", { class: "detail" }, say("wheel.no_spins_before", { n: o.no_spins })));
  return out;
}

export function pill(o) {
  return h("span", { class: "pill" }, o.symbol);
}

export function boardLive(t) {
  const v = t.view || {};
  return v.spinning ? h("b", {}, say("wheel.spinning_turn", { n: v.revolutions })) : null;
}

// Each player's result on one symbol once the round is settled: what the dealer pays or takes.
function symbolResults(t, symbol, ui) {
  const r = ui.settled(t);
  if (!r) return "";
  const rows = Object.entries(r.results || {}).filter(([, per]) => per[symbol] !== undefined)
    .map(([pl, per]) => h("span", { class: "who" }, `${pl} `, ui.resultEl(per[symbol], `${pl}:${symbol}`)));
  return rows.length ? h("span", { class: "results" }, rows) : "";
}

// Players bet by name, not on a box.
export const betsByPlayer = true;

export function layout(t, ui) {
  const lay = t.layout;
  const v = t.view;
  const player = ui.player();
  const mine = t.bets[player] || {};
  const totals = {};
  for (const per of Object.values(t.bets)) for (const [s, a] of Object.entries(per)) totals[s] = (totals[s] || 0) + Number(a);
  const top = h("div", { class: "result-row" },
    h("div", { class: "result-big", id: "wheel-result" },
      h("div", { class: "dim" }, v.spinning ? say("wheel.spinning_turn", { n: v.revolutions }) : v.symbol ? say("wheel.result") : say("wheel.last_spin")),
      h("div", { class: "big" }, v.symbol || (v.spinning ? "…" : "—"))),
    h("div", { class: "result-stats" },
      h("div", {}, say("wheel.no_spins_round") + " ", h("b", { id: "no-spins" }, v.no_spins)),
      h("div", {}, say("wheel.min_turns", { n: lay.min_turns })),
      h("div", {}, say("wheel.players") + " ", h("b", {}, t.players_count ?? Object.keys(t.bets).length)),
      h("div", { class: "dim" }, say("wheel.betting_for", { player }))));
  const grid = h("div", { class: "symbols" });
  for (const s of lay.symbols) {
    const amt = mine[s.name];
    const el = h("button", { type: "button", class: "symbol spot" + (v.symbol === s.name ? " winner" : "") + (amt ? " placed" : ""),
      disabled: !t.betting_open || t.paused || !ui.me, dataset: { pos: player, bet: s.name, symbol: s.name },
      onclick: () => ui.bet(ui.player(), s.name) },
      h("span", { class: "name" }, s.name), h("span", { class: "pays" }, say("wheel.pays", { pays: s.pays, segments: s.segments })),
      h("span", { class: "amt" }, amt ? `${player} ${amount(amt)}` : ""), h("span", { class: "pays" }, totals[s.name] ? say("wheel.all", { amount: amount(String(totals[s.name])) }) : ""),
      symbolResults(t, s.name, ui));
    grid.append(el);
  }
  const segs = h("div", { class: "segments" }, lay.wheel.map((s, i) => h("span", { class: "seg" + (v.segment === i ? " hit" : ""), title: say("wheel.segment", { segment: i }) }, s)));
  return [top, grid, segs];
}
