/**
 * G9: `POST /api/session` starts a session (cookie `tr-production` or `tr-staging`, 8 hours);
 * DELETE ends it.
 */

import { Time } from "../../model/time.js";
import { SESSION_PATH, sessionCookieName } from "../../model/wire.js";
import { type Reply, type RequestContext, type Route, route } from "../context.js";
import { HttpError, Issues } from "../errors.js";
import { checkKeys } from "../fields.js";
import { readBody } from "./batch.js";

function create(ctx: RequestContext): Reply {
  const issues = new Issues();
  const body = readBody(ctx.json());
  checkKeys(issues, "", body, { writable: ["email", "password"] });
  for (const key of ["email", "password"] as const) {
    if (body[key] === undefined) issues.add(key, "is required");
    // An empty one is a credential that does not match (401), not a missing field (G9).
    else if (typeof body[key] !== "string") issues.add(key, "must be a string");
  }
  issues.throwIfAny();
  const user = ctx.store.userByEmail(body.email as string);
  if (!user || user.password !== body.password) throw new HttpError(401);
  const { token, expiresAt } = ctx.sessions.create(user);
  const cookie = `${sessionCookieName(ctx.environment)}=${token}; Secure; HttpOnly; Path=/; Expires=${new Date(expiresAt).toUTCString()}`;
  return {
    status: 200,
    headers: { "set-cookie": cookie },
    body: { email: user.email, account_id: user.account_id, expires_at: Time.fromMillis(expiresAt) },
  };
}

function end(ctx: RequestContext): Reply {
  if (ctx.token !== undefined) ctx.sessions.end(ctx.token);
  return { status: 204 };
}

export const sessionRoutes: Route[] = [
  { method: "POST", pattern: SESSION_PATH, auth: false, handle: create },
  route("DELETE", SESSION_PATH, end),
];
