import { useState } from "react";
import { SetBusinessHoursDocument, type SettingsPageQuery, type Weekday } from "../../generated";
import { gql } from "../../lib/api";
import { useAction } from "../../lib/query";
import { ErrorNotice, Status } from "../../ui/feedback";
import { formatDateTime, titleCase } from "../../ui/format";
import { Select } from "../../ui/inputs";

type Hours = NonNullable<SettingsPageQuery["tenant"]["businessHours"]>;
type Interval = Hours["weekly"][number];
type Holiday = Hours["holidays"][number];

const weekdays: Weekday[] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const officeHours: Interval[] = weekdays.slice(0, 5).map((day) => ({ day, open: "09:00", close: "17:00" }));
const timeZones: string[] = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
const clock = "([01]\\d|2[0-3]):[0-5]\\d|24:00";

/** Rows of a list edited in place: change one, remove one, add one. */
function useRows<T>(initial: T[]) {
  const [rows, setRows] = useState(initial);
  return {
    rows,
    change: (index: number, patch: Partial<T>) => setRows(rows.map((row, i) => (i === index ? { ...row, ...patch } : row))),
    remove: (index: number) => setRows(rows.filter((_, i) => i !== index)),
    add: (row: T) => setRows([...rows, row]),
  };
}

/** When the team answers: out of these hours a hand-off is queued and the customer told when someone is back. */
export function BusinessHours({ hours, disabled, onSaved }: { hours: Hours | null; disabled: boolean; onSaved: () => void }) {
  const [timeZone, setTimeZone] = useState(hours?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const weekly = useRows<Interval>(hours?.weekly ?? officeHours);
  const holidays = useRows<Holiday>(hours?.holidays ?? []);
  const [done, setDone] = useState("");
  const save = useAction(async (always: boolean) => {
    await gql(SetBusinessHoursDocument, {
      hours: always
        ? null
        : {
            timeZone,
            weekly: weekly.rows.map(({ day, open, close }) => ({ day, open, close })),
            holidays: holidays.rows.map(({ date, name }) => ({ date, name: name || null })),
          },
    });
    setDone(always ? "The team is always there: hand-offs are never queued for hours." : "Business hours saved.");
    onSaved();
  });
  return (
    <form
      className="panel stack"
      aria-labelledby="hours-heading"
      onSubmit={(e) => {
        e.preventDefault();
        setDone("");
        void save.run(false);
      }}
    >
      <h2 id="hours-heading">Business hours and holidays</h2>
      <p>
        {hours === null
          ? "No hours set: the team is taken to be always there."
          : hours.openNow
            ? "The team is there now."
            : `The team is away now; back ${formatDateTime(hours.nextOpeningAt)}.`}{" "}
        <span className="muted">Out of hours, a request for a person is queued and the AI keeps answering.</span>
      </p>
      <fieldset className="plain-fieldset stack" disabled={disabled}>
        <label>
          Time zone
          <input
            required
            list="time-zones"
            value={timeZone}
            placeholder="Europe/Zurich"
            onChange={(e) => setTimeZone(e.target.value)}
          />
          <datalist id="time-zones">
            {timeZones.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
        </label>
        <fieldset className="stack">
          <legend>Opening hours (a day may have several; a day without any is closed)</legend>
          {weekly.rows.map((interval, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own while edited
            <div className="row" key={i}>
              <Select
                label={`Interval ${i + 1}: day`}
                value={interval.day}
                onChange={(e) => weekly.change(i, { day: e.target.value as Weekday })}
              >
                {weekdays.map((day) => (
                  <option key={day} value={day}>
                    {titleCase(day)}
                  </option>
                ))}
              </Select>
              <label>
                Opens
                <input
                  className="narrow"
                  required
                  pattern={clock}
                  placeholder="09:00"
                  value={interval.open}
                  onChange={(e) => weekly.change(i, { open: e.target.value })}
                />
              </label>
              <label>
                Closes
                <input
                  className="narrow"
                  required
                  pattern={clock}
                  placeholder="17:30"
                  value={interval.close}
                  onChange={(e) => weekly.change(i, { close: e.target.value })}
                />
              </label>
              <button type="button" className="secondary" onClick={() => weekly.remove(i)}>
                Remove<span className="visually-hidden"> interval {i + 1}</span>
              </button>
            </div>
          ))}
          <div>
            <button
              type="button"
              className="secondary"
              onClick={() => weekly.add({ day: "monday", open: "09:00", close: "17:00" })}
            >
              Add opening hours
            </button>
          </div>
        </fieldset>
        <fieldset className="stack">
          <legend>Holidays (away all day)</legend>
          {holidays.rows.length === 0 && <p className="muted">None.</p>}
          {holidays.rows.map((holiday, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own while edited
            <div className="row" key={i}>
              <label>
                Date
                <input type="date" required value={holiday.date} onChange={(e) => holidays.change(i, { date: e.target.value })} />
              </label>
              <label className="grow">
                Name
                <input value={holiday.name ?? ""} onChange={(e) => holidays.change(i, { name: e.target.value })} />
              </label>
              <button type="button" className="secondary" onClick={() => holidays.remove(i)}>
                Remove<span className="visually-hidden"> holiday {holiday.date}</span>
              </button>
            </div>
          ))}
          <div>
            <button type="button" className="secondary" onClick={() => holidays.add({ date: "", name: "" })}>
              Add a holiday
            </button>
          </div>
        </fieldset>
      </fieldset>
      <ErrorNotice error={save.error} />
      {done && <Status>{done}</Status>}
      {!disabled && (
        <div className="row">
          <button type="submit" disabled={save.pending}>
            Save business hours
          </button>
          {hours && (
            <button type="button" className="secondary" disabled={save.pending} onClick={() => void save.run(true)}>
              Always there (remove the hours)
            </button>
          )}
        </div>
      )}
    </form>
  );
}
