// JSON Schema `pattern`s from pages, tested without the browser's regex engine.
// The built-in engine backtracks: `^(a+)+$` on 'aaaa…a!' takes exponential time, and the panel's
// main thread would hang with it. This is a small Thompson-NFA matcher: time linear in
// pattern × input, whatever the pattern. It reads the common regex syntax (literals, classes,
// \d \w \s \b, groups, alternation, greedy and lazy quantifiers, anchors, \x \u escapes);
// for anything else (lookaround, backreferences, \p{…}) patternTester() returns null and the
// caller leaves the check to the page.

const MAX_PATTERN = 2000; // characters
const MAX_PROGRAM = 20000; // NFA instructions, after expanding {n,m}
const MAX_STEPS = 5_000_000; // instructions × input characters
const MAX_DEPTH = 50; // nested groups

class Unsupported extends Error {}

const LINE_END = [[10, 10], [13, 13], [0x2028, 0x2029]];
const DIGIT = [[48, 57]];
const WORD = [[48, 57], [65, 90], [95, 95], [97, 122]];
const SPACE = [[9, 13], [32, 32], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029],
  [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];

const inRanges = (ranges, c) => ranges.some(([lo, hi]) => c >= lo && c <= hi);
const isWord = (c) => c !== undefined && inRanges(WORD, c);

/** A parser from pattern text to a tree: {t: 'set'|'assert'|'cat'|'alt'|'rep'|'empty', …}. */
class Parser {
  constructor(pattern) {
    this.s = Array.from(pattern, (ch) => ch.codePointAt(0));
    this.i = 0;
    this.depth = 0;
  }

  peek(k = 0) { return this.s[this.i + k]; }
  eat(c) {
    if (this.peek() !== c) return false;
    this.i++;
    return true;
  }

  parse() {
    const node = this.alt();
    if (this.i < this.s.length) throw new Unsupported();
    return node;
  }

  alt() {
    const alts = [this.cat()];
    while (this.eat(124)) alts.push(this.cat()); // |
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  cat() {
    const items = [];
    while (this.i < this.s.length && this.peek() !== 124 && this.peek() !== 41) items.push(this.repeat());
    return items.length === 1 ? items[0] : { t: 'cat', items };
  }

  repeat() {
    const atom = this.atom();
    let min;
    let max;
    const c = this.peek();
    if (c === 42) [min, max] = [0, Infinity]; // *
    else if (c === 43) [min, max] = [1, Infinity]; // +
    else if (c === 63) [min, max] = [0, 1]; // ?
    else if (c === 123) { // {n}, {n,}, {n,m}
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...this.s.slice(this.i, this.i + 24)));
      if (!m) throw new Unsupported();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (max < min || min > 1000 || (max !== Infinity && max > 1000)) throw new Unsupported();
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    this.eat(63); // lazy: the same answer to "is there a match"
    if (atom.t === 'assert') throw new Unsupported();
    return { t: 'rep', node: atom, min, max };
  }

  atom() {
    const c = this.s[this.i++];
    switch (c) {
      case 40: { // (
        if (++this.depth > MAX_DEPTH) throw new Unsupported();
        if (this.eat(63)) { // (?: or (?<name>; lookaround is not read
          if (this.eat(58)) { /* non-capturing */ } else if (this.eat(60) && this.peek() !== 61 && this.peek() !== 33) {
            while (this.i < this.s.length && this.peek() !== 62) this.i++;
            if (!this.eat(62)) throw new Unsupported();
          } else throw new Unsupported();
        }
        const node = this.alt();
        if (!this.eat(41)) throw new Unsupported();
        this.depth--;
        return node;
      }
      case 46: return { t: 'set', ranges: LINE_END, neg: true }; // .
      case 94: return { t: 'assert', kind: 'start' };
      case 36: return { t: 'assert', kind: 'end' };
      case 91: return this.cls();
      case 92: return this.escape(false);
      case 41: case 42: case 43: case 63: case 123: case 125: case 93: case undefined:
        throw new Unsupported(); // what the u-flag engine calls a syntax error
      default: return { t: 'set', ranges: [[c, c]], neg: false };
    }
  }

