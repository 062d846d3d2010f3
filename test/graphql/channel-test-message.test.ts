import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { SendChannelTestMessageForTestDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel } from "../helpers/channels.js";

// The Channels page's "send a test message": through the provider with the saved credentials, for admins.

let providers: FakeProviders;
let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let chatappId: string;
const chatapp = {
  phone_number_id: "260000000000001",
  access_token: "EAAG-test-message",
  verify_token: "vt_test_msg",
  app_secret: "tm_secret",
};

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  bank = await app.tenant("Test Message Bank");
  chatappId = (await configureChannel(app, bank.apiKey, "chatapp", chatapp)).id;
  await configureChannel(app, bank.apiKey, "ussd", { service_code: "*384*123#", token: "ussd-token-0123456789" });
});
afterAll(async () => {
  await app?.close();
  await providers?.close();
});

const send = (variables: { ref: string; to: string; text?: string }, key = bank.apiKey) =>
  app.graphql(SendChannelTestMessageForTestDocument, variables, key);

describe("sendChannelTestMessage", () => {
  it("sends through the provider with the channel's credentials, and stores nothing", async () => {
    const before = await app.services.db.prisma.message.count();
    const [result, sent] = await Promise.all([
      send({ ref: "chatapp", to: "4915550001234", text: "Testing our WhatsApp line" }),
      providers.waitForSends(providers.sends.length + 1),
    ]);
    expect(result.errors).toBeUndefined();
    expect(result.data!.sendChannelTestMessage.providerMessageId).toMatch(/^wamid\./);
    expect(sent.at(-1)).toMatchObject({
      path: `/graph/${chatapp.phone_number_id}/messages`,
      headers: { authorization: `Bearer ${chatapp.access_token}` },
      body: { to: "4915550001234", text: { body: "Testing our WhatsApp line" } },
    });
    expect(await app.services.db.prisma.message.count()).toBe(before);
    const byId = await send({ ref: chatappId, to: "4915550001234" });
    expect(byId.errors).toBeUndefined();
    expect(providers.sends.at(-1)!.body.text.body).toBe("This is a test message from Parley.");
  });

  it("says what went wrong: a provider's refusal (EXTERNAL), a channel that only answers, a role, another tenant", async () => {
    providers.failNext({ status: 401, body: { error: { message: "Invalid OAuth access token", code: 190 } } });
    const refused = await send({ ref: "chatapp", to: "4915550001234" });
    expect(refused.errors?.[0]?.extensions?.code).toBe("EXTERNAL");
    expect(refused.errors?.[0]?.message).toContain("refused the test message");
    const ussd = await send({ ref: "ussd", to: "4915550001234" });
    expect(ussd.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const agentKey = await app.keyFor(bank.tenantId, "agent");
    expect((await send({ ref: "chatapp", to: "4915550001234" }, agentKey)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const other = await app.tenant("Other Bank");
    const theirs = await send({ ref: chatappId, to: "4915550001234" }, other.apiKey);
    expect(theirs.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await send({ ref: "chatapp", to: "  " })).errors?.[0]?.extensions?.code).toBe("VALIDATION");
  });
});
