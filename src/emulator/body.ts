/**
 * Request bodies: read with a 1 MiB cap, parsed only when a handler asks, so the spec's statuses
 * come in the documented order (auth and rate limits first).
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "./errors.js";

const MAX_BODY_BYTES = 1024 * 1024;

export interface RawBody {
  bytes: Buffer;
  tooLarge: boolean;
}

/** Reads the whole body, keeping at most MAX_BODY_BYTES; the rest is drained and dropped. */
export async function readRawBody(req: IncomingMessage): Promise<RawBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      tooLarge = true;
      chunks.length = 0;
    } else if (!tooLarge) chunks.push(chunk);
  }
  return { bytes: Buffer.concat(chunks), tooLarge };
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function badJson(message: string, field = "body"): HttpError {
  return new HttpError(400, { data: [{ field, messages: [message] }] });
}

/** G12: a write is `application/json` in UTF-8, else 400; no parser message, which could quote a password. */
export function parseJsonBody(raw: RawBody, contentType: string | undefined): unknown {
  const [media = "", ...params] = (contentType ?? "").split(";").map((p) => p.trim().toLowerCase());
  if (media !== "application/json") throw badJson("must be application/json", "Content-Type");
  const charset = params
    .find((p) => p.startsWith("charset="))
    ?.slice(8)
    .replace(/"/g, "");
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    throw badJson("charset must be utf-8", "Content-Type");
  }
  // The spec has no 413: a body too large to read cannot be parsed, 400 (docs/emulator.md).
  if (raw.tooLarge) throw badJson(`must be at most ${MAX_BODY_BYTES} bytes`);
  let text: string;
  try {
    text = decoder.decode(raw.bytes);
  } catch {
    throw badJson("is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw badJson("is not valid JSON");
  }
}
