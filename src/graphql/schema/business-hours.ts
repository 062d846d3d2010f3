import {
  type BusinessHours,
  businessHoursInput,
  type Holiday,
  hoursOf,
  type OpeningInterval,
  openingState,
  weekdays,
} from "../../conversations/business-hours.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { updateTenantSettings } from "../../tenants/settings.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

const WeekdayEnum = builder.enumType("Weekday", { values: weekdays });

const Interval = builder.objectRef<OpeningInterval>("OpeningInterval").implement({
  fields: (t) => ({
    day: t.field({ type: WeekdayEnum, resolve: (i) => i.day }),
    open: t.exposeString("open", { description: "HH:MM, local time" }),
    close: t.exposeString("close", { description: "HH:MM, local time (24:00: the day's end)" }),
  }),
});

const HolidayRef = builder.objectRef<Holiday>("Holiday").implement({
  fields: (t) => ({
    date: t.exposeString("date", { description: "YYYY-MM-DD in the tenant's time zone" }),
    name: t.exposeString("name", { nullable: true }),
  }),
});

const Hours = builder.objectRef<BusinessHours>("BusinessHours").implement({
  description: "When the tenant's team answers: out of these hours a hand-off request is queued and the AI keeps answering",
  fields: (t) => ({
    timeZone: t.exposeString("timeZone", { description: "IANA time zone, e.g. Europe/Zurich" }),
    weekly: t.field({ type: [Interval], resolve: (h) => h.weekly }),
    holidays: t.field({ type: [HolidayRef], resolve: (h) => h.holidays }),
    openNow: t.boolean({ resolve: (h) => openingState(h, new Date()).open }),
    nextOpeningAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the team is next back, while it is away (null while it is there, or when it is not back within a year)",
      resolve: (h) => {
        const state = openingState(h, new Date());
        return state.open ? null : state.reopensAt;
      },
    }),
  }),
});

builder.prismaObjectField("Tenant", "businessHours", (t) =>
  t.field({
    type: Hours,
    nullable: true,
    description: "The team's business hours; null: always there",
    resolve: (tenant) => hoursOf(tenant.settings),
  }),
);

builder.prismaObjectField("Escalation", "outOfHours", (t) =>
  t.exposeBoolean("outOfHours", {
    description: "Asked for outside business hours: queued, with the AI answering until a person takes it",
  }),
);

builder.prismaObjectField("Escalation", "expectedAt", (t) =>
  t.expose("expectedAt", {
    type: "DateTime",
    nullable: true,
    description: "For a request out of hours: when the team was next back, as the customer was told",
  }),
);

const IntervalInput = builder.inputType("OpeningIntervalInput", {
  fields: (t) => ({
    day: t.field({ type: WeekdayEnum, required: true }),
    open: t.string({ required: true, description: "HH:MM" }),
    close: t.string({ required: true, description: "HH:MM after open, up to 24:00" }),
  }),
});

const HolidayInput = builder.inputType("HolidayInput", {
  fields: (t) => ({
    date: t.string({ required: true, description: "YYYY-MM-DD" }),
    name: t.string({ required: false }),
  }),
});

const HoursInput = builder.inputType("BusinessHoursInput", {
  fields: (t) => ({
    timeZone: t.string({ required: true, description: "IANA time zone, e.g. Europe/Zurich" }),
    weekly: t.field({
      type: [IntervalInput],
      required: true,
      description: "Opening intervals; a day may have several, none means closed that day",
    }),
    holidays: t.field({ type: [HolidayInput], required: false, description: "Days the team is away all day" }),
  }),
});

builder.mutationField("setBusinessHours", (t) =>
  t.prismaField({
    type: "Tenant",
    description: "Sets the team's business hours (time zone, weekly intervals, holidays); null: always there",
    authScopes: { permission: "configure" },
    audit: { action: "settings.update", target: "tenant", id: (_args, ctx) => ctx.tenantId },
    args: { hours: t.arg({ type: HoursInput, required: false }) },
    resolve: async (query, _root, args, ctx) => {
      const businessHours = args.hours ? parseInput(businessHoursInput, args.hours) : null;
      return updateTenantSettings(ctx, query, (current) => ({
        ...current,
        businessHours: businessHours as Prisma.InputJsonObject | null,
      }));
    },
  }),
);
