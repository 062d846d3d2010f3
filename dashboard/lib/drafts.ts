import { useEffect, useState } from "react";

// Drafts live in sessionStorage, so that a session that expires mid-sentence returns to the login page and back
// without losing what was typed.
const prefix = "parley.draft.";

export function useDraft(key: string): [string, (value: string) => void, () => void] {
  const storageKey = prefix + key;
  const [value, setValue] = useState(() => sessionStorage.getItem(storageKey) ?? "");
  useEffect(() => setValue(sessionStorage.getItem(storageKey) ?? ""), [storageKey]);
  const update = (next: string) => {
    setValue(next);
    if (next) sessionStorage.setItem(storageKey, next);
    else sessionStorage.removeItem(storageKey);
  };
  return [value, update, () => update("")];
}
