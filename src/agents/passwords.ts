import { hash, verify } from "@node-rs/argon2";

// OWASP's argon2id minimum (19 MiB, 2 passes): about 30 ms a hash on our machines, cheap for a login and
// costly for a guesser. The parameters travel inside each hash, so raising them later keeps old hashes valid.
const options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const passwordLength = { min: 10, max: 200 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

// Verified against when the e-mail is unknown, so a login takes as long whether or not the account exists.
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash, spends the same time and answers false. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword("not a password of anyone");
    await verify(await decoy, password);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
