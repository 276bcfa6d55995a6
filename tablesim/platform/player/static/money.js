// Exact amounts as decimal texts (never through a float): sums and multiples
// on integers scaled to the longer fraction.
function parts(text) {
  const m = String(text).match(/^(-?)(\d+)(?:\.(\d+))?$/);
  if (!m) throw new Error(`not an amount: ${text}`);
  return { sign: m[1] === "-" ? -1n : 1n, whole: m[2], frac: m[3] || "" };
}

function scaled(text, scale) {
  const p = parts(text);
  return p.sign * BigInt(p.whole + p.frac.padEnd(scale, "0"));
}

function shown(value, scale) {
  const neg = value < 0n;
  let digits = (neg ? -value : value).toString().padStart(scale + 1, "0");
  let out = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  if (scale) out = out.replace(/0+$/, "").replace(/\.$/, "");
  return (neg ? "-" : "") + out;
}

export function add(a, b) {
  const scale = Math.max(parts(a).frac.length, parts(b).frac.length);
  return shown(scaled(a, scale) + scaled(b, scale), scale);
}

export function times(a, k) {
  const scale = parts(a).frac.length;
  return shown(scaled(a, scale) * BigInt(k), scale);
}

export function sign(a) {
  const v = scaled(a, parts(a).frac.length);
  return v > 0n ? 1 : v < 0n ? -1 : 0;
}
