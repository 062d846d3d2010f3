import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import type { CachedAsset } from "./cached-asset.js";

const root = fileURLToPath(new URL("../../dashboard/", import.meta.url));
const entry = path.join(root, "main.tsx");
export const dashboardAssetsPath = "/dashboard/assets/";

export interface DashboardAsset extends CachedAsset {
  contentType: string;
}

export interface DashboardBuild {
  /** By file name under /dashboard/assets/. */
  assets: Map<string, DashboardAsset>;
  /** The app's HTML, answered for every page under /dashboard (the app routes itself). */
  index: CachedAsset;
  /** Gzipped bytes of the JavaScript a first visit loads: the entry, what it imports statically, and `firstPage`. */
  firstLoadGzipBytes: number;
}

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

const etagOf = (bytes: Buffer) => `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;

function cached(body: Buffer): CachedAsset {
  return { body, gzipped: gzipSync(body, { level: 9 }), etag: etagOf(body) };
}

/**
 * The dashboard (dashboard/*.tsx) as ES modules split per page, built inside the service like the widget, so that
 * `npm ci && npm start` serves it with no build step. Every file name carries its content hash: a deploy never
 * mixes old and new chunks, and browsers may keep them forever.
 */
export async function buildDashboard(): Promise<DashboardBuild> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    format: "esm",
    minify: true,
    target: "es2020",
    jsx: "automatic",
    outdir: path.join(root, "out"),
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    assetNames: "[name]-[hash]",
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "none",
    charset: "utf8",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  const assets = new Map<string, DashboardAsset>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const contentType = contentTypes[path.extname(name)] ?? "application/octet-stream";
    assets.set(name, { ...cached(Buffer.from(file.contents)), contentType });
  }
  const outputs = result.metafile.outputs;
  const main = Object.entries(outputs).find(([, output]) => output.entryPoint?.endsWith("main.tsx"));
  if (!main) throw new Error("the dashboard build has no entry output");
  const [mainPath, mainOutput] = main;
  const script = path.basename(mainPath);
  const styles = mainOutput.cssBundle ? path.basename(mainOutput.cssBundle) : null;
  const preloads = staticImports(outputs, mainPath).filter((file) => file !== mainPath);
  const firstPage = Object.entries(outputs).find(([, output]) => output.inputs && "dashboard/pages/inbox.tsx" in output.inputs);
  const firstLoad = new Set([...staticImports(outputs, mainPath), ...(firstPage ? staticImports(outputs, firstPage[0]) : [])]);
  const firstLoadGzipBytes = [...firstLoad].reduce((sum, file) => sum + assets.get(path.basename(file))!.gzipped.length, 0);
  const html = indexHtml(
    script,
    styles,
    preloads.map((file) => path.basename(file)),
  );
  return { assets, index: cached(Buffer.from(html)), firstLoadGzipBytes };
}

/** An output and every chunk it imports statically, transitively. */
function staticImports(outputs: Metafile["outputs"], start: string): string[] {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let file = queue.pop(); file; file = queue.pop()) {
    for (const imported of outputs[file]?.imports ?? []) {
      if (imported.kind !== "import-statement" || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return [...seen].filter((file) => file.endsWith(".js"));
}

function indexHtml(script: string, styles: string | null, preloads: string[]): string {
  const asset = (name: string) => `${dashboardAssetsPath}${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Parley</title>
${styles ? `<link rel="stylesheet" href="${asset(styles)}">` : ""}
${preloads.map((name) => `<link rel="modulepreload" href="${asset(name)}">`).join("\n")}
<script type="module" src="${asset(script)}"></script>
</head>
<body>
<div id="root"><p class="boot">Loading the dashboard…</p></div>
<noscript>The Parley dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}
