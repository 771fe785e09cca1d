/**
 * `doohctl doctor`'s own look at a login: the client keeps the `Set-Cookie` header and the
 * TLS handshake to itself (as it should), so the doctor sends one POST /api/session of its
 * own and keeps only what G9 and G13 are about: the cookie's name and attributes (never its
 * value), the answer's status and body members, and the TLS version and cipher negotiated.
 * The password goes into the request body and nowhere else.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { rootCertificates, type TLSSocket } from "node:tls";
import type { Credentials } from "../../api/types.js";
import { SESSION_PATH } from "../../model/wire.js";

export interface CookieSeen {
  name: string;
  /** Attributes as sent, lower-cased names (`secure`, `httponly`, `path=/`, `expires=...`). */
  attributes: Map<string, string | true>;
}

export interface LoginSeen {
  status: number;
  cookies: CookieSeen[];
  /** Top-level members of the JSON body and their JSON types; undefined when not JSON. */
  body: Record<string, unknown> | undefined;
  /** Undefined over plain HTTP. */
  tls: { protocol: string; cipher: string } | undefined;
}

export class LoginProbeError extends Error {
  override readonly name = "LoginProbeError";
  readonly code = "DOCTOR_LOGIN_FAILED";
}

/** `name=value; Attr; Attr=x` -> the name and the attributes; the value is dropped at once. */
export function parseSetCookie(header: string): CookieSeen {
  const [pair = "", ...attributes] = header.split(";");
  const name = pair.slice(0, Math.max(0, pair.indexOf("="))).trim();
  const seen = new Map<string, string | true>();
  for (const attribute of attributes) {
    const eq = attribute.indexOf("=");
    if (eq < 0) seen.set(attribute.trim().toLowerCase(), true);
    else seen.set(attribute.slice(0, eq).trim().toLowerCase(), attribute.slice(eq + 1).trim());
  }
  return { name, attributes: seen };
}

export function observeLogin(options: {
  origin: string;
  credentials: Credentials;
  ca?: string | undefined;
  timeoutMs?: number;
}): Promise<LoginSeen> {
  const url = new URL(SESSION_PATH, options.origin);
  const body = JSON.stringify({ email: options.credentials.email, password: options.credentials.password });
  const https = url.protocol === "https:";
  const send = https ? httpsRequest : httpRequest;
  return new Promise<LoginSeen>((resolve, reject) => {
    const req = send(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "content-length": Buffer.byteLength(body),
        },
        timeout: options.timeoutMs ?? 30_000,
        agent: false,
        ...(https && options.ca !== undefined ? { ca: [...rootCertificates, options.ca] } : {}),
      },
      (res: IncomingMessage) => {
        const socket = res.socket as TLSSocket;
        const tls =
          https && typeof socket.getProtocol === "function"
            ? { protocol: socket.getProtocol() ?? "unknown", cipher: socket.getCipher()?.name ?? "unknown" }
            : undefined;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            parsed = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            cookies: (res.headers["set-cookie"] ?? []).map(parseSetCookie),
            body:
              typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
                ? (parsed as Record<string, unknown>)
                : undefined,
            tls,
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in time")));
    req.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new LoginProbeError(
          `POST ${SESSION_PATH}: no answer from ${options.origin} (${error.code ?? error.message}); check the origin and the network`,
        ),
      ),
    );
    req.end(body);
  });
}
