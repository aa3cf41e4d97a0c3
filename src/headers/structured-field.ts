/**
 * The small subset of RFC 8941 / RFC 9651 structured fields that the IETF
 * rate-limit headers use: Lists and Dictionaries of Items with Parameters,
 * whose bare items are Integers, Decimals, Strings, Tokens or Booleans.
 * Inner lists, byte sequences, dates and display strings are outside the
 * subset and make the whole field fail, as any syntax error does. Parsing
 * never throws: a field that fails yields `undefined`.
 */

/** A Token bare item (`burst`), kept apart from a String (`"burst"`). */
export interface SfToken {
  readonly token: string;
}

/** A bare item: Integer or Decimal (number), String, Token or Boolean. */
export type SfBareItem = number | string | boolean | SfToken;

/** An Item with its Parameters (`"default";q=100;w=60`). */
export interface SfItem {
  readonly value: SfBareItem;
  readonly params: ReadonlyMap<string, SfBareItem>;
}

/** Parses a List field; `undefined` when it is not a valid List of Items. */
export function parseSfList(text: string): SfItem[] | undefined {
  const parser = new Parser(text);
  const items: SfItem[] = [];
  const ok = parser.members(() => {
    const item = parser.item();
    if (item !== undefined) items.push(item);
    return item !== undefined;
  });
  return ok ? items : undefined;
}

/** Parses a Dictionary field; `undefined` when it is not a valid Dictionary of Items. */
export function parseSfDictionary(text: string): Map<string, SfItem> | undefined {
  const parser = new Parser(text);
  const members = new Map<string, SfItem>();
  const ok = parser.members(() => {
    const key = parser.key();
    if (key === undefined) return false;
    const item = parser.eat('=') ? parser.item() : parser.withParams(true);
    if (item !== undefined) members.set(key, item);
    return item !== undefined;
  });
  return ok ? members : undefined;
}

/** The name a bare item carries when it is a String or a Token. */
export function sfName(value: SfBareItem | undefined): string | undefined {
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? value.token : undefined;
}

const NUMBER = /-?(\d+)(?:\.(\d*))?/y;
const TOKEN = /[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/y;
const KEY = /[a-z*][a-z0-9_\-.*]*/y;

/** A cursor over the field text; leading and trailing spaces are not part of the field. */
class Parser {
  private readonly text: string;
  private pos = 0;
  private readonly end: number;

  constructor(text: string) {
    this.text = text;
    let end = text.length;
    while (end > 0 && text[end - 1] === ' ') end--;
    this.end = end;
    while (this.pos < end && text[this.pos] === ' ') this.pos++;
  }

  /** Parses `member *( OWS "," OWS member )` up to the end of the field. */
  members(member: () => boolean): boolean {
    if (this.done()) return true;
    for (;;) {
      if (!member()) return false;
      this.skip(' \t');
      if (this.done()) return true;
      if (!this.eat(',')) return false;
      this.skip(' \t');
      if (this.done()) return false;
    }
  }

  item(): SfItem | undefined {
    const value = this.bareItem();
    return value === undefined ? undefined : this.withParams(value);
  }

  withParams(value: SfBareItem): SfItem | undefined {
    const params = new Map<string, SfBareItem>();
    while (this.eat(';')) {
      this.skip(' ');
      const key = this.key();
      if (key === undefined) return undefined;
      const param = this.eat('=') ? this.bareItem() : true;
      if (param === undefined) return undefined;
      params.set(key, param);
    }
    return { value, params };
  }

  key(): string | undefined {
    return this.take(KEY)?.[0];
  }

  eat(char: string): boolean {
    if (this.done() || this.text[this.pos] !== char) return false;
    this.pos++;
    return true;
  }

  private bareItem(): SfBareItem | undefined {
    if (this.done()) return undefined;
    const first = this.text[this.pos] as string;
    if (first === '"') return this.string();
    if (first === '?') return this.boolean();
    if (first === '-' || (first >= '0' && first <= '9')) return this.number();
    const token = this.take(TOKEN);
    return token === undefined ? undefined : { token: token[0] };
  }

  /** Integer: at most 15 digits. Decimal: at most 12 integer and 1–3 fraction digits. */
  private number(): number | undefined {
    const match = this.take(NUMBER);
    if (match === undefined) return undefined;
    const [text, whole = '', fraction] = match;
    const valid =
      fraction === undefined
        ? whole.length <= 15
        : whole.length <= 12 && fraction.length >= 1 && fraction.length <= 3;
    return valid ? Number(text) : undefined;
  }

  private string(): string | undefined {
    let out = '';
    for (let i = this.pos + 1; i < this.end; i++) {
      const char = this.text[i] as string;
      if (char === '"') {
        this.pos = i + 1;
        return out;
      }
      if (char === '\\') {
        const escaped = this.text[++i];
        if (escaped !== '"' && escaped !== '\\') return undefined;
        out += escaped;
      } else if (char < ' ' || char > '~') {
        return undefined;
      } else {
        out += char;
      }
    }
    return undefined;
  }

  private boolean(): boolean | undefined {
    const flag = this.text.slice(this.pos, this.pos + 2);
    if (flag !== '?0' && flag !== '?1') return undefined;
    this.pos += 2;
    return flag === '?1';
  }

  /** Matches a sticky pattern at the cursor, within the field, and moves past it. */
  private take(pattern: RegExp): RegExpExecArray | undefined {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match || pattern.lastIndex > this.end) return undefined;
    this.pos = pattern.lastIndex;
    return match;
  }

  private skip(chars: string): void {
    while (!this.done() && chars.includes(this.text[this.pos] as string)) this.pos++;
  }

  private done(): boolean {
    return this.pos >= this.end;
  }
}