  cls() {
    const neg = this.eat(94);
    const ranges = [];
    const negParts = [];
    while (this.peek() !== 93) {
      if (this.i >= this.s.length) throw new Unsupported();
      const lo = this.classAtom();
      if (this.peek() === 45 && this.peek(1) !== 93 && this.peek(1) !== undefined) { // a-b
        this.i++;
        const hi = this.classAtom();
        if (lo.single === undefined || hi.single === undefined || hi.single < lo.single) throw new Unsupported();
        ranges.push([lo.single, hi.single]);
      } else if (lo.single !== undefined) ranges.push([lo.single, lo.single]);
      else if (lo.neg) negParts.push(lo.ranges);
      else ranges.push(...lo.ranges);
    }
    this.i++;
    return { t: 'set', ranges, negParts, neg };
  }

  classAtom() {
    const c = this.s[this.i++];
    if (c !== 92) return { single: c };
    if (this.peek() === 98) { // [\b] is a backspace
      this.i++;
      return { single: 8 };
    }
    const e = this.escape(true);
    if (e.t !== 'set') throw new Unsupported();
    if (!e.neg && e.ranges.length === 1 && e.ranges[0][0] === e.ranges[0][1]) return { single: e.ranges[0][0] };
    return e;
  }

  escape(inClass) {
    const c = this.s[this.i++];
    const set = (ranges, neg = false) => ({ t: 'set', ranges, neg });
    const hex = (n) => {
      const digits = String.fromCodePoint(...this.s.slice(this.i, this.i + n));
      if (digits.length !== n || !/^[0-9a-fA-F]+$/.test(digits)) throw new Unsupported();
      this.i += n;
      return parseInt(digits, 16);
    };
    switch (c) {
      case 100: return set(DIGIT); // \d
      case 68: return set(DIGIT, true);
      case 119: return set(WORD); // \w
      case 87: return set(WORD, true);
      case 115: return set(SPACE); // \s
      case 83: return set(SPACE, true);
      case 98: return { t: 'assert', kind: 'word' }; // \b
      case 66: return { t: 'assert', kind: 'nonword' };
      case 110: return set([[10, 10]]);
      case 114: return set([[13, 13]]);
      case 116: return set([[9, 9]]);
      case 118: return set([[11, 11]]);
      case 102: return set([[12, 12]]);
      case 48: if (this.peek() >= 48 && this.peek() <= 57) throw new Unsupported(); return set([[0, 0]]);
      case 120: { const v = hex(2); return set([[v, v]]); } // \xHH
      case 117: { // \uHHHH, \u{H…}
        let v;
        if (this.eat(123)) {
          const end = this.s.indexOf(125, this.i);
          if (end < 0 || end - this.i > 6) throw new Unsupported();
          v = hex(end - this.i);
          this.i++;
        } else {
          v = hex(4);
          if (v >= 0xd800 && v <= 0xdbff && this.peek() === 92 && this.peek(1) === 117) {
            const save = this.i;
            this.i += 2;
            const low = hex(4);
            if (low >= 0xdc00 && low <= 0xdfff) v = 0x10000 + ((v - 0xd800) << 10) + (low - 0xdc00);
            else this.i = save;
          }
        }
        return set([[v, v]]);
      }
      case 99: { // \cX
        const x = this.s[this.i++];
        if (!((x >= 65 && x <= 90) || (x >= 97 && x <= 122))) throw new Unsupported();
        return set([[x % 32, x % 32]]);
      }
      case undefined: throw new Unsupported();
      default:
        // Backreferences, \k<name>, \p{…}: not read. Other escapes stand for themselves.
        if ((c >= 49 && c <= 57) || c === 107 || c === 112 || c === 80) throw new Unsupported();
        if (!inClass && /[A-Za-z]/.test(String.fromCodePoint(c))) throw new Unsupported();
        return set([[c, c]]);
    }
  }
}

