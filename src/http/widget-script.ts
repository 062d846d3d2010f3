import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const entry = fileURLToPath(new URL("../../widget/index.ts", import.meta.url));

export interface WidgetScript {
  js: Buffer;
  gzipped: Buffer;
  etag: string;
}

/**
 * The widget (widget/*.ts) as the one script pages load. Built in the service, so that `npm ci && npm start`
 * serves it with no build step; esbuild takes a few tens of milliseconds.
 */
export async function buildWidgetScript(): Promise<WidgetScript> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "iife",
    // Browsers of the last few years, on phones too: no syntax newer than they read.
    target: "es2020",
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "silent",
  });
  const js = Buffer.from(result.outputFiles[0]!.contents);
  return {
    js,
    gzipped: gzipSync(js, { level: 9 }),
    etag: `"${createHash("sha256").update(js).digest("base64url").slice(0, 22)}"`,
  };
}
