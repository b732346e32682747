// Bar charts as SVG built with DOM calls (no library, no inline style: the CSP allows none;
// SVG presentation attributes and classes styled by console.css). Values are BigInt so money
// keeps its exact atomic integers; only the bar heights are scaled (a ratio, not money).

const SVG = 'http://www.w3.org/2000/svg';
const el = (name, attrs = {}) => {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};

/**
 * Draws grouped bars into `container`: `points` is [{label, values: [bigint, ...]}], `series`
 * names each value (its class `series-i` colours it, its name is in the legend and each bar's
 * <title>). `format` renders a value for people (e.g. atomic USDC as decimal text).
 */
export function barChart(container, { points, series, format = (v) => v.toString(), empty = 'No data yet.' }) {
  container.replaceChildren();
  if (!points.length) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = empty;
    container.append(p);
    return;
  }
  const width = 600;
  const height = 180;
  const pad = { left: 8, right: 8, top: 16, bottom: 36 };
  const max = points.reduce((m, p) => p.values.reduce((mm, v) => (v > mm ? v : mm), m), 0n);
  const slot = (width - pad.left - pad.right) / points.length;
  const barW = Math.max(2, (slot * 0.8) / series.length);
  const plotH = height - pad.top - pad.bottom;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'bars' });
  const title = el('title');
  title.textContent = `${series.join(', ')}: ${points.length} periods, highest ${format(max)}`;
  svg.append(title);
  svg.append(el('line', { x1: pad.left, x2: width - pad.right, y1: pad.top + plotH, y2: pad.top + plotH, class: 'axis' }));
  points.forEach((p, i) => {
    p.values.forEach((v, s) => {
      // Ratio in thousandths with BigInt, then a pixel height: exact for any amount.
      const h = max === 0n ? 0 : (Number((v * 1000n) / max) / 1000) * plotH;
      const rect = el('rect', { x: pad.left + i * slot + slot * 0.1 + s * barW, y: pad.top + plotH - h, width: barW, height: Math.max(h, v > 0n ? 1 : 0), class: `series-${s}` });
      const t = el('title');
      t.textContent = `${p.label} ${series[s]}: ${format(v)}`;
      rect.append(t);
      svg.append(rect);
    });
    // Label every period when few, else about eight of them.
    if (points.length <= 8 || i % Math.ceil(points.length / 8) === 0) {
      const text = el('text', { x: pad.left + i * slot + slot / 2, y: height - pad.bottom + 14, 'text-anchor': 'middle', class: 'tick' });
      text.textContent = p.label;
      svg.append(text);
    }
  });
  const maxText = el('text', { x: width - pad.right, y: 12, 'text-anchor': 'end', class: 'tick' });
  maxText.textContent = `max ${format(max)}`;
  svg.append(maxText);
  const legend = el('g');
  series.forEach((name, s) => {
    legend.append(el('rect', { x: pad.left + s * 170, y: height - 14, width: 10, height: 10, class: `series-${s}` }));
    const text = el('text', { x: pad.left + s * 170 + 14, y: height - 5, class: 'tick' });
    text.textContent = name;
    legend.append(text);
  });
  svg.append(legend);
  container.append(svg);
}
