/**
 * G14: with `answers: "richer"` the emulator answers as a richer production DSP might, to rehearse
 * doohctl's tolerant reader: each object and list envelope of a successful answer carries as many
 * extra members as its own, times six fraction digits, an unset URL is `null`. Left alone: the
 * members of an option set (an unknown one blocks any plan that replaces the list, G14) and `pacing`
 * (opaque, G2: an added member would be a pacing change); error answers. At the edge, after the handler.
 */
import type { Reply } from "./context.js";
import { CAMPAIGN_MEMBERS, memberNames } from "./members.js";

export const ANSWER_MODES = ["contract", "richer"] as const;
export type AnswerMode = (typeof ANSWER_MODES)[number];

const TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;
const UNSET_URLS = new Set(["pixel_url", "thumbnail_url"]);
/** Members whose inner shape is not the emulator's to enrich (see above): the opaque ones, and targetings. */
const LEFT_AS_IS = new Set([
  ...memberNames(CAMPAIGN_MEMBERS, (m) => m.kind === "opaque" && !m.derived),
  "targetings",
]);

/** The values of extra members, by index: text, number, object and list in turn. */
const EXTRA: readonly ((i: number) => unknown)[] = [
  () => "richer",
  (i) => i,
  (i) => ({ source: "richer", revision: i }),
  (i) => ["richer", i],
];

function richerTime(text: string): string {
  const match = TIME.exec(text);
  if (!match) return text;
  return `${match[1]}.${(match[2] ?? "").padEnd(6, "0")}Z`;
}

function richer(value: unknown): unknown {
  if (typeof value === "string") return richerTime(value);
  if (Array.isArray(value)) return value.map(richer);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [key, member] of entries) {
    if (UNSET_URLS.has(key) && member === "") out[key] = null;
    else if (key === "targetings" && Array.isArray(member))
      out[key] = member.map((set) => structuredClone(set));
    else out[key] = LEFT_AS_IS.has(key) ? member : richer(member);
  }
  entries.forEach(([key], i) => {
    out[`x_${key}`] = EXTRA[i % EXTRA.length]!(i);
  });
  return out;
}

/** Hot list pages come serialized (`raw`): their richer form is kept too (bounded), as the store's is. */
const MAX_REMEMBERED = 256;
const rememberedRaw = new Map<string, string>();

function richerRaw(raw: string): string {
  let out = rememberedRaw.get(raw);
  if (out === undefined) {
    out = JSON.stringify(richer(JSON.parse(raw)));
    if (rememberedRaw.size >= MAX_REMEMBERED) rememberedRaw.clear();
    rememberedRaw.set(raw, out);
  }
  return out;
}

/** The reply as the answer mode has it: successful answers with a JSON body only. */
export function answerReply(mode: AnswerMode, reply: Reply): Reply {
  if (mode === "contract" || reply.status < 200 || reply.status >= 300) return reply;
  if (reply.raw !== undefined) return { ...reply, raw: richerRaw(reply.raw) };
  if (reply.body === undefined) return reply;
  return { ...reply, body: richer(reply.body) };
}
