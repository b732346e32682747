/**
 * Heuristic field extraction from the text rows of an invoice, whether they came from a
 * PDF text layer or from OCR. Every field is found from evidence in the document (a label,
 * a symbol, a table header); a field without evidence stays null rather than guessed, and
 * its confidence says how strong the evidence was. Cross-checks (quantity x unit price =
 * line amount, items + VAT = total) raise the confidence of the fields they confirm.
 */
import type { InvoiceItem, InvoiceResult } from '../tool-types.ts';
import { closeEnough, datesIn, detectCurrency, moneyIn, multiplyUnits, normaliseRate, numbersIn, toUnits, unitsToString, type NumberToken } from './parse-values.ts';

export interface Cell {
  text: string;
  x0: number;
  x1: number;
}

export interface InvoiceRow {
  cells: Cell[];
  /** Cells joined by two spaces, for patterns that span cells. */
  text: string;
  baseline: number;
  size: number;
  bold: boolean;
}

export interface ExtractOptions {
  /** 0..1 quality of the text itself (OCR word confidence); 1 for a PDF text layer. */
  textConfidence: number;
}

const rowText = (cells: Cell[]) => cells.map((c) => c.text).join('  ');

export const makeRow = (cells: Cell[], baseline: number, size: number, bold: boolean): InvoiceRow => ({ cells, text: rowText(cells), baseline, size, bold });

// ---------------------------------------------------------------------------------------
// Labels

