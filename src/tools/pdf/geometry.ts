/**
 * Page geometry shared by the text readers, the layout and the renderer: matrices and the
 * reading frame. A leaf (it imports nothing), so every layer can use it without a circle.
 */

export interface Frame {
  /** Size of the page as displayed (after /Rotate), in PDF points. */
  displayWidth: number;
  displayHeight: number;
  /** Size of the reading frame (swapped when the text runs sideways). */
  width: number;
  height: number;
  /** Quarter turns between display and reading frame. */
  quarter: 0 | 1 | 2 | 3;
  /** Display point -> reading frame. */
  toFrame(x: number, y: number): [number, number];
  /** Reading frame point -> display. */
  toDisplay(u: number, v: number): [number, number];
  /** Transform (6-element matrix) from PDF user space to display space (origin top-left, y down). */
  viewportTransform: number[];
}

const multiply = (m1: number[], m2: number[]): number[] => [
  m1[0] * m2[0] + m1[2] * m2[1],
  m1[1] * m2[0] + m1[3] * m2[1],
  m1[0] * m2[2] + m1[2] * m2[3],
  m1[1] * m2[2] + m1[3] * m2[3],
  m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
  m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
];
export const applyMatrix = (m: number[], x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
export { multiply as multiplyMatrix };

/**
 * makeFrame's toFrame(x, y)[0] for a frame turned `quarter` times over a display of W x H,
 * as a number: for loops over many points, where a tuple per point was most of the garbage.
 */
export const frameU = (quarter: 0 | 1 | 2 | 3, W: number, H: number, x: number, y: number): number => (quarter === 0 ? x : quarter === 1 ? y : quarter === 2 ? W - x : H - y);
/** makeFrame's toFrame(x, y)[1], as frameU. */
export const frameV = (quarter: 0 | 1 | 2 | 3, W: number, H: number, x: number, y: number): number => (quarter === 0 ? y : quarter === 1 ? W - x : quarter === 2 ? H - y : x);

export function makeFrame(displayWidth: number, displayHeight: number, quarter: 0 | 1 | 2 | 3, viewportTransform: number[]): Frame {
  const W = displayWidth;
  const H = displayHeight;
  const toFrame: Frame['toFrame'] = [
    (x: number, y: number): [number, number] => [x, y],
    (x: number, y: number): [number, number] => [y, W - x],
    (x: number, y: number): [number, number] => [W - x, H - y],
    (x: number, y: number): [number, number] => [H - y, x],
  ][quarter];
  const toDisplay: Frame['toDisplay'] = [
    (u: number, v: number): [number, number] => [u, v],
    (u: number, v: number): [number, number] => [W - v, u],
    (u: number, v: number): [number, number] => [W - u, H - v],
    (u: number, v: number): [number, number] => [v, H - u],
  ][quarter];
  const sideways = quarter % 2 === 1;
  return { displayWidth: W, displayHeight: H, width: sideways ? H : W, height: sideways ? W : H, quarter, toFrame, toDisplay, viewportTransform };
}

/**
 * PDF user space -> the page as displayed (origin top-left, y down, /Rotate applied), at
 * scale 1: the same matrix as pdf.js's PageViewport, so coordinates did not move when the
 * engine changed.
 */
export function displayTransform(viewBox: [number, number, number, number], rotate: 0 | 1 | 2 | 3): { transform: number[]; width: number; height: number } {
  const [x0, y0, x1, y1] = viewBox;
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const [a, b, c, d] = ([[1, 0, 0, -1], [0, 1, 1, 0], [-1, 0, 0, 1], [0, -1, -1, 0]] as const)[rotate];
  const sideways = a === 0;
  const offX = sideways ? Math.abs(cy - y0) : Math.abs(cx - x0);
  const offY = sideways ? Math.abs(cx - x0) : Math.abs(cy - y0);
  const width = sideways ? Math.abs(y1 - y0) : Math.abs(x1 - x0);
  const height = sideways ? Math.abs(x1 - x0) : Math.abs(y1 - y0);
  return { transform: [a, b, c, d, offX - a * cx - c * cy, offY - b * cx - d * cy], width, height };
}

/** What boxOf measures: anything with a box in page space. */
export interface Boxed {
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

/**
 * The box around a non-empty list of boxes, in one pass (no arrays of coordinates): the box of
 * a fragment's runs and of a block's lines.
 */
export function boxOf(items: readonly Boxed[]): Boxed {
  let { x0, x1, top, bottom } = items[0];
  for (let i = 1; i < items.length; i++) {
    const b = items[i];
    x0 = Math.min(x0, b.x0);
    x1 = Math.max(x1, b.x1);
    top = Math.min(top, b.top);
    bottom = Math.max(bottom, b.bottom);
  }
  return { x0, x1, top, bottom };
}
