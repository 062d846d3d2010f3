import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { passageOf } from "../../src/ai/relevance.js";
import { RequestThread } from "../../src/threads/request-thread.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { waitForSource } from "./knowledge-api.js";

// Each tenant's FAQ entry classifier (src/knowledge/faq-entries.ts) follows its knowledge: what it learned is read
// from the instance, the knowledge changed and searched through the API.

const cards = `# Cards FAQ

## What should I do if my card is lost or stolen?
Freeze the card in the app under Cards > Freeze, then call us on 0800 555 010. We send a new card free of charge.

## What is the contactless limit?
A single contactless payment can be up to 50 EUR. After five in a row the terminal asks for your PIN.

## I forgot my PIN. What can I do?
You can view your PIN in the app under Cards > Show PIN after logging in with your fingerprint.

## My card is damaged. How do I get a replacement?
Order a replacement in the app under Cards > Replace card. It arrives within seven business days.

## Can I use my card abroad?
Yes, your card works wherever Mastercard is accepted. Payments in other currencies carry a 1.5 % exchange fee.

## Why was my card declined?
Usually because of the daily spending limit, a wrong PIN or a frozen card. The app shows the reason under Cards > Activity.

## How do I change my card's spending limit?
Open Cards > Limits in the app and move the slider. The new limit applies at once.

## Can I get a credit card?
Customers over 18 with a regular income can apply in the app under Cards > Credit card. We decide within two days.`;

const transfers = `# Transfers FAQ

## How long does a transfer abroad take?
Transfers in euros inside the SEPA area arrive the next working day; other currencies take two to four working days.

## What does an international transfer cost?
SEPA transfers are free. Transfers outside the SEPA area cost 5 EUR plus the receiving bank's fees.

## Can I cancel a transfer?
A scheduled transfer can be cancelled in the app until the day before it is due. An instant transfer cannot be cancelled.

## What is the daily transfer limit?
You can send up to 10,000 EUR a day in the app. Raise it for one day by calling us.

## How do I set up a standing order?
Choose Payments > Standing orders in the app, enter the recipient, the amount and how often it is paid.`;

const accounts = `# Accounts FAQ

## How do I open a savings account?
Open it in the app under Accounts > New account in two minutes. It pays 2 % a year.

## How do I close my account?
Send us a message in the app or visit a branch. We move the balance to an account you name.

## Where do I find my IBAN?
Your IBAN is under Accounts > Details in the app and on every statement.`;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

async function addFaq(target: TestApp, key: string, title: string, content: string): Promise<string> {
  const res = await target.request("/api/knowledge/sources", { key, body: { type: "manual", title, content } });
  expect(res.status).toBe(201);
  expect((await waitForSource(target, res.body.id, key)).status).toBe("ready");
  return res.body.id;
}

async function search(target: TestApp, key: string, query: string) {
  const res = await target.request("/api/knowledge", { key, body: { query, topK: 3 } });
  expect(res.status).toBe(200);
  return res.body.results as Array<{ source_id: string; text: string }>;
}

/** The chunks of a source that are FAQ units, as retrieval reads them. */
async function unitIds(target: TestApp, sourceId: string): Promise<string[]> {
  const rows = await target.services.db.sql.query<{ id: string; title: string | null; content: string }>(
    "SELECT id, title, content FROM chunks WHERE source_id = $1",
    [sourceId],
  );
  return rows.filter((row) => passageOf({ ...row, sourceTitle: "", similarity: 0 }).question).map((row) => row.id);
}

/** The entries of the tenant's classifier as the instance holds it now, without asking for a training. */
function held(target: TestApp, tenantId: string): string[] {
  return [...(target.services.faqEntries.held(tenantId)?.entries ?? [])].sort();
}

/** The same once the instance has trained it for the tenant's knowledge as it is now. */
async function ready(target: TestApp, tenantId: string): Promise<string[]> {
  return [...((await target.services.faqEntries.ready(tenantId))?.entries ?? [])].sort();
}

const poll = { timeout: 120_000, interval: 50 };

