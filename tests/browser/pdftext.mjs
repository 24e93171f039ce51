// The text of each page of a PDF that Chromium printed, for a test to
// read: the page content streams inflated, each glyph string decoded by
// the fonts' ToUnicode maps (the first map that knows every glyph of it).
// Enough for Chromium's own PDFs, not a PDF reader.
import { inflateSync } from 'node:zlib';

export function pdfPages(buf) {
  const s = buf.toString('latin1');
  const streams = [];
  const re = /stream\r?\n/g;
  let m;
  while ((m = re.exec(s))) {
    const start = m.index + m[0].length;
    const end = s.indexOf('endstream', start);
    try { streams.push(inflateSync(buf.subarray(start, end)).toString('latin1')); } catch (_) { /* not deflated */ }
  }
  const maps = [];
  for (const st of streams) {
    if (!st.includes('begincmap')) continue;
    const map = new Map();
    for (const b of st.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
      for (const p of b[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(parseInt(p[1], 16), utf16(p[2]));
    }
    for (const b of st.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
      for (const p of b[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
        const [a, z, u] = [p[1], p[2], p[3]].map((x) => parseInt(x, 16));
        for (let g = a; g <= z; g++) map.set(g, String.fromCodePoint(u + g - a));
      }
    }
    maps.push(map);
  }
  const decode = (hex) => {
    for (const map of maps) {
      let out = '';
      for (let i = 0; i < hex.length; i += 4) {
        const c = map.get(parseInt(hex.slice(i, i + 4), 16));
        if (c === undefined) { out = null; break; }
        out += c;
      }
      if (out !== null) return out;
    }
    return '';
  };
  return streams.filter((st) => /\bBT\b/.test(st) && /T[jJ]/.test(st))
    .map((st) => [...st.matchAll(/<([0-9A-Fa-f]+)>/g)].map((x) => decode(x[1])).join(''));
}

function utf16(hex) {
  const units = [];
  for (let i = 0; i < hex.length; i += 4) units.push(parseInt(hex.slice(i, i + 4), 16));
  return String.fromCharCode(...units);
}
