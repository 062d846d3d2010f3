import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../config.js";
import { RateLimitError } from "../errors.js";

// Attempts are counted over a day: a guesser cannot wait for a short window to reset its delays.
const countingWindowS = 24 * 3600;

/**
 * Attempts without a success for one kind of subject (an account, a client address): the first `free` go ahead
 * at once, each further one only after a delay that doubles from 1 s up to `maxDelayS`. Counting happens before
 * the password is checked, so a burst of parallel guesses is counted as it arrives.
 */
class GrowingDelay {
  constructor(
    private readonly attempts: RateLimiterAbstract,
    private readonly gate: RateLimiterAbstract,
    private readonly free: number,
    private readonly maxDelayS: number,
  ) {}

  /** Counts an attempt: 0 when it may go ahead, else the seconds to wait (and it is not counted). */
  async admit(key: string): Promise<number> {
    const counted = (await this.attempts.consume(key)).consumedPoints;
    if (counted < this.free) return 0;
    const delayS = Math.min(2 ** (counted - this.free), this.maxDelayS);
    try {
      // One attempt per delay: the first to come opens the gate for `delayS`, the others wait for it to close.
      await this.gate.consume(key, 1, { customDuration: delayS });
      return 0;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      await this.attempts.reward(key, 1);
      return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    }
  }

  /** Takes one attempt back off the count (a success from a shared address). */
  async uncount(key: string): Promise<void> {
    await this.attempts.reward(key, 1);
  }

  async clear(key: string): Promise<void> {
    await Promise.all([this.attempts.delete(key), this.gate.delete(key)]);
  }
}

function limiter(redis: Redis | null, keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
  const options = { keyPrefix, points, duration };
  return redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
    : new RateLimiterMemory(options);
}

function growingDelay(redis: Redis | null, prefix: string, free: number, maxDelayS: number): GrowingDelay {
  return new GrowingDelay(
    limiter(redis, `${prefix}:attempts`, Number.MAX_SAFE_INTEGER, countingWindowS),
    limiter(redis, `${prefix}:gate`, 1, maxDelayS),
    free,
    maxDelayS,
  );
}

// E-mail addresses are personal data: the counters in Redis hold a fingerprint.
const accountKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("hex").slice(0, 32);

/**
 * Dashboard logins (README, Agents and login), throttled per account and per client address whatever credential
 * the request carries, in Redis when configured so that every instance counts together. A success clears the
 * account's count and takes itself off the address's, so that colleagues behind one address are not held up.
 * Two-factor codes are counted the same way, per user and on the same address count as passwords.
 */
export class LoginThrottle {
  private readonly accounts: GrowingDelay;
  private readonly addresses: GrowingDelay;
  private readonly codes: GrowingDelay;

  constructor(
    redis: Redis | null,
    config: Pick<
      Config,
      "LOGIN_FREE_ATTEMPTS_PER_ACCOUNT" | "LOGIN_FREE_ATTEMPTS_PER_ADDRESS" | "LOGIN_MAX_DELAY_S" | "REDIS_KEY_PREFIX"
    >,
  ) {
    const prefix = (subject: string) => `${config.REDIS_KEY_PREFIX}login:${subject}`;
    const { LOGIN_FREE_ATTEMPTS_PER_ACCOUNT: perAccount, LOGIN_MAX_DELAY_S: maxDelayS } = config;
    this.accounts = growingDelay(redis, prefix("account"), perAccount, maxDelayS);
    this.addresses = growingDelay(redis, prefix("address"), config.LOGIN_FREE_ATTEMPTS_PER_ADDRESS, maxDelayS);
    this.codes = growingDelay(redis, prefix("code"), perAccount, maxDelayS);
  }

  /** Counts an attempt, or refuses it with 429 RATE_LIMIT and the seconds to wait. */
  async admit(email: string, clientIp: string): Promise<void> {
    const waitS = (await this.addresses.admit(clientIp)) || (await this.accounts.admit(accountKey(email)));
    if (waitS) throw new RateLimitError(waitS, `Too many login attempts: retry in ${waitS} seconds`);
  }

  async succeeded(email: string, clientIp: string): Promise<void> {
    await Promise.all([this.accounts.clear(accountKey(email)), this.addresses.uncount(clientIp)]);
  }

  /** Counts a two-factor code attempt of a user, or refuses it with 429 RATE_LIMIT and the seconds to wait. */
  async admitCode(userId: string, clientIp: string): Promise<void> {
    const waitS = (await this.addresses.admit(clientIp)) || (await this.codes.admit(userId));
    if (waitS) throw new RateLimitError(waitS, `Too many code attempts: retry in ${waitS} seconds`);
  }

  async codeSucceeded(userId: string, clientIp: string): Promise<void> {
    await Promise.all([this.codes.clear(userId), this.addresses.uncount(clientIp)]);
  }
}
