import { type Article, bankText, topics } from "./bank-text.js";

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-");

// The boilerplate every page of a real bank site carries, which extraction has to strip.
const layout = (title: string, body: string, links: Array<[string, string]>) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Example Bank</title></head>
<body>
  <header><nav><a href="/">Help centre</a> <a href="/login">Log in</a> Personal | Business | Cookie settings</nav></header>
  <main><article><h1>${title}</h1>${body}</article></main>
  <aside><h2>Related</h2><ul>${links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join("")}</ul></aside>
  <footer>© Example Bank plc. Authorised by the Prudential Regulation Authority. <a href="/accessibility">Accessibility</a></footer>
</body></html>`;

const articleBody = (article: Article) => article.sections.map((s) => `<h2>${s.heading}</h2><p>${s.text}</p>`).join("\n");

/**
 * A help centre of exactly `pages` HTML pages, keyed by path (for test/fakes/bank-site.ts): the home
 * page links to one page per topic, each topic page to its articles, each article to a few others,
 * so a crawl reaches every page within depth 2.
 */
export function helpSite(pages: number, seed = 2): Map<string, string> {
  const text = bankText(seed);
  const articleCount = pages - 1 - topics.length;
  if (articleCount < 1) throw new Error(`a help site needs more than ${topics.length + 1} pages`);
  const articles = Array.from({ length: articleCount }, (_, i) => ({ path: `/help/${i + 1}`, article: text.article() }));
  const byTopic = topics.map((topic, t) => ({
    topic,
    path: `/topics/${slug(topic)}`,
    articles: articles.filter((_, i) => i % topics.length === t),
  }));
  const site = new Map<string, string>();
  const welcome = `<p>Welcome to the Example Bank help centre: answers about accounts, cards, loans, payments and our branches.</p>`;
  site.set(
    "/",
    layout(
      "Help centre",
      welcome,
      byTopic.map((t) => [t.path, t.topic]),
    ),
  );
  for (const t of byTopic) {
    const intro = `<p>Everything about ${t.topic.toLowerCase()}, from the questions our customers ask most.</p>`;
    site.set(
      t.path,
      layout(
        t.topic,
        intro,
        t.articles.map((a) => [a.path, a.article.title]),
      ),
    );
  }
  for (const [i, a] of articles.entries()) {
    const related = [1, 2, 3].map((step) => articles[(i + step * 7) % articles.length]!);
    site.set(
      a.path,
      layout(
        a.article.title,
        articleBody(a.article),
        related.map((r) => [r.path, r.article.title]),
      ),
    );
  }
  return site;
}
