/**
 * Text flow for pdf-md: joining the lines of a paragraph, and the words a typesetter broke
 * at a line end ("manip-" + "ulation"), without breaking real compounds ("state-of-" +
 * "the-art", "micro-" + "cavities") apart or together wrongly.
 *
 * The decision uses the document's own words first (no network, no dictionary download):
 * if the document writes the joined word somewhere, join, unless it writes the hyphenated
 * pair within a line at least as often ("via-path" five times, "viapath" once); if it writes
 * the pair, or any compound with the same first part ("micro-cavity" for "micro-" +
 * "cavities"), within a line somewhere, keep the hyphen; a token that is no plain word
 * ("3rd-", "serial/tcp-", "--with-") or a line that goes on with a compound ("hop-" +
 * "by-hop") keeps it too; otherwise a short list of prefixes that usually make compounds
 * keeps the hyphen, and anything else is joined (TeX, FOP and word processors hyphenate
 * words at line ends far more often than a compound happens to break there).
 */

/** Prefixes that, before a line-end hyphen, usually start a compound ("self-", "non-"). */
const COMPOUND_PREFIXES = new Set([
  'self', 'non', 'well', 'multi', 'cross', 'high', 'low', 'long', 'short', 'built', 'user', 'real', 'read', 'write',
  'one', 'two', 'three', 'four', 'first', 'second', 'third', 'half', 'full', 'all', 'semi', 'quasi', 'pseudo',
  'plug', 'intra', 'anti',
]);
/**
 * Prefixes that start compounds ("re-use", "sub-class", "e-mail") but also begin plain words a
 * typesetter hyphenates after them ("sub-mitted", "re-ceive", "de-fined", "pre-sented"): the
 * hyphen stays only when what follows is a word of the document by itself.
 */
const WEAK_PREFIXES = new Set(['co', 'ex', 'x', 'e', 'end', 'run', 'sub', 'pre', 'post', 'inter', 're', 'de']);

/** What addLine strips from either end of a token. */
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const isAsciiAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** Whether the code unit is whitespace to a regular expression's \s. */
const isJsSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/** Whether s has no whitespace but single spaces between other characters (so split(/\s+/) is split(' ')). */
function singleSpaced(s: string): boolean {
  let afterSpace = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      if (afterSpace) return false;
      afterSpace = true;
    } else if (c < 0x21 || c >= 0xa0 ? isJsSpace(c) : false) return false;
    else afterSpace = false;
  }
  return !afterSpace;
}

export class Vocabulary {
  /**
   * The document's words, each with how often it was seen other than first on a line ("inner";
   * 0: only first): a line's first word may be the tail of a word broken at the line before
   * ("mitted" of "sub-mitted"), which says nothing of the language. One map, one look-up per token.
   */
  private words = new Map<string, number>();
  /** Compounds written within a line, with how often ("via-path" 5). */
  private compounds = new Map<string, number>();
  /** First parts of the compounds ("micro" of "micro-cavity"). */
  private heads = new Set<string>();
  /**
   * Lines added but not yet split into words: they are read on the first question, since
   * many documents never ask one (no word broken at a line end), and splitting every line
   * of a document was 5 % of pdf-md.
   */
  private pending: string[] = [];
  /** Each line-end hyphen met: the token before it ("manip-") and the next line's first token. */
  private breaks: [string, string][] = [];
  private openBreak: string | null = null;
  /** Whether the document hyphenates words at line ends (null: not yet worked out). */
  private hyphenating: boolean | null = null;

  /** Words of one printed line; its last word is left out when it ends with a hyphen (a fragment). */
  addLine(line: string): void {
    this.pending.push(line);
  }

  /** Reads the lines added since the last question, in order. */
  private read(): void {
    if (!this.pending.length) return;
    const lines = this.pending;
    this.pending = [];
    for (const line of lines) this.readLine(line);
    this.hyphenating = null;
  }

