import { z } from "zod";
import type { Prisma } from "../db/generated/prisma/client.js";

// A tenant's opening hours (issue 12, item 7): per weekday one or more intervals of wall-clock time in the
// tenant's IANA time zone, and holiday dates on which the team is away all day. Wall-clock times are turned into
// instants with the platform's Intl time-zone data, so daylight-saving changes move the instants, not the hours.
// A time that a DST change skips (02:30 on the spring-forward night) counts as the same time after the change
// (03:30), one that occurs twice counts as the first occurrence (what Temporal calls "compatible").

export const weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type Weekday = (typeof weekdays)[number];

export interface OpeningInterval {
  day: Weekday;
  /** "HH:MM", 00:00 to 23:59. */
  open: string;
  /** "HH:MM" after `open`, up to 24:00 (midnight at the day's end). */
  close: string;
}

export interface Holiday {
  /** YYYY-MM-DD in the tenant's time zone. */
  date: string;
  name: string | null;
}

export interface BusinessHours {
  timeZone: string;
  weekly: OpeningInterval[];
  holidays: Holiday[];
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const clock = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, "a time as HH:MM (00:00 to 24:00)");

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a date as YYYY-MM-DD")
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
  }, "not a calendar date");

/** The input of a tenant's hours: every interval within its day, a day's intervals apart, holidays once each. */
export const businessHoursInput = z
  .object({
    timeZone: z.string().trim().refine(isTimeZone, "an IANA time zone such as Europe/Zurich"),
    weekly: z
      .array(
        z
          .object({ day: z.enum(weekdays), open: clock, close: clock })
          .refine((i) => minutesOf(i.open) < minutesOf(i.close), { message: "must be before close", path: ["open"] }),
      )
      .max(7 * 8),
    holidays: z
      .array(z.object({ date: isoDate, name: z.string().trim().min(1).max(100).nullish() }))
      .max(500)
      .default([]),
  })
  .superRefine((hours, ctx) => {
    for (const day of weekdays) {
      const intervals = hours.weekly.filter((i) => i.day === day).sort((a, b) => minutesOf(a.open) - minutesOf(b.open));
      for (let i = 1; i < intervals.length; i++) {
        if (minutesOf(intervals[i]!.open) < minutesOf(intervals[i - 1]!.close)) {
          ctx.addIssue({ code: "custom", path: ["weekly"], message: `${day}'s intervals overlap` });
        }
      }
    }
    const dates = hours.holidays.map((h) => h.date);
    if (new Set(dates).size !== dates.length) ctx.addIssue({ code: "custom", path: ["holidays"], message: "a date twice" });
  })
  .transform(
    (hours): BusinessHours => ({
      timeZone: hours.timeZone,
      weekly: [...hours.weekly].sort(
        (a, b) => weekdays.indexOf(a.day) - weekdays.indexOf(b.day) || minutesOf(a.open) - minutesOf(b.open),
      ),
      holidays: [...hours.holidays]
        .map((h) => ({ date: h.date, name: h.name ?? null }))
        .sort((a, b) => a.date.localeCompare(b.date)),
    }),
  );

/** The tenant's hours from its settings; null when it has none (the team is always there). */
export function hoursOf(settings: Prisma.JsonValue): BusinessHours | null {
  return ((settings ?? {}) as { businessHours?: BusinessHours | null }).businessHours ?? null;
}

