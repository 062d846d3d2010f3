import { startWidget } from "./controller.js";
import { isPosition } from "./view.js";

// Loaded by <script src="{base_url}/widget.js" data-key="<widget token>" data-position="bottom-right" defer>:
// the service's address is where this script came from.

const script =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[src*="/widget.js"][data-key]');
const token = script?.dataset.key;

if (script && token) {
  const base = script.src.replace(/\/widget\.js(\?.*)?$/, "");
  const position = script.dataset.position;
  const start = () => startWidget({ base, token, position: isPosition(position) ? position : undefined });
  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
} else {
  console.error("Parley widget: the script tag needs data-key with a widget token");
}
