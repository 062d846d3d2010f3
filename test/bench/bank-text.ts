// Real-looking bank help text from word lists, seeded: the benchmarks' knowledge bases, manuals and
// web sites are made of it, so the embedder and full-text search see text like a tenant's.

function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

// Word lists as one string each: the formatter would give every entry a line of its own.
const list = (items: string) => items.split("|");
const products = list(
  "current account|savings account|credit card|debit card|mortgage|personal loan|cash ISA|overdraft|business account|joint account|student account|travel card|fixed-rate bond|car loan",
);
const actions = list(
  "open|close|apply for|cancel|freeze|replace|top up|transfer money from|pay into|check the balance of|change the PIN of|report fraud on|set up a direct debit from|raise the limit on|add a second holder to|switch",
);
const channels = list(
  "in the mobile app|in online banking|at any branch|by calling our helpline|at a cash machine|by post|through live chat|with the help of a branch adviser",
);
const times = list("within five working days|straight away|on the next working day|within 24 hours|by the end of the month");
const conditions = list(
  "if you are over 18|once we have verified your identity|unless the account is overdrawn|if you live in the UK|as long as the card has not expired|when your salary is paid in|after the cooling-off period",
);
const towns = list("Leeds|Bristol|Glasgow|Cardiff|Norwich|York|Belfast|Exeter|Derby|Bath");
export const topics = list("Fees and charges|Security|Getting started|Managing your money|Payments|Help and support");

export interface Section {
  heading: string;
  text: string;
}

export interface Article {
  title: string;
  sections: Section[];
}

export function bankText(seed: number) {
  const random = prng(seed);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const money = () => `£${Math.floor(random() * 500) + 1}`;
  const rate = () => `${(random() * 8).toFixed(2)}%`;
  const sentence = (product: string, action: string): string => {
    switch (Math.floor(random() * 7)) {
      case 0:
        return `You can ${action} your ${product} ${pick(channels)} ${pick(conditions)}.`;
      case 1:
        return `If you want to ${action} your ${product}, do it ${pick(channels)} and we will confirm ${pick(times)}.`;
      case 2:
        return `A fee of ${money()} applies when you ${action} a ${product} ${pick(channels)}.`;
      case 3:
        return `Our ${product} pays ${rate()} AER ${pick(conditions)}, with interest added ${pick(times)}.`;
      case 4:
        return `The ${pick(towns)} branch can help you ${action} your ${product}; bring photo ID and proof of address.`;
      case 5:
        return `We will never ask for your PIN or password ${pick(channels)}; report anything suspicious about your ${product} ${pick(times)}.`;
      default:
        return `How do I ${action} my ${product}? Go ${pick(channels)}, choose ${pick(topics).toLowerCase()}, and follow the steps.`;
    }
  };
  // A help page is about one thing: most of a paragraph's sentences share its product and action,
  // the rest point elsewhere, as "see also" paragraphs do.
  const paragraph = (product: string, action: string) =>
    Array.from({ length: 6 + Math.floor(random() * 10) }, () =>
      random() < 0.8 ? sentence(product, random() < 0.6 ? action : pick(actions)) : sentence(pick(products), pick(actions)),
    ).join(" ");
  const section = (): Section => {
    const product = pick(products);
    const action = pick(actions);
    return { heading: `How to ${action} your ${product}`, text: paragraph(product, action) };
  };
  return {
    /** One chunk's worth (150 to 400 tokens), as a search corpus row. */
    chunk: () => {
      const product = pick(products);
      const action = pick(actions);
      const text = paragraph(product, action);
      return `${pick(topics)}: how to ${action} your ${product}. ${text}`;
    },
    /** A help page of three to six sections: a few chunks once chunked. */
    article: (): Article => {
      const sections = Array.from({ length: 3 + Math.floor(random() * 4) }, section);
      return { title: `${pick(topics)}: ${sections[0]!.heading.toLowerCase()}`, sections };
    },
    /** A customer's question, in the words customers use. */
    query: () =>
      random() < 0.5
        ? `how do I ${pick(actions)} my ${pick(products)} ${pick(channels)}`
        : `${pick(products)} ${pick(["fees", "interest rate", "lost card", "opening hours", "fraud"])} ${pick(towns)}`,
  };
}

/** A manual of at least `bytes` UTF-8 bytes: articles as Markdown, which the chunker splits on headings. */
export function manualText(bytes: number, seed = 1): string {
  const text = bankText(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const { title, sections } = text.article();
    const part = `# ${title}\n\n${sections.map((s) => `## ${s.heading}\n\n${s.text}`).join("\n\n")}\n\n`;
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return parts.join("");
}
