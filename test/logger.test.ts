import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "./fakes/openai-server.js";
import { UpdateTenantDocument } from "./generated.js";
import { startTestApp, type TestApp } from "./helpers/app.js";
import { captureLogs } from "./helpers/logs.js";

// What reaches the service's logs of a customer's message: model servers quote what they were sent in their
// errors, and the service logs those errors. The tenant here sends unmasked text to its model (piiRedaction off),
// so only the logger's own masking stands between the card number and the log.

let fake: FakeOpenAI;
let app: TestApp;
const logs = captureLogs();

const card = "4111 1111 1111 1111";
const email = "jo.bloggs@example.com";
const message = `My card ${card} was charged twice, write to me at ${email}`;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp(
    { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, LOG_LEVEL: "debug" },
    { logDestination: logs.destination },
  );
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

describe("the service's logs", () => {
  it("mask the card number and e-mail address of a customer's message quoted in a model server's errors", async () => {
    const bank = await app.tenant("Unmasked Model Bank");
    const updated = await app.graphql(UpdateTenantDocument, { piiRedaction: false }, bank.apiKey);
    expect(updated.data?.updateTenant.settings).toMatchObject({ piiRedaction: false });

    // The router's classification call, then the engine's answer, each refused with the message quoted.
    fake.failNext({ status: 400, message: `Could not classify '${message}'` });
    fake.script({ fail: "status", status: 400, message: `Invalid 'messages[1].content': '${message}'` });
    const res = await app.request("/api/chat", { key: bank.apiKey, body: { message } });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe("EXTERNAL");

    const quoting = logs.lines.filter((line) => JSON.stringify(line).includes("[CARD •••• 1111]"));
    expect(quoting.map((line) => line.level)).toEqual(expect.arrayContaining([40, 50]));
    expect(JSON.stringify(quoting)).toContain("[EMAIL]");
    const written = logs.text();
    for (const secret of [card, card.replaceAll(" ", ""), email]) expect(written).not.toContain(secret);
  });
});