interface WallClock {
  /** YYYY-MM-DD */
  date: string;
  weekday: Weekday;
  /** Minutes since the local midnight. */
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function partsAt(at: Date, timeZone: string) {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const weekdayOfDate = (date: string): Weekday => weekdays[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7]!;
const pad = (n: number) => String(n).padStart(2, "0");

export function wallClockAt(at: Date, timeZone: string): WallClock {
  const p = partsAt(at, timeZone);
  const date = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  return { date, weekday: weekdayOfDate(date), minutes: p.hour * 60 + p.minute };
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetMs(at: number, timeZone: string): number {
  const p = partsAt(new Date(at), timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant a wall-clock time of a local date happens in the zone (see the DST rule at the top). */
export function instantOf(date: string, minutes: number, timeZone: string): Date {
  const wall = new Date(`${date}T00:00:00Z`).getTime() + minutes * 60_000;
  const before = wall - offsetMs(wall - 86_400_000, timeZone);
  const after = wall - offsetMs(wall + 86_400_000, timeZone);
  const matches = (instant: number) => {
    const local = wallClockAt(new Date(instant), timeZone);
    return local.date === date && local.minutes === minutes;
  };
  const valid = [before, after].filter(matches);
  // Neither: a DST gap skips the time; the offset before the change carries it past the gap.
  return new Date(valid.length ? Math.min(...valid) : before);
}

const nextDate = (date: string) => new Date(new Date(`${date}T00:00:00Z`).getTime() + 86_400_000).toISOString().slice(0, 10);

export type OpeningState = { open: true } | { open: false; reopensAt: Date | null; holiday: string | null };

// How far ahead the next opening is looked for: past a year of holidays, a team is not coming back.
const horizonDays = 400;

/** Whether the team is there at `at`, and when it is not, when it is next (null: never within a year). */
export function openingState(hours: BusinessHours, at: Date): OpeningState {
  const now = wallClockAt(at, hours.timeZone);
  const holidayOn = (date: string) => hours.holidays.find((h) => h.date === date);
  const todayHoliday = holidayOn(now.date);
  const openNow =
    !todayHoliday &&
    hours.weekly.some((i) => i.day === now.weekday && minutesOf(i.open) <= now.minutes && now.minutes < minutesOf(i.close));
  if (openNow) return { open: true };
  const holiday = todayHoliday ? (todayHoliday.name ?? "a holiday") : null;
  let date = now.date;
  for (let day = 0; day < horizonDays; day++, date = nextDate(date)) {
    if (holidayOn(date)) continue;
    const weekday = weekdayOfDate(date);
    for (const interval of hours.weekly.filter((i) => i.day === weekday)) {
      const opens = instantOf(date, minutesOf(interval.open), hours.timeZone);
      if (opens > at) return { open: false, reopensAt: opens, holiday };
    }
  }
  return { open: false, reopensAt: null, holiday };
}

/** The zone's short name at an instant as people read it: "CET", "EST", else "GMT+9". */
function zoneName(at: Date, timeZone: string): string {
  const nameIn = (locale: string) =>
    new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "short" }).formatToParts(at).find((p) => p.type === "timeZoneName")
      ?.value ?? timeZone;
  const names = ["en-US", "en-GB"].map(nameIn);
  return names.find((n) => !/^(GMT|UTC)[+-]/.test(n)) ?? names[0]!;
}

/** When the team is back, as the customer is told it: "today at 13:00", "on Monday at 09:00", "on Tuesday 6 January at 09:00". */
export function whenBack(at: Date, reopensAt: Date, timeZone: string): string {
  const now = wallClockAt(at, timeZone);
  const then = wallClockAt(reopensAt, timeZone);
  const time = `${pad(Math.floor(then.minutes / 60))}:${pad(then.minutes % 60)} (${zoneName(reopensAt, timeZone)})`;
  const days = Math.round((Date.parse(then.date) - Date.parse(now.date)) / 86_400_000);
  const weekday = then.weekday[0]!.toUpperCase() + then.weekday.slice(1);
  if (days === 0) return `today at ${time}`;
  if (days === 1) return `tomorrow at ${time}`;
  if (days < 7) return `on ${weekday} at ${time}`;
  const dayMonth = new Intl.DateTimeFormat("en-GB", { timeZone, day: "numeric", month: "long" }).format(reopensAt);
  return `on ${weekday} ${dayMonth} at ${time}`;
}

/** The honest notice of an out-of-hours hand-off request. */
export function outOfHoursNotice(at: Date, state: Extract<OpeningState, { open: false }>, timeZone: string): string {
  const back = state.reopensAt
    ? `Our team is back ${whenBack(at, state.reopensAt, timeZone)}`
    : "Our team is away for now and will answer as soon as it is back";
  return `${back}; your request is queued. Meanwhile I can still answer questions.`;
}
