import { expect } from "vitest";
import type { TestApp } from "./app.js";

/**
 * Waits until Redis counts a subscriber on the app's channel for a pubsub topic (`inbox:message:<tenant>`, named
 * with the deployment's key prefix): a subscription through Redis is live only then. The in-process bus's are at once.
 */
export async function redisSubscribed(app: TestApp, topic: string): Promise<void> {
  const redis = app.services.redis;
  if (!redis) return;
  const channel = `${app.services.config.REDIS_KEY_PREFIX}${topic}`;
  await expect.poll(async () => Number(((await redis.pubsub("NUMSUB", channel)) as [string, number])[1])).toBeGreaterThan(0);
}
