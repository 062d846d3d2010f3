import { randomBytes } from "node:crypto";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";

function encodeTime(ms: number, length: number): string {
  let out = "";
  let rest = ms;
  for (let i = 0; i < length; i++) {
    out = alphabet[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

const randomLength = 16;
// 80 random bits as base-32 digits, most significant first. The first id of a millisecond takes its random part
// with the top digit below 16, so that the ids after it in the same millisecond have room to count up.
let lastMs = 0;
let lastRandom: number[] = [];

function freshRandom(): number[] {
  const digits = [...randomBytes(randomLength)].map((b) => b % 32);
  digits[0]! %= 16;
  return digits;
}

/** `digits` plus a random step of up to 2^30, or null when that overflows. */
function stepped(digits: number[]): number[] | null {
  const next = [...digits];
  let carry = (randomBytes(4).readUInt32BE() % 2 ** 30) + 1;
  for (let i = next.length - 1; i >= 0 && carry; i--) {
    const sum = next[i]! + carry;
    next[i] = sum % 32;
    carry = Math.floor(sum / 32);
  }
  return carry ? null : next;
}

export type IdPrefix =
  | "ten"
  | "usr"
  | "key"
  | "chn"
  | "conv"
  | "msg"
  | "src"
  | "chk"
  | "job"
  | "esc"
  | "evt"
  | "int"
  | "vce"
  | "team"
  | "ses"
  | "evc"
  | "evr"
  | "whe"
  | "wev"
  | "whd"
  | "aud"
  | "aui"
  | "tkt"
  | "rcv"
  | "fbk"
  | "csat"
  | "hold"
  | "anc";

/**
 * Prefixed, time-sortable identifiers (DESIGN §3): `conv_01h…`, sortable as strings by creation time. Within one
 * process they are strictly increasing, in the same millisecond too (the random part steps up by a random amount,
 * as monotonic ULIDs do): rows made one after another, such as an import's, keep their order when sorted by id.
 */
export function newId(prefix: IdPrefix): string {
  const now = Date.now();
  const next = now > lastMs ? null : stepped(lastRandom);
  if (next) {
    lastRandom = next;
  } else {
    // A new millisecond, or (once in 2^50 ids of one millisecond) no room left in it: the next one.
    lastMs = now > lastMs ? now : lastMs + 1;
    lastRandom = freshRandom();
  }
  return `${prefix}_${encodeTime(lastMs, 10)}${lastRandom.map((d) => alphabet[d]).join("")}`;
}