/** Compiles the tree to instructions: {op: 'set'|'assert'|'split'|'jmp'|'match', …}. */
function compile(tree) {
  const prog = [];
  const emit = (ins) => {
    if (prog.length >= MAX_PROGRAM) throw new Unsupported();
    prog.push(ins);
    return prog.length - 1;
  };
  const gen = (n) => {
    switch (n.t) {
      case 'set': emit({ op: 'set', set: n }); return;
      case 'assert': emit({ op: 'assert', kind: n.kind }); return;
      case 'cat': n.items.forEach(gen); return;
      case 'alt': {
        const jumps = [];
        n.alts.forEach((a, k) => {
          if (k < n.alts.length - 1) {
            const split = emit({ op: 'split', x: prog.length + 1, y: -1 });
            gen(a);
            jumps.push(emit({ op: 'jmp', x: -1 }));
            prog[split].y = prog.length;
          } else gen(a);
        });
        for (const j of jumps) prog[j].x = prog.length;
        return;
      }
      case 'rep': {
        for (let k = 0; k < n.min; k++) gen(n.node);
        if (n.max === Infinity) {
          const split = emit({ op: 'split', x: prog.length + 1, y: -1 });
          gen(n.node);
          emit({ op: 'jmp', x: split });
          prog[split].y = prog.length;
        } else {
          for (let k = n.min; k < n.max; k++) {
            const split = emit({ op: 'split', x: prog.length + 1, y: -1 });
            gen(n.node);
            prog[split].y = prog.length;
          }
        }
        return;
      }
      default: // an empty alternative
    }
  };
  gen(tree);
  emit({ op: 'match' });
  return prog;
}

function inSet(set, c) {
  const hit = inRanges(set.ranges, c) || (set.negParts ?? []).some((r) => !inRanges(r, c));
  return set.neg ? !hit : hit;
}

/** Whether the program matches anywhere in `text` (schema patterns are not anchored). */
function run(prog, text) {
  const chars = Array.from(text, (ch) => ch.codePointAt(0));
  if (prog.length * (chars.length + 1) > MAX_STEPS) return undefined;
  const mark = new Int32Array(prog.length).fill(-1);
  let gen = 0;
  const add = (list, pc, i) => {
    const stack = [pc];
    while (stack.length) {
      const p = stack.pop();
      if (mark[p] === gen) continue;
      mark[p] = gen;
      const ins = prog[p];
      if (ins.op === 'jmp') stack.push(ins.x);
      else if (ins.op === 'split') stack.push(ins.y, ins.x);
      else if (ins.op === 'assert') {
        const prev = chars[i - 1];
        const next = chars[i];
        const ok = ins.kind === 'start' ? i === 0
          : ins.kind === 'end' ? i === chars.length
            : (isWord(prev) !== isWord(next)) === (ins.kind === 'word');
        if (ok) stack.push(p + 1);
      } else list.push(p);
    }
  };
  let current = [];
  for (let i = 0; i <= chars.length; i++) {
    gen++;
    const next = [];
    for (const p of current) add(next, p, i);
    add(next, 0, i); // a match may start at any position
    if (next.some((p) => prog[p].op === 'match')) return true;
    if (i === chars.length) break;
    current = [];
    for (const p of next) if (prog[p].op === 'set' && inSet(prog[p].set, chars[i])) current.push(p + 1);
  }
  return false;
}

const cache = new Map();

/**
 * A tester for a schema `pattern`, or null when it uses syntax this matcher does not read.
 * The tester answers true/false, or undefined when the input is too long to check here.
 * @param {string} pattern
 * @returns {((text: string) => boolean | undefined) | null}
 */
export function patternTester(pattern) {
  if (typeof pattern !== 'string' || pattern.length > MAX_PATTERN) return null;
  if (!cache.has(pattern)) {
    /** @type {any[]|null} the instructions; null when the pattern uses what we do not support */
    let prog = null;
    try {
      prog = compile(new Parser(pattern).parse());
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
    }
    if (cache.size > 200) cache.clear();
    cache.set(pattern, prog);
  }
  const prog = cache.get(pattern);
  return prog && ((text) => run(prog, String(text)));
}
