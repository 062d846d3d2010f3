import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageText } from "../../src/channels/format.js";
import { sendsThroughProvider } from "../../src/channels/registry.js";
import { ussd } from "../../src/channels/ussd.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel, conversationMessages, conversationsOn, postForm } from "../helpers/channels.js";

// The USSD channel (Africa's Talking): synchronous CON/END screens, routed by the service code and
// authenticated by the channel's URL token. The hop vector of ../shared/providers/africastalking.md.

const serviceCode = "*384*123#";
// The AT document's path-token vector, used as this channel's token.
const token = "4369f9454ad30bfec0a542bc00afac14";
const screenChars = 182;

let providers: FakeProviders;
let app: TestApp;
let key: string;
let tenantId: string;

let sessions = 0;

/** A USSD session of one phone: each hop posts every input so far, joined with `*`. */
function session(phoneNumber: string) {
  const sessionId = `ATUid_test${String(++sessions).padStart(4, "0")}`;
  const hop = (text: string, options: { token?: string | null; serviceCode?: string } = {}) => {
    const query = options.token === null ? "" : `?token=${options.token ?? token}`;
    return postForm(app, `/api/channels/ussd${query}`, {
      sessionId,
      serviceCode: options.serviceCode ?? serviceCode,
      phoneNumber,
      networkCode: "63902",
      text,
    });
  };
  return { sessionId, hop };
}

/** The screen a hop shows, checked against the USSD rules: CON or END, at most 182 characters. */
async function screen(res: Awaited<ReturnType<ReturnType<typeof session>["hop"]>>) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  const body = String(res.body);
  expect(body).toMatch(/^(CON|END) /);
  expect(Array.from(body.slice(4)).length).toBeLessThanOrEqual(screenChars);
  return body;
}

const customerMessages = (sessionId: string) =>
  app.services.db.prisma.message.count({
    where: { tenantId, role: "customer", providerMessageId: { contains: `:${sessionId}:` } },
  });

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  ({ apiKey: key, tenantId } = await app.tenant("Ussd Bank"));
  await configureChannel(app, key, "ussd", { service_code: serviceCode, token });
  const source = await app.request("/api/knowledge/sources", {
    key,
    body: {
      type: "manual",
      title: "Cards FAQ",
      content:
        "To reset your card PIN, open the mobile banking app, sign in with your fingerprint or passcode, choose Cards, pick the card whose PIN you want to change, then choose Reset PIN and type the new four-digit PIN twice to confirm it. " +
        "The new PIN works at once, at every cash machine and in shops. " +
        "If your card is lost or stolen, freeze it in the app under Cards, then Freeze card, and order a replacement card, " +
        "which arrives by post within five working days at the address we hold for you. " +
        "Replacement cards keep the same PIN and the same account number, and recurring payments move to the new card on their own.",
    },
  });
  expect(source.status).toBe(201);
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("USSD formatting", () => {
  it("pages a long text at sentence or word boundaries, every page within the size", () => {
    const text = Array.from({ length: 12 }, (_, i) => `Step ${i + 1} of the process is explained in this sentence.`).join(" ");
    const pages = pageText(text, 100);
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) {
      expect(page.length).toBeLessThanOrEqual(100);
      expect(page).toMatch(/\.$/);
    }
    expect(pages.join(" ")).toBe(text);
    expect(pageText("short", 100)).toEqual(["short"]);
    const words = pageText("word ".repeat(50).trim(), 22);
    expect(words.every((p) => p.length <= 22 && !p.startsWith(" ") && !p.endsWith(" "))).toBe(true);
    expect(words.join(" ")).toBe("word ".repeat(50).trim());
  });

  it("formats an answer as plain GSM text without markdown", () => {
    expect(ussd.format("**Reset** your PIN — see [the app](https://bank.example).", {})).toBe(
      "Reset your PIN - see the app (https://bank.example).",
    );
  });

  it("has no send: USSD replies are the HTTP answers", () => {
    expect(sendsThroughProvider("ussd")).toBe(false);
  });
});

