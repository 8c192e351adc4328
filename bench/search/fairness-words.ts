// The made-up vocabulary of the fairness bench (server corpus and client queries share it). Alphabetic
// words (digits would split a token in two): 60 common ones in every document, 5,000 rare ones.
const SYL = ['ba', 'ke', 'li', 'mo', 'nu', 'ra', 'se', 'ti', 'vo', 'zu'];
const word = (i: number, n: number) => Array.from({ length: n }, (_, k) => SYL[Math.floor(i / 10 ** k) % 10]).join('');
export const COMMON = Array.from({ length: 60 }, (_, i) => `${word(i, 2)}x`);
export const RARE = Array.from({ length: 5000 }, (_, i) => `q${word(i, 4)}`);
