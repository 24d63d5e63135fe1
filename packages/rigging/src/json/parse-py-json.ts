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
  const p = new Parser(text);
  const v = p.value();
  p.ws();
  if (p.pos !== text.length) p.fail('trailing data');
  return v;
}