describe("USSD sessions", () => {
  it("answers the documented hop format with the menu first", async () => {
    // Exactly as in the provider notes, with `text` empty: the first hop of a session.
    const res = await app.request(`/api/channels/ussd?token=${token}`, {
      body: "sessionId=ATUid_vector0001&serviceCode=%2A384%2A123%23&phoneNumber=%2B254711000111&networkCode=63902&text=",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(await screen(res)).toBe("CON Welcome to Ussd Bank.\n1 Ask a question\n2 Talk to an agent");
  });

  it("asks for a question, answers it through the pipeline and pages a long answer", async () => {
    const { sessionId, hop } = session("+254711000222");
    expect(await screen(await hop(""))).toMatch(/^CON .*\n1 Ask a question\n2 Talk to an agent$/);
    expect(await screen(await hop("1"))).toBe("CON Type your question:");
    const question = "How do I reset my card PIN?";
    const first = await screen(await hop(`1*${question}`));
    expect(first).toMatch(/^CON /);
    expect(first).toMatch(/\n98 More\n0 Menu$/);

    const pages = [first];
    let text = `1*${question}`;
    while (pages.at(-1)!.endsWith("98 More\n0 Menu")) {
      text += "*98";
      pages.push(await screen(await hop(text)));
      expect(pages.length).toBeLessThan(10);
    }
    expect(pages.at(-1)).toMatch(/\n0 Menu$/);
    const shown = pages.map((p) => p.replace(/^CON /, "").replace(/\n(98 More\n)?0 Menu$/, "")).join(" ");
    expect(shown).toMatch(/Reset PIN/);

    const [conversation] = (await conversationsOn(app, key, "ussd")).filter((c) => c.customer_phone === "+254711000222");
    const messages = await conversationMessages(app, key, conversation!.id);
    // The first answer follows the AI disclosure (stored on its own), on the same screens.
    expect(messages.map((m) => m.role)).toEqual(["customer", "system", "assistant"]);
    expect(messages[0]!.content).toBe(question);
    expect(messages[2]!.delivery).toBeNull();
    // Paging reads what was stored: the AI was asked once.
    const told = `${messages[1]!.content}\n\n${messages[2]!.content}`;
    expect(shown.replace(/\s+/g, " ")).toBe(ussd.format(told, {}).replace(/\s+/g, " "));
    expect(await customerMessages(sessionId)).toBe(1);

    // 0 goes back to the menu, and a second question is answered in the same conversation.
    text += "*0";
    expect(await screen(await hop(text))).toMatch(/\n1 Ask a question\n2 Talk to an agent$/);
    text += "*1*How long does a replacement card take to arrive?";
    expect(await screen(await hop(text))).toMatch(/^CON .*working days/s);
    expect((await conversationMessages(app, key, conversation!.id)).length).toBe(5);
    expect(providers.sends).toHaveLength(0);
  });

  it("answers a repeated hop with the same screen, without asking the AI again", async () => {
    const { sessionId, hop } = session("+254711000333");
    await hop("");
    await hop("1");
    const text = "1*How do I reset my card PIN?";
    const first = await screen(await hop(text));
    const conversation = (await conversationsOn(app, key, "ussd")).find((c) => c.customer_phone === "+254711000333")!;
    const count = (await conversationMessages(app, key, conversation.id)).length;
    expect(await screen(await hop(text))).toBe(first);
    const [a, b] = await Promise.all([hop(text), hop(text)]);
    expect(await screen(a)).toBe(first);
    expect(await screen(b)).toBe(first);
    expect((await conversationMessages(app, key, conversation.id)).length).toBe(count);
    expect(await customerMessages(sessionId)).toBe(1);
  });

  it("keeps a question that contains the separator whole", async () => {
    const { hop } = session("+254711000444");
    await hop("");
    await hop("1");
    expect(await screen(await hop("1*Is *384*123# free to dial?"))).toMatch(/^CON /);
    const conversation = (await conversationsOn(app, key, "ussd")).find((c) => c.customer_phone === "+254711000444")!;
    expect((await conversationMessages(app, key, conversation.id))[0]!.content).toBe("Is *384*123# free to dial?");
  });

  it("re-shows the menu after an invalid choice", async () => {
    const { hop } = session("+254711000555");
    expect(await screen(await hop("7"))).toMatch(/^CON Please choose 1 or 2\. .*\n1 Ask a question\n2 Talk to an agent$/s);
    expect(await screen(await hop("7*1"))).toBe("CON Type your question:");
  });

  it("hands the conversation to a human when the customer chooses an agent, once", async () => {
    const { sessionId, hop } = session("+254711000666");
    await hop("");
    const end = await screen(await hop("2"));
    expect(end).toMatch(/^END .*member of our team/);
    expect(await screen(await hop("2"))).toBe(end);
    const conversation = (await conversationsOn(app, key, "ussd")).find((c) => c.customer_phone === "+254711000666")!;
    expect(conversation.status).toBe("escalated");
    const events = await app.services.db.prisma.conversationEvent.findMany({ where: { conversationId: conversation.id } });
    expect(events.map((e) => [e.toStatus, e.reason])).toEqual([["escalated", "customer_request"]]);
    expect(await customerMessages(sessionId)).toBe(1);

    // In a later session the AI does not answer over the human's head: the message is with the team
    // (test/conversations/waiting.test.ts).
    const later = session("+254711000666");
    await later.hop("");
    await later.hop("1");
    expect(await screen(await later.hop("1*Hello?"))).toBe("END Your message is with our team; an agent will contact you soon.");
  });

  it("pages an urgent hand-off's notice and the help after it, each whole, then ends with the team", async () => {
    const { hop } = session("+254711000688");
    await hop("");
    await hop("1");
    let text = "1*My card was stolen, what do I do?";
    const pages = [await screen(await hop(text))];
    while (pages.at(-1)!.endsWith("98 More\n0 Menu")) {
      text += "*98";
      pages.push(await screen(await hop(text)));
      expect(pages.length).toBeLessThan(10);
    }
    const shown = pages.map((p) => p.replace(/^CON /, "").replace(/\n(98 More\n)?0 Menu$/, "")).join(" ");
    expect(shown).toMatch(/member of our team/);
    expect(shown).toMatch(/While you wait: .*freeze it in the app/s);
    expect(shown).toMatch(/\(Source: Cards FAQ\)$/);
    const conversation = (await conversationsOn(app, key, "ussd")).find((c) => c.customer_phone === "+254711000688")!;
    expect(conversation.status).toBe("escalated");

    // What the customer writes next is with the team.
    text += "*0*1*Are you there?";
    expect(await screen(await hop(text))).toBe("END Your message is with our team; an agent will contact you soon.");
  });

  it("starts a new conversation for a new session, closing the one the AI had", async () => {
    const first = session("+254711000777");
    await first.hop("");
    await first.hop("1");
    await first.hop("1*How do I reset my card PIN?");
    const before = (await conversationsOn(app, key, "ussd")).find((c) => c.customer_phone === "+254711000777")!;
    expect(before.status).toBe("open");

    const second = session("+254711000777");
    await second.hop("");
    await second.hop("1");
    await second.hop("1*How long does a replacement card take?");
    const conversations = (await conversationsOn(app, key, "ussd")).filter((c) => c.customer_phone === "+254711000777");
    expect(conversations).toHaveLength(2);
    expect(conversations.find((c) => c.id === before.id)!.status).toBe("closed");
    const events = await app.services.db.prisma.conversationEvent.findMany({ where: { conversationId: before.id } });
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.reason])).toEqual([["open", "closed", "a new USSD session started"]]);
  });
});

describe("USSD authentication and routing", () => {
  it("answers 401 AUTH_INVALID for a wrong or missing token and stores nothing", async () => {
    const { sessionId, hop } = session("+254711000888");
    const wrong = await hop("1*Send my balance", { token: "0000000000000000deadbeefdeadbeef" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("AUTH_INVALID");
    const missing = await hop("1*Send my balance", { token: null });
    expect(missing.status).toBe(401);
    expect(await customerMessages(sessionId)).toBe(0);
  });

  it("ends the session politely for a service code no tenant has, storing nothing", async () => {
    const { sessionId, hop } = session("+254711000999");
    const res = await hop("1*Hello", { serviceCode: "*999*1#" });
    expect(await screen(res)).toBe("END This service is not available.");
    expect(await app.services.db.prisma.message.count({ where: { providerMessageId: { contains: sessionId } } })).toBe(0);
  });
});