  /**
   * Whether the document hyphenates words at line ends: it does when some line-end break
   * splits a word it writes whole more often than with that hyphen ("manip-" + "ulation" where
   * "manipulation" is written). Word processors and Prawn or ReportLab do not hyphenate unless
   * asked, so in their documents every hyphen at a line end is the word's own ("text-" +
   * "hyphen", "source-" + "highlighter"); a document with fewer than three breaks to judge
   * by is taken to hyphenate, as before this test.
   */
  private hyphenates(): boolean {
    if (this.hyphenating !== null) return this.hyphenating;
    let pairs = 0;
    let broken = 0;
    for (const [head, next] of this.breaks) {
      const w = head.slice(0, -1).replace(OPENING, '');
      const tail = WORD_START.exec(next);
      if (!tail || !w || w.includes('-') || NOT_A_WORD.test(w) || next.charCodeAt(tail[1].length) === 45) continue;
      const h = w.toLowerCase();
      const t = tail[1].toLowerCase();
      pairs++;
      if ((this.words.get(h + t) ?? 0) > (this.compounds.get(`${h}-${t}`) ?? 0)) broken++;
    }
    return (this.hyphenating = pairs < 3 || broken > 0);
  }

  private readLine(line: string): void {
    // A fragment's text is already single-spaced: split(' ') gives the same tokens, cheaper.
    const tokens = singleSpaced(line) ? line.split(' ') : line.split(/\s+/);
    if (this.openBreak !== null) {
      this.breaks.push([this.openBreak, tokens[0] || tokens[1] || '']);
      this.openBreak = null;
    }
    const last = tokens[tokens.length - 1];
    if (last.length > 1 && last.endsWith('-') && /\p{L}/u.test(last[last.length - 2])) this.openBreak = last;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      // Most tokens start and end with an ASCII letter or digit: nothing to strip.
      const t = (isAsciiAlnum(token.charCodeAt(0)) && isAsciiAlnum(token.charCodeAt(token.length - 1)) ? token : token.replace(EDGE_PUNCTUATION, '')).toLowerCase();
      if (!t) continue;
      if (i === tokens.length - 1 && token.endsWith('-')) continue;
      if (t.includes('-')) {
        this.compounds.set(t, (this.compounds.get(t) ?? 0) + 1);
        this.heads.add(t.slice(0, t.indexOf('-')));
        for (const part of t.split('-')) if (part && !this.words.has(part)) this.words.set(part, 0);
      } else {
        const inner = this.words.get(t);
        if (i > 0) this.words.set(t, (inner ?? 0) + 1);
        else if (inner === undefined) this.words.set(t, 0);
      }
    }
  }

  /**
   * Whether "head-" at a line end and "tail" at the next line's start make one word; `goesOn`:
   * the tail is itself the first part of a compound ("hop-" + "by-hop").
   */
  joinsHyphen(head: string, tail: string, goesOn = false): boolean {
    this.read();
    const h = head.toLowerCase();
    const t = tail.toLowerCase();
    // A compound already ("state-of-") continues as one.
    if (h.includes('-')) return false;
    const compound = this.compounds.get(`${h}-${t}`) ?? 0;
    const joined = this.words.get(h + t);
    // Where the document writes both, it is the spelling it uses more (a manual that writes
    // "via-path" five times and "viapath" once in a list means the hyphen); even, the hyphen
    // printed stays.
    if (joined !== undefined) return compound === 0 || joined > compound;
    if (compound) return false;
    // A word a typesetter breaks runs on in letters: "hop-" + "by-hop" is a compound chain.
    if (goesOn) return false;
    // A short first part ("in-" of "in-text") heads compounds and plain words alike ("in-corporates").
    if (this.heads.has(h) && (h.length >= 4 || (this.words.get(t) ?? 0) > 0)) return false;
    if (COMPOUND_PREFIXES.has(h)) return false;
    if (WEAK_PREFIXES.has(h)) return this.hyphenates() && !((this.words.get(t) ?? 0) > 0);
    return this.hyphenates();
  }

  /** Whether the document writes this word (any case) somewhere. */
  has(word: string): boolean {
    this.read();
    return this.words.has(word.toLowerCase());
  }
}

