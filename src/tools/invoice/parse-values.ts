/**
 * Numbers, money and dates as invoices write them, in the main European and English
 * conventions. Values come back as strings (decimal strings, ISO dates): money never goes
 * through a float on its way to the buyer.
 */

export interface NumberToken {
  raw: string;
  /** Normalised decimal string: no grouping, "." as decimal separator, sign kept. */
  value: string;
  decimals: number;
  index: number;
  end: number;
  percent: boolean;
  /** A currency symbol or code stands next to it. */
  currency: boolean;
}

const CODES = ['USD', 'EUR', 'GBP', 'CHF', 'JPY', 'CAD', 'AUD', 'NZD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'INR', 'CNY', 'SGD', 'HKD', 'ZAR', 'BRL', 'MXN'];
const CODE_RE = CODES.join('|');
const NUMBER = new RegExp(
  `(?<![\\w.,])(-|\\()?\\s?((?:${CODE_RE}|[$€£¥₹]|Fr\\.)\\s?)?(\\d{1,3}(?:[,.'\\u00a0\\u202f]\\d{3})+(?:[.,]\\d{1,4})?|\\d+(?:[.,]\\d{1,4})?)(?![\\d])(\\s?(?:%|(?:${CODE_RE})\\b|[$€£¥₹]))?`,
  'g',
);

/** Decides which separator is decimal: the last one, unless it groups exactly three digits. */
export function normaliseNumber(raw: string): { value: string; decimals: number } | null {
  const s = raw.replace(/[\u00a0\u202f']/g, '');
  if (!/^\d[\d.,]*$/.test(s)) return null;
  const strip = (x: string) => x.replace(/^0+(?=\d)/, '');
  const hasDot = s.includes('.');
  const hasComma = s.includes(',');
  if (!hasDot && !hasComma) return { value: strip(s), decimals: 0 };
  let decimalSep: string | null;
  if (hasDot && hasComma) decimalSep = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
  else {
    const sep = hasDot ? '.' : ',';
    const parts = s.split(sep);
    // "1,234" and "1.234.567" group thousands; "12,50" and "0.125" carry decimals.
    decimalSep = parts.length > 2 || (parts[1].length === 3 && parts[0] !== '0') ? null : sep;
  }
  if (decimalSep === null) return { value: strip(s.replace(/[.,]/g, '')), decimals: 0 };
  const at = s.lastIndexOf(decimalSep);
  const intPart = strip(s.slice(0, at).replace(/[.,]/g, '')) || '0';
  const frac = s.slice(at + 1);
  if (/[.,]/.test(frac)) return null;
  return { value: frac ? `${intPart}.${frac}` : intPart, decimals: frac.length };
}

export function numbersIn(text: string): NumberToken[] {
  const out: NumberToken[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const parsed = normaliseNumber(m[3]);
    if (!parsed) continue;
    const end = m.index + m[0].length;
    const percent = /%/.test(m[4] ?? '');
    const negative = !percent && (m[1] === '-' || (m[1] === '(' && text[end] === ')'));
    out.push({
      raw: m[0],
      value: (negative ? '-' : '') + parsed.value,
      decimals: parsed.decimals,
      index: m.index,
      end,
      percent,
      currency: !!m[2] || (!!m[4] && !/%/.test(m[4])),
    });
  }
  return out;
}

/** Money-looking tokens: two decimals or a currency marker, and not a percentage. */
export const moneyIn = (text: string): NumberToken[] => numbersIn(text).filter((t) => !t.percent && (t.decimals === 2 || t.currency));

/** Exact decimal arithmetic in hundredths of hundredths, enough for invoice checks. */
export const toUnits = (value: string): bigint => {
  const neg = value.startsWith('-');
  const [i, f = ''] = value.replace('-', '').split('.');
  const units = BigInt(i || '0') * 10000n + BigInt((f + '0000').slice(0, 4));
  return neg ? -units : units;
};

export const unitsToString = (units: bigint, decimals = 2): string => {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const i = abs / 10000n;
  const f = (abs % 10000n).toString().padStart(4, '0').slice(0, decimals);
  return `${neg ? '-' : ''}${i}${decimals ? `.${f}` : ''}`;
};

/** a and b equal within a cent (or half a percent, for rounded line totals). */
export const closeEnough = (a: bigint, b: bigint): boolean => {
  const diff = a > b ? a - b : b - a;
  const tolerance = 100n + (a < 0n ? -a : a) / 200n;
  return diff <= tolerance;
};

/** Product of two decimal strings, in the same 4-decimal units. */
export const multiplyUnits = (a: string, b: string): bigint => (toUnits(a) * toUnits(b)) / 10000n;

/** "20.00" -> "20", "7,7" -> "7.7": the rate as a plain decimal string. */
export const normaliseRate = (raw: string): string => {
  const s = raw.replace(',', '.');
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
};

// ---------------------------------------------------------------------------------------
// Dates

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, januar: 1, janvier: 1,
  feb: 2, february: 2, februar: 2, fevrier: 2, février: 2,
  mar: 3, march: 3, märz: 3, maerz: 3, mars: 3, mrz: 3,
  apr: 4, april: 4, avril: 4,
  may: 5, mai: 5,
  jun: 6, june: 6, juni: 6, juin: 6,
  jul: 7, july: 7, juli: 7, juillet: 7,
  aug: 8, august: 8, août: 8, aout: 8,
  sep: 9, sept: 9, september: 9, septembre: 9,
  oct: 10, october: 10, okt: 10, oktober: 10, octobre: 10,
  nov: 11, november: 11, novembre: 11,
  dec: 12, december: 12, dez: 12, dezember: 12, décembre: 12, decembre: 12,
};
const MONTH_RE = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|');

export interface DateToken {
  iso: string;
  index: number;
  /** True when day and month could be swapped and a locale guess decided. */
  ambiguous: boolean;
}

const valid = (y: number, m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
const iso = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const year4 = (y: string) => (y.length === 2 ? 2000 + Number(y) : Number(y));

/**
 * Dates in a line of text. `monthFirst` is the guess for 03/04/2024-style dates whose day
 * and month could both be either (US documents write the month first).
 */
export function datesIn(text: string, monthFirst: boolean): DateToken[] {
  const out: DateToken[] = [];
  const push = (y: number, m: number, d: number, index: number, ambiguous = false) => {
    if (y >= 1900 && y <= 2199 && valid(y, m, d)) out.push({ iso: iso(y, m, d), index, ambiguous });
  };
  for (const m of text.matchAll(/\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/g)) push(+m[1], +m[2], +m[3], m.index);
  for (const m of text.matchAll(/\b(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})\b/g)) {
    const a = +m[1];
    const b = +m[3];
    const y = year4(m[4]);
    if (m[2] === '.') push(y, b, a, m.index);
    else if (a > 12) push(y, b, a, m.index);
    else if (b > 12) push(y, a, b, m.index);
    else if (a === b) push(y, a, b, m.index);
    else if (monthFirst) push(y, a, b, m.index, true);
    else push(y, b, a, m.index, true);
  }
  const dayMonth = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\.?[\\s-]+(${MONTH_RE})\\.?,?[\\s-]+(\\d{4}|\\d{2})\\b`, 'giu');
  for (const m of text.matchAll(dayMonth)) push(year4(m[3]), MONTHS[m[2].toLowerCase()], +m[1], m.index);
  const monthDay = new RegExp(`\\b(${MONTH_RE})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'giu');
  for (const m of text.matchAll(monthDay)) push(+m[3], MONTHS[m[1].toLowerCase()], +m[2], m.index);
  return out.sort((a, b) => a.index - b.index);
}

// ---------------------------------------------------------------------------------------
// Currency

/** Currency from ISO codes (strong) and symbols (weaker: "$" is many dollars). */
export function detectCurrency(text: string): { code: string; confidence: number } | null {
  const score = new Map<string, number>();
  const add = (code: string, n: number) => score.set(code, (score.get(code) ?? 0) + n);
  for (const m of text.matchAll(new RegExp(`\\b(${CODES.join('|')})\\b`, 'g'))) add(m[1], 3);
  for (const m of text.matchAll(/(US|CA|C|AU|A|NZ|S|HK)?\$/g)) {
    const prefix = m[1];
    add(prefix === 'CA' || prefix === 'C' ? 'CAD' : prefix === 'AU' || prefix === 'A' ? 'AUD' : prefix === 'NZ' ? 'NZD' : prefix === 'S' ? 'SGD' : prefix === 'HK' ? 'HKD' : 'USD', 1);
  }
  for (const m of text.matchAll(/[€£¥₹]/g)) add({ '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR' }[m[0]]!, 2);
  for (const _ of text.matchAll(/\bFr\.\s?\d/g)) add('CHF', 1);
  let best: string | null = null;
  let bestScore = 0;
  for (const [code, s] of score) if (s > bestScore) [best, bestScore] = [code, s];
  if (!best) return null;
  const hasCode = new RegExp(`\\b${best}\\b`).test(text);
  const confidence = hasCode ? 0.95 : best === 'USD' ? 0.7 : 0.85;
  return { code: best, confidence };
}
