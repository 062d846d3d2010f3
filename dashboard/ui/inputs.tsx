import { type InputHTMLAttributes, useEffect, useRef, useState } from "react";

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
