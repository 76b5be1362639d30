/**
 * The page frame shared by every HTML page of the emulator (consent, sign-in, webhooks, errors), with inline CSS.
 */
import type { SafeHtml } from "./html.js";
import { html, raw } from "./html.js";

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330}
header{background:#1f3a5f;color:#fff;padding:12px 24px;display:flex;align-items:center;justify-content:space-between}
header a{color:#fff;text-decoration:none;font-weight:600}
header form{margin:0}
main{max-width:960px;margin:24px auto;padding:0 16px}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:20px 24px;margin-bottom:20px;box-shadow:0 1px 2px rgba(0,0,0,.04)}
.narrow{max-width:460px;margin-left:auto;margin-right:auto}
h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:0 0 12px}
label{display:block;font-weight:600;margin:10px 0 4px}
input[type=text],input[type=password],input[type=url],select{width:100%;padding:8px 10px;border:1px solid #c5ccd6;border-radius:6px;font:inherit}
button{font:inherit;padding:8px 16px;border-radius:6px;border:1px solid #1f3a5f;background:#1f3a5f;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f3a5f}
button.danger{background:#b42318;border-color:#b42318}
button.small{padding:3px 10px;font-size:13px}
.row{display:flex;gap:12px;align-items:flex-end;flex-wrap:wrap}.row>*{flex:1}.row>.fit{flex:0 0 auto}
.actions{display:flex;gap:12px;margin-top:16px}
table{width:100%;border-collapse:collapse;font-size:14px}
th,td{text-align:left;padding:7px 8px;border-bottom:1px solid #e6e9ee;vertical-align:top;word-break:break-all}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#5b6472}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f0f2f5;padding:1px 4px;border-radius:4px}
.muted{color:#5b6472}.error{background:#fdecea;border:1px solid #f5c2bd;color:#8a1c12;padding:8px 12px;border-radius:6px;margin-bottom:12px}
.ok{color:#17753a;font-weight:600}.bad{color:#b42318;font-weight:600}.pending{color:#8a6d00;font-weight:600}
.pill{display:inline-block;padding:0 8px;border-radius:10px;background:#e3f4e8;color:#17753a;font-size:12px;font-weight:600}
`;

/**
 * Wraps page content in the document frame.
 * @param title document and header title
 * @param content the page body (already safe HTML)
 * @param header optional right-hand header content (e.g. the signed-in account and a sign-out form)
 */
export function layout(title: string, content: SafeHtml, header?: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Help desk emulator</title>
<style>${raw(CSS)}</style>
</head>
<body>
<header><a href="/">Help desk emulator</a><div>${header}</div></header>
<main>
${content}
</main>
</body>
</html>`.value;
}

/** An error page: heading `title`, paragraph `message`. */
export function errorPage(title: string, message: string): string {
  return layout(
    title,
    html`<div class="card narrow"><h1>${title}</h1><p>${message}</p><p class="muted"><a href="/">Home</a></p></div>`,
  );
}
