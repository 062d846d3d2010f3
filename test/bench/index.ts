import { benchAnalytics } from "./analytics.js";
import { benchAnswers } from "./answers.js";
import { benchChannels } from "./channels.js";
import { benchChat } from "./chat.js";
import { benchDashboard } from "./dashboard.js";
import { benchEvents } from "./events.js";
import { benchExport } from "./export.js";
import { benchIntents } from "./intents.js";
import { benchKnowledgeIngest } from "./knowledge-ingest.js";
import { benchKnowledgeSearch } from "./knowledge-vectors.js";
import { benchRetention } from "./retention.js";
import { benchScale } from "./scale.js";

// `npm run bench -- <suite>`: each suite prints a table. Benchmarks measure; tests assert behaviour.
const suites: Record<string, () => Promise<unknown>> = {
  intents: benchIntents,
  answers: benchAnswers,
  knowledge: async () => {
    await benchKnowledgeIngest();
    await benchKnowledgeSearch();
  },
  chat: benchChat,
  channels: benchChannels,
  scale: benchScale,
  analytics: benchAnalytics,
  events: benchEvents,
  export: benchExport,
  retention: benchRetention,
  dashboard: benchDashboard,
};

const requested = process.argv.slice(2);
const names = requested.length ? requested : Object.keys(suites);
for (const name of names) {
  const suite = suites[name];
  if (!suite) {
    console.error(`Unknown benchmark "${name}". Available: ${Object.keys(suites).join(", ") || "none yet"}`);
    process.exit(2);
  }
  console.log(`\n## ${name}\n`);
  await suite();
}
