// A short, readable name of the running browser for `hello` (e.g. "Chromium 156.0.0.0").

// Brands in userAgentData that name a specific browser, most specific first, with the
// user-agent token that carries its version (Brave and Chrome reuse Chrome's).
const BRANDS = [
  ['Microsoft Edge', 'Microsoft Edge', 'Edg'],
  ['Opera', 'Opera', 'OPR'],
  ['Brave', 'Brave', 'Chrome'],
  ['Google Chrome', 'Google Chrome', 'Chrome'],
];

/**
 * @param {string} userAgent navigator.userAgent
 * @param {{brand: string, version: string}[]} [brands] navigator.userAgentData.brands
 * @returns {string}
 */
export function browserLabel(userAgent, brands = []) {
  const ua = userAgent || '';
  const names = new Set((brands || []).map((b) => b && b.brand));
  const versionOf = (token) => {
    const m = ua.match(new RegExp(`\\b${token}/([\\d.]+)`));
    return m ? m[1] : '';
  };
  for (const [brand, label, token] of BRANDS) {
    if (names.has(brand)) return `${label} ${versionOf(token) || versionOf('Chrome')}`.trim();
  }
  if (/\bEdg\//.test(ua)) return `Microsoft Edge ${versionOf('Edg')}`;
  if (/\bOPR\//.test(ua)) return `Opera ${versionOf('OPR')}`;
  const firefox = versionOf('Firefox');
  if (firefox) return `Firefox ${firefox}`;
  const chrome = versionOf('Chrome') || versionOf('HeadlessChrome');
  return chrome ? `Chromium ${chrome}` : ua.slice(0, 200);
}
