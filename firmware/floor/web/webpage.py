"""The frame of every floor page: one style sheet with designed controls, and the live
part's script (server-sent events).

Every page is a whole HTML document in the page's language (``<html lang>``),
with the viewport set for tablets; :func:`page` wraps a body.
"""

from __future__ import annotations

import html

e = html.escape

STYLE = """
:root{--bg:#0b3d2e;--card:#14543f;--ink:#f4f4f4;--accent:#f2c14e;--line:#2d7a5f;--field:#0a2f23}
*{box-sizing:border-box}
body{font:16px/1.45 "DejaVu Sans",system-ui,sans-serif;background:var(--bg);color:var(--ink);
margin:0;padding:16px 20px}
h1{font-size:1.6rem;margin:.2em 0} h2{font-size:1.25rem;margin:1.1em 0 .4em}
h3{font-size:1.05rem;margin:.1em 0 .4em}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}
.card{background:var(--card);border-radius:10px;padding:12px 16px;min-width:0}
table{border-collapse:collapse;max-width:100%} td,th{padding:4px 8px;text-align:left;
border-bottom:1px solid var(--line)} .card table{width:100%}
button{appearance:none;-webkit-appearance:none;font:inherit;font-weight:600;min-height:44px;
padding:8px 16px;border-radius:8px;border:2px solid var(--accent);background:var(--accent);
color:#1b1300;cursor:pointer}
button.quiet{background:transparent;color:var(--accent)}
button:hover{filter:brightness(1.08)} button:active{transform:translateY(1px)}
:focus-visible{outline:3px solid #9fd3ff;outline-offset:2px}
input,select{appearance:none;-webkit-appearance:none;font:inherit;min-height:44px;
padding:8px 12px;border-radius:8px;border:2px solid var(--line);background:var(--field);
color:var(--ink);max-width:100%}
select{padding-right:34px;background-image:linear-gradient(45deg,transparent 50%,var(--ink) 50%),
linear-gradient(135deg,var(--ink) 50%,transparent 50%);background-position:calc(100% - 18px) 55%,
calc(100% - 12px) 55%;background-size:6px 6px;background-repeat:no-repeat}
label{display:inline-flex;flex-direction:column;gap:4px;font-size:.9rem}
a{color:#bfe6ff} .alert{color:#ffcf70} .fault{color:#ffc2c2} .ok{color:#9ff59f}
form.inline{display:inline-flex;gap:8px;align-items:flex-end;flex-wrap:wrap;margin:2px 0}
.bar{display:flex;gap:12px;align-items:center;flex-wrap:wrap} .bar h1{margin-right:auto}
ul.items{list-style:none;padding:0;margin:0} ul.items li{display:flex;gap:12px;
align-items:center;justify-content:space-between;flex-wrap:wrap;padding:6px 0;
border-bottom:1px solid var(--line)}
.status{font-size:.85rem;opacity:.9} #offline{display:none} .offline #offline{display:block}
.login{max-width:360px;margin:10vh auto;display:flex;flex-direction:column;gap:12px}
.login label{display:flex} .login form{display:flex;flex-direction:column;gap:12px}
"""

LIVE = (
    "(function(){var box=document.getElementById('live');var pending=null;var sent=false;"
    "document.addEventListener('submit',function(){sent=true},true);"
    "function busy(){var a=document.activeElement;if(a&&box.contains(a)&&(a.tagName==='INPUT'"
    "||a.tagName==='SELECT'))return true;var t=box.querySelectorAll('input[type=text]');"
    "for(var i=0;i<t.length;i++){if(t[i].value)return true}return false}"
    "function apply(){if(pending!==null&&!sent&&!busy()){box.innerHTML=pending;pending=null}}"
    "var es=new EventSource(box.getAttribute('data-events'));"
    "es.onmessage=function(m){pending=m.data;apply()};"
    "es.onopen=function(){document.body.classList.remove('offline')};"
    "es.onerror=function(){document.body.classList.add('offline');"
    "if(es.readyState===2)setTimeout(function(){location.reload()},15000)};"
    "setInterval(apply,1000)})();"
)
"""The live page's script: the server's event stream replaces the live part, not while a
form in it is being filled in nor once a form was sent (a button the person pressed is not
swapped under the page that answers it); a lost stream is opened again (the browser's
EventSource)."""


def page(
    title: str, body: str, lang: str, nonce: str = "", live: str = "", style: str = STYLE
) -> str:
    """A whole page; with ``live`` (an ``/events`` address) and a ``nonce`` the element
    ``#live`` is kept up to date by server-sent events."""
    script = f"<script nonce='{nonce}'>{LIVE}</script>" if live and nonce else ""
    return (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(title)}</title><style>{style}</style></head>"
        f"<body>{body}{script}</body></html>"
    )
