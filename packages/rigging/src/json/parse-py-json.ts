import { RiggingError } from '../errors.js';
import { FloatValue } from './float-value.js';
import { PY_KEY_ORDER, isIndexLikeKey } from './py-key-order.js';

const NUMBER_RE = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const WS_RE = /[ \t\n\r]*/y;

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `invalid JSON: ${what} at offset ${this.pos}`, {
      details: { position: this.pos },
    });
  }

  ws(): void {
    WS_RE.lastIndex = this.pos;
    WS_RE.exec(this.text);
    this.pos = WS_RE.lastIndex;
  }

  literal(word: string): boolean {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return true;
    }
    return false;
  }

  value(): unknown {
    this.ws();
    const c = this.text[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (this.literal('null')) return null;
    if (this.literal('true')) return true;
    if (this.literal('false')) return false;
    if (this.literal('NaN')) return new FloatValue(NaN);
    if (this.literal('Infinity')) return new FloatValue(Infinity);
    if (this.literal('-Infinity')) return new FloatValue(-Infinity);
    return this.number();
  }

  number(): number | bigint | FloatValue {
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.text);
    if (m === null) this.fail('unexpected character');
    this.pos = NUMBER_RE.lastIndex;
    const raw = m[0];
    if (m[1] !== undefined || m[2] !== undefined) return new FloatValue(Number(raw));
    const n = Number(raw);
    if (Number.isSafeInteger(n)) return n;
    // Keep Python's arbitrary-precision ints exact when a double cannot hold them.
    const big = BigInt(raw);
    return BigInt(n) === big ? n : big;
  }

  string(): string {
    this.pos++;
    let out = '';
    let start = this.pos;
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) {
        out += this.text.slice(start, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(start, this.pos);
      const e = this.text[this.pos + 1];
      this.pos += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = this.text.slice(this.pos, this.pos + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 4;
          break;
        }
        default:
          this.pos -= 2;
          this.fail('bad escape');
      }
      start = this.pos;
    }
  }

  array(): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') {
        this.pos--;
        this.fail('expected "," or "]"');
      }
    }
  }

  object(): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    const order: string[] = [];
    let reordered = false;
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      if (!Object.hasOwn(out, key)) order.push(key);
      if (isIndexLikeKey(key)) reordered = true;
      this.ws();
      if (this.text[this.pos] !== ':') this.fail('expected ":"');
      this.pos++;
      // defineProperty so a "__proto__" key is stored as data, never as the prototype.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.text[this.pos++];
      if (c === '}') {
        // Remember the file order only where JavaScript's own enumeration order would lose it.
        if (reordered) Object.defineProperty(out, PY_KEY_ORDER, { value: Object.freeze(order) });
        return out;
      }
      if (c !== ',') {
        this.pos--;
        this.fail('expected "," or "}"');
      }
    }
  }
}

/** Integer tokens longer than this may not fit a double exactly: the general parser keeps them exact. */
const MAX_FAST_INT_DIGITS = 15;

/**
 * What a scan of `text` found that decides whether `JSON.parse` may read it: the number of values (every
 * scalar, object and array, the root included) and, for each number token in document order, whether it is
 * a float (written with `.`, `e` or `E`). `null` when `JSON.parse` would lose something the general parser
 * keeps: `NaN`/`Infinity`, an integer too long for a double, an integer-like key (JavaScript reorders those),
 * or a key written with escapes (which could spell one).
 */
