/**
 * Font names of text runs. PDFium knows each text object's font; its base font name is read
 * once per font of a page (runs carry the cleaned name as their fontId).
 */
import type { Pdfium } from './pdfium-module.ts';

/** Strips the subset tag of embedded subsets ("ABCDEF+Arial-BoldMT" -> "Arial-BoldMT"). */
export const cleanFontName = (name: string): string => name.replace(/^[A-Z]{6}\+/, '');

/** Base font name of a PDFium font handle, subset tag removed; '' when it has none. */
export function baseFontName(pdfium: Pdfium, font: number, scratch: { ptr: number; size: number }): string {
  if (!font) return '';
  const { x } = pdfium;
  const length = x.FPDFFont_GetBaseFontName(font, scratch.ptr, scratch.size);
  if (length <= 0) return '';
  if (length > scratch.size) return '';
  // UTF-8 with a terminating NUL.
  return cleanFontName(Buffer.from(pdfium.u8().subarray(scratch.ptr, scratch.ptr + length - 1)).toString('utf8'));
}

/** The font name of a run's fontId (OCR runs and unnamed fonts have none). */
export const fontNameOf = (fontId: string): string | null => (fontId && !fontId.startsWith('ocr:') ? fontId : null);

/**
 * Bold by name: the usual weight words, URW's "-Medi" (Nimbus Roman Medium is Times Bold),
 * and TeX's font names, which spell weight as "bx" (CMBX12, CMSSBX10) or "sx" (SFSX1095).
 * The encoding xdvipdfmx appends to a CID font's name ("PalatinoNovaPro-Medium-Identity-H")
 * is no part of its weight.
 */
export const isBoldFont = (name: string | null): boolean =>
  !!name && /bold|black|heavy|semibold|demi|-medi(um)?$|^(cm|ec|tc|lm|sf)\w*bx\d|^sfsx\d|^cmssbx/i.test(name.replace(/-Identity-[HV]$/, ''));
