// The shadow root's style. Designers theme it from the page with the --qp-hud-* properties (each with a light and a
// dark default, both AA on the HUD's own background) and ::part(); nothing here needs code. Only transform and
// opacity animate. Over a canvas the host fills its positioned parent with `contain: strict`: its size never depends
// on its content, so it is a relayout boundary and an update never lays out the game's page. A toast is a card of its
// own with an edge in its state's colour; the history is one quieter card of small rows, so one award
// never shows as two look-alike cards. No text is cut: words wrap (a translation may be long), nothing ellipsises.
// Each line ends in a backslash: a line continuation, so the shipped string has no newlines (bytes of the HUD's budget).
export const CSS = `\
:host{--b:var(--qp-hud-bg,#fff);--f:var(--qp-hud-fg,#1d2433);--m:var(--qp-hud-muted,#4a5468);--p:var(--qp-hud-pending,#8f4a00);--s:var(--qp-hud-sent,#1864ab);--o:var(--qp-hud-ok,#237032);--x:var(--qp-hud-bad,#c92a2a);--w:var(--qp-hud-width,240px);\
position:absolute;inset:0;padding:var(--qp-hud-inset,12px);z-index:var(--qp-hud-z,10);contain:strict;display:grid;gap:var(--qp-hud-gap,6px);justify-items:end;align-content:start;\
font:var(--qp-hud-font,500 14px/1.35 system-ui,sans-serif);color:var(--f);pointer-events:none;user-select:none}\
@media(prefers-color-scheme:dark){:host{--b:var(--qp-hud-bg,#161a24);--f:var(--qp-hud-fg,#e6e9f0);--m:var(--qp-hud-muted,#a3acbd);--p:var(--qp-hud-pending,#ffa94d);--s:var(--qp-hud-sent,#74c0fc);--o:var(--qp-hud-ok,#69db7c);--x:var(--qp-hud-bad,#ff8787)}}\
:host([position$=left]){justify-items:start}\
:host([position^=bottom]){align-content:end}\
:host([position=inline]){position:relative;inset:auto;contain:layout style;padding:0}\
:host([hidden]){display:none}\
[part~=panel],[part~=toast],[part~=history]{background:var(--b);border-radius:var(--qp-hud-radius,10px);box-shadow:var(--qp-hud-shadow,0 2px 10px #0005);padding:var(--qp-hud-padding,6px 10px)}\
[part~=panel]{display:flex;align-items:baseline;gap:8px}\
[part~=label],[part~=state],[part~=connection]{color:var(--c,var(--m));font-size:.8em;font-weight:600}\
[part~=total]{font-size:var(--qp-hud-total-size,1.6em);font-weight:700;font-variant-numeric:tabular-nums}\
[part~=offline],[part~=unreachable]{color:var(--x)}\
[part~=sign-in]{color:var(--qp-hud-sign-in,var(--p))}\
ol{list-style:none;margin:0;padding:0;display:grid;gap:var(--qp-hud-gap,6px);justify-items:inherit}\
ol:empty{display:none}\
:host>*,li{box-sizing:border-box;max-width:min(100%,var(--w))}\
li{--c:var(--p)}\
[data-state=sent]{--c:var(--s)}\
[data-state=confirmed]{--c:var(--o)}\
[data-state=rejected]{--c:var(--x)}\
[part~=points]{font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap}\
[part~=event],[part~=toast] [part~=state]{overflow-wrap:anywhere}\
[part~=toast]{display:grid;grid-template-columns:auto minmax(0,1fr);column-gap:8px;border-left:4px solid var(--c);animation:i var(--qp-hud-toast-in,.25s) ease-out}\
[part~=toast] [part~=state]{grid-column:2}\
[part~=history]{box-shadow:none;justify-items:stretch;gap:0;padding:4px 0;font-size:.85em}\
[part~=entry]{display:flex;flex-wrap:wrap;column-gap:6px;align-items:baseline;padding:2px 10px}\
[part~=entry]+li{border-top:1px solid #8884}\
[part~=entry] [part~=state]{margin-left:auto;white-space:nowrap}\
[part~=notice]{background:var(--b);border-radius:var(--qp-hud-radius,10px);padding:2px 8px;font-size:.8em;margin:0;color:var(--x)}\
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}\
@keyframes i{from{opacity:0;transform:translateY(-6px)}}\
.still{animation:none}\
@media(prefers-reduced-motion:reduce){[part~=toast]{animation:none}}`;
