// Key names an agent writes ("Enter", "Control+A", "Shift+Tab", "a") as the CDP
// Input.dispatchKeyEvent parameters a real keyboard would produce. Pure.

/** CDP modifier bits. */
const MODIFIERS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
const MODIFIER_ALIASES = {
  alt: 'Alt', option: 'Alt', ctrl: 'Control', control: 'Control', meta: 'Meta', cmd: 'Meta',
  command: 'Meta', super: 'Meta', win: 'Meta', shift: 'Shift',
};

/** Named keys: [key, code, keyCode, text]. */
const NAMED = {
  Enter: ['Enter', 'Enter', 13, '\r'],
  Tab: ['Tab', 'Tab', 9, ''],
  Escape: ['Escape', 'Escape', 27, ''],
  Backspace: ['Backspace', 'Backspace', 8, ''],
  Delete: ['Delete', 'Delete', 46, ''],
  Insert: ['Insert', 'Insert', 45, ''],
  Space: [' ', 'Space', 32, ' '],
  ArrowUp: ['ArrowUp', 'ArrowUp', 38, ''],
  ArrowDown: ['ArrowDown', 'ArrowDown', 40, ''],
  ArrowLeft: ['ArrowLeft', 'ArrowLeft', 37, ''],
  ArrowRight: ['ArrowRight', 'ArrowRight', 39, ''],
  Home: ['Home', 'Home', 36, ''],
  End: ['End', 'End', 35, ''],
  PageUp: ['PageUp', 'PageUp', 33, ''],
  PageDown: ['PageDown', 'PageDown', 34, ''],
};
for (let i = 1; i <= 12; i++) NAMED[`F${i}`] = [`F${i}`, `F${i}`, 111 + i, ''];

const ALIASES = {
  return: 'Enter', esc: 'Escape', del: 'Delete', ins: 'Insert', space: 'Space', spacebar: 'Space',
  up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight', pgup: 'PageUp', pgdn: 'PageDown',
  pagedown: 'PageDown', pageup: 'PageUp', backspace: 'Backspace', enter: 'Enter', tab: 'Tab',
  escape: 'Escape', delete: 'Delete', home: 'Home', end: 'End', insert: 'Insert',
  arrowup: 'ArrowUp', arrowdown: 'ArrowDown', arrowleft: 'ArrowLeft', arrowright: 'ArrowRight',
};

const SHIFTED_DIGITS = ')!@#$%^&*(';

/**
 * @typedef {{key: string, code: string, windowsVirtualKeyCode: number, text: string,
 *   modifiers: number}} KeyPress
 */

/**
 * @param {string} combo e.g. "Enter", "Control+A", "Shift+Tab", "a", "+"
 * @returns {KeyPress|{error: string}}
 */
export function parseKey(combo) {
  if (typeof combo !== 'string' || !combo.trim()) return { error: 'Give a key, e.g. "Enter", "Tab", "Control+A" or "a".' };
  const raw = combo.trim();
  // "+" alone, or a combo ending in "+" ("Control++"), means the plus key.
  const parts = raw === '+' ? ['+'] : raw.endsWith('++') ? [...raw.slice(0, -2).split('+'), '+'] : raw.split('+');
  let modifiers = 0;
  for (const m of parts.slice(0, -1)) {
    const name = MODIFIER_ALIASES[m.trim().toLowerCase()];
    if (!name) return { error: `"${m}" is not a modifier key; use Control, Shift, Alt or Meta (e.g. "Control+A").` };
    modifiers |= MODIFIERS[name];
  }
  let last = parts[parts.length - 1].trim() || '+';
  // A shortcut names its letter in either case ("Control+A"); the keyboard sends it unshifted.
  if (modifiers & (MODIFIERS.Control | MODIFIERS.Alt | MODIFIERS.Meta) && /^[A-Z]$/.test(last)) last = last.toLowerCase();
  const def = keyDef(last, (modifiers & MODIFIERS.Shift) !== 0);
  if (!def) {
    return { error: `"${last}" is not a key name I know. Use a single character or one of: ${Object.keys(NAMED).join(', ')}.` };
  }
  // With Control, Alt or Meta held, a key is a shortcut, not typed text.
  const text = modifiers & (MODIFIERS.Control | MODIFIERS.Alt | MODIFIERS.Meta) ? '' : def.text;
  return { ...def, text, modifiers };
}

/** @returns {Omit<KeyPress, 'modifiers'>|null} */
function keyDef(name, shift) {
  const named = NAMED[name] ?? NAMED[ALIASES[name.toLowerCase()]];
  if (named) {
    const [key, code, kc, text] = named;
    return { key, code, windowsVirtualKeyCode: kc, text };
  }
  if ([...name].length !== 1) return null;
  if (/^[a-z]$/i.test(name)) {
    const upper = name.toUpperCase();
    const key = shift ? upper : name;
    return { key, code: `Key${upper}`, windowsVirtualKeyCode: upper.charCodeAt(0), text: key };
  }
  if (/^[0-9]$/.test(name)) {
    const key = shift ? SHIFTED_DIGITS[Number(name)] : name;
    return { key, code: `Digit${name}`, windowsVirtualKeyCode: name.charCodeAt(0), text: key };
  }
  return { key: name, code: '', windowsVirtualKeyCode: 0, text: name };
}

/**
 * The CDP events for pressing and releasing the key.
 * @param {KeyPress} k
 */
export function keyEvents(k) {
  const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.windowsVirtualKeyCode, modifiers: k.modifiers };
  const down = k.text
    ? { type: 'keyDown', ...base, text: k.text, unmodifiedText: k.text }
    : { type: 'rawKeyDown', ...base };
  return [down, { type: 'keyUp', ...base }];
}
