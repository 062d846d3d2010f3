import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainIntentClassifier } from "../../src/ai/intents/classifier.js";
import { firstPerIntent, readBanking77, stratifiedSplit } from "../bench/intents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Intent Bank");
});
afterAll(() => app?.close());

const classify = async (texts: string[], key = bank.apiKey) =>
  (await app.request("/api/intents/classify", { key, body: { texts } })).body.results as Array<{
    intent: string;
    confidence: number;
  }>;

describe("intents", () => {
  it("uses the built-in set until the tenant defines its own", async () => {
    const [human, thanks] = await classify(["Can I talk to a human agent please", "thanks a lot, that helped"]);
    expect(human!.intent).toBe("human_request");
    expect(thanks!.intent).toBe("thanks");
    expect((await app.request("/api/intents", { key: bank.apiKey })).body.intents).toEqual([]);
  });

  it("creates, changes and deletes intents, and the classifier follows", async () => {
    const mortgage = await app.request("/api/intents", {
      key: bank.apiKey,
      body: {
        name: "mortgage_rates",
        agent_type: "faq",
        examples: [
          "what are your mortgage rates",
          "how much interest on a home loan",
          "mortgage interest today",
          "fixed rate mortgage offers",
        ],
      },
    });
    expect(mortgage.status).toBe(201);
    expect(mortgage.body).toMatchObject({ name: "mortgage_rates", agent_type: "faq", urgent: false });
    expect(mortgage.body.examples).toHaveLength(4);
    const fraud = await app.request("/api/intents", {
      key: bank.apiKey,
      body: {
        name: "fraud",
        urgent: true,
        agent_type: "support",
        examples: [
          "someone used my card without permission",
          "I see payments I did not make",
          "my account was hacked",
          "unknown transaction on my statement",
        ],
      },
    });
    expect(fraud.status).toBe(201);
    const [r1, r2] = await classify(["what's the interest on a mortgage", "there is a payment I never made on my card"]);
    expect(r1!.intent).toBe("mortgage_rates");
    expect(r2!.intent).toBe("fraud");

    const duplicate = await app.request("/api/intents", { key: bank.apiKey, body: { name: "fraud", examples: ["x"] } });
    expect(duplicate.status).toBe(422);

    const renamed = await app.request("/api/intents", {
      method: "PUT",
      key: bank.apiKey,
      body: {
        id: mortgage.body.id,
        name: "home_loans",
        examples: ["home loan rates", "mortgage interest rate", "borrow to buy a house"],
      },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: "home_loans",
      examples: ["home loan rates", "mortgage interest rate", "borrow to buy a house"],
    });
    expect((await classify(["mortgage interest rate please"]))[0]!.intent).toBe("home_loans");

    const deleted = await app.request(`/api/intents?id=${fraud.body.id}`, { method: "DELETE", key: bank.apiKey });
    expect(deleted.body).toEqual({ deleted: fraud.body.id });
    expect((await app.request(`/api/intents?id=${fraud.body.id}`, { method: "DELETE", key: bank.apiKey })).status).toBe(404);
    expect((await app.request("/api/intents", { key: bank.apiKey })).body.intents.map((i: { name: string }) => i.name)).toEqual([
      "home_loans",
    ]);
  });

  it("imports a text,intent CSV and JSON in bulk", async () => {
    const other = await app.tenant("Import Bank");
    const csv =
      'text,intent\n"where is my new card",card_arrival\n"card has not arrived yet",card_arrival\n"how do I top up",top_up\n"add money to my account",top_up\n';
    const res = await app.request("/api/intents/import", {
      key: other.apiKey,
      body: csv,
      headers: { "content-type": "text/csv" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ intents: 2, created: 2, examples: 4 });
    const json = await app.request("/api/intents/import", {
      key: other.apiKey,
      body: { examples: [{ text: "put cash in my account", intent: "top_up" }] },
    });
    expect(json.body).toEqual({ intents: 1, created: 0, examples: 1 });
    expect((await classify(["my card still hasn't arrived"], other.apiKey))[0]!.intent).toBe("card_arrival");
    const bad = await app.request("/api/intents/import", { key: other.apiKey, body: { examples: [{ text: "", intent: "x" }] } });
    expect(bad.status).toBe(422);
    // Bytes that are not UTF-8 are refused, not stored as U+FFFD.
    const broken = await fetch(`${app.url}/api/intents/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.apiKey}`, "content-type": "text/csv" },
      body: new Uint8Array([...Buffer.from("text,intent\n"), 0xff, 0xfe, ...Buffer.from(",greeting\n")]),
    });
    expect(broken.status).toBe(422);
    expect(await broken.json()).toMatchObject({ code: "VALIDATION", error: "Request body is not valid UTF-8" });
    expect(
      (await app.request("/api/intents", { key: other.apiKey })).body.intents.map((i: { name: string }) => i.name),
    ).not.toContain("greeting");
  });

  it("learns what the tenant's examples mean, not only their words", async () => {
    const other = await app.tenant("Meaning Bank");
    // Ten examples for each of thirty of BANKING77's intents, as a tenant writes its own.
    const rows = readBanking77();
    const intents = [...new Set(rows.map((row) => row.intent))].sort().slice(0, 30);
    const examples = firstPerIntent(
      stratifiedSplit(
        rows.filter((row) => intents.includes(row.intent)),
        0.8,
      ).train,
      10,
    );
    const imported = await app.request("/api/intents/import", { key: other.apiKey, body: { examples } });
    expect(imported.status).toBe(200);
    // Customers' questions that share too few words with the examples for words alone.
    const questions = ["How will I get my card?", "I need my card right away."];
    expect(
      trainIntentClassifier(examples)
        .classifyMany(questions)
        .map((p) => p.intent),
    ).not.toContain("card_delivery_estimate");
    expect((await classify(questions, other.apiKey)).map((p) => p.intent)).toEqual([
      "card_delivery_estimate",
      "card_delivery_estimate",
    ]);
    const chat = await app.request("/api/chat", { key: other.apiKey, body: { message: questions[1] } });
    expect(chat.body.metadata.intent).toBe("card_delivery_estimate");
  });

  it("classifies up to 1,000 texts at once and refuses more", async () => {
    const texts = Array.from({ length: 1000 }, (_, i) => `message number ${i} about my card`);
    expect(await classify(texts)).toHaveLength(1000);
    const tooMany = await app.request("/api/intents/classify", { key: bank.apiKey, body: { texts: [...texts, "one more"] } });
    expect(tooMany.status).toBe(422);
  });

  it("lets viewers classify but not change intents", async () => {
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    expect((await app.request("/api/intents/classify", { key: viewer, body: { texts: ["hello"] } })).status).toBe(200);
    const res = await app.request("/api/intents", { key: viewer, body: { name: "x", examples: ["y"] } });
    expect(res.status).toBe(403);
  });
});