function scanForNativeParse(text: string): { values: number; floats: boolean[] | null } | null {
  let values = 0;
  let floats: boolean[] | null = null;
  let numbers = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: a key when the next character after whitespace is ':'.
      const start = i + 1;
      let escaped = false;
      i++;
      for (;;) {
        if (i >= n) return null; // unterminated: the general parser reports it
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        if (d === 0x5c) {
          escaped = true;
          i += 2;
        } else i++;
      }
      const end = i;
      i++;
      let j = i;
      while (j < n) {
        const w = text.charCodeAt(j);
        if (w !== 0x20 && w !== 0x0a && w !== 0x0d && w !== 0x09) break;
        j++;
      }
      if (j < n && text.charCodeAt(j) === 0x3a) {
        if (escaped) return null;
        const first = text.charCodeAt(start);
        if (end > start && first >= 0x30 && first <= 0x39 && isIndexLikeKey(text.slice(start, end))) return null;
      } else values++;
      continue;
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      values++;
      let isFloat = false;
      let digits = 0;
      i++;
      if (c !== 0x2d) digits++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) digits++;
        else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) isFloat = true;
        else if (d === 0x49) return null; // -Infinity
        else break;
        i++;
      }
      if (!isFloat && digits > MAX_FAST_INT_DIGITS) return null;
      if (isFloat) (floats ??= new Array<boolean>(numbers).fill(false)).push(true);
      else if (floats !== null) floats.push(false);
      numbers++;
      continue;
    }
    if (c === 0x7b || c === 0x5b || c === 0x74 || c === 0x66 || c === 0x6e) values++;
    else if (c === 0x4e || c === 0x49) return null; // NaN, Infinity
    i++;
  }
  return { values, floats };
}

/**
 * Replaces the float tokens' numbers with `FloatValue`s, walking values in document order (which is
 * JavaScript's enumeration order here: no integer-like keys). Returns the number of values visited, which is
 * fewer than the scan counted when a duplicate key dropped one (and the walk's order no longer matched).
 */
function markFloats(root: object, floats: readonly boolean[]): number {
  let k = 0;
  let visited = 1;
  const walk = (v: object): void => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        visited++;
        const x: unknown = v[i];
        if (typeof x === 'number') {
          if (floats[k++] === true) v[i] = new FloatValue(x);
        } else if (typeof x === 'object' && x !== null) walk(x);
      }
      return;
    }
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      visited++;
      const x = record[key];
      if (typeof x === 'number') {
        if (floats[k++] !== true) continue;
        // defineProperty for a "__proto__" key, which JSON.parse stored as data (assignment would set the prototype).
        if (key === '__proto__') Object.defineProperty(record, key, { value: new FloatValue(x), enumerable: true, writable: true, configurable: true });
        else record[key] = new FloatValue(x);
      } else if (typeof x === 'object' && x !== null) walk(x);
    }
  };
  walk(root);
  return k === floats.length ? visited : -1;
}

/**
 * The native fast path of {@link parsePyJson}: `JSON.parse` when the scan shows it reads `text` exactly as the
 * general parser would (duplicate keys keep their first position and last value in both), then floats marked;
 * `undefined` to fall back (also for malformed text, which the general parser reports with its position).
 */
function parseNative(text: string): unknown {
  const scan = scanForNativeParse(text);
  if (scan === null) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined; // a bare scalar: the general parser reads it
  if (scan.floats === null) return v;
  // A duplicate key drops a value: the walk then sees fewer values than the scan and the float marks may be
  // misplaced, so such a document is read again by the general parser.
  return markFloats(v, scan.floats) === scan.values ? v : undefined;
}

/**
 * Parses JSON written by Python's `json.dumps`, keeping what `JSON.parse` loses.
 *
 * Numbers written with `.`, `e` or `E` come back as {@link FloatValue}s and bare `NaN`, `Infinity`
 * and `-Infinity` are accepted (as `FloatValue`s), so `pyJsonDumps(parsePyJson(text))` reproduces
 * Python's output byte for byte. Integers beyond what a double holds exactly come back as `bigint`.
 * Duplicate keys keep the first position and the last value, as in Python. JavaScript objects
 * enumerate integer-like keys (`"0"`, `"10"`) first; for such objects the file order is kept in a
 * hidden, non-enumerable marker that `pyJsonDumps` honours, so the round trip still holds (code that
 * reads `Object.keys` sees JavaScript's order).
 *
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT for malformed text; `details.position` is the offset.
 */
export function parsePyJson(text: string): unknown {
  const fast = parseNative(text);
  if (fast !== undefined) return fast;
  return parsePyJsonGeneral(text);
}

/** {@link parsePyJson} without the native fast path (exported for the test that compares the two). */
export function parsePyJsonGeneral(text: string): unknown {
  const p = new Parser(text);
  const v = p.value();
  p.ws();
  if (p.pos !== text.length) p.fail('trailing data');
  return v;
}
