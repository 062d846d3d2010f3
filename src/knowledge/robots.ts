import robotsParserModule from "robots-parser";
import { EgressRefusedError } from "../http/egress.js";
import { type FetchSettings, fetchFollowing, readText } from "./fetcher.js";

export interface RobotsRules {
  /** Why the crawler may not fetch this URL, or null when it may. */
  refusal(url: URL): string | null;
  sitemaps: string[];
}

// robots-parser is CommonJS exporting the function itself, while its types declare an ES default export.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

// Google reads the first 500 KiB of a robots.txt and ignores the rest; so do we.
const maxRobotsBytes = 500 * 1024;

/** Why every URL of an origin is refused while its robots.txt cannot be read: a passing failure, not the site's rule. */
export const robotsUnavailable = "robots.txt unavailable";

const allowAll: RobotsRules = { refusal: () => null, sitemaps: [] };
// RFC 9309 §2.3.1.4: when robots.txt cannot be read because of a server error, assume everything is disallowed.
const disallowAll: RobotsRules = { refusal: () => robotsUnavailable, sitemaps: [] };

/** The robots.txt rules of one origin (scheme, host and port), for our user agent. */
export async function loadRobots(origin: string, settings: FetchSettings): Promise<RobotsRules> {
  const robotsUrl = new URL("/robots.txt", origin);
  try {
    const { response } = await fetchFollowing(robotsUrl, settings);
    // RFC 9309 §2.3.1.3: a missing robots.txt (any 4xx) means no restrictions.
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      return allowAll;
    }
    if (!response.ok) {
      await response.body?.cancel();
      return disallowAll;
    }
    const robots = robotsParser(robotsUrl.href, await readText(response, maxRobotsBytes));
    return {
      refusal: (url) => (robots.isDisallowed(url.href, settings.userAgent) === true ? "robots.txt" : null),
      sitemaps: robots.getSitemaps(),
    };
  } catch (error) {
    if (settings.signal.aborted || error instanceof EgressRefusedError) throw error;
    return disallowAll;
  }
}
