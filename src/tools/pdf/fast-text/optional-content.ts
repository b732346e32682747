/**
 * Optional content (PDF 32000-1, 8.11): the groups a document's default configuration hides.
 * A viewer does not show content marked with a hidden group (`/OC /name BDC ... EMC`, or a form
 * XObject's /OC), and neither should the text an agent reads: a demonstration drawn in four
 * layers, of which one is on, would otherwise come out as four interleaved copies. PDFium's
 * text page keeps such content; the fast reader leaves it out.
 */
import { PdfObjects, Unsupported, type PdfDict, type PdfValue } from './pdf-objects.ts';

export interface OptionalContent {
  /** Whether content marked with this group or membership dictionary is hidden. */
  hidden(marker: PdfValue | undefined): boolean;
}

/** The document's default visibility, or null when it has no optional content (nothing is hidden). */
export function optionalContent(objects: PdfObjects): OptionalContent | null {
  const root = objects.dict(objects.trailer.get('Root'));
  const properties = objects.dict(objects.get(root, 'OCProperties'));
  if (!properties) return null;
  const config = objects.dict(objects.get(properties, 'D'));
  const groups = (list: PdfValue | undefined): PdfDict[] => (objects.array(list) ?? []).flatMap((g) => objects.dict(g) ?? []);
  // BaseState ON (the default) or Unchanged: every group is on except those in /OFF; OFF: every
  // group is off except those in /ON.
  let off: Set<PdfDict>;
  if (objects.get(config, 'BaseState') === 'OFF') {
    const on = new Set(groups(objects.get(config, 'ON')));
    off = new Set(groups(objects.get(properties, 'OCGs')).filter((g) => !on.has(g)));
  } else off = new Set(groups(objects.get(config, 'OFF')));
  if (off.size === 0) return null;

  return {
    hidden(marker) {
      const d = objects.dict(marker);
      if (!d) return false;
      const type = objects.get(d, 'Type');
      if (type === 'OCG') return off.has(d);
      if (type !== 'OCMD') return false;
      // A visibility expression is a small boolean language of its own: PDFium reads the page.
      if (d.has('VE')) throw new Unsupported('optional content visibility expression');
      // /OCGs is one group or an array of them.
      const v = objects.get(d, 'OCGs');
      const members = groups(Array.isArray(v) ? v : v === undefined ? [] : [v]);
      if (members.length === 0) return false;
      const on = members.filter((g) => !off.has(g)).length;
      switch (objects.get(d, 'P') ?? 'AnyOn') {
        case 'AllOn':
          return on < members.length;
        case 'AnyOff':
          return on === members.length;
        case 'AllOff':
          return on > 0;
        default:
          return on === 0;
      }
    },
  };
}
