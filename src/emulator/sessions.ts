/**
 * Sessions (spec, Authentication; G9): random tokens valid 8 hours on the emulator's clock, in
 * memory only: a restarted emulator answers 403 to an old cookie, and the client logs in again.
 */
import { randomBytes } from "node:crypto";
import { SESSION_LIFETIME_MS } from "../model/wire.js";

interface Session {
  email: string;
  expiresAt: number;
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();

  create(email: string, now: number): { token: string; expiresAt: number } {
    const token = randomBytes(24).toString("base64url");
    const expiresAt = now + SESSION_LIFETIME_MS;
    this.sessions.set(token, { email, expiresAt });
    return { token, expiresAt };
  }

  /** The email of the token's session; undefined when it is unknown or expired. */
  lookup(token: string, now: number): string | undefined {
    const session = this.sessions.get(token);
    if (session === undefined || now < session.expiresAt) return session?.email;
    this.sessions.delete(token);
    return undefined;
  }

  end(token: string): void {
    this.sessions.delete(token);
  }

  clear(): void {
    this.sessions.clear();
  }
}

/** The value of one cookie in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}
