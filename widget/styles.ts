// The widget's whole look, inside its shadow root: the host page's rules cannot reach in, and these cannot
// reach out. `:host` resets what the page would pass down by inheritance; its !important declarations win
// over the page's own !important ones on the host element, because the shadow tree's context comes first.
export const css = `
:host {
  all: initial !important;
  display: block !important;
  position: static !important;
  visibility: visible !important;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.root {
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--pw-text);
  -webkit-font-smoothing: antialiased;
}
.sr-only {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
}
button { font: inherit; cursor: pointer; }
:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.launcher {
  position: fixed; z-index: 2147483000; width: 56px; height: 56px; border-radius: 50%; border: 0;
  background: var(--pw-primary); color: var(--pw-on-primary);
  box-shadow: 0 4px 14px rgba(0, 0, 0, .25); display: grid; place-items: center;
}
.launcher .icon { display: grid; }
.launcher svg { width: 26px; height: 26px; }
.badge {
  position: absolute; top: -4px; right: -4px; min-width: 20px; height: 20px; padding: 0 5px; border-radius: 10px;
  background: #d92d20; color: #fff; font-size: 12px; font-weight: 600; line-height: 20px; text-align: center;
}
.panel {
  position: fixed; z-index: 2147483001; width: 370px; height: min(580px, calc(100vh - 110px));
  display: flex; flex-direction: column; overflow: hidden; border-radius: 14px;
  background: var(--pw-bg); color: var(--pw-text); box-shadow: 0 12px 40px rgba(0, 0, 0, .28);
}
.bottom-right .launcher { right: 20px; bottom: 20px; } .bottom-right .panel { right: 20px; bottom: 88px; }
.bottom-left .launcher { left: 20px; bottom: 20px; } .bottom-left .panel { left: 20px; bottom: 88px; }
.top-right .launcher { right: 20px; top: 20px; } .top-right .panel { right: 20px; top: 88px; }
.top-left .launcher { left: 20px; top: 20px; } .top-left .panel { left: 20px; top: 88px; }
header {
  display: flex; align-items: center; gap: 8px; padding: 14px 12px 14px 18px;
  background: var(--pw-primary); color: var(--pw-on-primary);
}
h2 { flex: 1; margin: 0; font-size: 17px; font-weight: 600; }
.close { width: 36px; height: 36px; border: 0; border-radius: 8px; background: transparent; color: inherit; display: grid; place-items: center; }
.close:hover { background: rgba(255, 255, 255, .15); }
.close svg { width: 20px; height: 20px; }
.notice { margin: 10px 12px 0; padding: 10px 12px; border-radius: 8px; background: #fef3f2; color: #912018; font-size: 14px; }
.messages { flex: 1; overflow-y: auto; margin: 0; padding: 14px 12px; list-style: none; display: flex; flex-direction: column; gap: 8px; }
.msg { display: flex; flex-direction: column; max-width: 85%; }
.msg .bubble { padding: 9px 13px; border-radius: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg a { color: inherit; }
.assistant, .agent { align-self: flex-start; }
.assistant .bubble, .agent .bubble { background: rgba(127, 127, 127, .13); border-bottom-left-radius: 4px; }
.agent .who { font-size: 12px; opacity: .75; margin: 0 0 2px 4px; }
.customer { align-self: flex-end; }
.customer .bubble { background: var(--pw-primary); color: var(--pw-on-primary); border-bottom-right-radius: 4px; }
.choices { display: flex; gap: 4px; margin: 4px 0 0 2px; }
.choices button {
  min-width: 32px; height: 28px; padding: 0 6px; border-radius: 8px; border: 1px solid rgba(127, 127, 127, .35);
  background: transparent; color: inherit; font-size: 14px;
}
.choices button[aria-pressed="true"] { background: var(--pw-primary); color: var(--pw-on-primary); border-color: transparent; }
.suggestions { display: flex; flex-direction: column; align-items: flex-start; gap: 4px; margin: 6px 0 0 2px; }
.suggestions button {
  max-width: 100%; padding: 6px 10px; border-radius: 12px; border: 1px solid var(--pw-primary);
  background: transparent; color: inherit; font: inherit; font-size: 14px; text-align: left; cursor: pointer;
}
.suggestions button:hover { background: var(--pw-primary); color: var(--pw-on-primary); }
.typing { padding: 0 18px 8px; }
.dots { display: inline-flex; gap: 4px; padding: 10px 13px; border-radius: 14px; background: rgba(127, 127, 127, .13); }
.dots i { width: 7px; height: 7px; border-radius: 50%; background: currentColor; opacity: .4; animation: pw-blink 1.2s infinite; }
.dots i:nth-child(2) { animation-delay: .2s; } .dots i:nth-child(3) { animation-delay: .4s; }
@keyframes pw-blink { 30% { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .dots i { animation: none; opacity: .7; } }
form { display: flex; gap: 8px; align-items: flex-end; padding: 10px 12px; border-top: 1px solid rgba(127, 127, 127, .25); }
textarea {
  flex: 1; resize: none; max-height: 120px; padding: 9px 12px; border-radius: 10px; border: 1px solid rgba(127, 127, 127, .45);
  font: inherit; color: inherit; background: transparent;
}
textarea:focus-visible { outline: 2px solid var(--pw-primary); outline-offset: 1px; }
.send { height: 40px; padding: 0 14px; border: 0; border-radius: 10px; background: var(--pw-primary); color: var(--pw-on-primary); font-weight: 600; }
.send:disabled, textarea:disabled { opacity: .55; cursor: not-allowed; }
@media (max-width: 480px) {
  .root .panel { inset: 0; width: 100%; height: 100%; border-radius: 0; }
}
`;