describe("a tenant's FAQ entry classifier", () => {
  it("learns the tenant's FAQ entries as its knowledge changes, unasked", async () => {
    const bank = await app.tenant("Entry Bank");
    const cardsId = await addFaq(app, bank.apiKey, "Cards FAQ", cards);
    const cardUnits = await unitIds(app, cardsId);
    expect(cardUnits).toHaveLength(8);
    // Too few entries to tell apart by a softmax: answers go without it.
    expect(await ready(app, bank.tenantId)).toEqual([]);
    expect(await search(app, bank.apiKey, "how much can I pay by tapping my card")).toHaveLength(3);

    // Each change is announced, and the instance trains on what the tenant has now.
    const transfersId = await addFaq(app, bank.apiKey, "Transfers FAQ", transfers);
    const transferUnits = await unitIds(app, transfersId);
    await expect.poll(() => held(app, bank.tenantId), poll).toEqual([...cardUnits, ...transferUnits].sort());
    const [best] = await search(app, bank.apiKey, "what's the fee for sending money to a bank outside europe");
    expect(best!.text).toContain("5 EUR plus");

    const accountsId = await addFaq(app, bank.apiKey, "Accounts FAQ", accounts);
    await expect.poll(() => held(app, bank.tenantId), poll).toHaveLength(16);
    expect((await search(app, bank.apiKey, "where can I see my iban number"))[0]!.source_id).toBe(accountsId);

    const deleted = await app.request(`/api/knowledge/sources?id=${accountsId}`, { key: bank.apiKey, method: "DELETE" });
    expect(deleted.status).toBe(200);
    await expect.poll(() => held(app, bank.tenantId), poll).toEqual([...cardUnits, ...transferUnits].sort());
    expect((await search(app, bank.apiKey, "how much does a transfer to the US cost"))[0]!.source_id).toBe(transfersId);
  }, 240_000);

  it("never keeps a question waiting: an entry the model does not know yet has it ranked without the model", async () => {
    const bank = await app.tenant("Impatient Entry Bank");
    await addFaq(app, bank.apiKey, "Cards FAQ", cards);
    await addFaq(app, bank.apiKey, "Transfers FAQ", transfers);
    const model = await app.services.faqEntries.ready(bank.tenantId);
    expect(model).not.toBeNull();
    expect(app.services.faqEntries.model(bank.tenantId, model!.entries.slice(0, 3))).toBe(model);
    // An entry added since: no model at once, rather than one that would leave that entry out.
    expect(app.services.faqEntries.model(bank.tenantId, [...model!.entries.slice(0, 3), "chk_unknown"])).toBeNull();
  }, 240_000);

  it("hands its training's encodings of the entries to ranking: a question then asks the sentence encoder for itself alone", async () => {
    const bank = await app.tenant("Encoded Entry Bank");
    // Questions no other test encodes: the encodings a process remembers are shared by its tenants.
    const own = (faq: string) => faq.replaceAll("## ", "## At Encoded Bank, ");
    await addFaq(app, bank.apiKey, "Cards FAQ", own(cards));
    await addFaq(app, bank.apiKey, "Transfers FAQ", own(transfers));
    expect(await app.services.faqEntries.ready(bank.tenantId)).not.toBeNull();

    const asks = vi.spyOn(RequestThread.prototype, "ask");
    try {
      const question = "how much can I pay by tapping my card at a shop till";
      expect(await search(app, bank.apiKey, question)).toHaveLength(3);
      const encoded = asks.mock.calls.flatMap(([request], i) =>
        (asks.mock.contexts[i] as unknown as { name: string }).name === "sentence-encoder"
          ? (request as { texts: string[] }).texts
          : [],
      );
      expect(encoded).toEqual([question.toLowerCase()]);
    } finally {
      asks.mockRestore();
    }
  }, 240_000);

  it("is each tenant's own", async () => {
    const first = await app.tenant("First Entry Bank");
    const second = await app.tenant("Second Entry Bank");
    const firstSources = [
      await addFaq(app, first.apiKey, "Cards FAQ", cards),
      await addFaq(app, first.apiKey, "Accounts FAQ", accounts),
    ];
    const secondSources = [
      await addFaq(app, second.apiKey, "Transfers FAQ", transfers),
      await addFaq(app, second.apiKey, "Cards FAQ", cards),
    ];
    const unitsOf = async (sources: string[]) => (await Promise.all(sources.map((id) => unitIds(app, id)))).flat().sort();
    expect(await ready(app, first.tenantId)).toEqual(await unitsOf(firstSources));
    expect(await ready(app, second.tenantId)).toEqual(await unitsOf(secondSources));
  }, 240_000);
});

describe.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)("several instances", () => {
  it("retrain a tenant's classifier when its knowledge changes on another instance", async () => {
    const second = await startTestApp({}, { database: app.database });
    try {
      const bank = await app.tenant("Shared Entry Bank");
      const cardsId = await addFaq(app, bank.apiKey, "Cards FAQ", cards);
      const transfersId = await addFaq(app, bank.apiKey, "Transfers FAQ", transfers);
      const accountsId = await addFaq(app, bank.apiKey, "Accounts FAQ", accounts);
      const left = [...(await unitIds(app, cardsId)), ...(await unitIds(app, transfersId))].sort();
      // Announced across instances: the second trains without a question asked there.
      await expect.poll(() => held(second, bank.tenantId), poll).toEqual([...left, ...(await unitIds(app, accountsId))].sort());

      expect((await app.request(`/api/knowledge/sources?id=${accountsId}`, { key: bank.apiKey, method: "DELETE" })).status).toBe(
        200,
      );
      await expect.poll(() => held(second, bank.tenantId), poll).toEqual(left);
    } finally {
      await second.close();
    }
  }, 240_000);

  it("train the tenants' classifiers as an instance starts, before any question", async () => {
    const bank = await app.tenant("Restarted Entry Bank");
    const sources = [
      await addFaq(app, bank.apiKey, "Cards FAQ", cards),
      await addFaq(app, bank.apiKey, "Transfers FAQ", transfers),
    ];
    const units = (await Promise.all(sources.map((id) => unitIds(app, id)))).flat().sort();
    const started = await startTestApp({}, { database: app.database });
    try {
      await expect.poll(() => held(started, bank.tenantId), poll).toEqual(units);
    } finally {
      await started.close();
    }
  }, 240_000);
});
