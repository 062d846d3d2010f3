import { type InputHTMLAttributes, type SelectHTMLAttributes, useEffect, useId, useRef, useState } from "react";

/** A text input that reports its value once typing pauses: one request per search, not one per key. */
export function DebouncedInput({
  value,
  onValue,
  ms = 400,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> & {
  value: string;
  onValue: (value: string) => void;
  ms?: number;
}) {
  const [text, setText] = useState(value);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => setText(value), [value]);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <input
      {...props}
      value={text}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        window.clearTimeout(timer.current);
        timer.current = window.setTimeout(() => onValue(next.trim()), ms);
      }}
    />
  );
}

/**
 * A select with its label beside it (for=id, not wrapped): a wrapped select would make its options part of its
 * own accessible name.
 */
export function Select({
  label,
  hiddenLabel = false,
  className = "field",
  children,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & { label: string; hiddenLabel?: boolean }) {
  const id = useId();
  return (
    <span className={className}>
      <label htmlFor={id} className={hiddenLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      <select id={id} {...props}>
        {children}
      </select>
    </span>
  );
}
