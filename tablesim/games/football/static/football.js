// The football card game on the console and the board: the draw as the
// display shows it, a total per box and the common box (served as
// /static/game.js; see tablesim/server/static/common.js).
import { h, say } from "./common.js";

function digits(draw) {
  return [draw.upper.map((n) => h("span", { class: "digit" }, n)), " ", draw.lower.map((n) => h("span", { class: "digit lower" }, n))];
}

export function summary(o) {
  if (!o.boxes) return null;
  return say("football.summary", { draw: o.draw, total: o.boxes.common ? o.boxes.common.total : "?" });
}

// The game's own events in the console's log.
export function eventText(msg) {
  const d = msg.data || {};
  if (msg.kind === "draw_made") return say("football.event.draw_made", { draw: d.draw, source: d.source });
  if (msg.kind === "draw") return say("football.event.draw", { draw: d.draw, upper: d.upper.join(" "), lower: d.lower.join(" ") });
  return null;
}

export function roundDetail(o) {
  if (!o.boxes) return null;
  return [
    h("div", { class: "main" }, say("football.draw", { draw: o.draw }),
      h("span", {}, o.upper.map((n) => h("span", { class: "digit" }, n))),
      h("span", {}, o.lower.map((n) => h("span", { class: "digit lower" }, n)))),
    h("div", { class: "totals" }, Object.entries(o.boxes).map(([b, x]) =>
      h("span", { class: b === "common" ? "common" : "" }, say(b === "common" ? "football.common_total" : "football.box_total", { box: b, total: x.total })))),
  ];
}

export function pill(o) {
  return h("span", { class: "pill" }, o.boxes && o.boxes.common ? o.boxes.common.total : "?");
}

export function boardLive(t) {
  const v = t.view || {};
  return v.draw ? h("span", { class: "main" }, say("football.draw", { draw: v.draw.index }) + " ", ...digits(v.draw)) : null;
}

export const boxClass = "fb";

export function header(t) {
  const d = t.view.draw;
  return [h("div", { class: "draw" + (d ? "" : " pending"), id: "draw" },
    h("span", { class: "no" }, d ? say("football.draw", { draw: d.index }).toLocaleUpperCase() : t.view.drawing ? say("football.drawing") : say("football.no_draw")),
    h("span", { class: "side" }, h("span", { class: "lbl" }, say("football.upper")), (d ? d.upper : []).map((n) => h("span", { class: "digit" }, n))),
    h("span", { class: "side" }, h("span", { class: "lbl" }, say("football.lower")), (d ? d.lower : []).map((n) => h("span", { class: "digit lower" }, n))),
  )];
}

export function boxFoot(t, pos, b) {
  return [
    h("div", { class: "total", dataset: { total: pos } }, b.total === null || b.total === undefined ? "" : b.total),
    h("div", { class: "third" }, b.third_due ? say("football.third_due") : ""),
  ];
}
