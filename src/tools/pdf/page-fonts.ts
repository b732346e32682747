/**
 * Real font names ("Helvetica-Bold") only reach the main side of pdf.js once the page's
 * operator list has been built; the text layer alone knows internal ids ("g_d0_f2").
 */
import type { PDFPageProxy } from './open-pdf.ts';

/** Strips the subset tag of embedded subsets ("ABCDEF+Arial-BoldMT" -> "Arial-BoldMT"). */
export const cleanFontName = (name: string): string => name.replace(/^[A-Z]{6}\+/, '');

export function fontNameOf(page: PDFPageProxy, fontId: string): string | null {
  try {
    const objs = page.commonObjs as unknown as { has(id: string): boolean; get(id: string): { name?: string } | null };
    if (!objs.has(fontId)) return null;
    const font = objs.get(fontId);
    return font?.name ? cleanFontName(font.name) : null;
  } catch {
    return null;
  }
}

export const isBoldFont = (name: string | null): boolean => !!name && /bold|black|heavy|semibold|demi/i.test(name);
