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

function encodeRandom(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += alphabet[b % 32];
  return out;
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

/** Prefixed, time-sortable identifiers (DESIGN §3): `conv_01h…`, sortable as strings by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${encodeTime(Date.now(), 10)}${encodeRandom(16)}`;
}
