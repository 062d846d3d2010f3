import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BusinessHours,
  businessHoursInput,
  instantOf,
  openingState,
  outOfHoursNotice,
  weekdays,
} from "../../src/conversations/business-hours.js";
import { ReplyForTestDocument, SetBusinessHoursDocument, TimelineForTestDocument } from "../generated.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel, postForm } from "../helpers/channels.js";

// Business hours and holidays (issue 12, item 7). The time arithmetic is checked with explicit dates (DST changes,
// holidays); the hand-off through the HTTP surface with hours chosen around the real now in the tenant's zone.

const zurich = "Europe/Zurich";
const weekdaysOffice = (timeZone: string, open = "09:00", close = "17:00"): BusinessHours => ({
  timeZone,
  weekly: weekdays.slice(0, 5).map((day) => ({ day, open, close })),
  holidays: [],
});

describe("opening hours in a time zone", () => {
  it("reopens on Monday at 09:00 local time across the spring DST change", () => {
    // Friday 28 March 2025, 18:00 in Zurich (CET, UTC+1); clocks go forward on Sunday 30 March.
    const friday = new Date("2025-03-28T17:00:00Z");
    const state = openingState(weekdaysOffice(zurich), friday);
    expect(state).toEqual({ open: false, reopensAt: new Date("2025-03-31T07:00:00Z"), holiday: null });
    expect(outOfHoursNotice(friday, state as Extract<typeof state, { open: false }>, zurich)).toBe(
      "Our team is back on Monday at 09:00 (CEST); your request is queued. Meanwhile I can still answer questions.",
    );
    expect(openingState(weekdaysOffice(zurich), new Date("2025-03-31T07:30:00Z")).open).toBe(true);
    expect(openingState(weekdaysOffice(zurich), new Date("2025-03-31T06:59:00Z")).open).toBe(false);
  });

  it("reopens on Monday at 09:00 local time across the autumn DST change", () => {
    const state = openingState(weekdaysOffice(zurich), new Date("2025-10-24T16:00:00Z"));
    expect(state).toMatchObject({ open: false, reopensAt: new Date("2025-10-27T08:00:00Z") });
    expect(openingState(weekdaysOffice(zurich), new Date("2025-10-27T15:59:00Z")).open).toBe(true);
    expect(openingState(weekdaysOffice(zurich), new Date("2025-10-27T16:00:00Z")).open).toBe(false);
  });

  it("places a time the spring change skips after the change, and one the autumn change repeats at its first occurrence", () => {
    expect(instantOf("2025-03-30", 150, zurich)).toEqual(new Date("2025-03-30T01:30:00Z")); // 02:30 → 03:30 CEST
    expect(instantOf("2025-10-26", 150, zurich)).toEqual(new Date("2025-10-26T00:30:00Z")); // 02:30 CEST, not CET
    expect(instantOf("2025-07-01", 540, "America/New_York")).toEqual(new Date("2025-07-01T13:00:00Z"));
  });

  it("skips holidays, names them, and says today, tomorrow, a weekday or a date", () => {
    const hours: BusinessHours = {
      ...weekdaysOffice("America/New_York"),
      holidays: [{ date: "2025-12-25", name: "Christmas Day" }],
    };
    const christmasEve = new Date("2025-12-24T23:00:00Z"); // Wednesday 18:00 EST
    const afterChristmas = openingState(hours, christmasEve);
    expect(afterChristmas).toMatchObject({ open: false, reopensAt: new Date("2025-12-26T14:00:00Z"), holiday: null });
    const onChristmas = openingState(hours, new Date("2025-12-25T15:00:00Z"));
    expect(onChristmas).toMatchObject({ open: false, holiday: "Christmas Day", reopensAt: new Date("2025-12-26T14:00:00Z") });
    expect(outOfHoursNotice(christmasEve, afterChristmas as never, hours.timeZone)).toMatch(
      /^Our team is back on Friday at 09:00 \(EST\);/,
    );

    const lunch: BusinessHours = {
      timeZone: zurich,
      weekly: [
        { day: "monday", open: "09:00", close: "12:00" },
        { day: "monday", open: "13:00", close: "17:00" },
        { day: "tuesday", open: "09:00", close: "17:00" },
      ],
      holidays: [],
    };
    const mondayNoon = new Date("2025-06-02T10:30:00Z"); // 12:30 CEST
    expect(outOfHoursNotice(mondayNoon, openingState(lunch, mondayNoon) as never, zurich)).toMatch(
      /^Our team is back today at 13:00 \(CEST\);/,
    );
    const mondayEvening = new Date("2025-06-02T18:00:00Z");
    expect(outOfHoursNotice(mondayEvening, openingState(lunch, mondayEvening) as never, zurich)).toMatch(
      /^Our team is back tomorrow at 09:00 \(CEST\);/,
    );

    const yearEnd: BusinessHours = {
      ...weekdaysOffice(zurich),
      holidays: [
        "2025-12-24",
        "2025-12-25",
        "2025-12-26",
        "2025-12-29",
        "2025-12-30",
        "2025-12-31",
        "2026-01-01",
        "2026-01-02",
      ].map((date) => ({ date, name: null })),
    };
    const closing = new Date("2025-12-23T17:00:00Z");
    expect(outOfHoursNotice(closing, openingState(yearEnd, closing) as never, zurich)).toMatch(
      /^Our team is back on Monday 5 January at 09:00 \(CET\);/,
    );
    const never: BusinessHours = { timeZone: zurich, weekly: [], holidays: [] };
    expect(outOfHoursNotice(closing, openingState(never, closing) as never, zurich)).toMatch(
      /^Our team is away for now and will answer as soon as it is back;/,
    );
  });

  it("refuses an unknown zone, a time out of the day, an empty or overlapping interval, and a date that is not one", () => {
    const base = { timeZone: zurich, weekly: [{ day: "monday", open: "09:00", close: "17:00" }], holidays: [] };
    expect(businessHoursInput.safeParse(base).success).toBe(true);
    for (const bad of [
      { ...base, timeZone: "Mars/Olympus_Mons" },
      { ...base, weekly: [{ day: "monday", open: "09:00", close: "25:00" }] },
      { ...base, weekly: [{ day: "monday", open: "17:00", close: "09:00" }] },
      { ...base, weekly: [...base.weekly, { day: "monday", open: "16:00", close: "18:00" }] },
      { ...base, holidays: [{ date: "2025-02-30" }] },
      { ...base, holidays: [{ date: "2025-12-25" }, { date: "2025-12-25" }] },
    ]) {
      expect(businessHoursInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

/** The local date and weekday `days` after now in a zone, computed apart from the code under test. */
function localDay(timeZone: string, days: number): { date: string; weekday: string } {
  const at = new Date(Date.now() + days * 86_400_000);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", weekday: "long" })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, weekday: parts.weekday! };
}

describe("a hand-off request out of business hours, through the HTTP surface", () => {
  let app: TestApp;
  let bank: { tenantId: string; apiKey: string };
  const faq = "Cards\n\nTo reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.";
  const chat = async (key: string, message: string, conversationId?: string) => {
    const res = await app.request("/api/chat", { key, body: { message, conversationId } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { response: string; conversationId: string; messageId: string | null; metadata: { agentType: string } };
  };
  const setHours = async (key: string, hours: unknown) => {
    const set = await app.graphql(SetBusinessHoursDocument, { hours: hours as never }, key);
    expect(set.errors, JSON.stringify(set.errors)).toBeUndefined();
    return set.data!.setBusinessHours.businessHours!;
  };
  // Open only on the day after tomorrow (local): whatever the real now, the team is away and back then at 09:00.
  const back = localDay(zurich, 2);

  beforeAll(async () => {
    app = await startTestApp();
    bank = await app.tenant("Hours Bank");
    const source = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "FAQ", content: faq },
    });
    expect(source.status).toBe(201);
    const hours = await setHours(bank.apiKey, {
      timeZone: zurich,
      weekly: [{ day: back.weekday.toLowerCase(), open: "09:00", close: "17:00" }],
      holidays: [{ date: "2030-12-25", name: "Christmas Day" }],
    });
    expect(hours).toMatchObject({ timeZone: zurich, openNow: false, holidays: [{ date: "2030-12-25", name: "Christmas Day" }] });
  });
  afterAll(() => app?.close());

  it("is queued with an honest notice, and the AI keeps answering from the knowledge base meanwhile", async () => {
    const asked = await chat(bank.apiKey, "I want to talk to a human agent please");
    const notice = new RegExp(
      `\\n\\nOur team is back on ${back.weekday} at 09:00 \\(CES?T\\); your request is queued\\. Meanwhile I can still answer questions\\.$`,
    );
    expect(asked.response).toMatch(notice);
    expect(asked.metadata.agentType).toBe("handoff");
    const { conversationId } = asked;

    const [escalation] = (await app.request(`/api/escalations`, { key: bank.apiKey })).body.escalations;
    expect(escalation).toMatchObject({
      conversation_id: conversationId,
      reason: "customer_request",
      status: "open",
      out_of_hours: true,
    });
    const expected = new Date(escalation.expected_at);
    const inZurich = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat("en-CA", { timeZone: zurich, ...options });
    expect(inZurich({ year: "numeric", month: "2-digit", day: "2-digit" }).format(expected)).toBe(back.date);
    expect(inZurich({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(expected)).toBe("09:00");
    expect((await app.request(`/api/conversations/${conversationId}`, { key: bank.apiKey })).body.status).toBe("open");

    const answered = await chat(bank.apiKey, "How do I reset my card PIN?", conversationId);
    expect(answered.response).toContain("Reset PIN");
    expect(answered.metadata.agentType).not.toBe("handoff");

    // Asked again while it waits: told again, still one request in the queue.
    const again = await chat(bank.apiKey, "I want to talk to a human agent please", conversationId);
    expect(again.response).toMatch(/^Our team is back on/);
    expect((await app.request(`/api/escalations`, { key: bank.apiKey })).body.total).toBe(1);
    const timeline = await app.graphql(TimelineForTestDocument, { id: conversationId }, bank.apiKey);
    expect(timeline.data!.conversation.timeline.filter((e) => e.type === "queued")).toHaveLength(2);

    const figures = await app.request("/api/analytics", { key: bank.apiKey });
    expect(figures.body.escalations).toMatchObject({ total: 1, out_of_hours: 1 });

    // An agent who answers it takes it: the humans have the conversation, the AI stops.
    const agent = await addAgent(app, bank.apiKey, { name: "Night owl" });
    const reply = await app.graphql(ReplyForTestDocument, { conversationId, content: "Hello, I can help now." }, agent.token);
    expect(reply.errors, JSON.stringify(reply.errors)).toBeUndefined();
    expect((await app.request(`/api/conversations/${conversationId}`, { key: bank.apiKey })).body.status).toBe("assigned");
    expect(await chat(bank.apiKey, "Thanks!", conversationId)).toMatchObject({ response: "", messageId: null });
  });

  it("hands over at once in hours, and counts a holiday as out of hours", async () => {
    const open = await app.tenant("Always Open Bank");
    const always = { timeZone: zurich, weekly: weekdays.map((day) => ({ day, open: "00:00", close: "24:00" })) };
    expect((await setHours(open.apiKey, always)).openNow).toBe(true);
    const inHours = await chat(open.apiKey, "I want to talk to a human agent please");
    expect(inHours.response).toMatch(/passing you to a member of our team/);
    expect((await app.request(`/api/conversations/${inHours.conversationId}`, { key: open.apiKey })).body.status).toBe(
      "escalated",
    );
    expect((await app.request(`/api/escalations`, { key: open.apiKey })).body.escalations[0].out_of_hours).toBe(false);

    const today = localDay(zurich, 0);
    const hours = await setHours(open.apiKey, { ...always, holidays: [{ date: today.date, name: "Bank holiday" }] });
    expect(hours.openNow).toBe(false);
    expect(hours.nextOpeningAt).toBeTruthy();
    const onHoliday = await chat(open.apiKey, "I want to talk to a human agent please");
    expect(onHoliday.response).toMatch(/Our team is back tomorrow at 00:00 \(CES?T\); your request is queued\./);
  });

  it("keeps a USSD session going out of hours after the menu's agent choice", async () => {
    const token = "abcdef0123456789abcdef0123456789";
    await configureChannel(app, bank.apiKey, "ussd", { service_code: "*384*77#", token });
    const hop = (text: string) =>
      postForm(app, `/api/channels/ussd?token=${token}`, {
        sessionId: "ATUid_hours01",
        serviceCode: "*384*77#",
        phoneNumber: "+254711000977",
        networkCode: "63902",
        text,
      });
    await hop("");
    const screen = String((await hop("2")).body);
    expect(screen).toMatch(/^CON Our team is back on/);
    expect(screen).toMatch(/0 Menu$/);
  });

  it("answers 422 VALIDATION for hours it cannot use, and 403 to a viewer", async () => {
    const invalid = await app.graphql(
      SetBusinessHoursDocument,
      { hours: { timeZone: "Mars/Olympus_Mons", weekly: [{ day: "monday", open: "09:00", close: "25:00" }] } },
      bank.apiKey,
    );
    expect(invalid.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const paths = ((invalid.errors?.[0]?.extensions?.details ?? []) as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["timeZone", "weekly.0.close"]));
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    expect((await app.graphql(SetBusinessHoursDocument, { hours: null }, viewer)).errors?.[0]?.extensions?.code).toBe(
      "FORBIDDEN",
    );
  });
});