const TOTAL_STRONG = /\b(grand\s*total|total\s*due|amount\s*due|balance\s*due|total\s*amount\s*due|invoice\s*total|total\s*payable|amount\s*payable|total\s*to\s*pay|total\s*\(?\s*incl|total\s*amount|gesamtbetrag|montant\s*total|total\s*ttc)\b/i;
const TOTAL_WEAK = /\btotal\b/i;
const SUBTOTAL = /\b(sub\s*-?\s*total|net\s*(total|amount)|total\s*(excl|net|before)|amount\s*excl|nettobetrag|zwischensumme)/i;
const TAX = /\b(vat|tax|mwst|ust|tva|iva|gst|hst|sales\s*tax|mehrwertsteuer)\b/i;
const TAX_ID = /\b(vat|tax|gst|ust)\s*(reg(istration)?\.?|no\.?|number|id|#|code|nr\.?)|\b(tax|vat)\s*id\b|\bust-?id/i;
const INCLUDED = /\bincl(uding|\.|usive)?\b/i;

const isTaxRow = (t: string) => TAX.test(t) && !TAX_ID.test(t) && !(TOTAL_STRONG.test(t) && INCLUDED.test(t));
const isSubtotalRow = (t: string) => SUBTOTAL.test(t);
const totalStrength = (t: string): 0 | 1 | 2 => {
  if (isSubtotalRow(t) || (TAX.test(t) && !INCLUDED.test(t))) return 0;
  if (TOTAL_STRONG.test(t)) return 2;
  if (TOTAL_WEAK.test(t)) return 1;
  return 0;
};

/** Text after `pattern` in the row, or in the row right below the label (label-over-value layouts). */
function valueNear(rows: InvoiceRow[], i: number, pattern: RegExp, accept: (text: string) => boolean): { text: string; below: boolean } | null {
  const row = rows[i];
  for (let c = 0; c < row.cells.length; c++) {
    const cell = row.cells[c];
    const m = pattern.exec(cell.text);
    if (!m) continue;
    const rest = cell.text.slice(m.index + m[0].length).replace(/^[\s:.#-]+/, '');
    if (rest && accept(rest)) return { text: rest, below: false };
    for (const next of row.cells.slice(c + 1)) if (accept(next.text)) return { text: next.text, below: false };
    const below = rows[i + 1];
    if (below && below.baseline - row.baseline < Math.max(row.size, below.size) * 3.5) {
      const candidates = below.cells.filter((b) => b.x1 > cell.x0 - row.size && b.x0 < cell.x1 + row.size * 4);
      for (const b of candidates) if (accept(b.text)) return { text: b.text, below: true };
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Invoice number

// "Invoice [iIlH]:" is how OCR often reads "Invoice #:" on a low-resolution scan.
const NUMBER_LABEL = /\b(invoice|inv|bill|rechnung|facture|receipt)\s*(no\b\.?|number|num\b\.?|nr\b\.?|n[°º]|#|id\b)\s*[:.]?|\binvoice\s*[iIlH]?\s*:|\b(rechnungsnummer|invoice#)/i;
const looksLikeId = (t: string) => /^[A-Z0-9][A-Z0-9\-/_.]*$/i.test(t) && /\d/.test(t) && t.length <= 32;

function findInvoiceNumber(rows: InvoiceRow[]): { value: string; confidence: number } | null {
  for (let i = 0; i < rows.length; i++) {
    if (!NUMBER_LABEL.test(rows[i].text)) continue;
    const found = valueNear(rows, i, NUMBER_LABEL, (t) => looksLikeId(t.split(/\s+/)[0]));
    if (found) return { value: found.text.split(/\s+/)[0].replace(/[.,;:]$/, ''), confidence: found.below ? 0.8 : 0.9 };
  }
  // "INVOICE INV-0042" as a title.
  for (const row of rows) {
    const m = /\binvoice\s+([A-Z0-9][A-Z0-9\-/_.]*\d[A-Z0-9\-/_.]*)/i.exec(row.text);
    if (m && looksLikeId(m[1])) return { value: m[1], confidence: 0.6 };
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Date

const DATE_LABEL = /\b(invoice\s*date|date\s*of\s*issue|issue\s*date|date\s*issued|issued(\s*on)?|billing\s*date|rechnungsdatum|date\s*de\s*facture|datum|dated?)\b\s*[:.]?/i;
const OTHER_DATE = /\b(due|delivery|service|order|payment|period|ship(ping)?|supply|expiry|valid)\b/i;

function findDate(rows: InvoiceRow[], monthFirst: boolean): { value: string; confidence: number } | null {
  const scored: { value: string; confidence: number }[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const label = DATE_LABEL.exec(row.text);
    if (label && !OTHER_DATE.test(row.text.slice(Math.max(0, label.index - 12), label.index + label[0].length))) {
      const found = valueNear(rows, i, DATE_LABEL, (t) => datesIn(t, monthFirst).length > 0);
      if (found) {
        const d = datesIn(found.text, monthFirst)[0];
        const strong = /invoice|issue|rechnungs|facture/i.test(label[0]);
        scored.push({ value: d.iso, confidence: (strong ? 0.95 : 0.85) - (d.ambiguous ? 0.25 : 0) - (found.below ? 0.05 : 0) });
      }
    }
  }
  if (scored.length) return scored.sort((a, b) => b.confidence - a.confidence)[0];
  // No label: the first date that is not a due/delivery date.
  for (const row of rows) {
    if (OTHER_DATE.test(row.text)) continue;
    const d = datesIn(row.text, monthFirst)[0];
    if (d) return { value: d.iso, confidence: d.ambiguous ? 0.35 : 0.5 };
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Vendor

const COMPANY = /\b(ltd|limited|llc|l\.l\.c|inc|incorporated|corp|corporation|gmbh|ag|sa|s\.a|sarl|s\.a\.r\.l|sas|bv|b\.v|nv|oy|ab|as|aps|plc|pty|co\.|company|kg|ohg|srl|s\.r\.l|spa|s\.p\.a|kk|k\.k)\.?(?=\s|$|,)/i;
const NOT_VENDOR = /\b(invoice|bill(ed)?\s*to|ship(ped)?\s*to|sold\s*to|customer|client|date|due|page|tax\s*invoice|receipt|statement|description|qty|quantity|amount|total|payment|terms|iban|swift|bic|account|reference|order|phone|tel|fax|email|e-mail|www\.|https?:|vat\s*(no|number|id|reg)|p\.?o\.?\s*box)\b|@/i;
const PARTY_LABEL = /\b(bill(ed)?\s*to|invoice\s*to|ship(ped)?\s*to|sold\s*to|customer|client|buyer|deliver\s*to|recipient)\b/i;
const FROM_LABEL = /\b(from|seller|supplier|vendor|issued\s*by|payee)\s*:/i;

function findVendor(rows: InvoiceRow[], stopRow: number): { value: string; confidence: number } | null {
  for (let i = 0; i < rows.length; i++) {
    if (!FROM_LABEL.test(rows[i].text)) continue;
    const found = valueNear(rows, i, FROM_LABEL, (t) => /[A-Za-z]{2}/.test(t) && !NOT_VENDOR.test(t));
    if (found) return { value: found.text.trim(), confidence: COMPANY.test(found.text) ? 0.9 : 0.8 };
  }
  const limit = Math.min(stopRow, Math.max(6, Math.ceil(rows.length * 0.4)));
  const bodySize = [...rows.map((r) => r.size)].sort((a, b) => a - b)[Math.floor(rows.length / 2)] ?? 10;
  // Cells under a "Bill to" label belong to the customer.
  const customerZones: { x0: number; x1: number; from: number; to: number }[] = [];
  rows.slice(0, limit).forEach((row) => {
    for (const cell of row.cells) {
      if (PARTY_LABEL.test(cell.text)) customerZones.push({ x0: cell.x0 - bodySize, x1: Math.max(cell.x1, cell.x0 + bodySize * 20), from: row.baseline - 1, to: row.baseline + bodySize * 7 });
    }
  });
  let best: { value: string; score: number; company: boolean } | null = null;
  rows.slice(0, limit).forEach((row, index) => {
    for (const cell of row.cells) {
      const text = cell.text.trim();
      if (text.length < 3 || !/[A-Za-z]{2}/.test(text) || NOT_VENDOR.test(text)) continue;
      if (/\d/.test(text) && !COMPANY.test(text)) continue;
      if (customerZones.some((z) => row.baseline >= z.from && row.baseline <= z.to && cell.x0 >= z.x0 && cell.x0 <= z.x1)) continue;
      const company = COMPANY.test(text);
      const score = (company ? 3 : 0) + Math.min(3, row.size / bodySize) + (row.bold ? 0.5 : 0) + (1 - index / limit);
      if (!best || score > best.score) best = { value: text, score, company };
    }
  });
  if (!best) return null;
  const b = best as { value: string; score: number; company: boolean };
  return { value: b.value.replace(/\s{2,}/g, ' '), confidence: b.company ? 0.8 : 0.5 };
}

// ---------------------------------------------------------------------------------------
// Items

type Role = 'description' | 'quantity' | 'unit_price' | 'amount';
const ROLE_PATTERNS: [Role, RegExp][] = [
  ['unit_price', /\b(unit\s*price|price|rate|unit\s*cost|each|einzelpreis|prix\s*unitaire)\b/i],
  ['quantity', /\b(qty|quantity|hours|hrs|units?|pcs|menge|qté|quantité)\b/i],
  ['amount', /\b(amount|line\s*total|total|sum|betrag|montant|net)\b/i],
  ['description', /\b(description|item|items|product|service|services|details|article|particulars|bezeichnung|leistung|désignation)\b/i],
];

const roleOf = (text: string): Role | null => {
  for (const [role, re] of ROLE_PATTERNS) if (re.test(text)) return role;
  return null;
};

interface Column {
  role: Role;
  x0: number;
  x1: number;
}

function findItemHeader(rows: InvoiceRow[]): { index: number; columns: Column[] } | null {
  for (let i = 0; i < rows.length; i++) {
    const columns: Column[] = [];
    for (const cell of rows[i].cells) {
      const role = roleOf(cell.text);
      if (role && !columns.some((c) => c.role === role) && cell.text.length <= 30) columns.push({ role, x0: cell.x0, x1: cell.x1 });
    }
    const roles = new Set(columns.map((c) => c.role));
    if (roles.has('amount') && (roles.has('description') || roles.size >= 3) && roles.size >= 2) return { index: i, columns };
  }
  return null;
}

interface ItemsFound {
  items: InvoiceItem[];
  confidence: number;
  endRow: number;
  consistent: number;
  /** Lines whose values did not fill the header's columns and do not check out. */
  misaligned: number;
}

const isNumericCell = (t: string) => {
  const nums = numbersIn(t);
  if (nums.length !== 1) return false;
  const rest = (t.slice(0, nums[0].index) + t.slice(nums[0].end)).replace(/[\s$€£¥₹x×@*]|hrs?|h|pcs|units?|ea/gi, '');
  return rest === '';
};

/** Where each word of a cell stands, its width shared out by characters (a cell knows only its own ends). */
function wordsOf(cell: Cell): Cell[] {
  const perChar = (cell.x1 - cell.x0) / Math.max(1, cell.text.length);
  const at = (text: string, index: number): Cell => ({ text, x0: cell.x0 + index * perChar, x1: cell.x0 + (index + text.length) * perChar });
  // A number keeps its currency ("CHF 1'350.00", "1.200,00 €") as one word.
  const words: Cell[] = [];
  let from = 0;
  const plain = (to: number) => {
    for (const m of cell.text.slice(from, to).matchAll(/\S+/g)) words.push(at(m[0], from + m.index));
  };
  for (const n of numbersIn(cell.text)) {
    plain(n.index);
    const raw = cell.text.slice(n.index, n.end);
    const lead = raw.length - raw.trimStart().length;
    words.push(at(raw.trim(), n.index + lead));
    from = n.end;
  }
  plain(cell.text.length);
  return words;
}

/**
 * Cells as the columns of the item table cut them. A cell that runs from the description
 * into the number columns (words set a few points apart, which a text layer's spacing or
 * OCR's line grouping joins: "API integration consulting 12") gives back its trailing numbers
 * that stand under a number column's header, each as its own cell; the same on PDF text and
 * OCR words, so both read one table alike.
 */
function splitIntoColumns(cells: Cell[], cols: Column[], size: number): Cell[] {
  const numberCols = cols.filter((c) => c.role !== 'description');
  if (!numberCols.length) return cells;
  const leftmost = Math.min(...numberCols.map((c) => c.x0));
  const under = (w: Cell) => numberCols.some((c) => w.x1 > c.x0 - size * 1.5 && w.x0 < c.x1 + size * 1.5);
  return cells.flatMap((cell) => {
    if (cell.x1 < leftmost - size) return [cell];
    const words = wordsOf(cell);
    if (words.length < 2) return [cell];
    let keep = words.length;
    while (keep > 0 && isNumericCell(words[keep - 1].text) && under(words[keep - 1])) keep--;
    if (keep === words.length) return [cell];
    if (keep === 0) return words;
    const head = words.slice(0, keep);
    return [{ text: head.map((w) => w.text).join(' '), x0: cell.x0, x1: head[head.length - 1].x1 }, ...words.slice(keep)];
  });
}

function findItems(rows: InvoiceRow[]): ItemsFound {
  const header = findItemHeader(rows);
  if (!header) return { items: [], confidence: 0, endRow: rows.length, consistent: 0, misaligned: 0 };
  const cols = header.columns;
  const headerRow = rows[header.index];
  const colFor = (cell: Cell): Column | null => {
    // Numbers are right- or centre-aligned under their header: pick the header whose span overlaps most, else the nearest centre.
    let best: Column | null = null;
    let bestScore = -Infinity;
    for (const col of cols) {
      if (col.role === 'description') continue;
      const overlap = Math.min(cell.x1, col.x1 + headerRow.size * 2) - Math.max(cell.x0, col.x0 - headerRow.size * 2);
      const distance = Math.abs((cell.x0 + cell.x1) / 2 - (col.x0 + col.x1) / 2);
      const score = overlap > 0 ? 1000 + overlap - distance / 100 : -distance;
      if (score > bestScore) [best, bestScore] = [col, score];
    }
    return best;
  };
  const items: (InvoiceItem & { ok: boolean | null })[] = [];
  let end = rows.length;
  let lastBaseline = headerRow.baseline;
  for (let i = header.index + 1; i < rows.length; i++) {
    const row = rows[i];
    if (isSubtotalRow(row.text) || totalStrength(row.text) > 0 || isTaxRow(row.text) || /thank|payment\s*(terms|details)|notes?:/i.test(row.text)) {
      end = i;
      break;
    }
    // A wide vertical gap ends the table.
    if (row.baseline - lastBaseline > headerRow.size * 5) {
      end = i;
      break;
    }
    lastBaseline = row.baseline;
    const values: Partial<Record<Role, string>> = {};
    const desc: string[] = [];
    for (const cell of splitIntoColumns(row.cells, cols, headerRow.size)) {
      if (isNumericCell(cell.text)) {
        const col = colFor(cell);
        const n = numbersIn(cell.text)[0];
        if (col && !values[col.role]) values[col.role] = n.value;
        else desc.push(cell.text);
      } else desc.push(cell.text);
    }
    const description = desc.join(' ').trim() || null;
    if (!values.amount && !values.unit_price && !values.quantity) {
      // Wrapped description of the item above.
      if (description && items.length) items[items.length - 1].description = `${items[items.length - 1].description ?? ''} ${description}`.trim();
      continue;
    }
    const item: InvoiceItem & { ok: boolean | null } = {
      description,
      quantity: values.quantity ?? null,
      unit_price: values.unit_price ?? null,
      amount: values.amount ?? null,
      ok: null,
    };
    if (item.quantity && item.unit_price && item.amount) item.ok = closeEnough(multiplyUnits(item.quantity, item.unit_price), toUnits(item.amount));
    items.push(item);
  }
  const consistent = items.filter((i) => i.ok).length;
  // A line that lacks a value its header has a column for did not line up with the columns
  // (a skewed scan, words run together): its values may sit in the wrong fields.
  const numberRoles = new Set(cols.map((c) => c.role).filter((r) => r !== 'description'));
  // So did one that left a price in its description.
  const priceLike = /[$€£¥₹]\s?\d|\d[.,]\d{2}(?!\d)/;
  const aligned = (i: InvoiceItem) => [...numberRoles].every((r) => i[r as Exclude<Role, 'description'>] !== null) && !!i.description && !priceLike.test(i.description);
  const misaligned = items.filter((i) => !i.ok && !aligned(i)).length;
  const score = items.map((i) => (i.ok ? 0.95 : i.ok === false ? 0.3 : !aligned(i) ? 0.3 : i.amount && i.description ? 0.7 : 0.5));
  const confidence = score.length ? score.reduce((a, b) => a + b, 0) / score.length : 0;
  return { items: items.map(({ ok: _ok, ...rest }) => rest), confidence, endRow: end, consistent, misaligned };
}

// ---------------------------------------------------------------------------------------
// Totals and VAT

const lastMoney = (text: string): NumberToken | null => {
  const money = moneyIn(text);
  return money.length ? money[money.length - 1] : null;
};

function findTotals(rows: InvoiceRow[], from: number) {
  let total: { value: string; strength: number; row: number } | null = null;
  let subtotal: string | null = null;
  const taxes: { amount: string | null; rate: string | null }[] = [];
  const scan = (start: number) => {
    for (let i = start; i < rows.length; i++) {
      const t = rows[i].text;
      const below = rows[i + 1];
      const value = () => lastMoney(t) ?? (below && below.baseline - rows[i].baseline < rows[i].size * 2.5 ? lastMoney(below.text) : null);
      if (isSubtotalRow(t)) {
        subtotal ??= value()?.value ?? null;
        continue;
      }
      const strength = totalStrength(t);
      if (strength > 0) {
        const v = value();
        if (v && (!total || strength > total.strength || (strength === total.strength && i > total.row))) total = { value: v.value, strength, row: i };
        continue;
      }
      if (isTaxRow(t)) {
        const rate = numbersIn(t).find((n) => n.percent);
        const amount = lastMoney(t.replace(rate?.raw ?? '\u0000', ' '));
        if (rate || amount) taxes.push({ rate: rate ? normaliseRate(rate.value) : null, amount: amount?.value ?? null });
      }
    }
  };
  scan(from);
  if (!total && from > 0) scan(0);
  return { total: total as { value: string; strength: number; row: number } | null, subtotal: subtotal as string | null, taxes };
}

// ---------------------------------------------------------------------------------------

const round2 = (n: number) => Math.round(Math.max(0, Math.min(1, n)) * 100) / 100;

export function extractInvoiceFields(rows: InvoiceRow[], options: ExtractOptions): InvoiceResult {
  const allText = rows.map((r) => r.text).join('\n');
  const currency = detectCurrency(allText);
  const monthFirst = currency?.code === 'USD';
  const items = findItems(rows);
  const headerIndex = findItemHeader(rows)?.index ?? rows.length;
  const { total, subtotal, taxes } = findTotals(rows, items.items.length ? items.endRow : 0);
  const invoiceNumber = findInvoiceNumber(rows);
  const date = findDate(rows, monthFirst);
  const vendor = findVendor(rows, headerIndex);

  let vat: InvoiceResult['vat'] = null;
  let vatConfidence = 0;
  if (taxes.length) {
    const rates = [...new Set(taxes.map((t) => t.rate).filter((r): r is string => r !== null))];
    const amounts = taxes.map((t) => t.amount).filter((a): a is string => a !== null);
    const amount = amounts.length ? unitsToString(amounts.reduce((s, a) => s + toUnits(a), 0n), Math.max(...amounts.map((a) => a.split('.')[1]?.length ?? 0))) : null;
    vat = { rate: rates.length === 1 ? rates[0] : null, amount };
    vatConfidence = rates.length === 1 && amount ? 0.85 : 0.6;
  }

  let amountConfidence = total ? (total.strength === 2 ? 0.9 : 0.8) : 0;
  let itemsConfidence = items.confidence;
  // Cross-checks between the parts of the invoice.
  if (total) {
    const t = toUnits(total.value);
    const vatUnits = vat?.amount ? toUnits(vat.amount) : 0n;
    const itemSum = items.items.every((i) => i.amount) && items.items.length ? items.items.reduce((s, i) => s + toUnits(i.amount!), 0n) : null;
    const net = subtotal ? toUnits(subtotal) : itemSum;
    if (net !== null && closeEnough(net + vatUnits, t)) {
      amountConfidence = Math.max(amountConfidence, 0.98);
      if (vat) vatConfidence = Math.max(vatConfidence, 0.95);
    }
    // The sum checking out vouches for the amounts, not for lines whose columns did not line up.
    if (itemSum !== null && !items.misaligned && ((subtotal && closeEnough(itemSum, toUnits(subtotal))) || closeEnough(itemSum + vatUnits, t) || closeEnough(itemSum, t))) {
      itemsConfidence = Math.max(itemsConfidence, 0.9);
    }
    if (vat?.amount && vat.rate && net !== null && net > 0n) {
      const expected = (net * toUnits(vat.rate)) / 1000000n;
      if (closeEnough(expected, toUnits(vat.amount))) vatConfidence = Math.max(vatConfidence, 0.95);
    }
  }
  // Decimals as the document writes them.
  const amount = total ? total.value : null;

  const q = 0.5 + 0.5 * Math.max(0, Math.min(1, options.textConfidence));
  return {
    vendor: vendor?.value ?? null,
    invoice_number: invoiceNumber?.value ?? null,
    date: date?.value ?? null,
    currency: currency?.code ?? null,
    amount,
    vat,
    items: items.items,
    confidence: {
      vendor: round2((vendor?.confidence ?? 0) * q),
      invoice_number: round2((invoiceNumber?.confidence ?? 0) * q),
      date: round2((date?.confidence ?? 0) * q),
      currency: round2((currency?.confidence ?? 0) * q),
      amount: round2(amountConfidence * q),
      vat: round2(vatConfidence * q),
      items: round2(itemsConfidence * q),
    },
  };
}
