/**
 * The control path `/__emulator/` (only with `control: true` / `--control`): read the state and
 * the request log, reset the state, move a virtual clock, change faults. Never limited, faulted
 * or logged; not part of the DSP.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../model/clock.js";
import { Time } from "../model/time.js";
import { parseJsonBody, type RawBody } from "./body.js";
import type { Reply } from "./context.js";
import { type Emulator, send } from "./emulator.js";
import { FaultSpecError, HttpError, invalid, notFound, SeedError } from "./errors.js";
import { isPlainObject } from "./fields.js";
import { buildStore, type EmulatorSeed, placeSeed, seedDialect, validateSeed } from "./seed.js";

interface AdjustableClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

function adjustable(clock: Clock): clock is AdjustableClock {
  const candidate = clock as Partial<AdjustableClock>;
  return typeof candidate.advance === "function" && typeof candidate.set === "function";
}

/** A control body: optional; JSON when present (the Content-Type is not insisted on here). */
function body(raw: RawBody): Record<string, unknown> {
  if (raw.bytes.length === 0 && !raw.tooLarge) return {};
  const value = parseJsonBody(raw, "application/json");
  if (!isPlainObject(value)) throw invalid("body", "must be a JSON object");
  return value;
}

export function controlHandler(
  emulator: Emulator,
  initialSeed: EmulatorSeed,
): (req: IncomingMessage, res: ServerResponse, raw: RawBody, path: string) => void {
  const routes: Record<string, (raw: RawBody) => Reply> = {
    "GET /__emulator/state": () => ({ status: 200, body: emulator.state() }),
    "GET /__emulator/requests": () => ({ status: 200, body: { requests: emulator.requestLog() } }),
    "DELETE /__emulator/requests": () => {
      emulator.clearLog();
      return { status: 204 };
    },
    "POST /__emulator/reset": (raw) => {
      const input = body(raw);
      let seed = initialSeed;
      if (input.seed !== undefined) {
        try {
          seed = placeSeed(validateSeed(input.seed, "seed"), emulator.clock.now()).seed;
        } catch (error) {
          if (error instanceof SeedError)
            throw new HttpError(422, {
              data: [...error.issues].map((i) => ({
                field: i.field ? `seed.${i.field}` : "seed",
                messages: i.messages,
              })),
            });
          throw error;
        }
        // The dialect is how this DSP speaks, chosen when it starts; a reset changes its state only.
        const dialect = seedDialect(seed);
        if (dialect !== undefined && JSON.stringify(dialect) !== JSON.stringify(emulator.dialect)) {
          throw invalid(
            "seed.dialect",
            "differs from the dialect this emulator serves: a reset keeps that one (start another emulator for another dialect)",
          );
        }
      }
      emulator.reset(buildStore(seed));
      return { status: 200, body: emulator.state() };
    },
    "GET /__emulator/clock": () => ({ status: 200, body: { now: Time.fromMillis(emulator.clock.now()) } }),
    "POST /__emulator/clock": (raw) => {
      const input = body(raw);
      const clock = emulator.clock;
      if (!adjustable(clock))
        throw invalid(
          "clock",
          "this emulator's clock cannot be moved: start it with a VirtualClock or an OffsetClock (the CLI does)",
        );
      if (input.advance_ms !== undefined) {
        const ms = input.advance_ms;
        if (!Number.isSafeInteger(ms) || (ms as number) < 0)
          throw invalid("advance_ms", "must be a non-negative integer");
        clock.advance(ms as number);
      } else if (input.set !== undefined) {
        const ms = typeof input.set === "string" ? Date.parse(input.set) : Number.NaN;
        if (Number.isNaN(ms)) throw invalid("set", "must be an ISO 8601 date-time");
        clock.set(ms);
      } else throw invalid("advance_ms", "is required (or set)");
      return { status: 200, body: { now: Time.fromMillis(clock.now()) } };
    },
    "POST /__emulator/faults": (raw) => {
      const input = body(raw);
      if (typeof input.spec !== "string")
        throw invalid("spec", "must be a string like 429:0.1,500:0.05,reset:0.01");
      if (input.seed !== undefined && !Number.isSafeInteger(input.seed))
        throw invalid("seed", "must be an integer");
      try {
        emulator.faults.configure(input.spec, input.seed as number | undefined);
      } catch (error) {
        if (error instanceof FaultSpecError) throw invalid("spec", error.message);
        throw error;
      }
      return { status: 200, body: { spec: emulator.faults.spec } };
    },
  };
  return (req, res, raw, path) => {
    let reply: Reply;
    try {
      const route = routes[`${req.method ?? "GET"} ${path}`];
      if (!route) throw notFound();
      reply = route(raw);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      reply = { status: error.status, body: error.body() };
    }
    send(res, reply);
  };
}
