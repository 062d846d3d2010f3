// Replies may carry simple markdown (the widget's style, src/pipeline/styles.ts): bold and links are shown as
// such, everything else as the text it is. Built as DOM nodes, never as HTML, so no reply can inject markup.

const pattern = /\*\*([^*\n]+)\*\*|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"])/g;

function link(href: string, label: string): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  a.textContent = label;
  return a;
}

export function renderText(target: HTMLElement, text: string): void {
  const nodes: Array<Node | string> = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    nodes.push(text.slice(at, match.index));
    const [whole, bold, label, href, bare] = match;
    if (bold !== undefined) {
      const strong = document.createElement("strong");
      strong.textContent = bold;
      nodes.push(strong);
    } else if (label !== undefined && href !== undefined) nodes.push(link(href, label));
    else if (bare !== undefined) nodes.push(link(bare, bare));
    at = match.index + whole.length;
  }
  nodes.push(text.slice(at));
  target.replaceChildren(...nodes);
}
