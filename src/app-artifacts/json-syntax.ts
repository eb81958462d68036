// Checks that text is one JSON value (RFC 8259, what `JSON.parse` accepts) as it streams, without building
// the value: a JSON module of an artifact is checked in the API and the runtime, and `JSON.parse` of a 25 MiB
// `[0,0,…]` holds some 100 MB of array in the process that checks it. This holds a state and a nesting
// stack (one byte per level). No library checks JSON syntax in a stream without building values.

const Mode = {
  /** A value must come (start, after `:`, after `,` in an array). */
  Value: 0,
  /** After `[`: a value or `]`. */
  ValueOrClose: 1,
  /** After `{`: a key or `}`. */
  KeyOrClose: 2,
  /** After `,` in an object: a key. */
  Key: 3,
  Colon: 4,
  /** `,`, a closing bracket, or the end. */
  AfterValue: 5,
  String: 6,
  Escape: 7,
  /** `\u` and `hexLeft` hex digits to come. */
  Unicode: 8,
  Number: 9,
  /** The rest of `true`, `false` or `null`. */
  Literal: 10,
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/** Where a number is, for RFC 8259's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. */
const Num = { Minus: 0, Zero: 1, Int: 2, Dot: 3, Frac: 4, E: 5, ESign: 6, Exp: 7 } as const;
type Num = (typeof Num)[keyof typeof Num];

const OBJECT = 1;
const ARRAY = 2;
/** Deeper nesting is refused: no real module nests like this, and the stack is the only state that grows. */
export const MAX_JSON_DEPTH = 100_000;

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** Feed it the text in pieces with `write`, then `end`; either throws `JsonSyntaxError` at the first fault. */
export class JsonSyntax {
  #mode: Mode = Mode.Value;
  #stack = new Uint8Array(64);
  #depth = 0;
  /** Whether the string being read is an object key (a `:` follows it) or a value. */
  #key = false;
  #hexLeft = 0;
  #num: Num = Num.Minus;
  #literal = '';
  #literalAt = 0;

  write(text: string): void {
    for (let i = 0; i < text.length; i++) this.#char(text.charCodeAt(i));
  }

  end(): void {
    if (this.#mode === Mode.Number && this.#depth === 0) {
      this.#endNumber();
      this.#mode = Mode.AfterValue;
    }
    if (this.#mode !== Mode.AfterValue || this.#depth !== 0) throw new JsonSyntaxError('unexpected end of JSON');
  }

  #char(c: number): void {
    switch (this.#mode) {
      case Mode.String:
        if (c === 0x22) this.#endString();
        else if (c === 0x5c) this.#mode = Mode.Escape;
        else if (c < 0x20) throw new JsonSyntaxError('a control character in a string');
        return;
      case Mode.Escape:
        if (c === 0x75) {
          this.#mode = Mode.Unicode;
          this.#hexLeft = 4;
        } else if ('"\\/bfnrt'.includes(String.fromCharCode(c))) {
          this.#mode = Mode.String;
        } else {
          throw new JsonSyntaxError('a bad escape in a string');
        }
        return;
      case Mode.Unicode:
        if (!isHex(c)) throw new JsonSyntaxError('a bad \\u escape in a string');
        if (--this.#hexLeft === 0) this.#mode = Mode.String;
        return;
      case Mode.Literal:
        if (c !== this.#literal.charCodeAt(this.#literalAt)) throw new JsonSyntaxError(`unexpected character in ${JSON.stringify(this.#literal)}`);
        if (++this.#literalAt === this.#literal.length) this.#mode = Mode.AfterValue;
        return;
      case Mode.Number:
        if (this.#numberChar(c)) return;
        this.#endNumber();
        this.#mode = Mode.AfterValue;
        return this.#char(c);
      default:
        return this.#structural(c);
    }
  }

  #structural(c: number): void {
    if (isSpace(c)) return;
    const mode = this.#mode;
    if (mode === Mode.Colon) {
      if (c !== 0x3a) throw new JsonSyntaxError('expected ":" after an object key');
      this.#mode = Mode.Value;
      return;
    }
    if (mode === Mode.KeyOrClose || mode === Mode.Key) {
      if (c === 0x22) {
        this.#key = true;
        this.#mode = Mode.String;
      } else if (c === 0x7d && mode === Mode.KeyOrClose) {
        this.#close(OBJECT);
      } else {
        throw new JsonSyntaxError('expected a string key in an object');
      }
      return;
    }
    if (mode === Mode.AfterValue) {
      const top = this.#depth > 0 ? this.#stack[this.#depth - 1] : 0;
      if (c === 0x2c && top !== 0) this.#mode = top === OBJECT ? Mode.Key : Mode.Value;
      else if (c === 0x7d && top === OBJECT) this.#close(OBJECT);
      else if (c === 0x5d && top === ARRAY) this.#close(ARRAY);
      else throw new JsonSyntaxError(top === 0 ? 'unexpected text after the JSON value' : 'expected "," or the end of the object or array');
      return;
    }
    // Mode.Value or Mode.ValueOrClose
    if (c === 0x5d && mode === Mode.ValueOrClose) return this.#close(ARRAY);
    if (c === 0x7b) return this.#open(OBJECT, Mode.KeyOrClose);
    if (c === 0x5b) return this.#open(ARRAY, Mode.ValueOrClose);
    if (c === 0x22) {
      this.#key = false;
      this.#mode = Mode.String;
    } else if (c === 0x2d || isDigit(c)) {
      this.#mode = Mode.Number;
      this.#num = c === 0x2d ? Num.Minus : c === 0x30 ? Num.Zero : Num.Int;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.#literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      this.#literalAt = 1;
      this.#mode = Mode.Literal;
    } else {
      throw new JsonSyntaxError('expected a JSON value');
    }
  }

  #open(kind: number, next: Mode): void {
    if (this.#depth >= MAX_JSON_DEPTH) throw new JsonSyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (this.#depth === this.#stack.length) {
      const grown = new Uint8Array(this.#stack.length * 2);
      grown.set(this.#stack);
      this.#stack = grown;
    }
    this.#stack[this.#depth++] = kind;
    this.#mode = next;
  }

  #close(kind: number): void {
    if (this.#depth === 0 || this.#stack[this.#depth - 1] !== kind) throw new JsonSyntaxError('a bracket that does not match');
    this.#depth -= 1;
    this.#mode = Mode.AfterValue;
  }

  #endString(): void {
    this.#mode = this.#key ? Mode.Colon : Mode.AfterValue;
    this.#key = false;
  }

  /** Takes `c` into the number being read, or answers false when `c` is past its end. */
  #numberChar(c: number): boolean {
    const digit = isDigit(c);
    switch (this.#num) {
      case Num.Minus:
        if (!digit) throw new JsonSyntaxError('a "-" without digits');
        this.#num = c === 0x30 ? Num.Zero : Num.Int;
        return true;
      case Num.Zero:
      case Num.Int:
        if (digit && this.#num === Num.Zero) throw new JsonSyntaxError('a number with a leading zero');
        if (digit) return true;
        if (c === 0x2e) return ((this.#num = Num.Dot), true);
        if (c === 0x65 || c === 0x45) return ((this.#num = Num.E), true);
        return false;
      case Num.Dot:
        if (!digit) throw new JsonSyntaxError('a "." without digits after it');
        this.#num = Num.Frac;
        return true;
      case Num.Frac:
        if (digit) return true;
        if (c === 0x65 || c === 0x45) return ((this.#num = Num.E), true);
        return false;
      case Num.E:
        if (c === 0x2b || c === 0x2d) return ((this.#num = Num.ESign), true);
        if (!digit) throw new JsonSyntaxError('an exponent without digits');
        this.#num = Num.Exp;
        return true;
      case Num.ESign:
        if (!digit) throw new JsonSyntaxError('an exponent without digits');
        this.#num = Num.Exp;
        return true;
      case Num.Exp:
        return digit;
    }
  }

  /** A number ends: it must not stop half-way (`-`, `1.`, `1e`). */
  #endNumber(): void {
    if (this.#num === Num.Minus || this.#num === Num.Dot || this.#num === Num.E || this.#num === Num.ESign) throw new JsonSyntaxError('a number that stops half-way');
  }
}

/** Whether `text` is valid JSON, checked as {@link JsonSyntax} does (tests compare it with `JSON.parse`). */
export function isJson(text: string): boolean {
  try {
    const syntax = new JsonSyntax();
    syntax.write(text);
    syntax.end();
    return true;
  } catch (err) {
    if (err instanceof JsonSyntaxError) return false;
    throw err;
  }
}
