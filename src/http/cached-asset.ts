import type { Request, Response } from "express";

/** A document built once and kept in memory, with its gzipped form and an ETag. */
export interface CachedAsset {
  body: string | Buffer;
  gzipped: Buffer;
  etag: string;
}

/** Sends a cached asset: 304 when the client already has it, gzipped when the client takes gzip. */
export function sendCachedAsset(req: Request, res: Response, asset: CachedAsset): void {
  res.setHeader("ETag", asset.etag);
  res.vary("Accept-Encoding");
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  const gzip = req.acceptsEncodings("gzip") === "gzip";
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.end(gzip ? asset.gzipped : asset.body);
}