/** The last word of a line when it ends with a hyphen after a letter (the whole token: "state-of-"). */
const HYPHEN_TOKEN = /^[^\s\p{L}]*(\S*\p{L})-$/u;
/**
 * HYPHEN_TOKEN on the last token of the paragraph so far: a regular expression anchored at
 * the end would still try every start in the paragraph, once per line joined.
 */
const hyphenEnd = (acc: string): RegExpExecArray | null => {
  if (!acc.endsWith('-')) return null;
  let i = acc.length - 1;
  while (i >= 0 && !/\s/.test(acc[i])) i--;
  return HYPHEN_TOKEN.exec(acc.slice(i + 1));
};
const WORD_START = /^(\p{Ll}[\p{L}]*)/u;
/** Opening quotes and brackets before a word. */
const OPENING = /^[(\[{"'“‘«„]+/u;
/** A character no hyphenated word has before its hyphen: digits, slashes, underscores, dots. */
const NOT_A_WORD = /[\p{N}/_.]/u;
/** What a line-end token ("“0-dimen-") has after its opening punctuation and last explicit hyphen ("dimen"). */
const lastPart = (token: string): string => {
  const w = token.slice(0, -1).replace(OPENING, '');
  return w.slice(Math.max(w.lastIndexOf('-'), w.lastIndexOf('–'), w.lastIndexOf('—')) + 1);
};
/** A capitalised word after a line-end hyphen: "Font-" + "Properties". */
const CAPITAL_START = /^(\p{Lu}[\p{L}]*)/u;

/** Joins the printed lines of one paragraph into one line. */
export function joinLines(lines: string[], vocab: Vocabulary): string {
  let acc = '';
  for (const raw of lines) {
    const l = raw.trim();
    if (!l) continue;
    if (!acc) {
      acc = l;
      continue;
    }
    const head = hyphenEnd(acc);
    // Hyphenation breaks words of letters: a token whose last part before its line-end hyphen
    // holds a digit, slash or dot ("3rd-" + "party", "serial/tcp-" + "device") broke at a
    // hyphen of its own, which stays. (Opening quotes and brackets are no part of it; the
    // part after an explicit hyphen may be a word TeX broke: "0-dimen-" + "sional".)
    if (head && NOT_A_WORD.test(lastPart(head[0]))) {
      acc += l;
      continue;
    }
    const tail = WORD_START.exec(l);
    if (head && tail) {
      acc = vocab.joinsHyphen(head[1], tail[1], l.charCodeAt(tail[1].length) === 45 /* - */) ? acc.slice(0, -1) + l : acc + l;
      continue;
    }
    // Before a capital the hyphen goes only where the document writes the joined word
    // ("FontProperties"); it stays in a compound of names ("Anglo-Saxon"); no space either way.
    const capital = head ? CAPITAL_START.exec(l) : null;
    if (head && capital) {
      acc = vocab.has(head[1] + capital[1]) ? acc.slice(0, -1) + l : acc + l;
      continue;
    }
    // A soft hyphen at a line end is a break opportunity the typesetter took: the word goes on.
    if (acc.endsWith('\u00ad')) {
      acc = acc.slice(0, -1) + l;
      continue;
    }
    acc = `${acc} ${l}`;
  }
  return acc.replace(/\u00ad/g, '');
}

/**
 * Symbols the page draws but the text layer spells out: TeX's © is a "c" set inside a
 * circle glyph (U+20DD, or no character at all when the circle has no Unicode mapping), which
 * reads "⃝c" or a lone "c" after "Copyright".
 */
export function fixSymbols(s: string): string {
  // Most text has neither the circle nor the word: three scans of it saved.
  if (!s.includes('\u20dd') && !s.includes('opyright') && !s.includes('OPYRIGHT')) return s;
  return s
    .replace(/\u20dd\s*c\b/g, '©')
    .replace(/\bc\s*\u20dd/g, '©')
    .replace(/\b(Copyright|copyright|COPYRIGHT)\s+c\s+(?=\d)/g, '$1 © ');
}
