// Plain server-rendered HTML for the sign-in, consent and verification pages: one layout, one
// stylesheet, every interpolated value escaped. No scripts. Pages are small on purpose: people approve
// agents here, so each page says what is being asked, by whom, and what each button does.

/** Escapes text for HTML element content and quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A fragment of trusted HTML (already escaped). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Tagged template: interpolations are escaped unless they are Html (or arrays of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    const render = (x: unknown): string => (x instanceof Html ? x.value : Array.isArray(x) ? x.map(render).join('') : x === null || x === undefined || x === false ? '' : esc(x));
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

export interface LayoutOptions {
  /** Signed-in email shown in the header, with a sign-out button. */
  signedInAs?: { email: string; csrf: string; signOutAction: string; accountHref: string } | null;
  /** Banner for test-only automatic consent. */
  autoConsent?: boolean;
  styleHref: string;
}

/** The start of every page up to and including `<body>`: UTF-8, viewport, no referrer, title, stylesheet. */
export function documentHead(title: string, styleHref: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} · Lectern</title>
<link rel="stylesheet" href="${esc(styleHref)}">
</head>
<body>`;
}

export function layout(title: string, body: Html, o: LayoutOptions): string {
  const header = o.signedInAs
    ? html`<form class="who" method="post" action="${o.signedInAs.signOutAction}"><a href="${o.signedInAs.accountHref}">${o.signedInAs.email}</a>
        <input type="hidden" name="csrf" value="${o.signedInAs.csrf}"><button class="link" type="submit">Sign out</button></form>`
    : html``;
  return `${documentHead(title, o.styleHref)}
<header><span class="brand">Lectern</span>${header}</header>
${o.autoConsent ? '<p class="banner">TEST MODE: automatic consent (LECTERN_AUTO_CONSENT) is on. Never use this setting in production.</p>' : ''}
<main>
<h1>${esc(title)}</h1>
${body.value}
</main>
</body>
</html>
`;
}

/** The stylesheet of every page (served by the auth routes; the CSP allows only this style). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{overflow-wrap:break-word;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;background:#f6f6f4}
header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.4rem 1.5rem;padding:.75rem 1.25rem;background:#1f3a5f;color:#fff}
header a{color:#fff}
.brand{font-weight:700;letter-spacing:.02em}
.who{display:flex;gap:.75rem;align-items:center;margin:0;min-width:0}
main{max-width:36rem;margin:2rem auto;padding:1.5rem 1.75rem;background:#fff;border:1px solid #ddd;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.55rem;font-size:1rem;border:1px solid #999;border-radius:4px}
input.code{font:600 1.5rem/1.2 ui-monospace,monospace;letter-spacing:.3em;width:10rem}
button{font-size:1rem;padding:.55rem 1.1rem;border-radius:4px;border:1px solid #1f3a5f;background:#1f3a5f;color:#fff;cursor:pointer;margin:.75rem .5rem 0 0}
button.secondary{background:#fff;color:#1f3a5f}
button.danger{background:#fff;color:#a11;border-color:#a11}
button.link{background:none;border:none;color:inherit;text-decoration:underline;padding:0;margin:0}
.problem{background:#fdecea;border:1px solid #e0b4b4;padding:.6rem .8rem;border-radius:4px}
.warning{background:#fff8e1;border:1px solid #e6c200;padding:.6rem .8rem;border-radius:4px}
.ok{background:#e8f5e9;border:1px solid #9ccc9c;padding:.6rem .8rem;border-radius:4px}
.banner{margin:0;padding:.5rem 1.25rem;background:#a11;color:#fff;font-weight:700}
.code-display{font:700 2rem/1.2 ui-monospace,monospace;letter-spacing:.3em;padding:.5rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}
dt{font-weight:600}
dd{margin:0;word-break:break-all}
table{width:100%;border-collapse:collapse}
td,th{text-align:left;padding:.4rem;border-bottom:1px solid #eee;vertical-align:top}
small{color:#555}
.scroll{overflow-x:auto;max-width:100%}
.scroll:focus-visible{outline:3px solid #c47f00}
@media (max-width:40rem){
header{padding:.5rem .75rem;gap:.3rem 1rem}
main{margin:.75rem .5rem;padding:1rem .9rem}
dl{grid-template-columns:minmax(0,max-content) minmax(0,1fr)}
}
`;