describe("escalation once a tenant defines its own intents", () => {
  let own: { tenantId: string; apiKey: string };

  async function define(tenant: { apiKey: string }, name: string, examples: string[], extra: Record<string, unknown> = {}) {
    const res = await app.request("/api/intents", { key: tenant.apiKey, body: { name, examples, ...extra } });
    expect(res.status).toBe(201);
  }

  async function chat(tenant: { apiKey: string }, message: string) {
    const res = await app.request("/api/chat", { key: tenant.apiKey, body: { message } });
    expect(res.status).toBe(200);
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: tenant.apiKey });
    return { reply: res.body, status: conversation.body.status as string };
  }

  beforeAll(async () => {
    own = await app.tenant("Own Intents Bank");
    await define(own, "top_up", [
      "how do I top up my account",
      "add money to my account",
      "put cash into my balance",
      "top up by bank transfer",
      "can I top up with a card",
    ]);
    await define(own, "exchange_rate", [
      "what is the exchange rate for euros",
      "how many dollars do I get for a pound",
      "currency conversion rate today",
      "exchange rate to yen",
      "what rate do you give for foreign currency",
    ]);
    await define(
      own,
      "account_takeover",
      [
        "someone logged into my online banking",
        "a stranger got into my banking app",
        "my online banking login was used by someone else",
        "somebody changed my banking password",
        "I was locked out of my app after someone else signed in",
      ],
      { urgent: true, agent_type: "support" },
    );
  });

  it("answers the tenant's own intents as before", async () => {
    const { reply, status } = await chat(own, "how can I top up my account");
    expect(reply.metadata.intent).toBe("top_up");
    expect(status).toBe("open");
  });

  it("classifies a message asked before anew once the tenant's intents change", async () => {
    const message = "how do I order a new chequebook";
    const before = await chat(own, message);
    expect(before.reply.metadata.intent).not.toBe("chequebook");
    // Asked again, the same prediction (remembered for the classifier that made it).
    expect((await chat(own, message)).reply.metadata.intent).toBe(before.reply.metadata.intent);
    await define(own, "chequebook", [
      "order a chequebook",
      "I need a new chequebook",
      "request a cheque book",
      "how can I get more cheques",
      "send me a book of cheques",
    ]);
    expect((await chat(own, message)).reply.metadata.intent).toBe("chequebook");
  });

  it("escalates an intent the tenant marks urgent", async () => {
    const { reply, status } = await chat(own, "someone else logged into my online banking");
    expect(reply.metadata).toMatchObject({ intent: "account_takeover", agentType: "handoff" });
    expect(reply.response).toMatch(/member of our team/);
    expect(status).toBe("escalated");
  });

  it.each([
    ["asks for a person", "I want to speak to a real person please", "human_request"],
    ["reports a stolen card", "My card was stolen this morning", "card_lost_or_stolen"],
  ])("still hands a customer who %s to a human", async (_what, message, intent) => {
    const { reply, status } = await chat(own, message);
    expect(reply.metadata).toMatchObject({ intent, agentType: "handoff" });
    expect(reply.response).toMatch(/member of our team/);
    expect(status).toBe("escalated");
  });

  it("lets an intent of the tenant's with a built-in's name decide instead", async () => {
    const lenient = await app.tenant("Lenient Bank");
    await define(lenient, "complaint", [
      "I want to make a complaint",
      "I'm unhappy with the service",
      "how do I complain",
      "this service is terrible",
    ]);
    await define(lenient, "top_up", ["how do I top up my account", "add money to my account", "top up by card"]);
    const { reply, status } = await chat(lenient, "I want to make a complaint about your service");
    expect(reply.metadata.intent).toBe("complaint");
    expect(status).toBe("open");
  });
});
