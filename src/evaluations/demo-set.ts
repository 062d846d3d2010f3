import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { addManualSource } from "../knowledge/sources.js";
import type { Services } from "../services.js";
import { caseInput, maxCasesPerTenant } from "./cases.js";

/**
 * The development set of the offline engine: FAQ files and questions with their answers. It lives with the tests and
 * ships in the image with the rest of the repository; a deployment without it just has a demo tenant without it.
 */
export const developmentSetDir = fileURLToPath(new URL("../../test/fixtures/answers/", import.meta.url));

/** A question of the development set (test/fixtures/answers/README.md). */
interface DevelopmentQuestion {
  question: string;
  expect: "answer" | "decline";
  mustContain?: string[];
}

/** `answer` cases become `contains` (those without phrases cannot be judged and are left out), `decline` stays. */
const asCase = (q: DevelopmentQuestion) =>
  q.expect === "decline"
    ? { question: q.question, expect: "decline" }
    : { question: q.question, expect: "contains", contains: q.mustContain ?? [] };

/**
 * Gives the demo tenant the development set: each `faq/*.md` as a manual knowledge source (titled by its first
 * `# ` line) and the questions as its evaluation cases. Returns what was added; nothing when the set is missing.
 */
export async function seedDevelopmentSet(
  services: Services,
  tenantId: string,
  dir = developmentSetDir,
): Promise<{ sources: number; cases: number }> {
  const faqDir = path.join(dir, "faq");
  const questionsFile = path.join(dir, "questions.json");
  if (!existsSync(faqDir) || !existsSync(questionsFile)) {
    services.logger.info({ dir }, "no development set to give the demo tenant");
    return { sources: 0, cases: 0 };
  }
  const db = scopeToTenant(services.db.prisma, tenantId);
  const files = readdirSync(faqDir)
    .filter((f) => f.endsWith(".md"))
    .sort();
  for (const file of files) {
    const content = readFileSync(path.join(faqDir, file), "utf8");
    const title = /^#\s+(.+)$/m.exec(content)?.[1]?.trim() ?? file.replace(/\.md$/, "");
    await addManualSource(services, db, tenantId, title, content);
  }
  const questions = JSON.parse(readFileSync(questionsFile, "utf8")) as DevelopmentQuestion[];
  const cases = questions.flatMap((q) => {
    const parsed = caseInput.safeParse(asCase(q));
    return parsed.success ? [parsed.data] : [];
  });
  // In order, one by one: runs replay a set in the order of its cases.
  for (const c of cases.slice(0, maxCasesPerTenant))
    await db.evaluationCase.create({ data: { id: newId("evc"), tenantId, ...c } });
  return { sources: files.length, cases: Math.min(cases.length, maxCasesPerTenant) };
}
