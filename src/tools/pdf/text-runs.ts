/**
 * Characters -> runs -> a page's text in its reading frame. Both text engines feed this:
 * PDFium's text page (pdfium-runs.ts) and the fast content-stream reader (fast-text/), so
 * the layout sees the same kind of runs whichever engine read the page.
 */
import { buildFragments } from './fragments.ts';
import { displayTransform, frameU, frameV, makeFrame } from './geometry.ts';
import type { PageText, RawPageText, TextRun } from './text-types.ts';

const quarterOf = (dx: number, dy: number): 0 | 1 | 2 | 3 => {
  const q = Math.round(Math.atan2(dy, dx) / (Math.PI / 2));
  return (((q % 4) + 4) % 4) as 0 | 1 | 2 | 3;
};

/** Places the runs in the page's reading frame and groups them into fragments. */
export function layoutRuns({ runs: raw, viewBox, rotate, rules }: RawPageText): PageText {
  const view = displayTransform(viewBox, rotate);
  const vt = view.transform;
  if (!raw.length) return { frame: makeFrame(view.width, view.height, 0, vt), fragments: [], rules };
  // The dominant direction on the display decides the reading frame.
  const weight = [0, 0, 0, 0];
  const quarters = raw.map((r) => {
    const q = quarterOf(vt[0] * r.dx + vt[2] * r.dy, vt[1] * r.dx + vt[3] * r.dy);
    weight[q] += r.text.length;
    return q;
  });
  const dominant = weight.indexOf(Math.max(...weight)) as 0 | 1 | 2 | 3;
  const frame = makeFrame(view.width, view.height, dominant, vt);
  // frame.toFrame of the point's display coordinates, as two numbers: a tuple per corner was
  // most of this function's allocation.
  const W = view.width;
  const H = view.height;
  const u = (px: number, py: number) => frameU(dominant, W, H, vt[0] * px + vt[2] * py + vt[4], vt[1] * px + vt[3] * py + vt[5]);
  const v = (px: number, py: number) => frameV(dominant, W, H, vt[0] * px + vt[2] * py + vt[4], vt[1] * px + vt[3] * py + vt[5]);
  const whole: TextRun[] = raw.map((r, i) => {
    const u1 = u(r.left, r.bottom);
    const v1 = v(r.left, r.bottom);
    const u2 = u(r.right, r.bottom);
    const v2 = v(r.right, r.bottom);
    const u3 = u(r.left, r.top);
    const v3 = v(r.left, r.top);
    const u4 = u(r.right, r.top);
    const v4 = v(r.right, r.top);
    const bottom = Math.max(v1, v2, v3, v4);
    return {
      text: r.text,
      x0: Math.min(u1, u2, u3, u4),
      x1: Math.max(u1, u2, u3, u4),
      top: Math.min(v1, v2, v3, v4),
      bottom,
      // Runs in another direction than the page's have no usable origin in this frame:
      // the bottom of their box, less a typical descent, stands in.
      baseline: quarters[i] === dominant ? v(r.ox, r.oy) : bottom - 0.2 * r.size,
      size: r.size,
      fontId: r.fontId,
    };
  });
  // A run with gaps wider than a word space (cells of a tight table in one text object) is
  // cut there into runs of its own, placed along it; lines still join them into fragments.
  let runs = whole;
  if (raw.some((r, i) => r.cuts !== null && quarters[i] === dominant)) {
    runs = [];
    for (let i = 0; i < raw.length; i++) {
      const r = raw[i];
      const run = whole[i];
      const cuts = r.cuts;
      const span = r.reach - r.from;
      if (cuts === null || quarters[i] !== dominant || span <= 0) {
        runs.push(run);
        continue;
      }
      const at = (along: number) => run.x0 + ((along - r.from) / span) * (run.x1 - run.x0);
      let start = 0;
      let x0 = run.x0;
      for (let k = 0; k + 2 < cuts.length; k += 3) {
        const text = r.text.slice(start, cuts[k]);
        if (text.trim()) runs.push({ ...run, text, x0, x1: at(cuts[k + 1]) });
        start = cuts[k] + 1;
        x0 = at(cuts[k + 2]);
      }
      const rest = r.text.slice(start);
      if (rest.trim()) runs.push({ ...run, text: rest, x0, x1: run.x1 });
    }
  }
  return { frame, fragments: buildFragments(runs), rules };
}
