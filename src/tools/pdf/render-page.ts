/**
 * Renders a page with PDFium into a greyscale PNG, for OCR of scanned pages. Grey is all
 * tesseract reads, and an 8-bit PNG is a quarter of an RGBA one. The PNG is written here with
 * node:zlib (a few lines) so rendering needs no canvas library.
 */
import { deflateSync } from 'node:zlib';
import type { PdfPage } from './open-pdf.ts';
import { displayTransform } from './geometry.ts';

/** fpdfview.h render flags. */
const FPDF_ANNOT = 0x01;
const FPDF_PRINTING = 0x800;

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

const crc32 = (bytes: Uint8Array): number => {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
};

const chunk = (type: string, data: Uint8Array): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
};

/** An 8-bit greyscale PNG (filter 0 on every row). */
export function encodeGreyPng(grey: Uint8Array, width: number, height: number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) raw.set(grey.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 3 })), chunk('IEND', new Uint8Array(0))]);
}

/** The page as displayed (after /Rotate) at `dpi`, on white, as a greyscale PNG. */
export function renderPagePng(page: PdfPage, dpi: number): Buffer {
  const { x } = page.pdfium;
  const { width: w, height: h } = displayTransform(page.viewBox, page.rotate);
  const width = Math.max(1, Math.ceil((w * dpi) / 72));
  const height = Math.max(1, Math.ceil((h * dpi) / 72));
  const bitmap = x.FPDFBitmap_Create(width, height, 0);
  if (!bitmap) throw new Error(`PDFium could not allocate a ${width}x${height} bitmap`);
  try {
    x.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
    // rotate 0: FPDF_RenderPageBitmap already applies the page's /Rotate.
    x.FPDF_RenderPageBitmap(bitmap, page.handle, 0, 0, width, height, 0, FPDF_ANNOT | FPDF_PRINTING);
    const stride = x.FPDFBitmap_GetStride(bitmap);
    const buffer = x.FPDFBitmap_GetBuffer(bitmap);
    const bgra = page.pdfium.u8().subarray(buffer, buffer + stride * height);
    const grey = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      let p = y * stride;
      const row = y * width;
      // BT.601 luma from B, G, R (the bitmap is BGRx).
      for (let i = 0; i < width; i++, p += 4) grey[row + i] = (bgra[p] * 29 + bgra[p + 1] * 150 + bgra[p + 2] * 77) >> 8;
    }
    return encodeGreyPng(grey, width, height);
  } finally {
    x.FPDFBitmap_Destroy(bitmap);
  }
}
